"""reStructuredText to a block outline over its own source (no rendering).

An ``.rst`` file is text, so like Markdown its sections are exact slices of
the file. The outline follows the parts of reStructuredText that decide
where a section may start or be cut:

* **titles**: a line underlined, or over- and underlined, with one repeated
  punctuation character at least as long as the title; levels follow the
  order in which each adornment style (character, with or without overline)
  first appears, as in docutils;
* **literal blocks**: the indented block after a paragraph ending in ``::``,
  and the ``code-block``/``code``/``sourcecode`` directives, are code: never
  divided;
* **tables**: grid tables (``+---+``, header ended by ``+===+``) and simple
  tables (``=====  =====`` borders, header ended by the second border) may be
  divided only between rows, and every part carries the header;
* **directives** (``.. note::`` and the rest) are containers: the directive
  line with its indented body, divisible at the body's paragraph breaks; a
  directive documenting the thing it names (an *entry*: ``.. confval::
  NAME``, ``.. function:: run(port)``) is headed by that name one level
  below the title it sits under;
* **targets**: a hyperlink target (``.. _install:``) and a directive that
  marks the place it stands in with a name and nothing to read (``..
  setting:: ADMINS``, ``.. index:: cache``) name what follows them; straight
  above a title (blank lines between) they belong to its section, not to
  the end of the one before;
* lists divide between items, block quotes at blank lines, and everything
  else is paragraphs.

Standard library only; documents that do not parse as reStructuredText
still outline as paragraphs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from functools import partial

from .blocks import Block, Outline, Span, line_offsets, tile

__all__ = ["looks_like_rst", "outline"]

_ADORNMENT_CHARS = "=-`:'\"~^_*+#<>.!$%&,/;?@[\\]{|}"
_DIRECTIVE = re.compile(r"\.\.[ \t]+(?:\|[^|]+\|[ \t]+)?([\w:.+-]+)::")
_COMMENT = re.compile(r"\.\.(?:[ \t]|$)")
#: a directive's option line (``:local:``, ``:depth: 1``)
_OPTION = re.compile(r"[ \t]+:[\w-]+:")
_LIST_ITEM = re.compile(r"(?:[-*+•]|\d+[.)]|#\.|\(\d+\)|[a-zA-Z][.)])[ \t]+\S")
#: directives with an argument and a body that are not entries of a reference: docutils' and Sphinx's
#: own (and sphinx-design's layout); every other such directive (``.. function:: run(port)``, ``..
#: confval:: SECRET_KEY``, CMake's ``.. variable:: CMAKE_BUILD_TYPE``) documents the thing it names
_NOT_ENTRIES = frozenset(
    {
        "versionadded", "versionchanged", "versionremoved", "deprecated", "seealso", "figure", "image",
        "only", "ifconfig", "raw", "math", "table", "list-table", "csv-table", "container", "include",
        "highlight", "tabularcolumns", "productionlist", "index", "default-role", "role", "meta", "title",
        "sectnum", "header", "footer", "compound", "parsed-literal", "line-block", "epigraph", "highlights",
        "pull-quote", "replace", "unicode", "date", "toctree", "glossary", "hlist", "centered", "acks",
        "tab", "tabs", "tab-set", "tab-item", "tab-set-code", "dropdown", "card", "grid", "grid-item",
        "grid-item-card", "attention", "caution", "danger", "error", "hint", "important", "note", "tip",
        "warning", "admonition", "topic", "sidebar", "rubric",
    }
)  # fmt: skip
#: an entry's heading is one level below the title it sits under, as a Markdown reference heads each
#: setting one level below its group: under a title shallow enough (``max_depth``, 3 by default) it
#: starts a section of its own, citable alone (Flask's ``.. py:data:: PERMANENT_SESSION_LIFETIME``
#: under "Builtin Configuration Values"); deeper, it names the part of a long section it starts or
#: continues (ADR 022, 2026-12-07 follow-ups)
ENTRY_BELOW_TITLE = 1
#: the longest entry name kept in a heading path
_ENTRY_NAME = 80
_CODE_DIRECTIVES = frozenset({"code-block", "code", "sourcecode", "literalinclude", "highlight", "doctest"})


# Border lines are recognised by character sets, not regexes: a repeated group over one 29 MB line
# costs sre a saved state per repetition (a gigabyte), and these lines are exactly what a hostile
# file makes long.
#: inline markup, innermost first: a role's text (``:ref:`Install <install>```), a hyperlink's text,
#: a literal, strong and emphasised text, a substitution
_INLINE = (
    (re.compile(r"(?<=[`*|_])\\ ?"), ""),  # an escape ending markup mid-word: ``QuerySet``\s
    (re.compile(r":[\w.+-]+:`~(?:[^`<]*\.)?([^`.<]+)`"), r"\1"),  # ~ shows the last name only: null
    (re.compile(r":[\w.+-]+:`~?([^`]*)`"), r"\1"),
    (re.compile(r"`([^`<]*?)\s*<[^`>]*>`_{0,2}"), r"\1"),
    (re.compile(r"``([^`]+)``"), r"\1"),
    (re.compile(r"`([^`]+)`_{1,2}"), r"\1"),
    (re.compile(r"`([^`]+)`"), r"\1"),
    (re.compile(r"\*\*([^*]+)\*\*"), r"\1"),
    (re.compile(r"(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])"), r"\1"),
    (re.compile(r"\|([^|\s][^|]*)\|_{0,2}"), r"\1"),
)
_ROLE_TARGET = re.compile(r"\s*<[^<>]*>$")
#: an internal hyperlink target (``.. _install:``), which names the element after it
_TARGET_LINE = r"\.\.[ \t]+_[^\n:]+:[ \t]*$"
_TARGET = re.compile(_TARGET_LINE)
#: autodoc's directives (``automodule``, ``autofunction``, ...) write a whole entry from the code
_AUTODOC = "auto"


#: what only reStructuredText writes at the start of a line: a directive (``.. note::``, ``.. setting::
#: ADMINS``) or a hyperlink target (``.. _install:``)
_EXPLICIT_MARKUP = re.compile(rf"^(?:\.\.[ \t]+[\w:.+-]+::|{_TARGET_LINE})", re.MULTILINE)
#: interpreted text with a role (``:class:`Field```, ``:py:func:`run```), which prose does not write either
_ROLE = re.compile(r"(?<![\w`:]):[a-z][\w.+-]*(?::[\w.+-]+)?:`[^`\n]+`")
#: how much of a file :func:`looks_like_rst` reads
_SNIFF_CHARS = 100_000


def looks_like_rst(text: str) -> bool:
    """True when plain text (a ``.txt`` file) is reStructuredText, as Django's documentation is.

    A directive or a hyperlink target at the start of a line, or a role
    (``:doc:`/releases/1.2```), is markup that prose, notes and logs do not
    write by chance: half of Django's pages (its release notes) have roles
    but no directive. An underlined title alone is not enough (plain text
    underlines its headings too).
    """
    return any(pattern.search(text, 0, _SNIFF_CHARS) for pattern in (_EXPLICIT_MARKUP, _ROLE))


def plain_text(text: str) -> str:
    """``text`` with reStructuredText inline markup taken off, as a reader sees it rendered.

    A role's text loses its explicit target (``:doc:`Install <install>``` is
    "Install"); anything that is not markup is left as written.
    """
    for pattern, replacement in _INLINE:
        text = pattern.sub(partial(_unmarked, replacement), text)
    return text


def _unmarked(replacement: str, match: re.Match[str]) -> str:
    return _ROLE_TARGET.sub("", match.expand(replacement))


def _grid_border(line: str, fill: str = "-=") -> bool:
    """``+---+===+`` (any mix of ``fill``), optionally followed by spaces or tabs."""
    body = line.rstrip(" \t")
    return len(body) >= 3 and body[0] == body[-1] == "+" and "++" not in body and not body.strip("+" + fill)


def _grid_header(line: str) -> bool:
    return _grid_border(line, "=")


def _simple_border(line: str) -> bool:
    """``===  ====``: two or more runs of ``=`` separated by spaces, optionally followed by spaces or tabs."""
    body = line.rstrip(" \t")
    return body[:1] == "=" and " " in body and not body.replace("=", "").replace(" ", "")


def outline(text: str) -> Outline:
    """The blocks of reStructuredText ``text`` (decoded, newline-normalised)."""
    return _Parser(text).build()


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.lines, self.offsets = line_offsets(text)
        self.blocks: list[Block] = []
        self.code: list[Span] = []
        self.tables: list[Span] = []
        self.styles: list[tuple[str, bool]] = []
        self.lead = ""
        #: the level of the last title read (0 before the first), which an entry sits under
        self.title_level = 0
        #: how many of the last blocks are targets, which a title straight after them takes in
        self.targets = 0

    def build(self) -> Outline:
        lines = self.lines
        i = 0
        while i < len(lines):
            if not lines[i].strip():
                i += 1
                continue
            i = self._block(i)
        return Outline(
            blocks=tile(self.blocks, self.text),
            code=tuple(sorted(self.code)),
            tables=tuple(sorted(self.tables)),
            lead=self.lead,
        )

    # --- helpers ----------------------------------------------------------
    def _blank(self, i: int) -> bool:
        return i >= len(self.lines) or not self.lines[i].strip()

    def _indented(self, i: int) -> bool:
        return i < len(self.lines) and self.lines[i][:1] in (" ", "\t")

    def _adornment(self, i: int) -> str | None:
        """The character of line ``i`` when it is a title adornment (one punctuation mark repeated).

        Not a regex: a backreference repeated over a 29 MB line cost sre about
        80 bytes of memory per character.
        """
        if i >= len(self.lines):
            return None
        line = self.lines[i]
        mark = line[:1]
        if not mark or mark not in _ADORNMENT_CHARS:
            return None
        body = line.rstrip(" \t")
        return mark if len(body) >= 2 and not body.strip(mark) else None

    def _span(self, first: int, stop: int) -> Span:
        """Offsets of lines ``first`` up to ``stop`` (exclusive), without trailing blank lines."""
        while stop > first + 1 and self._blank(stop - 1):
            stop -= 1
        return self.offsets[first], self.offsets[stop]

    def _indented_end(self, i: int) -> int:
        """The first line at or after ``i`` that is neither blank nor indented."""
        while i < len(self.lines) and (self._blank(i) or self._indented(i)):
            i += 1
        return i

    def _level(self, style: tuple[str, bool]) -> int:
        if style not in self.styles:
            self.styles.append(style)
        return min(6, self.styles.index(style) + 1)

    def _cuts(self, first: int, stop: int, is_start: Callable[[int], bool]) -> tuple[int, ...]:
        return tuple(self.offsets[k] for k in range(first + 1, stop) if is_start(k))

    # --- one block ----------------------------------------------------------
    def _block(self, i: int) -> int:
        count = len(self.blocks)
        stop = self._read_block(i)
        added = self.blocks[count:]
        if added and added[0].kind == "heading" and self.targets:
            first = count - self.targets  # the targets straight above name this title or entry
            self.blocks[first:] = [replace(added[0], start=self.blocks[first].start), *added[1:]]
            self.targets = 0
        elif len(added) == 1 and added[0].kind == "other" and self._is_target(i):
            self.targets += 1
        elif added:
            self.targets = 0
        return stop

    def _is_target(self, i: int) -> bool:
        """True when the block at line ``i`` names what follows it: a target, or a directive with a name only.

        Not a directive that brings content of its own (``.. image:: x.png``,
        ``.. include:: part.rst``, autodoc's ``.. autofunction:: flash``), but
        ``.. index::``, which marks the place it stands in.
        """
        line = self.lines[i]
        directive = _DIRECTIVE.match(line)
        if directive:
            name = directive.group(1).lower().rsplit(":", 1)[-1]
            marks = name == "index" or (name not in _NOT_ENTRIES and not name.startswith(_AUTODOC))
            return marks and len(line[directive.end() :].split()) == 1
        return _TARGET.match(line) is not None

    def _read_block(self, i: int) -> int:
        lines = self.lines
        line = lines[i]
        over = self._adornment(i)
        if over and not self._blank(i + 1) and self._adornment(i + 2) == over:
            title = lines[i + 1].strip()
            if len(lines[i + 2].rstrip()) >= len(title):
                self._heading(i, i + 3, title, (over, True))
                return i + 3
        under = self._adornment(i + 1)
        if under and not over and not self._indented(i) and len(lines[i + 1].rstrip()) >= max(2, len(line.rstrip())):
            self._heading(i, i + 2, line.strip(), (under, False))
            return i + 2
        if over and self._blank(i + 1):
            self.blocks.append(Block(*self._span(i, i + 1), "other"))  # a transition
            return i + 1
        if _grid_border(line):
            return self._grid_table(i)
        if _simple_border(line):
            return self._simple_table(i)
        directive = _DIRECTIVE.match(line)
        if directive:
            return self._directive(i, directive.group(1).lower(), line[directive.end() :])
        if _COMMENT.match(line):
            stop = self._indented_end(i + 1)
            self.blocks.append(Block(*self._span(i, stop), "other"))
            return stop
        if self._indented(i):
            stop = self._indented_end(i)
            start, end = self._span(i, stop)
            cuts = self._cuts(i, stop, lambda k: self._blank(k - 1) and not self._blank(k))
            self.blocks.append(Block(start, end, "quote", cuts=cuts))
            return stop
        if _LIST_ITEM.match(line):
            return self._list(i)
        return self._paragraph(i)

    def _heading(self, first: int, stop: int, title: str, style: tuple[str, bool]) -> None:
        start, end = self._span(first, stop)
        self.title_level = self._level(style)
        self.blocks.append(Block(start, end, "heading", self.title_level, plain_text(title)))

    def _paragraph(self, i: int) -> int:
        stop = i
        while stop < len(self.lines) and not self._blank(stop):
            if stop > i and (self._adornment(stop + 1) and not self._indented(stop)):
                break  # the next line is a title
            stop += 1
        start, end = self._span(i, stop)
        self.blocks.append(Block(start, end, "paragraph"))
        if not self.lead:
            self.lead = self.text[start:end]
        if self.lines[stop - 1].rstrip().endswith("::"):
            body = stop
            while body < len(self.lines) and self._blank(body):
                body += 1
            if self._indented(body):
                close = self._indented_end(body)
                span = self._span(body, close)
                self.code.append(span)
                self.blocks.append(Block(span[0], span[1], "code"))
                return close
        return stop

    def _list(self, i: int) -> int:
        stop = i + 1
        while stop < len(self.lines):
            if self._blank(stop) or self._indented(stop) or _LIST_ITEM.match(self.lines[stop]):
                stop += 1
            elif not self._blank(stop - 1):
                stop += 1  # a continuation line of the item (lazy wrapping)
            else:
                break
        start, end = self._span(i, stop)
        cuts = self._cuts(i, stop, lambda k: not self._indented(k) and bool(_LIST_ITEM.match(self.lines[k])))
        self.blocks.append(Block(start, end, "list", cuts=tuple(c for c in cuts if c < end)))
        return stop

    def _directive(self, i: int, name: str, argument: str) -> int:
        """The directive at line ``i``, ``argument`` the rest of its line after ``::``."""
        stop = self._indented_end(i + 1)
        start, end = self._span(i, stop)
        if name in _CODE_DIRECTIVES:
            self.code.append((start, end))
            self.blocks.append(Block(start, end, "code"))
        elif len(argument.split()) <= 1 and not self._has_body(i + 1, stop):
            # nothing to read: an index entry or a target (``.. setting:: ADMINS``), a table of contents;
            # a note written on the directive's own line (``.. note:: Back up first.``) is read
            self.blocks.append(Block(start, end, "other"))
        else:
            head = self._entry(i, name, argument, stop)  # past an entry's heading, or i
            body = max(head, i + 1)
            while body < stop and self._blank(body):
                body += 1
            if head > i:
                start, end = self._span(body, stop)
            cuts = self._cuts(body, stop, lambda k: self._blank(k - 1) and not self._blank(k))
            self.blocks.append(Block(start, end, "container", cuts=tuple(c for c in cuts if c < end)))
        return stop

    def _entry(self, i: int, name: str, argument: str, stop: int) -> int:
        """Where the body of the entry directive at line ``i`` starts, after adding its heading; else ``i``.

        An entry is a directive naming a thing (an argument on its line) and
        describing it (an indented body beyond options), not one of
        :data:`_NOT_ENTRIES`. Its heading is the directive line with its
        signature lines and options, named by the argument up to a ``(``.
        """
        title = plain_text(argument.split("(", 1)[0]).strip()
        if not title or name.rsplit(":", 1)[-1] in _NOT_ENTRIES:
            return i
        head = i + 1
        while head < stop and not self._blank(head):
            head += 1  # further signatures and options, up to the blank line before the body
        if not self._has_body(head, stop):
            return i
        start, end = self._span(i, head)
        level = self.title_level + ENTRY_BELOW_TITLE
        self.blocks.append(Block(start, end, "heading", level, " ".join(title.split())[:_ENTRY_NAME]))
        return head

    def _has_body(self, first: int, stop: int) -> bool:
        """True when lines ``first`` to ``stop`` hold something to read: a line that is not blank or an option."""
        return any(not self._blank(k) and not _OPTION.match(self.lines[k]) for k in range(first, stop))

    def _grid_table(self, i: int) -> int:
        stop = i + 1
        while stop < len(self.lines) and self.lines[stop][:1] in ("+", "|"):
            stop += 1
        header = next((k for k in range(i + 1, stop) if _grid_header(self.lines[k])), None)
        body_from = header + 1 if header is not None else i + 1
        cuts = tuple(self.offsets[k + 1] for k in range(body_from, stop - 2) if _grid_border(self.lines[k]))
        self._table(i, stop, header, cuts)
        return stop

    def _simple_table(self, i: int) -> int:
        borders = [i]
        stop = i + 1
        while stop < len(self.lines):
            if _simple_border(self.lines[stop]):
                borders.append(stop)
                if len(borders) >= 2 and self._blank(stop + 1):
                    stop += 1
                    break
            stop += 1
        header = borders[1] if len(borders) >= 3 else None
        body_from = (header if header is not None else i) + 1
        cuts = tuple(
            self.offsets[k]
            for k in range(body_from + 1, borders[-1])
            if not self._blank(k) and not self.lines[k].startswith(" ") and k not in borders
        )
        self._table(i, stop, header, cuts)
        return stop

    def _table(self, first: int, stop: int, header: int | None, cuts: tuple[int, ...]) -> None:
        start, end = self._span(first, stop)
        header_end = self.offsets[header + 1] if header is not None else 0
        cuts = tuple(c for c in cuts if max(start, header_end) < c < end)
        self.tables.append((start, end))
        self.blocks.append(Block(start, end, "table", cuts=cuts, header_end=header_end))
