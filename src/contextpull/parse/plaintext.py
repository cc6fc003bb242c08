"""Plain text to a block outline: blank-line paragraphs and heading-like lines.

Plain text has no markup, but most documents still have visible headings;
recognising them gives sections a meaningful heading path. A paragraph
(a run of non-blank lines) is a heading when it is:

* a short line underlined with ``===`` (level 1) or ``---`` (level 2), or,
  as AsciiDoc and reStructuredText sources go deeper, with ``~~~`` (level 3)
  or ``^^^`` (level 4) at least as long as the line less two (a caret
  marking a column under a line of code is shorter); any lines after the
  underline are a paragraph of their own;
* a single short line (at most 60 characters, no sentence punctuation at the
  end) that is numbered like ``1.2 Scope`` (level = number of components,
  at most 6), or ALL CAPS (level 1), or Title Case (level 2: every word longer
  than three letters capitalised, and the first word too);
* the document's first paragraph, when it is a title block: two or three
  such short lines, the first of them a capitalised name and none of the
  others a list item ("GNU GENERAL PUBLIC LICENSE" over "Version 2, June
  1991", as licences, RFCs and manuals open), level 1. Without it the first ALL CAPS line anywhere
  ("NO WARRANTY") became the document's title.

Everything else is a paragraph. Paragraphs may be divided only by the
sectioner's sentence and word rules.
"""

from __future__ import annotations

import re

from .blocks import Block, Outline, line_offsets, tile

__all__ = ["outline"]

_MAX_HEADING = 60
#: the level each underline character gives, in AsciiDoc's order (git's manual pages: ``HOOKS`` over
#: ``---``, each hook's name over ``~~~``); ``+`` is left out: ``++++`` opens an AsciiDoc passthrough block
_UNDERLINE_LEVELS = {"=": 1, "-": 2, "~": 3, "^": 4}
#: a line of three or more of one underline character
_UNDERLINE = re.compile("(" + "|".join(re.escape(mark) + "{3,}" for mark in _UNDERLINE_LEVELS) + r")[ \t]*")
#: underlines that must span the line they underline (less this many characters) to make it a heading
_MEASURED = frozenset("~^")
_UNDERLINE_SLACK = 2
_NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\.?[ \t]+(\S.*)")
_SENTENCE_END = (".", ",", ";", ":", "!")
_LIST_MARKS = ("- ", "* ", "+ ", "• ")


def outline(text: str) -> Outline:
    """The paragraphs and heading-like lines of ``text`` (decoded, newline-normalised)."""
    lines, offsets = line_offsets(text)
    blocks: list[Block] = []
    lead = ""
    for first, stop in _paragraphs(lines):
        head = lines[first].strip()
        underline = _underline(head, lines[first + 1]) if stop - first > 1 else None
        if not blocks and (title := _title_block(lines[first:stop])):
            blocks.append(Block(offsets[first], offsets[stop], "heading", 1, title))
            continue
        if underline and len(head) <= 80:
            level = _UNDERLINE_LEVELS[underline[0]]
            blocks.append(Block(offsets[first], offsets[first + 2], "heading", level, head))
            first += 2
            if first == stop:
                continue
        elif stop - first == 1 and (level := heading_level(head)):
            blocks.append(Block(offsets[first], offsets[stop], "heading", level, head))
            continue
        blocks.append(Block(offsets[first], offsets[stop], "paragraph"))
        if not lead:
            lead = text[offsets[first] : offsets[stop]]
    return Outline(blocks=tile(blocks, text), lead=lead)


def _underline(head: str, line: str) -> str | None:
    """The underline ``line`` draws under the line ``head``, or None when it draws none."""
    match = _UNDERLINE.fullmatch(line)
    if match is None:
        return None
    marks = match.group(1)
    if marks[0] in _MEASURED and len(marks) < len(head) - _UNDERLINE_SLACK:
        return None
    return marks


def _paragraphs(lines: list[str]):
    """(first, stop) line ranges of the runs of non-blank lines."""
    first = None
    for number, line in enumerate(lines):
        if line.strip():
            if first is None:
                first = number
        elif first is not None:
            yield first, number
            first = None
    if first is not None:
        yield first, len(lines)


def _title_block(lines: list[str]) -> str | None:
    """The title a document's first paragraph of ``lines`` spells, when it is a title block; else None.

    Two or three lines, each short and ending without sentence punctuation,
    the first one reading as a heading (capitalised), the others no list
    items: a title over its version or date. One line is a heading already;
    an underlined line is handled by its underline.
    """
    stripped = [line.strip() for line in lines]
    if not 2 <= len(stripped) <= 3 or _UNDERLINE.fullmatch(lines[1]):
        return None
    if any(line.startswith(_LIST_MARKS) for line in stripped[1:]):
        return None  # a heading over the first items of a list ("TODO" over "- renew the lease")
    if any(len(line) > _MAX_HEADING or line.endswith(_SENTENCE_END) for line in stripped):
        return None
    return " ".join(stripped) if heading_level(stripped[0]) else None


def heading_level(line: str) -> int:
    """The heading level of a standalone line, or 0 when it reads as prose."""
    if not line or len(line) > _MAX_HEADING or line.endswith(_SENTENCE_END):
        return 0
    numbered = _NUMBERED.fullmatch(line)
    if numbered:
        rest = numbered.group(2)
        return min(6, numbered.group(1).count(".") + 1) if rest[0].isupper() else 0
    if not line[0].isalpha() or not line[0].isupper():
        return 0
    if sum(c.isalpha() for c in line) >= 2 and line == line.upper():
        return 1
    words = line.split()
    if len(words) <= 10 and all(w[0].isupper() or len(w) <= 3 for w in words):
        return 2
    return 0
