"""Ingest throughput per document format, and one ingest of a mixed folder of every format.

    python benchmarks/format_throughput.py [--per-format 30] [--workers 1] [--json]

Writes a folder of generated documents (tests/format_fixtures.py: PDF
manuals of five pages with a running header, a two-column page and a table
over a page break, and manuals of 60 pages with no table; Word files with lists, tables and footnotes; workbooks;
slide decks; HTML pages; reStructuredText; CSV and TSV) with
``--per-format`` files of each, table sizes varied so no two files of a
format are alike. Each format's subfolder is ingested into a store of its
own (MB/s of file bytes and sections/s, wall time), then the whole folder
in one ingest. Rates are over CPU seconds (this process plus its parser
child, which is where PDF, Office and HTML parsing happens); wall seconds are
shown too but on a shared machine they mostly measure the neighbours. Needs
the `all` and `test` extras.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import format_fixtures as ff
from contextpull import ingest

Writer = Callable[[Path, int], Any]
WRITERS: dict[str, tuple[str, Writer]] = {
    "pdf": (".pdf", lambda path, n: ff.write_pdf(path)),
    # a 60-page manual with no table (most of a PDF documentation set): PDFium alone, no pdfplumber
    "pdf-text": (".pdf", lambda path, n: ff.write_text_pdf(path, chapters=30)),
    "docx": (".docx", lambda path, n: ff.write_docx(path, rows=20 + 7 * n)),
    "xlsx": (".xlsx", lambda path, n: ff.write_xlsx(path, rows=50 + 11 * n)),
    "pptx": (".pptx", lambda path, n: ff.write_pptx(path)),
    "html": (".html", lambda path, n: ff.write_html(path, rows=30 + 9 * n)),
    "rst": (".rst", lambda path, n: ff.write_rst(path, rows=30 + 9 * n)),
    "csv": (".csv", lambda path, n: ff.write_csv(path, rows=100 + 13 * n)),
    "tsv": (".tsv", lambda path, n: ff.write_csv(path, rows=100 + 13 * n, delimiter="\t")),
}


def build(root: Path, per_format: int) -> dict[str, int]:
    """Write the folder; return the bytes written per format."""
    sizes = {}
    for name, (suffix, write) in WRITERS.items():
        folder = root / name
        folder.mkdir(parents=True)
        for n in range(per_format):
            write(folder / f"{name}-{n:03d}{suffix}", n)
        sizes[name] = sum(path.stat().st_size for path in folder.iterdir())
    return sizes


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (the parser child ends with the ingest)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _timed_ingest(root: Path, store: Path, workers: int) -> tuple[Any, float, float]:
    started, cpu = time.perf_counter(), _cpu()
    report = ingest(root, store, workers=workers)
    return report, time.perf_counter() - started, _cpu() - cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--per-format", type=int, default=30)
    parser.add_argument("--workers", type=int, default=1, help="0: one per CPU for large jobs")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "mixed"
        sizes = build(root, args.per_format)
        for name in WRITERS:
            report, wall, cpu = _timed_ingest(root / name, Path(tmp) / f"{name}.sqlite", args.workers)
            rows.append({"format": name, **_figures(report, sizes[name], wall, cpu)})
        mixed, wall, cpu = _timed_ingest(root, Path(tmp) / "mixed.sqlite", args.workers)
        summary = {**_figures(mixed, sum(sizes.values()), wall, cpu), "skipped": mixed.skipped}
    if args.json:
        print(json.dumps({"per_format": rows, "mixed": summary, "workers": args.workers}, indent=2))
        return 0
    print(
        f"{'format':7} {'files':>5} {'MB':>6} {'sections':>8} {'cpu s':>6} {'wall s':>6} {'MB/s':>6} {'sections/s':>10}"
    )
    for name, row in [*((row["format"], row) for row in rows), ("mixed", summary)]:
        print(
            f"{name:7} {row['stored']:5} {row['mb']:6.2f} {row['sections']:8} {row['cpu_s']:6.2f} "
            f"{row['wall_s']:6.2f} {row['mb_per_s']:6.3f} {row['sections_per_s']:10.1f}"
        )
    print(
        f"(mixed: one ingest of all {summary['files']} files, {len(summary['skipped'])} skipped; rates per CPU second)"
    )
    return 0


def _figures(report: Any, size: int, wall: float, cpu: float) -> dict[str, Any]:
    return {
        "files": report.documents_seen,
        "stored": report.documents,
        "mb": round(size / 1e6, 3),
        "sections": report.sections,
        "cpu_s": round(cpu, 2),
        "wall_s": round(wall, 2),
        "mb_per_s": round(size / 1e6 / cpu, 3),
        "sections_per_s": round(report.sections / cpu, 1),
    }


if __name__ == "__main__":
    sys.exit(main())
