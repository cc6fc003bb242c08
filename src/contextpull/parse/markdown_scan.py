"""A line scanner for plain Markdown, the fast path under :func:`.markdown.outline`.

markdown-it-py tries up to a dozen block rules at every block start, each a
Python call that re-reads the line; on a large corpus of simple pages that is
most of ingest time (issue 14). A document made only of ATX headings, blank
lines, paragraphs, fenced code and pipe tables needs none of that
generality: which block a line opens is decided by its first characters.

:func:`scan` finds those blocks line by line and returns the line ranges
markdown-it's tokens would carry, or ``None`` as soon as a line outside fenced
code could mean anything else: a list item, block quote, thematic break,
setext underline, HTML block, indented code or lazy continuation, a link
reference definition, front matter; or when the text has tabs, carriage
returns or NUL characters (tab stops and normalisation). The caller then
parses with markdown-it, so a declined document costs only the scan up to
the line that declined it.

The rules follow markdown-it-py's ``table`` (with the body loop of
``markdown._table_extent``), ``fence``, ``heading`` and ``paragraph`` rules,
tried in markdown-it's order; what the scanner cannot tell apart cheaply it
declines rather than guesses. tests/parse/test_markdown_scan.py checks that every
accepted document outlines exactly as markdown-it outlines it.
"""

from __future__ import annotations

import importlib
import re
from typing import Literal, NamedTuple

from markdown_it.common.utils import mdTrim

__all__ = ["MAX_FILLED_CELLS", "ScannedBlock", "cell_count", "gfm_table", "scan"]

#: the module, not the function of the same name its package exports
gfm_table = importlib.import_module("markdown_it.rules_block.table")
#: markdown-it's cap on cells a table may fill in for short rows (absent before 4.0)
MAX_FILLED_CELLS = getattr(gfm_table, "MAX_AUTOCOMPLETED_CELLS", float("inf"))

_ORDERED_ITEM = re.compile(r"[0-9]{1,9}[.)](?: |$)")
#: first characters of a line that may open a block this scanner does not handle
_OTHER_OPENERS = frozenset("<>-+*_=0123456789")


class ScannedBlock(NamedTuple):
    """One top-level block as markdown-it would report it: lines ``[begin, end)``.

    ``level`` and ``content`` are set for headings only: the level and the
    heading's inline source, trimmed and without its closing ``#`` sequence.
    """

    kind: Literal["heading", "paragraph", "code", "table"]
    begin: int
    end: int
    level: int = 0
    content: str = ""


def scan(text: str) -> list[ScannedBlock] | None:
    """The top-level blocks of ``text``, or ``None`` if it holds anything but the plain five."""
    if not text or text[0] == "-" or "\t" in text or "\r" in text or "\0" in text:
        return None  # front matter may start at "-"; tabs and CR/NUL change what markdown-it sees
    return _Scanner(text.split("\n")).blocks()


def cell_count(row: str) -> int:
    """Cells in a trimmed table row, as markdown-it counts them (``\\|`` is no divider)."""
    dividers = row.count("|") - row.count("\\|")
    leading = row.startswith("|")
    trailing = row.endswith("|") and not row.endswith("\\|")
    return dividers + 1 - leading - trailing


class _Scanner:
    """One pass over the lines of one document."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        # markdown-it gives no line to a final "" (text ending in "\n") or to final spaces without "\n"
        self.count = len(lines) - (not lines[-1].strip(" "))

    def blocks(self) -> list[ScannedBlock] | None:
        out: list[ScannedBlock] = []
        line = 0
        while line < self.count:
            if not self.lines[line].strip(" "):
                line += 1
                continue
            block = self._block(line)
            if block is None:
                return None
            out.append(block)
            line = block.end
        return out

    def _block(self, line: int) -> ScannedBlock | None:
        """The block starting at non-blank ``line``, trying rules in markdown-it's order."""
        if self._table_starts(line):
            return self._table(line)
        body = _body(self.lines[line])
        if body is None:
            return None  # indented code
        fence = _fence_opener(body)
        if fence is not None:
            return self._fence(line, *fence)
        heading = _heading(body)
        if heading is not None:
            return ScannedBlock("heading", line, line + 1, *heading)
        if body[0] == "[" or _other_block(body):
            return None  # a link reference definition may start a paragraph
        return self._paragraph(line)

    def _paragraph(self, line: int) -> ScannedBlock | None:
        end = line + 1
        while end < self.count:
            body = _body(self.lines[end])
            if body == "":
                break
            if body is None or _other_block(body):
                return None  # lazy continuation, setext underline, or a block that interrupts
            if _fence_opener(body) or _heading(body) or self._table_starts(end):
                break
            end += 1
        return ScannedBlock("paragraph", line, end)

    def _fence(self, line: int, marker: str, length: int) -> ScannedBlock:
        for end in range(line + 1, self.count):
            row = self.lines[end]
            if marker not in row:
                continue
            body = row.lstrip(" ")
            if len(row) - len(body) >= 4 or not body.startswith(marker):
                continue
            tail = body.lstrip(marker)
            if len(body) - len(tail) >= length and not tail.strip(" "):
                return ScannedBlock("code", line, end + 1)
        return ScannedBlock("code", line, self.count)  # unclosed: runs to the end

    def _table(self, line: int) -> ScannedBlock | None:
        """A table from its header line; the body ends where ``markdown._table_extent``'s does."""
        columns = cell_count(mdTrim(self.lines[line].lstrip(" ")))
        filled = 0
        end = line + 2
        while end < self.count:
            body = _body(self.lines[end])
            if not body:
                break  # blank, or indented code
            if _other_block(body):
                return None
            if _fence_opener(body) or _heading(body):
                break
            row = mdTrim(body)
            if not row:
                break
            filled += columns - cell_count(row)
            if filled > MAX_FILLED_CELLS:
                break
            end += 1
        return ScannedBlock("table", line, end)

    def _table_starts(self, line: int) -> bool:
        """Whether a GFM table starts here: markdown-it's ``table`` rule's header checks."""
        if line + 2 > self.count or "|" not in self.lines[line]:
            return False
        header, separator = _body(self.lines[line]), _body(self.lines[line + 1])
        if not header or not separator or len(separator) < 2:
            return False
        first, second = separator[0], separator[1]
        if first not in "|-:" or second not in "|-: " or (first == "-" and second == " "):
            return False
        if separator.strip("|-: "):
            return False
        aligns = 0
        cells = separator.split("|")
        for index, cell in enumerate(cells):
            trimmed = mdTrim(cell)
            if not trimmed:
                if index in (0, len(cells) - 1):
                    continue
                return False
            if not gfm_table.headerLineRe.search(trimmed):
                return False
            aligns += 1
        names = gfm_table.escapedSplit(mdTrim(header))
        if names and names[0] == "":
            names.pop(0)
        if names and names[-1] == "":
            names.pop()
        return 0 < len(names) == aligns


def _body(row: str) -> str | None:
    """``row`` without its indentation, or ``None`` if indented 4 spaces or more."""
    if not row.startswith(" "):
        return row
    body = row.lstrip(" ")
    return body if len(row) - len(body) < 4 or not body else None


def _fence_opener(body: str) -> tuple[str, int] | None:
    """(marker character, run length) if ``body`` opens a fenced code block."""
    if len(body) < 3 or body[0] not in "`~":
        return None
    marker = body[0]
    info = body.lstrip(marker)
    length = len(body) - len(info)
    if length < 3 or (marker == "`" and "`" in info):
        return None
    return marker, length


def _heading(body: str) -> tuple[int, str] | None:
    """(level, inline content) if ``body`` is an ATX heading, as markdown-it's ``heading`` rule trims it."""
    if not body.startswith("#"):
        return None
    rest = body.lstrip("#")
    level = len(body) - len(rest)
    if level > 6 or (rest and rest[0] != " "):
        return None
    rest = rest.rstrip(" ")
    unclosed = rest.rstrip("#")
    if unclosed.endswith(" "):
        rest = unclosed  # a closing sequence needs a space before it
    return level, mdTrim(rest)


def _other_block(body: str) -> bool:
    """Whether non-blank ``body`` could open a block the scanner leaves to markdown-it.

    A superset of markdown-it's list, thematic break, setext underline, block
    quote and HTML block openers: ``-``, ``+``, ``*``, ``_`` or ``=`` alone,
    before a space, or repeated with spaces only; ``>``, ``<``; ``1.``/``1)``.
    """
    first = body[0]
    if first not in _OTHER_OPENERS:
        return False
    if first in "<>":
        return True
    if first in "0123456789":
        return _ORDERED_ITEM.match(body) is not None
    return len(body) == 1 or body[1] == " " or not body.replace(" ", "").strip(first)
