"""Property tests: the sectioner's guarantees hold on random Markdown built from block grammar."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from contextpull.parse.sections import parse_document
from contextpull.settings import SectionSettings

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyzÄé漢 ", min_size=1, max_size=12).map(lambda w: w.strip() or "x")
SENTENCE = st.lists(WORD, min_size=1, max_size=25).map(lambda ws: " ".join(ws) + ".")
PARAGRAPH = st.lists(SENTENCE, min_size=1, max_size=12).map(" ".join)
HEADING = st.tuples(st.integers(1, 7), st.lists(WORD, min_size=1, max_size=4)).map(
    lambda t: "#" * t[0] + " " + " ".join(t[1])
)


@st.composite
def fence(draw) -> str:
    lines = draw(st.lists(st.one_of(SENTENCE, HEADING, st.just("")), min_size=0, max_size=30))
    info = draw(st.sampled_from(["", "python", 'toml title="x"']))
    return "```" + info + "\n" + "\n".join(lines) + ("\n" if lines else "") + "```"


@st.composite
def table(draw) -> str:
    columns = draw(st.integers(1, 4))
    rows = draw(st.lists(st.lists(WORD, min_size=columns, max_size=columns), min_size=0, max_size=40))
    header = "| " + " | ".join(f"h{k}" for k in range(columns)) + " |"
    separator = "|" + "---|" * columns
    return "\n".join([header, separator, *("| " + " | ".join(row) + " |" for row in rows)])


@st.composite
def admonition(draw) -> str:
    marker = draw(st.sampled_from(['!!! note "Title"', "??? tip", '=== "Tab"', "???+ warning"]))
    body = draw(st.lists(st.one_of(PARAGRAPH, HEADING, fence()), min_size=1, max_size=4))
    indented = "\n\n".join("\n".join("    " + line if line else "" for line in b.split("\n")) for b in body)
    return marker + "\n" + indented


LIST = st.lists(SENTENCE, min_size=1, max_size=15).map(lambda items: "\n".join("- " + i for i in items))
BLANKS = st.integers(2, 4).map(lambda n: "\n" * n)
BLOCK = st.one_of(HEADING, PARAGRAPH, fence(), table(), admonition(), LIST)


@st.composite
def document(draw) -> str:
    blocks = draw(st.lists(BLOCK, min_size=0, max_size=14))
    text = ""
    for block in blocks:
        text += block + draw(BLANKS)
    return text if draw(st.booleans()) else text.rstrip("\n")


SETTINGS = st.builds(
    SectionSettings,
    max_depth=st.integers(1, 6),
    max_chars=st.sampled_from([200, 400, 1000]),
    min_chars=st.sampled_from([0, 50, 100]),
)
FENCE = re.compile(r"^```.*?\n```$", re.MULTILINE | re.DOTALL)
ANY_FENCE = re.compile(r"^ *```.*?\n *```\n*", re.MULTILINE | re.DOTALL)
HEADING_LINE = re.compile(r"(#{1,6}) (.*)")


def fences(text: str) -> list[tuple[int, int]]:
    """Top-level fences of a generated document (they start at column 0)."""
    return [m.span() for m in FENCE.finditer(text)]


#: found by Hypothesis: a heading whose part holds only itself (the deeper heading after it
#: opens the next part) was labelled with that deeper heading too
_HEADING_ALONE = (
    "# a\n\n# a\n\n# a\n\n# a\n\n# aaa aaaaaaaaaaaa aaaaaaaaaaaa aaaaaaaaaaaa\n\n"
    "#### aaaa aaaaa aaaaaaaaaa aaaaaaaaaaaa\n\n"
    "a. a aaaaaaaaaaaa aaaaaaaaaaaa. aa aaaaaa aaaaaaaaa aaaaaaaaaaaa. a a a a a aa aaaa aaaa aaaa aaaaa aaaaa aaaaaaa."
)


@settings(max_examples=150, deadline=None)
@given(document(), SETTINGS)
@example(_HEADING_ALONE, SectionSettings(max_depth=1, max_chars=200, min_chars=0))
def test_sectioning_invariants(text: str, section_settings: SectionSettings) -> None:
    doc = parse_document("doc.md", text, section_settings, format="markdown")
    sections = doc.sections

    # lossless and contiguous
    assert "".join(s.text for s in sections) == text
    position = 0
    for ordinal, section in enumerate(sections):
        assert section.ordinal == ordinal
        assert section.start == position and section.end > section.start
        assert section.text == text[section.start : section.end]
        position = section.end
    assert position == len(text)

    # no top-level fence is split
    starts = {s.start for s in sections}
    for begin, end in fences(text):
        assert not any(begin < cut < end for cut in starts), (begin, end)

    # table continuations carry the exact header, and start with a data row
    for section in sections:
        if section.table_header is None:
            continue
        header_lines = section.table_header.split("\n")
        assert len(header_lines) == 3 and header_lines[2] == ""
        assert re.fullmatch(r"\|(---\|)+", header_lines[1])
        header_at = text.rfind(section.table_header, 0, section.start)
        assert header_at != -1 and "\n\n" not in text[header_at : section.start + 1]
        assert section.text.startswith("| ") and not section.text.startswith(header_lines[0])
        holder = sections[section.header_ordinal]
        assert section.table_header in holder.text
        assert holder.ordinal < section.ordinal

    # size bounds, except a piece holding a fence that alone makes it too long
    for section in sections:
        if len(section.text) > section_settings.max_chars:
            longest = max((m.end() - m.start() for m in ANY_FENCE.finditer(section.text)), default=0)
            assert len(section.text) - longest <= section_settings.max_chars, section.text

    # a section that opens with a heading is named by it, then by any deeper headings it opens with
    for section in sections:
        opening = HEADING_LINE.match(section.text)
        if opening and len(opening.group(1)) <= section_settings.max_depth:
            # strip_inline folds whitespace runs to one space (documented)
            # (a merged sibling's heading is listed after it: "A; B")
            heading = " ".join(opening.group(2).split())
            named = [i for i, h in enumerate(section.heading_path) if h == heading or h.startswith(heading + "; ")]
            assert named, (heading, section.heading_path)
            leading = re.match(r"(?:#{1,6}[ \t][^\n]*\n(?:[ \t]*\n)*)+", section.text + "\n")
            opened_with = leading.group(0).count("#") if leading else 0  # at least one # per heading line
            assert len(section.heading_path) - named[-1] - 1 < max(1, opened_with)

    # deterministic
    again = parse_document("doc.md", text, section_settings, format="markdown")
    assert again.sections == sections
