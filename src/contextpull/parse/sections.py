"""A document's text to citable sections (docs/adr/004-sectioning.md).

Guarantees, for every input:

* each section's text is the exact slice ``text[start:end]``; sections are
  contiguous and in order, so concatenating them gives back ``text``;
* ordinals run 0, 1, 2, ... and the same text and settings always give the
  same sections (ids are ``path#ordinal``);
* a section starts at each heading of depth ``<= max_depth`` outside code and
  containers; deeper headings stay inside their section, and name the
  section (or the part of a divided one) they start or continue, as does a
  heading with nothing under it that joins the section it heads;
* no section exceeds ``max_chars`` unless it is one indivisible piece: a fenced
  code block, a line of indented code, a table's header with its first row,
  or a table row;
* a fenced code block is never divided; a table is divided only between rows,
  and every later part carries the header row and separator.

The steps are: cut at headings, divide oversize sections (blocks, then a
block's own parts, then sentences, then words, then a hard cut), merge tiny
fragments with a neighbour, then label each section's kind.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from pathlib import PurePosixPath

from contextpull_mdinline import plain_text

from ..analysis.names import printable
from ..contents.summaries import first_informative_sentence
from ..records import SIBLING_SEPARATOR, ParsedDocument, Section, SectionKind
from ..settings import SectionSettings
from . import markdown, plaintext, rst
from .blocks import Block, Outline, Span

__all__ = ["SOURCE_SYNTAXES", "parse_document"]

#: the syntaxes outlined over their own text; other formats arrive as Markdown renderings (.formats)
SOURCE_SYNTAXES: dict[str, Callable[[str], Outline]] = {
    "markdown": markdown.outline,
    "text": plaintext.outline,
    "rst": rst.outline,
}
#: a section is of one kind when that kind makes up this share of its non-blank characters
KIND_SHARE = 0.8
SUMMARY_CHARS = 200

_SENTENCE_BREAK = re.compile(r"[.!?][\"')\]]*[ \t]+|\n+")
_WORD_BREAK = re.compile(r"\s+")
_INDEX_STEMS = frozenset({"index", "readme", "_index"})
#: a footnote reference (``[^3]``), which a summary line shows no note for
_FOOTNOTE_MARK = re.compile(r"\[\^[^\]\s]{1,40}\]")

#: blocks that carry no content of their own: a piece of only these (and headings) is a bare heading
_NOT_CONTENT = frozenset({"heading", "other", "front_matter"})

#: how a range may be divided: a block, "text" (sentences), "words", "hard", or None (never)
_How = Block | str | None
_Unit = tuple[int, int, _How]


def parse_document(
    path: str, text: str, settings: SectionSettings, *, format: str, title: str | None = None
) -> ParsedDocument:
    """Parse and section ``text`` (decoded, newline-normalised), the contents of ``path``.

    ``format`` is one of :data:`SOURCE_SYNTAXES`; ``title``, when the file
    names its own (a document property), is used instead of one found in
    the text, by the summary as well.
    """
    outline = SOURCE_SYNTAXES[format](text)
    title = printable(title or _title(path, outline))
    sections = _Sectioner(path, text, outline, settings, title).sections()
    return ParsedDocument(
        path=path,
        text=text,
        title=title,
        summary=printable(_summary(title, outline.lead, format)),
        metadata=outline.metadata,
        sections=sections,
        format=format,
    )


class _Piece:
    """A section in the making; ``named`` is False for text before any heading.

    ``path`` holds the headings that start sections, and decides merging;
    ``label`` is the heading path the section is shown with: ``path`` and
    the headings below ``max_depth`` it opens with, or for a *bare* piece
    (headings with nothing under them but link targets, comments or rules,
    like ``## Server mechanics`` straight before ``### reload``) merged into
    what it heads, the path of that deeper heading.
    """

    __slots__ = ("bare", "end", "label", "named", "path", "start")

    def __init__(
        self,
        start: int,
        end: int,
        path: tuple[str, ...],
        named: bool,
        bare: bool = False,
        label: tuple[str, ...] | None = None,
    ) -> None:
        self.start, self.end, self.path, self.named, self.bare = start, end, path, named, bare
        self.label = path if label is None else label

    @property
    def size(self) -> int:
        return self.end - self.start

    def contains(self, other: _Piece) -> bool:
        """True when ``other`` sits under this piece's heading (same or deeper path)."""
        return other.path[: len(self.path)] == self.path

    def joined(self, after: _Piece) -> _Piece:
        """This piece and the one after it as one; a merged sibling's heading is listed, not lost.

        Under this piece's heading ``after`` adds nothing to the path; a
        heading beside it (``PyPI`` then ``Homebrew``) is appended to the last
        heading (``PyPI; Homebrew``) so the section's heading path names all
        it covers.
        """
        if not self.named:
            path = after.path
        elif not after.named or self.contains(after) or not self.path or not after.path or after.path == self.path:
            path = self.path
        else:
            path = (*self.path[:-1], f"{self.path[-1]}{SIBLING_SEPARATOR}{after.path[-1]}")
        return _Piece(
            self.start, after.end, path, self.named or after.named, self.bare and after.bare, self._label(after, path)
        )

    def _label(self, after: _Piece, path: tuple[str, ...]) -> tuple[str, ...]:
        """The label of this piece joined with ``after`` (whose joined ``path`` is given): what the section
        starts at, and the siblings it covers."""
        if not self.named or (self.bare and after.named and self.contains(after)):
            return after.label
        if not after.named or after.path == self.path:
            return self.label
        mine, theirs = self.label, after.label
        if len(mine) == len(theirs) and mine[:-1] == theirs[:-1]:
            return (*mine[:-1], f"{mine[-1]}; {theirs[-1]}")
        return self.label if self.contains(after) else path


class _Sectioner:
    def __init__(self, doc: str, text: str, outline: Outline, settings: SectionSettings, title: str) -> None:
        self.doc = doc
        self.text = text
        self.outline = outline
        self.max_depth = settings.max_depth
        self.max_chars = settings.max_chars
        self.min_chars = settings.min_chars
        self.title = title
        self.protected: list[Span] = sorted(outline.code + outline.tables)
        self.protected_starts = [span[0] for span in self.protected]
        table_blocks = [block for block in outline.blocks if block.kind == "table"]
        #: (header start, header end, table end) of each table
        self.tables = [(span[0], block.header_end, span[1]) for span, block in zip(outline.tables, table_blocks)]
        self.table_body_starts = [table[1] for table in self.tables]

    def sections(self) -> tuple[Section, ...]:
        pieces: list[_Piece] = []
        for piece, blocks in self._by_heading():
            if piece.size <= self.max_chars:
                piece.label = piece.path + self._deeper(blocks, piece.start, piece.end)
                pieces.append(piece)
                continue
            units: list[_Unit] = [(block.start, block.end, block) for block in blocks]
            for start, end in self._pack(units):
                pieces.append(_Piece(start, end, piece.path + self._deeper(blocks, start, end), piece.named))
        return self._finish(self._merge(pieces))

    def _deeper(self, blocks: list[Block], position: int, end: int) -> tuple[str, ...]:
        """The headings below ``max_depth`` the part ``[position, end)`` sits under or opens with.

        They do not start sections, but a long section divided into parts
        would otherwise label every part with the same path; each part is
        named by the deeper heading it starts at or continues. A heading at
        or past ``end`` opens the next part, not this one.
        """
        stack: list[tuple[int, str]] = []
        for block in blocks:
            if block.start >= end or (block.start > position and block.kind not in _NOT_CONTENT):
                break  # past the headings the part starts with
            if block.kind == "heading" and block.level > self.max_depth and block.heading:
                while stack and stack[-1][0] >= block.level:
                    stack.pop()
                stack.append((block.level, printable(block.heading)))
        return tuple(heading for _, heading in stack)

    # --- cut at headings ----------------------------------------------------
    def _by_heading(self) -> list[tuple[_Piece, list[Block]]]:
        blocks = self.outline.blocks
        has_h1 = any(block.kind == "heading" and block.level == 1 for block in blocks)
        title = printable(self.outline.title or "")
        root = (title,) if title and not has_h1 else ()
        # a document with no heading at all (a CSV file, plain notes) is headed by its title throughout
        untitled = not any(block.kind == "heading" for block in blocks)
        preamble = (title,) if title else (self.title,) if untitled else ()
        out: list[tuple[_Piece, list[Block]]] = []
        stack: list[tuple[int, str]] = []
        current: list[Block] = []
        path: tuple[str, ...] = preamble
        named = False
        for block in blocks:
            if block.kind == "heading" and block.level <= self.max_depth:
                if current:
                    out.append((self._piece(current, path, named), current))
                while stack and stack[-1][0] >= block.level:
                    stack.pop()
                stack.append((block.level, printable(block.heading)))
                path, named, current = root + tuple(h for _, h in stack), True, []
            current.append(block)
        if current:
            out.append((self._piece(current, path, named), current))
        return out

    @staticmethod
    def _piece(blocks: list[Block], path: tuple[str, ...], named: bool) -> _Piece:
        bare = named and all(block.kind in _NOT_CONTENT for block in blocks)
        return _Piece(blocks[0].start, blocks[-1].end, path, named, bare)

    # --- divide oversize sections -------------------------------------------
    def _pack(self, units: list[_Unit], current: Span | None = None) -> list[Span]:
        """Greedy: fill each part with whole units; divide a unit only when it alone is too big.

        An oversize unit starts a new part (a long table's first part begins
        with its header row), except after a bare heading: that continues
        into the unit's first part rather than standing alone as a section
        of one line. A heading that the unit after it would not fit beside
        starts a new part instead of ending the current one.
        """
        out: list[Span] = []
        bare = current is not None
        for index, (start, end, how) in enumerate(units):
            if end - start > self.max_chars and how is not None:
                finer = self._divide(start, end, how)
                if finer:
                    if current is not None and not bare:
                        out.append(current)
                        current = None
                    parts = self._pack(finer, current)
                    out.extend(parts[:-1])
                    current, bare = parts[-1], False
                    continue
            heading = isinstance(how, Block) and how.kind == "heading"
            # a heading joins the part only with the start of what it heads: never left at a part's end
            reach = units[index + 1][1] if heading and index + 1 < len(units) else end
            if current is not None and reach - current[0] <= self.max_chars:
                current, bare = (current[0], end), bare and heading
            else:
                if current is not None:
                    out.append(current)
                current, bare = (start, end), heading
        if current is not None:
            out.append(current)
        return out

    def _divide(self, start: int, end: int, how: _How) -> list[_Unit] | None:
        """The next finer units of ``[start, end)``, or None when it cannot be divided."""
        if isinstance(how, Block):
            cuts = [cut for cut in how.cuts if start < cut < end]
            if how.kind in ("code", "table"):
                return _units(start, end, cuts, None) if cuts else None
            return _units(start, end, cuts, "text") if cuts else self._divide(start, end, "text")
        if how == "text":
            cuts = self._breaks(_SENTENCE_BREAK, start, end)
            return _units(start, end, cuts, "words") if cuts else self._divide(start, end, "words")
        if how == "words":
            cuts = self._breaks(_WORD_BREAK, start, end)
            return _units(start, end, cuts, "hard") if cuts else self._divide(start, end, "hard")
        cuts = self._hard_cuts(start, end)
        return _units(start, end, cuts, None) if cuts else None

    def _breaks(self, pattern: re.Pattern[str], start: int, end: int) -> list[int]:
        return [
            match.end()
            for match in pattern.finditer(self.text, start, end)
            if start < match.end() < end and self._allowed(match.end())
        ]

    def _hard_cuts(self, start: int, end: int) -> list[int]:
        cuts: list[int] = []
        position = start + self.max_chars
        while position < end:
            span = self._protecting(position)
            if span is not None:
                position = span[1]
                if position >= end:
                    break
            cuts.append(position)
            position += self.max_chars
        return cuts

    def _protecting(self, position: int) -> Span | None:
        index = bisect_right(self.protected_starts, position) - 1
        if index >= 0 and self.protected[index][0] < position < self.protected[index][1]:
            return self.protected[index]
        return None

    def _allowed(self, position: int) -> bool:
        return self._protecting(position) is None

    # --- merge tiny fragments -----------------------------------------------
    def _merge(self, pieces: list[_Piece]) -> list[_Piece]:
        """Merge each piece shorter than ``min_chars`` with a neighbour (ADR 004).

        Forward into the next piece when that piece sits under this one's
        heading (a heading with an empty body joins its first child, and is
        then named by it) or when this piece has no heading (preamble); else
        backward into the previous piece. Never into a table
        continuation from before (it must start with a row), never past
        ``max_chars``; a fragment with no such neighbour stays as it is.
        """
        out: list[_Piece] = []
        pending: _Piece | None = None
        for index, piece in enumerate(pieces):
            if pending is not None:
                piece, pending = pending.joined(piece), None
            if piece.size >= self.min_chars:
                out.append(piece)
                continue
            following = pieces[index + 1] if index + 1 < len(pieces) else None
            if (
                following is not None
                and (not piece.named or piece.contains(following))
                and piece.size + following.size <= self.max_chars
                and self._continued_table(following.start) is None
            ):
                pending = piece
            elif out and out[-1].size + piece.size <= self.max_chars:
                out[-1] = out[-1].joined(piece)
            else:
                out.append(piece)
        return out

    def _continued_table(self, position: int) -> tuple[int, int, int] | None:
        """The table whose body rows a section starting at ``position`` continues."""
        index = bisect_right(self.table_body_starts, position) - 1
        if index >= 0 and position < self.tables[index][2]:
            return self.tables[index]
        return None

    # --- label --------------------------------------------------------------
    def _finish(self, pieces: list[_Piece]) -> tuple[Section, ...]:
        starts = [piece.start for piece in pieces]
        sections: list[Section] = []
        for ordinal, piece in enumerate(pieces):
            table = self._continued_table(piece.start)
            header = header_ordinal = None
            if table is not None:
                header = self.text[table[0] : table[1]]
                header_ordinal = bisect_right(starts, table[0]) - 1
            sections.append(
                Section(
                    doc=self.doc,
                    ordinal=ordinal,
                    heading_path=piece.label,
                    kind=self._kind(piece.start, piece.end),
                    text=self.text[piece.start : piece.end],
                    start=piece.start,
                    end=piece.end,
                    table_header=header,
                    header_ordinal=header_ordinal,
                )
            )
        return tuple(sections)

    def _kind(self, start: int, end: int) -> SectionKind:
        """code/table/prose when one makes up KIND_SHARE of the non-blank characters, else mixed."""
        total = _nonblank(self.text[start:end])
        if not total:
            return "prose"
        code = self._covered(self.outline.code, start, end)
        table = self._covered(self.outline.tables, start, end)
        if code >= KIND_SHARE * total:
            return "code"
        if table >= KIND_SHARE * total:
            return "table"
        if total - code - table >= KIND_SHARE * total:
            return "prose"
        return "mixed"

    def _covered(self, spans: tuple[Span, ...], start: int, end: int) -> int:
        if not spans:
            return 0
        index = max(0, bisect_right(spans, (start, start)) - 1)
        count = 0
        for span_start, span_end in spans[index:]:
            if span_start >= end:
                break
            low, high = max(start, span_start), min(end, span_end)
            if low < high:
                count += _nonblank(self.text[low:high])
        return count


def _units(start: int, end: int, cuts: list[int], how: _How) -> list[_Unit]:
    bounds = [start, *cuts, end]
    return [(bounds[k], bounds[k + 1], how) for k in range(len(bounds) - 1)]


def _nonblank(text: str) -> int:
    return len("".join(text.split()))


def _title(path: str, outline: Outline) -> str:
    """Front matter title, else the first H1, else the first heading, else the file name."""
    if outline.title:
        return outline.title
    headings = [block for block in outline.blocks if block.kind == "heading" and block.heading]
    for block in headings:
        if block.level == 1:
            return block.heading
    if headings:
        return headings[0].heading
    pure = PurePosixPath(path)
    stem = pure.stem
    if stem.lower() in _INDEX_STEMS and pure.parent.name:
        stem = pure.parent.name
    words = " ".join(stem.replace("_", " ").replace("-", " ").split())
    return words[:1].upper() + words[1:] if words else path


def _summary(title: str, lead: str, format: str) -> str:
    """The title, then the first informative sentence of the first prose paragraph, within SUMMARY_CHARS."""
    plain = _FOOTNOTE_MARK.sub("", plain_text(lead)) if format == "markdown" else " ".join(lead.split())
    if format == "rst":
        plain = rst.plain_text(plain)
    sentence = first_informative_sentence(title, plain)
    summary = f"{title}: {sentence}" if sentence else title
    if len(summary) <= SUMMARY_CHARS:
        return summary
    cut = summary.rfind(" ", 0, SUMMARY_CHARS - 1)
    return summary[: cut if cut > SUMMARY_CHARS // 2 else SUMMARY_CHARS - 1].rstrip() + "…"
