"""contextpull.parse.markdown's faster markdown-it rules (lean tables, normalise only when needed) change no token."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from contextpull.parse.markdown import _MD

STOCK = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).disable(["inline", "text_join"])
TABLE_INNER = ("thead_", "tbody_", "tr_", "th_", "td_")
CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"


def shape(tokens: list) -> list[tuple]:
    """Every token outside table internals: type, map, level, content."""
    out, inside = [], 0
    for t in tokens:
        if t.type == "table_open":
            inside += 1
        elif t.type == "table_close":
            inside -= 1
        elif inside and (t.type.startswith(TABLE_INNER) or t.type == "inline"):
            continue
        out.append((t.type, t.map, t.level, t.nesting, t.content, t.tag))
    return out


def assert_same(text: str) -> None:
    assert shape(_MD.parse(text)) == shape(STOCK.parse(text))


LINES = [
    "| a | b |",
    "|---|---|",
    "| :-- | --: |",
    "a | b",
    "--- | ---",
    "| x |",
    "|",
    "| a \\| b | c |",
    "x \\|",
    "| a | b | c | d |",
    "",
    "  | indented |",
    "    | code |",
    "> quote",
    "- item",
    "1. item",
    "# heading",
    "```",
    "~~~",
    "<div>",
    "***",
    "text",
    "| a\\\\| b |",
    "|-|",
    ":-:|:-:",
    "\t| tab |",
]


@settings(max_examples=200, deadline=None)
@given(lines=st.lists(st.sampled_from(LINES), min_size=2, max_size=14))
def test_table_extent_matches_the_stock_rule(lines: list[str]) -> None:
    assert_same("\n".join(lines) + "\n")


@settings(max_examples=100, deadline=None)
@given(
    prefix=st.sampled_from(["", "> ", "- ", "1. ", "   "]),
    body=st.lists(st.sampled_from(LINES), min_size=2, max_size=8),
)
def test_nested_tables_match_the_stock_rule(prefix: str, body: list[str]) -> None:
    assert_same("\n".join(prefix + line for line in body) + "\n")


def test_short_rows_stop_at_the_fill_cap() -> None:
    header = "|" + "|".join("c" for _ in range(300)) + "|\n|" + "|".join("-" for _ in range(300)) + "|\n"
    assert_same(header + "x\n" * 400)


@pytest.mark.skipif(not CORPORA.is_dir(), reason="shared corpora not present")
def test_every_corpus_file_parses_the_same() -> None:
    files = sorted(p for p in CORPORA.rglob("*") if p.suffix in (".md", ".mdx", ".markdown"))
    assert files
    for path in files:
        assert_same(path.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.parametrize("text", ["a\r\nb\n", "| a |\r| - |\r| \0 |\n", "# T\0\n\ntext\n", "plain\n"])
def test_line_ends_and_nul_are_normalised_as_before(text: str) -> None:
    assert_same(text)  # shapes include each token's content
