"""grep: case folding, ordering, truncation, hostile regexes, and trigram == full scan."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextpull.errors import BadFilter, OutOfRange, PatternRejected, WrongType
from contextpull.ingestion.run import ingest
from contextpull.ops.grep import PATTERN_MAX, LineHit, RegexPattern, required_literal, trim_line
from contextpull.ops.operations import Ops
from contextpull.store import queries
from ops_support import ONE_SECTION_PER_HEADING, SMALL_CORPUS, write_corpus

HOSTILE = "a" * 5000 + "b"
CORPUS = dict(
    SMALL_CORPUS,
    **{
        "misc/hostile.md": f"# Hostile\n\n{HOSTILE}\n",
        "misc/long-line.md": "# Long\n\n" + "word " * 200 + "NEEDLE-42 " + "word " * 200 + "\n",
    },
)


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    tmp = tmp_path_factory.mktemp("grep")
    store = tmp / "store.sqlite"
    ingest(write_corpus(tmp / "corpus", CORPUS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as opened:
        yield opened


@pytest.fixture(scope="module")
def sections(ops: Ops) -> list[queries.SectionRow]:
    return list(ops.store.sections_in_order())


def full_scan_ids(sections: list[queries.SectionRow], pattern: str) -> list[str]:
    folded = pattern.casefold()
    return [row.sid for row in sections if folded in (row.text or "").casefold()]


def grep_ids(ops: Ops, pattern: str, **kwargs: object) -> list[str]:
    return [m.id for m in ops.grep(pattern, limit=100, **kwargs).matches]


def test_prefix_of_a_code_matches_inside_the_code(ops: Ops) -> None:
    result = ops.grep("TX-45")
    assert [m.id for m in result.matches] == ["policies/travel.md#1"]
    assert result.matches[0].line == "| TX-4501 | 120 EUR |"
    assert result.matches[0].line_number == 9  # the line in the file, not in the section


def test_more_lines_per_section_on_request_numbered_as_in_the_file(ops: Ops) -> None:
    one = ops.grep("TX-45", regex=True)
    assert one.matches[0].more_lines == () and "more_lines" not in one.matches[0].to_dict()
    for regex in (False, True):
        (match,) = ops.grep("TX-45", regex=regex, lines=10).matches
        shown = [(match.line_number, match.line), *((m.line_number, m.line) for m in match.more_lines)]
        assert shown == [(9, "| TX-4501 | 120 EUR |"), (10, "| TX-4502 | 95 EUR |")]
    (capped,) = ops.grep("TX-45", lines=1).matches
    assert capped.more_lines == ()
    with pytest.raises(OutOfRange):
        ops.grep("TX-45", lines=0)


@pytest.mark.parametrize(
    ("pattern", "line_part"),
    [
        ("strasse", "Straße"),
        ("STRAẞE", "Straße"),
        ("ß", "Straße"),
        ("İSTANBUL", "İstanbul"),
        ("FILE", "ﬁle"),
        ("ﬁle", "ﬁle"),
        ("ÆRØ", "Ærø"),
        ("ǆemal", "ǅemal"),
    ],
)
def test_unicode_case_folding(ops: Ops, pattern: str, line_part: str) -> None:
    matches = ops.grep(pattern).matches
    assert matches and matches[0].id == "policies/travel.md#2"
    assert line_part in matches[0].line


def test_ordered_by_path_then_numeric_ordinal_and_truncated(ops: Ops) -> None:
    result = ops.grep("numbered part", limit=10)
    assert [m.id for m in result.matches] == [f"policies/numbers.md#{n}" for n in range(1, 11)]
    assert result.truncated is True
    whole = ops.grep("numbered part", limit=12)
    assert whole.truncated is False and len(whole.matches) == 12
    assert ops.grep("nu", limit=12).truncated is True  # short patterns scan in order and stop


def test_filter_and_no_match_hint(ops: Ops) -> None:
    assert {m.doc for m in ops.grep("cache", in_="guides/usage.md").matches} == {"guides/usage.md"}
    empty = ops.grep("no such text anywhere")
    assert empty.matches == () and not empty.truncated and "search" in (empty.hint or "")
    with pytest.raises(BadFilter):
        ops.grep("cache", in_="nowhere")


def test_long_lines_are_trimmed_with_the_match_visible(ops: Ops) -> None:
    line = ops.grep("needle-42").matches[0].line
    assert "NEEDLE-42" in line and len(line) <= 202 and line.startswith("…") and line.endswith("…")
    hit = LineHit(1, "x" * 500 + "END", 500, 503)
    assert trim_line(hit, 50).endswith("END")


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"pattern": ""}, PatternRejected),
        ({"pattern": "x" * (PATTERN_MAX + 1)}, PatternRejected),
        ({"pattern": "a\nb"}, PatternRejected),
        ({"pattern": 5}, WrongType),
        ({"limit": 0}, OutOfRange),
        ({"limit": 101}, OutOfRange),
        ({"regex": "yes"}, WrongType),
        ({"pattern": "\udcff"}, PatternRejected),
    ],
)
def test_argument_bounds(ops: Ops, kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        ops.grep(**{"pattern": "cache", **kwargs})


def test_bounds_accepted_at_the_edges(ops: Ops) -> None:
    assert ops.grep("x" * PATTERN_MAX).matches == ()
    assert len(ops.grep("a", limit=1).matches) == 1
    assert ops.grep("a", limit=100).matches


def test_regex_mode(ops: Ops) -> None:
    assert grep_ids(ops, r"tx-45\d\d", regex=True) == ["policies/travel.md#1"]
    assert grep_ids(ops, r"^## part 1\d$", regex=True) == ["policies/numbers.md#11", "policies/numbers.md#12"]
    match = ops.grep(r"rate\s*\|", regex=True).matches[0]
    assert match.line == "| Code | Rate |"


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(a)\\1", "backreferences or lookaround"),
        ("(?=a)b", "backreferences or lookaround"),
        ("(?<!a)b", "backreferences or lookaround"),
        ("(", "invalid regex"),
        ("a{2000}", "invalid regex"),
        ("((((a{1000}){1000}){1000}){1000})", ""),
    ],
)
def test_regexes_re2_cannot_run_are_rejected_with_the_reason(ops: Ops, pattern: str, reason: str) -> None:
    with pytest.raises(PatternRejected) as caught:
        ops.grep(pattern, regex=True)
    assert reason in caught.value.message


def test_catastrophic_backtracking_pattern_runs_in_linear_time(ops: Ops) -> None:
    started = time.perf_counter()
    result = ops.grep("(a+)+$", regex=True)
    assert time.perf_counter() - started < 1.0
    assert result.matches and not result.truncated
    assert [m.doc for m in ops.grep("(a+)+b$", regex=True).matches] == ["misc/hostile.md"]


def test_same_call_twice_is_identical(ops: Ops) -> None:
    assert ops.grep("cache").to_dict() == ops.grep("cache").to_dict()


# --- trigram candidates are exactly a full scan ------------------------------------
TRICKY = [
    "ß",
    "SS",
    "ẞ",
    "İ",
    "i̇",
    "ı",
    "I",
    "ﬁ",
    "FI",
    "ǅ",
    "ǆ",
    "Σ",
    "ς",
    "σ",
    "K",
    "\u212a",
    "ſ",
    "Æ",
    "é",
    "e\u0301",
]


@st.composite
def patterns(draw: st.DrawFn) -> str:
    kind = draw(st.sampled_from(["substring", "tricky", "random"]))
    if kind == "substring":
        text = draw(st.sampled_from(sorted(CORPUS.values())))
        start = draw(st.integers(0, len(text) - 1))
        piece = text[start : start + draw(st.integers(1, 12))]
        return draw(st.sampled_from([piece, piece.upper(), piece.swapcase(), piece.casefold()]))
    if kind == "tricky":
        return "".join(draw(st.lists(st.sampled_from(TRICKY + list("straeinofl ")), min_size=1, max_size=6)))
    return draw(st.text(min_size=1, max_size=8))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=patterns())
def test_trigram_grep_equals_a_full_scan(ops: Ops, sections: list[queries.SectionRow], pattern: str) -> None:
    if "\n" in pattern or "\r" in pattern:
        with pytest.raises(PatternRejected):
            ops.grep(pattern)
        return
    expected = full_scan_ids(sections, pattern)
    result = ops.grep(pattern, limit=100)
    assert [m.id for m in result.matches] == expected[:100]
    assert result.truncated == (len(expected) > 100)
    for match in result.matches:
        assert pattern.casefold() in match.line.casefold() or len(match.line) >= 200


# --- a regex's required literal never loses a match ----------------------------------
ATOMS = ["a", "b", "ab", "x", "-", "\\.", ".", "\\d", "[ab]", "[^a]", "(ab|x)", "(?:a)", "\\w", " ", "s", "S", "ß", "k"]
QUANTIFIERS = ["", "", "", "*", "+", "?", "{2}", "{0,2}", "+?"]


@st.composite
def regexes(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.tuples(st.sampled_from(ATOMS), st.sampled_from(QUANTIFIERS)), min_size=1, max_size=6))
    body = "".join(atom + quantifier for atom, quantifier in parts)
    return body + "|" + draw(st.sampled_from(ATOMS)) if draw(st.integers(0, 4)) == 0 else body


@settings(max_examples=200, deadline=None)
@given(pattern=regexes(), text=st.text(alphabet="abxsSßkK\u212a-. 1é", max_size=20))
def test_required_literal_is_in_every_match(pattern: str, text: str) -> None:
    try:
        compiled = RegexPattern(pattern)
    except PatternRejected:
        return
    literal = required_literal(pattern)
    if literal and compiled.lines(text, 1):
        assert literal.casefold() in text.casefold()


@pytest.mark.parametrize(
    ("pattern", "literal"),
    [
        ("TX-\\d+", "TX-"),
        ("abc|def", None),
        ("(abc|x)defg", "defg"),
        ("ab?cdef", "cdef"),
        ("\\x41BCD", None),
        ("cache\\.dir", "cache.dir"),
        ("[]abc]xyz", "xyz"),
        ("(?i)hello", "hello"),
        ("colou?r", "colo"),
    ],
)
def test_required_literal_examples(pattern: str, literal: str | None) -> None:
    assert required_literal(pattern) == literal


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=regexes())
def test_regex_grep_with_prefilter_equals_a_full_scan(
    ops: Ops, sections: list[queries.SectionRow], pattern: str
) -> None:
    try:
        compiled = RegexPattern(pattern)
    except PatternRejected:
        return
    expected = [row.sid for row in sections if compiled.lines(row.text or "", 1)]
    result = ops.grep(pattern, regex=True, limit=100)
    assert [m.id for m in result.matches] == expected[:100]


def test_tmp_store_is_independent(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(write_corpus(tmp_path / "c", {"a.md": "# A\n\nTX-4501 only\n"}), store)
    with Ops.open(store) as ops:
        assert [m.id for m in ops.grep("tx-450").matches] == ["a.md#0"]
