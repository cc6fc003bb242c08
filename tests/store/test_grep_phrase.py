"""The word-index phrase grep falls back to never loses a section that contains the needle.

``store.queries.word_phrase`` stands in for the trigram candidates when a
needle's trigrams are all common; it is only correct if every section whose
case-folded text contains the needle matches the phrase. That rests on facts
about Unicode case folding (checked here for every code point) and on the
term analysis (checked against real stores).
"""

from __future__ import annotations

import re
import sqlite3
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from contextpull.records import ParsedDocument, Section
from contextpull.store.queries import word_phrase
from contextpull.store.writer import StoreWriter

_PIECE_CHAR = re.compile(r"[^\W_]")
_ASCII_ALNUM = re.compile(r"[a-z0-9]+")


def test_case_folding_facts_the_phrase_relies_on() -> None:
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        folded = char.casefold()
        assert folded, f"U+{code:04X} folds to nothing"
        if _ASCII_ALNUM.fullmatch(folded):
            assert _PIECE_CHAR.match(char), f"U+{code:04X} folds to a word but is no word character"
        if " " in folded:
            assert char == " ", f"U+{code:04X} folds to a space"


def test_phrase_shapes() -> None:
    assert word_phrase("cache") is None
    assert word_phrase("cache index") is None  # the first part may end a longer token
    assert word_phrase("the cache index") == 'body : ("cache" AND "index" *)'
    assert word_phrase("a cache index then") == 'body : ("cache" AND "index" AND "then" *)'
    assert word_phrase("a cache index, then") is None  # "index," is no whole token
    assert word_phrase("a cache index ,x") == 'body : ("cache" AND "index")'
    assert word_phrase("x tool.uv a b c") == 'body : ("a" AND "b" AND "c" *)'
    assert word_phrase("x naïve a b") == 'body : ("a" AND "b" *)'


WORDS = [
    "cache",
    "index",
    "Cache",
    "INDEX",
    "tool.uv.sources",
    "UV_CACHE_DIR",
    "--no-cache",
    "TX-4419",
    "straße",
    "STRASSE",
    "\u212aelvin",
    "kelvin",
    "ſtop",
    "stop",
    "ﬁle",
    "file",
    "İstanbul",
    "a",
    "b",
    "3.12",
    "x_y",
    "naïve",
    "café",
    "(cache)",
    "index.",
    "`cache`",
    "cache,",
    "caChe",
    "autoInstallPeers",
    "HTTPServer",
    "uv's",
    "docs/",
    "policies",
    "fields",
]
SEPARATORS = [" ", " ", " ", "  ", "\n", "\t", ", ", " - "]


@st.composite
def texts(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=12))
    return "".join(word + draw(st.sampled_from(SEPARATORS)) for word in words)


def build_store(path: Path, bodies: list[str]) -> sqlite3.Connection:
    sections, start = [], 0
    for ordinal, body in enumerate(bodies):
        sections.append(Section("d.md", ordinal, ("Heading",), "prose", body, start, start + len(body)))
        start += len(body)
    doc = ParsedDocument("d.md", "".join(bodies), "d", "d", {}, tuple(sections))
    path.unlink(missing_ok=True)
    with StoreWriter(path) as writer:
        writer.put(doc, "0" * 64, start)
        writer.commit()
    return sqlite3.connect(path)


@settings(max_examples=150, deadline=None)
@given(bodies=st.lists(texts(), min_size=1, max_size=4), data=st.data())
def test_every_section_containing_the_needle_matches_the_phrase(
    tmp_path_factory, bodies: list[str], data: st.DataObject
) -> None:
    source = data.draw(st.sampled_from(bodies))
    start = data.draw(st.integers(0, len(source) - 1))
    needle = source[start : start + data.draw(st.integers(3, 40))]
    needle = data.draw(st.sampled_from([needle, needle.upper(), needle.swapcase()])).casefold()
    phrase = word_phrase(needle)
    if phrase is None:
        return
    conn = build_store(tmp_path_factory.getbasetemp() / "phrase.sqlite", bodies)
    try:
        ids = [rowid for (rowid,) in conn.execute("SELECT id FROM sections ORDER BY ordinal")]
        matched = {
            rowid for (rowid,) in conn.execute("SELECT rowid FROM sections_fts WHERE sections_fts MATCH ?", (phrase,))
        }
    finally:
        conn.close()
    for rowid, body in zip(ids, bodies, strict=True):
        if needle in body.casefold():
            assert rowid in matched, (needle, phrase, body)
