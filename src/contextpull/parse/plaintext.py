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

AsciiDoc sources (git's manual, technical notes) read as plain text add two
things, both read only where plain text would not otherwise have them:

* a line ``== Title`` (``=`` to ``======``; level = the number of ``=``),
  under any block anchor or attribute lines (``[[detached-head]]``), is a
  heading;
* a delimited block, a line of four or more of one of ``-.=*_+/`` (or
  ``|===``, a table's) opening a paragraph (text right below; above, past
  the block's attribute lines and title, ``[source,sh]`` and ``.Options``,
  a blank line) and the same line closing it, is one block: a listing
  (``----``) or literal (``....``) block is code, never divided; any other
  is a paragraph. Nothing inside is a heading, so neither the last line of
  an example nor the attribute line over it is "underlined" by a
  delimiter.

Everything else is a paragraph. Paragraphs may be divided only by the
sectioner's sentence and word rules.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict

from .blocks import Block, Outline, Span, line_offsets, tile

__all__ = ["outline"]

_MAX_HEADING = 60
#: the longest line a marked title may be: underlined, or an AsciiDoc ``== Title``
_MAX_MARKED_TITLE = 80
#: the level each underline character gives, in AsciiDoc's order (git's manual pages: ``HOOKS`` over
#: ``---``, each hook's name over ``~~~``); ``+`` is left out: ``++++`` opens an AsciiDoc passthrough block
_UNDERLINE_LEVELS = {"=": 1, "-": 2, "~": 3, "^": 4}
#: a line of three or more of one underline character
_UNDERLINE = re.compile("(" + "|".join(re.escape(mark) + "{3,}" for mark in _UNDERLINE_LEVELS) + r")[ \t]*")
#: underlines that must span the line they underline (less this many characters) to make it a heading
_MEASURED = frozenset("~^")
_UNDERLINE_SLACK = 2
#: an AsciiDoc delimited block's opening and closing line (``|===``: a table's)
_DELIMITER = re.compile(r"([-.=*_+/])\1{3,}[ \t]*|\|={3,}[ \t]*")
#: delimiters of blocks whose lines are code: listing (``----``) and literal (``....``)
_CODE_DELIMITERS = frozenset("-.")
#: an AsciiDoc section title: ``=`` marks (level), the title, optional closing marks
_TITLE_LINE = re.compile(r"(={1,6})[ \t]+([^\s=].*?)(?:[ \t]+=+)?[ \t]*")
#: a block anchor or attribute line an AsciiDoc title or block may sit under (``[[id]]``, ``[source,sh]``)
_ATTRIBUTE_LINE = re.compile(r"\[.*\][ \t]*")
#: a block's title, right above it (``.Options`` over a table)
_BLOCK_TITLE = re.compile(r"\.[^\s.].*")
_NUMBERED = re.compile(r"(\d+(?:\.\d+)*)\.?[ \t]+(\S.*)")
_SENTENCE_END = (".", ",", ";", ":", "!")
_LIST_MARKS = ("- ", "* ", "+ ", "• ")


def outline(text: str) -> Outline:
    """The paragraphs and heading-like lines of ``text`` (decoded, newline-normalised)."""
    lines, offsets = line_offsets(text)
    blocks: list[Block] = []
    code: list[Span] = []
    lead = ""
    for first, stop, delimiter in _paragraphs(lines):
        if delimiter in _CODE_DELIMITERS:
            code.append((offsets[first], offsets[stop]))
            blocks.append(Block(offsets[first], offsets[stop], "code"))
            continue
        if delimiter:
            blocks.append(Block(offsets[first], offsets[stop], "paragraph"))
            continue
        if titled := _title_line(lines, first, stop):
            end, level, name = titled
            blocks.append(Block(offsets[first], offsets[end], "heading", level, name))
            if end == stop:
                continue
            first = end
        head = lines[first].strip()
        underline = _underline(head, lines[first + 1]) if stop - first > 1 else None
        if not blocks and (title := _title_block(lines[first:stop])):
            blocks.append(Block(offsets[first], offsets[stop], "heading", 1, title))
            continue
        if underline and len(head) <= _MAX_MARKED_TITLE:
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
    return Outline(blocks=tile(blocks, text), code=tuple(code), lead=lead)


def _title_line(lines: list[str], first: int, stop: int) -> tuple[int, int, str] | None:
    """``(line after it, level, title)`` when the paragraph ``lines[first:stop]`` opens with an AsciiDoc
    title (under its anchor or attribute lines), else None."""
    number = first
    while number < stop and _ATTRIBUTE_LINE.fullmatch(lines[number].strip()):
        number += 1
    match = _TITLE_LINE.fullmatch(lines[number]) if number < stop else None
    if match is None or len(match.group(2)) > _MAX_MARKED_TITLE:
        return None
    return number + 1, len(match.group(1)), match.group(2)


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
    """``(first, stop, delimiter)`` line ranges of the runs of non-blank lines, a delimited block being one run.

    ``delimiter`` is the first character of a delimited block's delimiter,
    else "".
    """
    blocks = _delimited_blocks(lines)
    first = None
    number = 0
    while number < len(lines):
        if number in blocks:
            close, delimiter = blocks[number]
            yield number, close + 1, delimiter
            number = close + 1
            continue
        if lines[number].strip():
            if first is None:
                first = number
        elif first is not None:
            yield first, number, ""
            first = None
        number += 1
    if first is not None:
        yield first, len(lines), ""


def _delimited_blocks(lines: list[str]) -> dict[int, tuple[int, str]]:
    """``(closing line, delimiter's first character)`` of each delimited block, by its first line.

    A block opens at a delimiter line with text right below and, above it,
    a blank line (or nothing) once its attribute lines and title are passed
    (``[source,sh]``, ``.Options``: they begin the block); it closes at the
    next line equal to the delimiter. A delimiter with no such line later
    opens nothing (a rule between paragraphs). Each line is looked at once
    or twice and each later equal line found by bisection, so the work grows
    as ``n log n`` at worst.
    """
    delimiters = [number for number, line in enumerate(lines) if _DELIMITER.fullmatch(line)]
    where: dict[str, list[int]] = defaultdict(list)
    for number in delimiters:
        where[lines[number].rstrip()].append(number)
    blocks: dict[int, tuple[int, str]] = {}
    after = -1
    for number in delimiters:
        if number <= after or number + 1 == len(lines) or not lines[number + 1].strip():
            continue
        first = number
        while first > after + 1 and (
            _ATTRIBUTE_LINE.fullmatch(lines[first - 1]) or _BLOCK_TITLE.fullmatch(lines[first - 1])
        ):
            first -= 1
        if first > 0 and lines[first - 1].strip():
            continue
        same = where[lines[number].rstrip()]
        later = bisect_right(same, number + 1)
        if later < len(same):
            after = same[later]
            blocks[first] = (after, lines[number][0])
    return blocks


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
