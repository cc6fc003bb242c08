"""A line scanner for common Markdown, the fast path under :func:`.markdown.outline`.

markdown-it-py tries up to a dozen block rules at every block start, each a
Python call that re-reads the line through its state arrays; on a corpus of
documentation pages that is most of ingest time (issues 14 and 31). The
blocks real pages are made of (ATX headings, paragraphs, fenced and indented
code, pipe tables, bullet and ordered lists, thematic breaks and YAML front
matter) need none of that generality: which block a line opens is decided by
its first characters.

:func:`scan` mirrors markdown-it's block tokenizer for those blocks only: the
same rules in the same order, the same indentation bookkeeping for list
items (a line's indent and content start, changed while an item's first line
is tokenized), the same paragraph terminators and lazy continuation. It
returns the top-level line ranges markdown-it's tokens would carry, the
starts of each list's items and the line ranges of all code, nested or not.
It returns ``None`` as soon as a line could open anything else: a block
quote, an HTML block, a setext underline, a link reference definition, a
table inside a list, an empty list item, unclosed front matter; or when the
text has tabs, carriage returns or NUL characters (tab stops and
normalisation). The caller then parses with markdown-it, so a declined
document costs only the scan up to the line that declined it.

tests/parse/test_markdown_scan.py checks that every accepted document
outlines exactly as markdown-it outlines it, on generated documents and on
every Markdown file of the shared corpora.
"""

from __future__ import annotations

import importlib
import re
from typing import Literal, NamedTuple

from markdown_it.common.utils import mdTrim

__all__ = ["MAX_FILLED_CELLS", "Scan", "ScannedBlock", "cell_count", "gfm_table", "scan"]

#: the modules, not the functions of the same names their package exports
gfm_table = importlib.import_module("markdown_it.rules_block.table")
_html_block = importlib.import_module("markdown_it.rules_block.html_block")
#: markdown-it's HTML block kinds: (opening line, closing line, may end a paragraph)
HTML_SEQUENCES: list[tuple[re.Pattern[str], re.Pattern[str], bool]] = _html_block.HTML_SEQUENCES
#: markdown-it's cap on cells a table may fill in for short rows (absent before 4.0)
MAX_FILLED_CELLS = getattr(gfm_table, "MAX_AUTOCOMPLETED_CELLS", float("inf"))
#: lists and quotes nested deeper than this are left to markdown-it (its own limit is 20 tokens deep)
MAX_DEPTH = 8

_ORDERED_MARKER = re.compile(r"([0-9]{1,9})([.)])(?= |$)")
#: a link reference definition on one line: label, destination, optional title (markdown-it's
#: ``reference`` rule accepts more, over several lines; what this does not match is declined)
_REFERENCE = re.compile(
    r"\[([^\[\]\\]+)\]:[ ]*(<[^<>\\]*>|[^\s()<\\\x00-\x1f\x7f][^\s()\\\x00-\x1f\x7f]*)"
    r"(?:[ ]+(?:\"[^\"\\]*\"|'[^'\\]*'|\([^()\\]*\)))?[ ]*$"
)
#: schemes markdown-it's ``validateLink`` refuses (a definition with one is a paragraph)
_BAD_SCHEMES = ("javascript:", "vbscript:", "file:", "data:")
#: first characters of a line that may open a block the table body loop leaves to markdown-it
_OTHER_OPENERS = frozenset("<>-+*_=0123456789")

Kind = Literal["heading", "paragraph", "code", "table", "list", "quote", "rule", "html", "reference", "front_matter"]


class ScannedBlock(NamedTuple):
    """One top-level block as markdown-it would report it: lines ``[begin, end)``.

    ``level`` and ``content`` are set for headings (the level and the inline
    source, trimmed and without its closing ``#`` sequence) and front matter
    (its YAML); ``items`` are the lines where a list's second and later items
    (or a quote's second and later blocks) start, ``code`` the line ranges of
    the code blocks inside a list or quote; ``indented`` marks indented (not
    fenced) code.
    """

    kind: Kind
    begin: int
    end: int
    level: int = 0
    content: str = ""
    items: tuple[int, ...] = ()
    code: tuple[tuple[int, int], ...] = ()
    indented: bool = False


class Scan(NamedTuple):
    """The top-level blocks, and the line ranges of every code block (those inside lists too)."""

    blocks: list[ScannedBlock]
    code: list[tuple[int, int]]


class _Declined(Exception):
    """A line the scanner leaves to markdown-it."""


def scan(text: str) -> Scan | None:
    """The top-level blocks of ``text``, or ``None`` if it holds a block the scanner does not handle."""
    if not text or "\t" in text or "\r" in text or "\0" in text:
        return None  # tabs and CR/NUL change what markdown-it sees
    scanner = _Scanner(text.split("\n"))
    try:
        return Scan(scanner.blocks(), scanner.code)
    except _Declined:
        return None


def cell_count(row: str) -> int:
    """Cells in a trimmed table row, as markdown-it counts them (``\\|`` is no divider)."""
    dividers = row.count("|") - row.count("\\|")
    leading = row.startswith("|")
    trailing = row.endswith("|") and not row.endswith("\\|")
    return dividers + 1 - leading - trailing


class _Scanner:
    """One pass over the lines of one document, with markdown-it's per-line indentation state.

    ``first[n]`` is where line ``n``'s content starts and ``indent[n]`` its
    column (markdown-it's ``tShift`` and ``sCount``); both move past a list
    marker while that item is tokenized, as markdown-it moves them.
    """

    def __init__(self, lines: list[str], quoted: int | None = None, *, at_end: bool = True) -> None:
        """``quoted`` is the depth of a block quote's inner scanner, whose ``lines`` are all its own;
        ``at_end`` says the last line ends the text (always so for a whole document)."""
        self.lines = lines
        self.quoted = quoted is not None
        self.at_end = at_end
        blank_last = not lines[-1].strip(" ")
        # markdown-it gives a document no line for a final "" (text ending in "\n") or final spaces
        self.count = len(lines) - (blank_last and not self.quoted)
        # its fence rule stops, unclosed, at a blank line that ends the text (it reads one character
        # past it): the same line for a document; a quote's inner lines keep theirs in the count
        self.fence_end = len(lines) - (blank_last and at_end)
        self.first = [len(line) - len(line.lstrip(" ")) for line in lines]
        self.indent = list(self.first)
        self.code: list[tuple[int, int]] = []
        self.depth = quoted or 0

    def empty(self, line: int) -> bool:
        return self.first[line] >= len(self.lines[line])

    def body(self, line: int) -> str:
        return self.lines[line][self.first[line] :]

    def blocks(self) -> list[ScannedBlock]:
        out: list[ScannedBlock] = []
        line = 0
        if self.lines[0].startswith("---") and not self.quoted:
            out.append(self._front_matter())
            line = out[0].end
        while line < self.count:
            if self.empty(line):
                line += 1
                continue
            block = self._block(line, 0, -1)
            out.append(block)
            line = block.end
        return out

    def _tokenize(self, line: int, blk: int, list_indent: int) -> int:
        """markdown-it's nested ``tokenize`` from ``line`` at block indent ``blk``: the line it stops at."""
        count = self.count
        while line < count:
            while line < count and self.empty(line):
                line += 1
            if line >= count or self.indent[line] < blk:
                break
            line = self._block(line, blk, list_indent).end
            if line < count and self.empty(line):
                line += 1
        return line

    def _block(self, line: int, blk: int, list_indent: int) -> ScannedBlock:
        """The block starting at non-blank ``line``, trying rules in markdown-it's order."""
        body = self.body(line)
        if line == 0 and blk and not self.quoted and self.lines[0][0] == "-" and body[1:3] == "--":
            raise _Declined  # the front matter rule, which an item on line 0 can meet (it counts from there)
        if blk == 0:
            if self._table_starts(line):
                return self._table(line)
        elif self._table_like(line):
            raise _Declined  # a table inside a list
        if self.indent[line] - blk >= 4:
            return self._indented_code(line, blk)
        first = body[0]
        fence = _fence_opener(body)
        if fence is not None:
            return self._fence(line, blk, *fence)
        if first == ">":
            if blk:
                raise _Declined  # a block quote inside a list
            return self._quote(line)
        if _is_rule(body):
            if blk:
                raise _Declined
            return ScannedBlock("rule", line, line + 1)
        marker = self._marker(line)
        if marker is not None:
            return self._list(line, blk, *marker)
        if first == "[" and _may_be_reference(body):
            return self._reference(line)
        if first == "<":
            sequence = _html_sequence(body)
            if sequence is not None:
                return self._html(line, blk, sequence[1])
        heading = _heading(body)
        if heading is not None:
            return ScannedBlock("heading", line, line + 1, *heading)
        return self._paragraph(line, blk, list_indent)

    def _front_matter(self) -> ScannedBlock:
        """mdit-py-plugins' front matter rule: ``---`` (or more) on line 0 to a closing run or ``...``."""
        opening = len(self.lines[0]) - len(self.lines[0].lstrip("-"))
        for line in range(1, self.count):
            row = self.lines[line]
            if row.startswith("...") and not row[3:].strip(" "):
                break
            if self.indent[line] >= 4 or not row.startswith("-", self.first[line]):
                continue
            body = self.body(line)
            run = len(body) - len(body.lstrip("-"))
            if run >= opening and not body[run:].strip(" "):
                break
        else:
            raise _Declined  # unclosed: markdown-it reads the line as a rule or a paragraph
        content = "\n".join(self.lines[1:line])
        return ScannedBlock("front_matter", 0, line + 1, content=content)

    def _paragraph(self, line: int, blk: int, list_indent: int) -> ScannedBlock:
        end = line + 1
        while end < self.count:
            if self.empty(end):
                break
            if self.indent[end] - blk <= 3 and self._interrupts(end, blk, list_indent):
                break
            end += 1
        return ScannedBlock("paragraph", line, end)

    def _interrupts(self, line: int, blk: int, list_indent: int) -> bool:
        """Whether ``line`` ends the paragraph above it (markdown-it's terminators); raises where unsure."""
        body = self.body(line)
        first = body[0]
        if first in "=-" and not body.rstrip(" ").strip(first) and self.indent[line] >= blk:
            raise _Declined  # a setext underline
        if blk == 0:
            if self._table_starts(line):
                return True
        elif self._table_like(line):
            raise _Declined
        if _fence_opener(body) is not None or first == ">":
            return True
        if _is_rule(body):
            return True
        marker = self._marker(line)
        if marker is not None and not (
            list_indent >= 0 and self.indent[line] - list_indent >= 4 and self.indent[line] < blk
        ):
            ordered, _, after, value = marker
            if self.indent[line] < blk:
                return True  # not a terminating paragraph: any marker ends it
            if not (ordered and value != 1) and self.lines[line][after:].strip(" "):
                return True
        return _html_interrupts(body) or _heading(body) is not None

    def _list(self, line: int, blk: int, ordered: bool, char: str, after: int, value: int) -> ScannedBlock:
        """markdown-it's list rule: items while a marker of the same kind starts the next line."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Declined
        items: list[int] = []
        code_before = len(self.code)
        end = line
        while end < self.count:
            row = self.lines[end]
            initial = self.indent[end] + after - self.first[end]
            content = len(row) - len(row[after:].lstrip(" "))
            if content >= len(row):
                raise _Declined  # an empty item: markdown-it's blank-line rules for it are not mirrored
            spaces = content - after
            saved = self.first[end], self.indent[end]
            self.first[end], self.indent[end] = content, initial + spaces
            items.append(end)
            stop = self._tokenize(end, initial + (spaces if spaces <= 4 else 1), blk)
            self.first[end], self.indent[end] = saved
            end = stop
            if end >= self.count or self.indent[end] < blk or self.indent[end] - blk >= 4:
                break
            body = self.body(end)
            if _fence_opener(body) is not None or body[0] == ">" or _is_rule(body):
                break
            marker = self._marker(end)
            if marker is None or marker[0] != ordered or marker[1] != char:
                break
            after = marker[2]
        self.depth -= 1
        return ScannedBlock("list", line, end, items=tuple(items[1:]), code=tuple(self.code[code_before:]))

    def _marker(self, line: int) -> tuple[bool, str, int, int] | None:
        """(ordered, marker character, index after the marker, number) if ``line`` opens a list item."""
        row, first = self.lines[line], self.first[line]
        char = row[first]
        if char in "*-+":
            after = first + 1
            return (False, char, after, 0) if after >= len(row) or row[after] == " " else None
        if "0" <= char <= "9":
            found = _ORDERED_MARKER.match(row, first)
            if found is not None:
                return True, found.group(2), found.end(), int(found.group(1))
        return None

    def _quote(self, line: int) -> ScannedBlock:
        """markdown-it's ``blockquote``: its lines without their markers are scanned as a document of their own.

        A line without ``>`` that would continue the quote lazily is declined.
        """
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _Declined
        inner: list[str] = []
        end = line
        last_empty = False
        while end < self.count:
            row, first = self.lines[end], self.first[end]
            if first >= len(row):
                break
            if row[first] == ">":
                text = row[first + 1 + (row[first + 1 : first + 2] == " ") :]
                inner.append(text)
                last_empty = not text.strip(" ")
                end += 1
                continue
            if last_empty or (self.indent[end] < 4 and self._ends_quote(end)):
                break
            raise _Declined  # lazy continuation
        quoted = _Scanner(inner, quoted=self.depth, at_end=self.at_end and end == len(self.lines))
        blocks = quoted.blocks()
        self.depth -= 1
        code = tuple((begin + line, stop + line) for begin, stop in quoted.code)
        self.code.extend(code)
        starts = tuple(block.begin + line for block in blocks if block.kind != "reference" and block.begin > 0)
        return ScannedBlock("quote", line, end, items=starts, code=code)

    def _ends_quote(self, line: int) -> bool:
        """markdown-it's block quote terminators at a line without ``>``: any of them ends the quote."""
        body = self.body(line)
        if _fence_opener(body) is not None or _is_rule(body) or self._marker(line):
            return True
        return _html_interrupts(body) or _heading(body) is not None

    def _reference(self, line: int) -> ScannedBlock:
        """A one-line link reference definition (markdown-it makes no token of it); raises where unsure."""
        found = _REFERENCE.match(self.body(line))
        if (
            found is None
            or not found.group(1).strip(" ")
            or found.group(2).strip("<>").lower().startswith(_BAD_SCHEMES)
        ):
            raise _Declined
        following = line + 1
        if following < self.count and self.body(following)[:1] in ('"', "'", "("):
            raise _Declined  # the title may be on the next line
        return ScannedBlock("reference", line, line + 1)

    def _html(self, line: int, blk: int, closing: re.Pattern[str]) -> ScannedBlock:
        """markdown-it's ``html_block``: to the line matching ``closing`` (the first one included)."""
        end = line + 1
        on_blank = closing.search("") is not None
        if not closing.search(self.body(line)):
            while end < self.count:
                if self.indent[end] < blk and (on_blank or not self.empty(end)):
                    break
                text = self.body(end)
                if closing.search(text):
                    end += bool(text)
                    break
                end += 1
        return ScannedBlock("html", line, end)

    def _fence(self, line: int, blk: int, marker: str, length: int) -> ScannedBlock:
        end, closed = line + 1, False
        while end < self.fence_end:
            row, first = self.lines[end], self.first[end]
            if first < len(row) and self.indent[end] < blk:
                break  # a line less indented than the list item ends the fence, unclosed
            if row.startswith(marker, first) and self.indent[end] - blk < 4:
                tail = row[first:].lstrip(marker)
                if len(row) - first - len(tail) >= length and not tail.strip(" "):
                    closed = True
                    break
            end += 1
        stop = end + closed
        self.code.append((line, stop))
        return ScannedBlock("code", line, stop)

    def _indented_code(self, line: int, blk: int) -> ScannedBlock:
        last = end = line + 1
        while end < self.count:
            if self.empty(end):
                end += 1
            elif self.indent[end] - blk >= 4:
                end += 1
                last = end
            else:
                break
        self.code.append((line, last))
        return ScannedBlock("code", line, last, indented=True)

    def _table(self, line: int) -> ScannedBlock:
        """A table from its header line; the body ends where ``markdown._table_extent``'s does."""
        columns = cell_count(mdTrim(self.lines[line].lstrip(" ")))
        filled = 0
        end = line + 2
        while end < self.count:
            body = _body(self.lines[end])
            if not body:
                break  # blank, or indented code
            if _other_block(body):
                raise _Declined
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

    def _table_like(self, line: int) -> bool:
        """Whether a table could start at ``line`` inside a list: a pipe, then a delimiter-like row."""
        if "|" not in self.lines[line] or line + 1 >= self.count:
            return False
        following = self.lines[line + 1]
        return "-" in following and not following.strip(" |-:")

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
        return 0 < cell_count(mdTrim(header)) == aligns  # the header's cells, as escapedSplit finds them


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


def _is_rule(body: str) -> bool:
    """markdown-it's ``hr`` rule on non-blank ``body``: three or more of one of ``*-_``, spaces between."""
    return body[0] in "*-_" and body.count(body[0]) >= 3 and not body.replace(" ", "").strip(body[0])


def _html_sequence(body: str) -> tuple[re.Pattern[str], re.Pattern[str], bool] | None:
    """The HTML block kind ``body`` opens, if any."""
    for sequence in HTML_SEQUENCES:
        if sequence[0].search(body):
            return sequence
    return None


def _html_interrupts(body: str) -> bool:
    """Whether ``body`` opens an HTML block of a kind that may end a paragraph or a quote."""
    sequence = _html_sequence(body) if body[0] == "<" else None
    return sequence is not None and sequence[2]


def _may_be_reference(body: str) -> bool:
    """Whether a block starting ``[`` could be a link reference definition (its label may span lines)."""
    close = body.find("]")
    return close < 0 or "]:" in body or "\\" in body[:close]


def _other_block(body: str) -> bool:
    """Whether non-blank ``body`` could open a block that ends a table or that the scanner declines there.

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
        return _ORDERED_MARKER.match(body) is not None
    return len(body) == 1 or body[1] == " " or not body.replace(" ", "").strip(first)
