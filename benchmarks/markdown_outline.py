"""What the line scanner saves: Markdown outlining with and without it, per corpus.

    python benchmarks/markdown_outline.py                  # the shared corpora and examples/corpus
    python benchmarks/markdown_outline.py --corpora DIR --repeat 5 --json

For every ``.md``/``.mdx`` file under each corpus folder, times
``markdown_it_outline()`` (markdown-it-py for every document) against
``outline()`` (the scanner first, markdown-it where it declines), in CPU
seconds of this process, best of ``--repeat`` with the two alternated; and
counts the files the scanner takes. Every accepted file's outline is checked
against markdown-it's (the test suite's contract, here on the timed files);
a difference stops the run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from contextpull.parse.decode import decode_bytes
from contextpull.parse.markdown import markdown_it_outline, outline, scanned_outline

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_CORPORA = [*sorted(Path("/work/shared/corpora").glob("*")), ROOT / "examples" / "corpus"]


def cpu_seconds(run: Callable[[], object]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def measure(folder: Path, repeat: int) -> dict[str, object]:
    files = sorted(p for p in folder.rglob("*") if p.suffix in (".md", ".mdx") and p.is_file())
    texts = [decode_bytes(p.read_bytes(), p.name) for p in files]
    taken = 0
    for path, text in zip(files, texts):
        scanned = scanned_outline(text)
        if scanned is None:
            continue
        taken += 1
        if scanned != markdown_it_outline(text):
            raise SystemExit(f"{path}: the scanner's outline differs from markdown-it's")
    markdown_it: list[float] = []
    both: list[float] = []
    for _ in range(repeat):
        markdown_it.append(cpu_seconds(lambda: [markdown_it_outline(text) for text in texts]))
        both.append(cpu_seconds(lambda: [outline(text) for text in texts]))
    return {
        "corpus": folder.name,
        "files": len(files),
        "scanned": taken,
        "markdown_it_s": min(markdown_it),
        "outline_s": min(both),
        "speedup": min(markdown_it) / min(both) if min(both) else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path, nargs="*", help="corpus folders (default: the shared corpora)")
    parser.add_argument("--repeat", type=int, default=3, help="alternated rounds; the best of each is kept")
    parser.add_argument("--json", action="store_true", help="one JSON object per corpus")
    args = parser.parse_args()
    folders = [f for f in (args.corpora or DEFAULT_CORPORA) if f.is_dir()]
    if not folders:
        sys.exit("no corpus folder found: give --corpora DIR")
    rows = [measure(folder, args.repeat) for folder in folders]
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return
    print("| corpus | files | taken by the scanner | markdown-it only (CPU s) | outline() (CPU s) | speed-up |")
    print("|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['corpus']} | {row['files']} | {row['scanned']} | {row['markdown_it_s']:.3f} |"
            f" {row['outline_s']:.3f} | {row['speedup']:.1f}x |"
        )


if __name__ == "__main__":
    main()
