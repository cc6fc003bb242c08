"""A long differential run of the Markdown line scanner against markdown-it, beyond the test suite's.

    python benchmarks/scanner_fuzz.py                     # 3 generators x 60,000 documents, seed 1
    python benchmarks/scanner_fuzz.py --documents 100000 --seed 7

Three generators: documents of lines from the test suite's pool
(tests/parse/test_markdown_scan.py ``LINES``); documents of list, quote, HTML,
reference and container lines at random indents, with front matter now and
then; random strings over Markdown's significant characters and markers.
Every document the scanner accepts must outline exactly as markdown-it
outlines it (docs/adr/025-markdown-scanner-mirrors-block-rules.md). Prints,
per generator, the documents accepted and mismatched, and the first
mismatches; exits 1 if there was any.
"""

from __future__ import annotations

import argparse
import random
import sys
from collections.abc import Callable
from pathlib import Path

from contextpull.parse.markdown import markdown_it_outline, scanned_outline

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "parse"))
from test_markdown_scan import ENDINGS, LINES

BODIES = [
    *("- x", "* x", "+ x", "1. x", "2. x", "1) x", "x y", "text", "```", "```py", "~~~", "# h", "## h ##"),
    *("---", "***", "- - -", "-", "1.", "-  two", "-     five", "| a | b |", "|---|---|", "[x](y)", "=", "--"),
    *("...", "- ```", "1. ```", "- # h", "title: t", "<div>", "</div>", "<!-- c -->", "<!--", "-->", "<br>"),
    *("<https://x>", "<span>x</span>", "<pre>", "</pre>", "[x]: /u", '[x]: /u "t"', '"title"', "(p)", "[x]:"),
    *("[x]: <a b>", "- [x]: y", "!!! note", '=== "Tab"', "    body", ":::", ":::note", "::: pkg.x", "<details>"),
    *("> q", ">", "> - x", "> ```", "> # h", ">> deep", "> > deep", ">x", "> | a | b |", "> |---|---|", "> [!NOTE]"),
]
CHARACTERS = [
    *"  \n\n\n#-*+_=>|:`~[]()<!\\\"'.1a b",
    *("```", "---", "- ", "1. ", "> ", ">> ", "> > ", "    ", "<!--", "-->", "<div>", "]: ", "!!! ", ":::"),
]


def from_pool(rng: random.Random) -> str:
    lines = [rng.choice(LINES) if rng.random() < 0.75 else "" for _ in range(rng.randint(1, 16))]
    return "\n".join(lines) + rng.choice(ENDINGS)


def indented(rng: random.Random) -> str:
    lines = ["" if rng.random() < 0.2 else " " * rng.choice([0, 0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 8]) + rng.choice(BODIES)]
    lines += [
        "" if rng.random() < 0.2 else " " * rng.choice([0, 0, 0, 1, 2, 2, 3, 4, 4, 5, 6, 8]) + rng.choice(BODIES)
        for _ in range(rng.randint(0, 13))
    ]
    if rng.random() < 0.2:
        lines = ["---", "title: a", "---", *lines]
    return "\n".join(lines) + rng.choice(["\n", "", "\n\n"])


def characters(rng: random.Random) -> str:
    return "".join(rng.choice(CHARACTERS) for _ in range(rng.randint(1, 80)))


GENERATORS: dict[str, Callable[[random.Random], str]] = {
    "test pool lines": from_pool,
    "indented list, quote and HTML lines": indented,
    "random characters": characters,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", type=int, default=60_000, help="documents per generator")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    failed = False
    for name, generate in GENERATORS.items():
        rng = random.Random(args.seed)
        accepted = mismatched = 0
        for _ in range(args.documents):
            text = generate(rng)
            scanned = scanned_outline(text)
            if scanned is None:
                continue
            accepted += 1
            if scanned != markdown_it_outline(text):
                mismatched += 1
                if mismatched <= 5:
                    print(f"  mismatch: {text!r}")
        failed |= mismatched > 0
        print(f"{name}: {args.documents:,} documents, {accepted:,} accepted, {mismatched} mismatched")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
