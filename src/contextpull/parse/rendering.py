"""The Markdown-like text a non-Markdown document is stored and read as.

PDF, Office and HTML files have no text a section could be an exact slice
of, so their parser writes one: headings as ``#`` lines, paragraphs, lists,
fenced code and pipe tables with a header row. The Markdown parser then
outlines that rendering like any Markdown file, so sectioning, ids, table
headers on every part and the five tools work unchanged, and the lossless
invariant holds relative to the rendering (docs/adr/014-document-formats.md).

:class:`Writer` is the one place that knows how each block is spelled, so
every format escapes text the same way and a paragraph can never turn into a
heading or a table by accident. It also records where each page starts, so a
section can say which pages it spans.
"""

from __future__ import annotations

import io
import re
import zipfile
from bisect import bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Any, TypeVar

__all__ = ["Rendering", "Unparseable", "Writer", "open_package", "pages_of", "parser_failed"]

#: a line Markdown reads as a thematic break (or, under a paragraph, a heading's underline): three or
#: more of one of ``-*_`` and nothing else, so a bold term (``**--follow**``) is left as it is
_RULE = r"([-*_])(?:[ \t]*\3){2,}[ \t]*$"
#: a line starting like this would be read as Markdown structure, not text
_LEADING_MARKUP = re.compile(rf"^([ \t]*)([#>+=]|{_RULE}|`{{3,}}|~{{3,}}|[-*][ \t]|\d{{1,9}}[.)][ \t]|\||<)")
_SPACES = re.compile(r"[ \t\u00a0]+")
#: a superscript or subscript needing no parentheses after its mark
_ONE_TOKEN = re.compile(r"[\w.\u2032\u2033*+\u2212-]+")


class Unparseable(ValueError):
    """The file cannot be turned into text; ``reason`` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def parser_failed(err: BaseException) -> str:
    """The skip reason for an exception no parser was meant to raise: the file's fault, not the ingest's."""
    return f"parser failed ({type(err).__name__}: {str(err)[:120]})"


_T = TypeVar("_T")


#: bytes an Office package may inflate to (the sum of its members' declared sizes); Python's zip reader
#: never inflates a member past its declared size, so a bomb is refused before a byte is inflated
MAX_INFLATED = 512 << 20


def open_package(opener: Callable[[io.BytesIO], _T], data: bytes, reason: str) -> _T:
    """``opener`` applied to ``data``, or :class:`Unparseable` with ``reason``.

    A damaged Office package raises zip, XML, key and value errors alike, so
    any exception while opening means "not a readable file". A package that
    would inflate past :data:`MAX_INFLATED` is refused unopened.
    """
    _check_inflated(data)
    try:
        return opener(io.BytesIO(data))
    except MemoryError:
        raise  # the parser child's memory limit, reported as such
    except Exception:  # noqa: BLE001 - see above
        raise Unparseable(reason) from None


def _check_inflated(data: bytes) -> None:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            inflated = sum(member.file_size for member in package.infolist())
    except Exception:  # noqa: BLE001 - not a zip at all: the opener reports it as damaged
        return
    if inflated > MAX_INFLATED:
        raise Unparseable(f"inflates to more than {MAX_INFLATED >> 20} MiB (a decompression bomb, or too large)")


@dataclass(frozen=True)
class Rendering:
    """A document as Markdown-like text, with the page each part came from.

    ``pages`` holds ``(offset, page)`` pairs in offset order: the text from
    ``offset`` up to the next pair's offset came from page ``page``. Formats
    without pages (Word, HTML) leave it empty; slides and sheets use their
    slide or sheet number.
    """

    text: str
    pages: tuple[tuple[int, int], ...] = ()
    title: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)


def pages_of(rendering: Rendering, start: int, end: int) -> tuple[int, int] | None:
    """The first and last page that ``text[start:end]`` has non-blank text from."""
    if not rendering.pages:
        return None
    text = rendering.text
    chunk = text[start:end]
    lead = len(chunk) - len(chunk.lstrip())
    trail = len(chunk) - len(chunk.rstrip())
    if lead == len(chunk):
        return None
    first, last = start + lead, end - trail - 1
    offsets = [offset for offset, _ in rendering.pages]
    low = max(0, bisect_right(offsets, first) - 1)
    high = max(0, bisect_right(offsets, last) - 1)
    return rendering.pages[low][1], rendering.pages[high][1]


def clean(text: str) -> str:
    """One line of visible text: runs of spaces collapsed, ends trimmed."""
    return _SPACES.sub(" ", text.replace("\r", " ").replace("\n", " ")).strip()


#: how a run of text sits on its line: on it, raised (superscript) or lowered (subscript)
ON_LINE, RAISED, LOWERED = 0, 1, -1


def raised(text: str, superscript: bool) -> str:
    """Superscript or subscript text written inline: ``2^31``, ``2^(n - 1)``, ``x_i``.

    Flattened, ``2<sup>31</sup>`` reads as ``231`` (another number) and
    ``2<sup>n - 1</sup>`` as ``2n - 1``; the caret and underscore are the
    plain-text notation readers and models know.
    """
    text = " ".join(text.split())
    if not text:
        return ""
    mark = "^" if superscript else "_"
    return f"{mark}{text}" if _ONE_TOKEN.fullmatch(text) else f"{mark}({text})"


def joined_runs(runs: Iterable[tuple[str, int]]) -> str:
    """Runs of text (text, :data:`ON_LINE`, :data:`RAISED` or :data:`LOWERED`) as one line of text.

    Word and PowerPoint split a superscript into several runs as it is
    typed; consecutive runs raised (or lowered) alike are one superscript.
    """
    out: list[str] = []
    for position, group in groupby(runs, key=lambda run: run[1]):
        text = "".join(text for text, _ in group)
        out.append(text if position == ON_LINE else raised(text, position == RAISED))
    return "".join(out)


def escape_line(line: str) -> str:
    """``line`` with a backslash before any leading character Markdown would read as structure."""
    match = _LEADING_MARKUP.match(line)
    if not match:
        return line
    return line[: match.end(1)] + "\\" + line[match.end(1) :]


def cell(text: str) -> str:
    """A table cell's text on one line, with its pipes escaped."""
    return clean(text).replace("\\", "\\\\").replace("|", "\\|")


class Writer:
    """Builds a :class:`Rendering` block by block; every block ends with a blank line."""

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._length = 0
        self._pages: list[tuple[int, int]] = []
        self._page: int | None = None

    def page(self, number: int) -> None:
        """What is written from now on comes from page (slide, sheet) ``number``."""
        if number == self._page:
            return
        self._page = number
        if self._pages and self._pages[-1][0] == self._length:
            self._pages[-1] = (self._length, number)
        else:
            self._pages.append((self._length, number))

    def _emit(self, block: str) -> None:
        self._parts.append(block + "\n\n")
        self._length += len(block) + 2

    def heading(self, level: int, text: str) -> None:
        text = clean(text)
        if text:
            self._emit("#" * max(1, min(6, level)) + " " + text.replace("#", "\\#"))

    def blocks(self) -> int:
        """How many blocks have been written."""
        return len(self._parts)

    def last_heading(self) -> str:
        """The text of the last block written when it is a heading, else "" (a paragraph's ``#`` is escaped)."""
        last = self._parts[-1] if self._parts else ""
        return last.lstrip("#").strip().replace("\\#", "#") if last.startswith("#") else ""

    def paragraph(self, text: str) -> None:
        """Prose; line breaks inside ``text`` are kept, blank lines collapse."""
        lines = [escape_line(clean(line)) for line in text.split("\n")]
        lines = [line for line in lines if line]
        if lines:
            self._emit("\n".join(lines))

    def items(self, entries: Sequence[tuple[int, str]], *, ordered: bool = False) -> None:
        """A list of ``(depth, text)`` entries, depth 0 at the left margin."""
        lines = []
        number = 0
        for depth, text in entries:
            text = clean(text)
            if not text:
                continue
            number += 1
            marker = f"{number}." if ordered else "-"
            lines.append("  " * max(0, depth) + f"{marker} {text}")
        if lines:
            self._emit("\n".join(lines))

    def code(self, text: str, language: str = "") -> None:
        body = text.strip("\n")
        if not body.strip():
            return
        fence = "```"
        while fence in body:
            fence += "`"
        self._emit(f"{fence}{clean(language)}\n{body}\n{fence}")

    def quote(self, text: str, label: str = "") -> None:
        """A note, warning or other admonition: ``> **Label:** text``."""
        lines = [clean(line) for line in text.split("\n")]
        lines = [line for line in lines if line]
        if label:
            lines = [f"**{clean(label)}:** " + (lines[0] if lines else ""), *lines[1:]]
        if lines:
            self._emit("\n".join("> " + line for line in lines))

    def table(self, rows: Sequence[Sequence[str]], *, page_of_row: Sequence[int] | None = None) -> None:
        """A pipe table whose first row is the header; ragged rows are padded.

        ``page_of_row`` gives the page of each row after the header, for a
        table that runs over a page break.
        """
        cleaned = [[cell(value or "") for value in row] for row in rows]
        cleaned = [row for row in cleaned if any(row)]
        if not cleaned:
            return
        width = max(len(row) for row in cleaned)
        if width == 1 and len(cleaned) == 1:
            self.paragraph(cleaned[0][0])
            return
        padded = [row + [""] * (width - len(row)) for row in cleaned]
        header = "| " + " | ".join(value or " " for value in padded[0]) + " |"
        lines = [header, "|" + "---|" * width]
        offset = self._length + sum(len(line) + 1 for line in lines)
        line_starts = []
        for row in padded[1:]:
            line_starts.append(offset)
            lines.append("| " + " | ".join(row) + " |")
            offset += len(lines[-1]) + 1
        if page_of_row:
            for start, page in zip(line_starts, page_of_row):
                if page != self._page:
                    self._page = page
                    self._pages.append((start, page))
        self._emit("\n".join(lines))

    def rendering(self, *, title: str | None = None, metadata: dict[str, Any] | None = None) -> Rendering:
        return Rendering("".join(self._parts), tuple(self._pages), title, dict(metadata or {}))
