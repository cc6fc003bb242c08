"""Which PDF library to extract with: speed and quality of four candidates on one fixture.

    python benchmarks/pdf_extractors.py [--copies 20] [--json]

Writes the test suite's manual PDF (running header and footer, a two-column
page, a ruled table over a page break, a page with no text layer) plus an
encrypted and a truncated copy, then measures pypdfium2, pdfplumber, pypdf
and pdfminer.six: milliseconds per page for plain text over the manual
repeated ``--copies`` times (best of three), and what each exposes that
sectioning needs: the two columns in reading order in its plain text,
per-character font size and weight, tables with cells, and distinct errors
for an encrypted and a corrupt file. Needs the `pdf` and `test` extras plus
pypdfium2, pypdf (pip install pypdfium2 pypdf). Figures in
docs/adr/015-pdf-extraction.md.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from format_fixtures import write_encrypted_pdf, write_pdf

LEFT_END, RIGHT_START = "Mount the pump", "Connect the discharge"


def pypdfium2_text(data: bytes) -> list[str]:
    import pypdfium2

    document = pypdfium2.PdfDocument(data)
    return [document[i].get_textpage().get_text_range() for i in range(len(document))]


def pdfplumber_text(data: bytes) -> list[str]:
    import pdfplumber

    with pdfplumber.open(io.BytesIO(data)) as pdf:
        return [page.extract_text() or "" for page in pdf.pages]


def pdfplumber_as_used(data: bytes) -> list[str]:
    """What contextpull.parse.pdf asks of pdfplumber: words with size and font, and tables."""
    from contextpull.parse import pdf

    return [pdf.render(data).text]


def pypdf_text(data: bytes) -> list[str]:
    import pypdf

    return [page.extract_text() for page in pypdf.PdfReader(io.BytesIO(data)).pages]


def pdfminer_text(data: bytes) -> list[str]:
    from pdfminer.high_level import extract_pages
    from pdfminer.layout import LTTextContainer

    return [
        "".join(element.get_text() for element in page if isinstance(element, LTTextContainer))
        for page in extract_pages(io.BytesIO(data))
    ]


CANDIDATES: dict[str, Callable[[bytes], list[str]]] = {
    "pypdfium2": pypdfium2_text,
    "pdfplumber": pdfplumber_text,
    "pypdf": pypdf_text,
    "pdfminer.six": pdfminer_text,
}
#: what each library's API exposes (checked by reading the API, listed for the table)
EXPOSES = {
    "pypdfium2": {"font_size_weight": True, "tables": False},
    "pdfplumber": {"font_size_weight": True, "tables": True},
    "pypdf": {"font_size_weight": False, "tables": False},
    "pdfminer.six": {"font_size_weight": True, "tables": False},
}


def _columns_in_order(page_text: str) -> bool:
    """True when the whole left column comes before the right one (no line interleaving)."""
    left, right = page_text.find(LEFT_END), page_text.find(RIGHT_START)
    left_tail = page_text.rfind("the log.", 0, right) if right >= 0 else -1
    return 0 <= left < right and left_tail > left and "concrete base. The pump" in " ".join(page_text.split())


def _error(fn: Callable[[bytes], list[str]], data: bytes) -> str:
    try:
        fn(data)
    except Exception as err:  # noqa: BLE001 - each library has its own error types; the name is the finding
        return type(err).__name__
    return "no error"


def _best_ms(fn: Callable[[bytes], Any], data: bytes, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        fn(data)
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    import pypdf

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        manual = write_pdf(folder / "manual.pdf").read_bytes()
        encrypted = write_encrypted_pdf(folder / "encrypted.pdf").read_bytes()
    writer = pypdf.PdfWriter()
    for _ in range(args.copies):
        writer.append(io.BytesIO(manual))
    buffer = io.BytesIO()
    writer.write(buffer)
    big = buffer.getvalue()
    pages = len(pypdf.PdfReader(io.BytesIO(big)).pages)
    rows = []
    for name, fn in CANDIDATES.items():
        rows.append(
            {
                "library": name,
                "ms_per_page": round(_best_ms(fn, big) / pages, 2),
                "columns_in_order": _columns_in_order(fn(manual)[1]),
                **EXPOSES[name],
                "encrypted_error": _error(fn, encrypted),
                "corrupt_error": _error(fn, manual[:3000]),
            }
        )
    used = round(_best_ms(pdfplumber_as_used, big, rounds=1) / pages, 2)
    if args.json:
        print(json.dumps({"pages": pages, "candidates": rows, "contextpull_pdf_ms_per_page": used}, indent=2))
        return 0
    print(f"{pages} pages; plain text, best of 3 (noisy on a shared machine)")
    print(f"{'library':14} {'ms/page':>8}  columns  fonts  tables  encrypted / corrupt")
    for row in rows:
        print(
            f"{row['library']:14} {row['ms_per_page']:8.2f}  {row['columns_in_order']!s:7}  "
            f"{row['font_size_weight']!s:5}  {row['tables']!s:6}  {row['encrypted_error']} / {row['corrupt_error']}"
        )
    print(f"contextpull.parse.pdf (pdfplumber words + tables + layout): {used:.2f} ms/page")
    return 0


if __name__ == "__main__":
    sys.exit(main())
