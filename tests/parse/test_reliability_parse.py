"""Parsing cost stays linear on adversarial input; front matter and declared codecs cannot hurt.

Linearity is tested by counting work, never by timing it (a timed ratio
failed at random on a busy machine): the function calls, Python and C, that
parsing makes, counted by a profile hook, for two sizes. A quadratic path
grows 100x for 10x the input, a linear one about 10x, and the bound sits far
from both. A quadratic scan hidden inside one C call (a regex) makes no
extra calls and is not seen here; the timings, which do see it, are a
benchmark: ``python benchmarks/reliability.py adversarial``.
"""

from __future__ import annotations

import codecs
import sys
import time

import pytest

from contextpull.parse.decode import decode_bytes
from contextpull.parse.markdown import MAX_METADATA_CHARS, outline
from contextpull.parse.sections import parse_document
from contextpull.settings import SectionSettings

SMALL, LARGE = 20_000, 200_000
#: linear is 10 for 10x the input; quadratic 100
MAX_RATIO = 35


def _repeat(unit: str, size: int) -> str:
    return (unit * (size // len(unit) + 1))[:size]


#: the campaign's inputs (issue 15) and the ones found while fixing them
ADVERSARIAL = {
    "open brackets": lambda n: _repeat("[", n),
    "underscore words": lambda n: _repeat("_a ", n),
    "image openers": lambda n: _repeat("![", n),
    "heading of escaped brackets": lambda n: "# " + _repeat("\\[", n),
    "unclosed docusaurus openers": lambda n: _repeat(":::note x\n\n", n),
    "heading of attribute openers": lambda n: "# a " + _repeat("{#", n),
    "backticks": lambda n: _repeat("`", n),
    "star words": lambda n: _repeat("*a ", n),
    "tag openers in a heading": lambda n: "# " + _repeat("<a ", n),
    "indented mkdocs body": lambda n: "!!! note x\n" + _repeat("    a\n", n),
}
#: plain text's (AsciiDoc sources read as plain text)
PLAIN_ADVERSARIAL = {
    "delimited blocks": lambda n: _repeat("\n----\nx\n", n),
    "two kinds of block, one left open": lambda n: _repeat("\n----\nx\n\n====\ny\n", n // 2) + "\n....\nz\n",
    "anchors over no title": lambda n: _repeat("[[a]]\n", n),
}


def _parse_calls(text: str, format: str = "markdown") -> int:
    """Function calls (Python and built-in) made while parsing ``text``: the work, independent of load."""
    calls = 0

    def count(frame: object, event: str, arg: object) -> None:
        nonlocal calls
        if event in ("call", "c_call"):
            calls += 1

    sys.setprofile(count)
    try:
        parse_document("adversarial", text, SectionSettings(), format=format)
    finally:
        sys.setprofile(None)
    return calls


@pytest.mark.parametrize("name", sorted(ADVERSARIAL))
def test_parsing_work_grows_linearly(name: str) -> None:
    make = ADVERSARIAL[name]
    _parse_calls(make(1_000))  # imports and caches out of the count
    small = _parse_calls(make(SMALL))
    large = _parse_calls(make(LARGE))
    assert large / max(small, 1) < MAX_RATIO, f"{name}: {small:,} calls -> {large:,} calls"


@pytest.mark.parametrize("name", sorted(PLAIN_ADVERSARIAL))
def test_plain_text_parsing_work_grows_linearly(name: str) -> None:
    make = PLAIN_ADVERSARIAL[name]
    _parse_calls(make(1_000), "text")
    small = _parse_calls(make(SMALL), "text")
    large = _parse_calls(make(LARGE), "text")
    assert large / max(small, 1) < MAX_RATIO, f"{name}: {small:,} calls -> {large:,} calls"


def _bomb(levels: int) -> str:
    lines = ["a0: &a0 [" + ",".join(["lol"] * 9) + "]"]
    for level in range(1, levels + 1):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_yaml_aliases_are_refused_before_they_expand() -> None:
    bomb = _bomb(8)
    assert len(bomb) < 500
    started = time.perf_counter()
    result = outline(f"---\n{bomb}---\n# Title\n\nBody.\n")
    assert time.perf_counter() - started < 1.0  # expansion would be 9**8 items
    assert result.metadata == {"front_matter_error": "front matter uses YAML aliases (not read)"}


def test_stored_front_matter_is_bounded_but_the_title_kept() -> None:
    big = "x" * (MAX_METADATA_CHARS + 1)
    result = outline(f"---\ntitle: Kept\nblob: {big}\n---\n\nBody.\n")
    assert result.title == "Kept"
    assert list(result.metadata) == ["front_matter_error"]


def test_oversized_and_deeply_nested_front_matter_are_errors_not_crashes() -> None:
    huge = outline("---\n" + "k: v\n" * 20_000 + "---\n\nBody.\n")
    deep = outline("---\nx: " + "[" * 900 + "]" * 900 + "\n---\n\nBody.\n")
    assert "front_matter_error" in huge.metadata and "front_matter_error" in deep.metadata


def test_ordinary_front_matter_still_reads() -> None:
    result = outline("---\ntitle: Hi\ndate: 2020-01-01\ntags: [a, b]\n---\n\nBody.\n")
    assert result.metadata == {"title": "Hi", "date": "2020-01-01", "tags": ["a", "b"]}


#: codecs Python knows that do not turn bytes into text, or refuse everything
NOT_TEXT = sorted(
    {"base64", "base_64", "bz2", "hex", "quopri", "quotedprintable", "rot13", "rot_13", "uu", "zip", "zlib"}
    | {"base64_codec", "bz2_codec", "hex_codec", "quopri_codec", "uu_codec", "zlib_codec", "undefined"}
)


@pytest.mark.parametrize("name", NOT_TEXT)
@pytest.mark.parametrize(
    "declaration",
    ["encoding: {}\n", "# -*- coding: {} -*-\n", '<meta charset="{}">\n'],
)
def test_a_declared_non_text_codec_falls_back_instead_of_crashing(name: str, declaration: str) -> None:
    codecs.lookup(name)  # Python knows it, so the declaration used to be trusted
    data = declaration.format(name).encode("ascii") + "Café au lait.\n".encode("latin-1")
    assert decode_bytes(data, "declared.md").endswith("Café au lait.\n")


def _decode_seconds(data: bytes) -> float:
    started = time.perf_counter()
    decode_bytes(data, "x.md")
    return time.perf_counter() - started


def test_declared_encoding_scan_costs_what_ordinary_text_costs() -> None:
    ordinary = min(_decode_seconds(b"abc" * 2800 + b"\xff") for _ in range(3))
    hostile = min(_decode_seconds(b"-*-" * 2800 + b"\xff") for _ in range(3))
    assert hostile / max(ordinary, 0.001) < 20  # backtracking: 0.45 s, about 200x
