"""The line scanner (contextpull.parse.markdown_scan) outlines exactly as markdown-it does, or declines."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextpull.parse import markdown_scan
from contextpull.parse.decode import decode_bytes
from contextpull.parse.markdown import markdown_it_outline, outline, scanned_outline

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"

#: lines of the five block kinds the scanner handles, and near misses of each
LINES = [
    # headings, with and without closing sequences, and lines that only look like one
    "# Title",
    "## Sub ##",
    "### Three #",
    "#### four#",
    "# a \\#",
    "#   spaced   ##   ",
    "# #",
    "#",
    "######",
    "###### six",
    "####### seven",
    "#hashtag",
    "  ## indented two",
    "   # indented three",
    # paragraphs, including lines that start like other blocks but are text
    "Plain text.",
    "text with a | pipe",
    "  leading spaces",
    "\xa0nbsp first",
    "\xa0",
    "trailing spaces   ",
    "**bold** start",
    "*emphasis* start",
    "__init__.py",
    "_word_",
    "-flag and --no-cache",
    "--",
    "+plus",
    "=equals",
    "==",
    "1.5 GB",
    "2024 was a year",
    "1) item",
    "[link](x) text",
    "a\\|b",
    "\\# not a heading",
    "`inline` code",
    # fences: markers, lengths, info strings, indentation, closers
    "```",
    "```python",
    "``` a`b",
    "~~~",
    "~~~ info ~~~",
    "~~~~",
    "````",
    "   ```",
    "    ```",
    "```   ",
    "``",
    "~~~`",
    # tables: headers, separators, rows, escaped pipes
    "| a | b |",
    "a | b",
    "|---|---|",
    "--- | ---",
    "|:--|--:|",
    ":-:|:-:",
    "|-|",
    "| - | - |",
    "-|-",
    "| x |",
    "|",
    "| a \\| b | c |",
    "| 1 | 2 | 3 |",
    "  | indented | row |",
    # lists: markers, nesting, continuation and lazy lines, code inside items
    "- item",
    "* item",
    "+ item",
    "1. item",
    "2) item",
    "10. ten",
    "1.item",
    "-item",
    "-",
    "1.",
    "  - nested",
    "    - deeper",
    "   1. nested ordered",
    "  continued in the item",
    "     five spaces",
    "-     code in an item",
    "  ```",
    "   ```",
    "  ~~~",
    "- ```",
    "1. ```sh",
    "- # heading in an item",
    "- [link](x) item",
    "- [ ] task",
    "- !!! note",
    "---",
    "***",
    "- - -",
    "_ _ _",
    "* * *",
    "...",
    "title: x",
    # HTML blocks, link reference definitions and containers
    "<div>",
    "</div>",
    "<!-- comment -->",
    "<!--",
    "-->",
    "<br>",
    "<https://example.org>",
    "<span>inline</span> text",
    "<pre>",
    "</pre>",
    "<details>",
    "[ref]: /url",
    '[ref]: /url "Title"',
    "[ref]: <a b>",
    "[ref]:",
    "[ref]: javascript:alert(1)",
    '"a title line"',
    "!!! note",
    '??? tip "Title"',
    '=== "Tab"',
    "    body of a container",
    ":::note Title",
    ":::",
    # blocks the scanner declines, and lines that decide between them
    "",
    "",
    "",
    "   ",
    "    indented four",
    "    ",
    "> quote",
    ">",
    "> - quoted item",
    "> ```",
    ">> nested quote",
    "> | a | b |",
    "> |---|---|",
    "> [!NOTE]",
    "===",
    "text\twith tab",
]

ENDINGS = ["\n", "", "\n\n", "\n   ", "   "]


def document(lines: list[str], ending: str) -> str:
    return "\n".join(lines) + ending


def assert_identical_when_accepted(text: str) -> bool:
    """Whether the scanner accepted ``text``; if it did, its outline must be markdown-it's."""
    scanned = scanned_outline(text)
    if scanned is None:
        return False
    assert scanned == markdown_it_outline(text), repr(text)
    return True


@settings(max_examples=3000, deadline=None)
@given(lines=st.lists(st.sampled_from(LINES), min_size=1, max_size=14), ending=st.sampled_from(ENDINGS))
def test_scanner_equals_markdown_it_whenever_it_accepts(lines: list[str], ending: str) -> None:
    assert_identical_when_accepted(document(lines, ending))


def test_a_seeded_batch_is_mostly_accepted_and_always_identical() -> None:
    """The differential test above, on a fixed batch: also proves the scanner accepts a fair share."""
    rng = random.Random(14)
    plain = [line for line in LINES if line.strip() and not line.startswith((">", "<", "    "))]
    accepted = 0
    for _ in range(2000):
        pool = plain if rng.random() < 0.5 else LINES
        lines = [rng.choice(pool) if rng.random() < 0.7 else "" for _ in range(rng.randint(1, 20))]
        accepted += assert_identical_when_accepted(document(lines, rng.choice(ENDINGS)))
    assert accepted > 300


CORPUS_FILES = [
    file
    for root in (CORPORA, EXAMPLES)
    if root.is_dir()
    for file in sorted(root.rglob("*"))
    if file.suffix in (".md", ".mdx") and file.is_file()
]


@pytest.mark.skipif(not CORPUS_FILES, reason="no corpora")
def test_every_corpus_file_the_scanner_accepts_outlines_identically() -> None:
    mismatched = []
    for file in CORPUS_FILES:
        text = decode_bytes(file.read_bytes(), file.name)
        scanned = scanned_outline(text)
        if scanned is not None and scanned != markdown_it_outline(text):
            mismatched.append(str(file))
    assert not mismatched, mismatched[:20]


def test_a_plain_document_takes_the_scanner() -> None:
    text = (
        "# Guide\n\nIntro paragraph\nover two lines.\n\n## Install ##\n\n```sh\npip install x\n```\n\n"
        "| name | value |\n|---|:-:|\n| a | 1 |\n| b \\| c | 2 |\n\n### Notes\nTrailing text."
    )
    scanned = scanned_outline(text)
    assert scanned is not None and scanned == markdown_it_outline(text) == outline(text)
    assert [(b.kind, b.heading) for b in scanned.blocks] == [
        ("heading", "Guide"),
        ("paragraph", ""),
        ("heading", "Install"),
        ("code", ""),
        ("table", ""),
        ("heading", "Notes"),
        ("paragraph", ""),
    ]
    assert scanned.lead == "Intro paragraph\nover two lines.\n"
    table = scanned.blocks[4]
    assert text[table.start : table.header_end] == "| name | value |\n|---|:-:|\n"
    assert [text[c : c + 5] for c in table.cuts] == ["| b \\"]


def test_an_unclosed_colon_line_is_a_paragraph_on_both_paths() -> None:
    """mkdocstrings stubs (``::: pkg.Name``) look like a Docusaurus opener but open no container."""
    text = "# Aliases\n\n::: pydantic.aliases\n"
    scanned = scanned_outline(text)
    assert scanned is not None and scanned == markdown_it_outline(text)
    assert [b.kind for b in scanned.blocks] == ["heading", "paragraph"]


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: x\n---\n\n# A\n",  # front matter
        "---\n---\nText\n",  # empty front matter
        "---\ntitle: x\n...\n# A\n",  # closed by dots
        "# A\n\n- item\n- item two\n\n  more of two\n",  # list, loose
        "# A\n\n1. item\n2. two\n3) another list\n",
        "Text\n- a list interrupts\n",
        "Text\n2. no list: a continuation\n",
        "- a\n  - nested\n    ```sh\n    code\n    ```\nlazy\n- b\n",
        "- a\n```\nfence ends the list\n```\n",
        "- a\n\n      indented code in an item\n- b\n",
        "# A\n\n    code\n\n    more\n\nText\n",  # indented code
        "# A\n\n***\n",  # thematic break
        "- a\n* b\n+ c\n",  # three lists
        "<div>\nhtml\n</div>\n",  # HTML block
        "Text\n<!-- a comment ends it -->\nmore\n",
        "[ref]: /url\n\nText [ref].\n",  # link reference definition
        '- [ref]: /url "Title"\n',
        '!!! note "Title"\n\n    Body.\n\n    ```py\n    x = 1\n    ```\n\nAfter.\n',  # MkDocs container
        ":::note\nBody.\n\n- a list\n:::\n",  # Docusaurus container
        "Text\n> quote interrupts\n>\n> ```\n> code\n",  # block quote
        "> [!NOTE]\n> Alert.\n\n> > nested\n# After\n",
    ],
)
def test_the_scanner_takes_lists_front_matter_code_html_references_and_containers(text: str) -> None:
    scanned = scanned_outline(text)
    assert scanned is not None and scanned == markdown_it_outline(text)


def test_a_list_is_cut_at_its_items_and_keeps_its_code() -> None:
    text = "Intro\n\n- one\n- two\n\n  ```py\n  x = 1\n  ```\n- three\n\nAfter\n"
    scanned = scanned_outline(text)
    assert scanned is not None and scanned == markdown_it_outline(text)
    listed = scanned.blocks[1]
    assert listed.kind == "list"
    assert [text[cut : cut + 5] for cut in listed.cuts] == ["- two", "- thr"]
    assert [text[a:b] for a, b in scanned.code] == ["  ```py\n  x = 1\n  ```\n"]


@pytest.mark.parametrize(
    "text",
    [
        "---\ntitle: x\n",  # unclosed front matter
        "> quote\nlazy continuation\n",
        "- item\n  > quote in an item\n",
        "Title\n=====\n",  # setext heading
        "Title\n---\n",
        "- item\n  Title\n  ---\n",  # setext heading in an item
        "[ref]:\n/url\n",  # a definition over two lines
        '[ref]: /url\n"Title"\n',
        "- a\n\n  | x | y |\n  |---|---|\n",  # table in an item
        "-\n  empty item\n",
        "# A\tB\n",  # tab
        "# A\r\nB\r\n",  # carriage return
        "",
    ],
)
def test_the_scanner_declines_what_it_does_not_handle(text: str) -> None:
    assert scanned_outline(text) is None
    assert outline(text) == markdown_it_outline(text)


class _CountingScanner(markdown_scan._Scanner):
    """The scanner, counting the lines each block rule starts from and the lines a paragraph reads."""

    def __init__(self, lines: list[str], quoted: int | None = None, *, at_end: bool = True) -> None:
        super().__init__(lines, quoted, at_end=at_end)
        self.work = 0

    def _block(self, line: int, blk: int, list_indent: int) -> markdown_scan.ScannedBlock:
        block = super()._block(line, blk, list_indent)
        self.work += block.end - line + 1
        return block


@pytest.mark.parametrize(
    "unit",
    [
        "".join("  " * depth + "- item\n" for depth in range(8)),  # lists nested eight deep
        "- a\n\n  ```\n  code\n  ```\n- b\nlazy\n",  # code in items, lazy lines
        "1. step\n   - sub\n     text\n",
    ],
)
def test_the_scanner_does_linear_work_in_nested_lists(unit: str) -> None:
    """Doubling a document of nested lists at most doubles the lines the scanner's rules go over."""
    work = {}
    for copies in (200, 400):
        text = unit * copies
        scanner = _CountingScanner(text.split("\n"))
        scanner.blocks()
        assert markdown_scan.scan(text) is not None
        work[copies] = scanner.work
    assert work[400] <= 2.1 * work[200]
