"""The snippet's fast match finder gives exactly what checking every line and token gives (issue 14).

:func:`contextpull.ops.snippets._matches` searches the case-folded section
once and tokenises only the chunks holding a query term;
:func:`~contextpull.ops.snippets._matches_by_line` is the plain definition.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from contextpull.analysis.terms import index_terms
from contextpull.ops.snippets import _matches, _matches_by_line, make_snippet

#: pieces that exercise tokens, identifiers, code spans, URLs and case folding that changes lengths
PIECES = [
    "cache",
    "Cache",
    "CACHE_DIR",
    "--no-cache",
    "tool.uv.sources",
    "uv",
    "ß",
    "Straße",
    "İstanbul",
    "ﬁle",
    "`cache`",
    "https://example.com/cache",
    "[x](http://a.b/cache)",
    "<http://cache.io>",
    "caches",
    "cached",
    "running",
    "run",
    "TX-4419",
    "tx",
    "4419",
    "/cache/",
    "cache.",
    "a",
    "the",
    "é",
    "Ǆ",
]
SEPARATORS = [" ", "  ", "\n", "\t", "\u00a0", "\u2003", ", ", ".\n", "\n\n"]


@st.composite
def texts(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(PIECES), max_size=40))
    return "".join(word + draw(st.sampled_from(SEPARATORS)) for word in words)


@st.composite
def wanted(draw: st.DrawFn) -> set[str]:
    query = draw(st.lists(st.sampled_from(PIECES), min_size=1, max_size=3))
    return {term for word in query for term in index_terms(word)}


@settings(max_examples=400, deadline=None)
@given(text=texts(), terms=wanted(), origin=st.integers(0, 30))
def test_fast_matches_equal_line_by_line(text: str, terms: set[str], origin: int) -> None:
    origin = min(origin, len(text))
    assert _matches(text, origin, terms) == _matches_by_line(text, origin, terms)


def test_a_long_section_marks_every_occurrence() -> None:
    text = "# Title\n\n" + "filler words here. " * 300 + "set `x` and UV_CACHE_DIR now\n" + "more " * 50
    snippet = make_snippet(text, {"uv_cache_dir"}, 80)
    assert "**UV_CACHE_DIR**" in snippet
