"""Markdown to a block outline with exact source offsets.

markdown-it-py (CommonMark, GFM tables, YAML front matter) finds the blocks;
its token ``map`` line ranges give exact offsets into the source. Inline
parsing is switched off: sectioning needs blocks only, and skipping it more
than doubles throughput. Heading text is cleaned by :func:`contextpull_mdinline.plain_text` (shared with the harness).

Documentation sites add block containers CommonMark does not know, and
getting them wrong would cut sections in the middle of a note or a tab:

* MkDocs admonitions ``!!! note "Title"``, ``??? tip``, ``???+ tip`` and
  content tabs ``=== "Tab"``: a marker line starting a top-level paragraph,
  plus the following lines indented 4 spaces (CommonMark sees those as
  indented code or paragraph continuation);
* Docusaurus admonitions ``:::note Title`` ... ``:::`` (nesting by colon
  count; an unclosed opener is an ordinary paragraph).

A container is one block: headings and fences inside it never start a
section, and it may only be divided at its own paragraph breaks outside
fenced code. GitHub alerts (``> [!NOTE]``) are block quotes; MDX ``import``
lines and HTML comment front matter are ordinary blocks.

Most documents skip markdown-it: :mod:`.markdown_scan` finds the same blocks
line by line (headings, paragraphs, code, tables, lists, quotes, HTML blocks,
rules, reference definitions, front matter) and declines the rest; both paths
build the outline, containers included, with the same code (issues 14 and 31).
"""

from __future__ import annotations

import datetime
import importlib
import json
import logging
import re
from collections.abc import Iterable, Iterator
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import mdTrim
from markdown_it.rules_block.state_block import StateBlock
from markdown_it.rules_core.normalize import normalize as stock_normalize
from markdown_it.rules_core.state_core import StateCore
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from contextpull_mdinline import plain_text

from ..analysis.section_terms import MAX_FRONT_MATTER_CHARS
from .blocks import Block, BlockKind, Outline, Span, line_offsets, tile
from .markdown_scan import MAX_FILLED_CELLS, Scan, cell_count, gfm_table, scan

__all__ = ["markdown_it_outline", "outline", "scanned_outline"]


class _SilentLogger:
    """Stands in for markdown-it's block-rule loggers: a no-op ``debug``.

    Every block rule starts with ``LOGGER.debug(...)``, called millions of
    times at 100k sections; even when DEBUG is off, ``Logger.debug`` costs a
    call plus a level check, about 15 % of parsing (issue 14). Swapped only
    when nobody asked for markdown-it's debug output.
    """

    def debug(self, *args: object, **kwargs: object) -> None:
        """Drop the message."""


_BLOCK_RULE_MODULES = (
    "blockquote",
    "code",
    "fence",
    "heading",
    "hr",
    "html_block",
    "lheading",
    "list",
    "paragraph",
    "reference",
)
if not logging.getLogger("markdown_it").isEnabledFor(logging.DEBUG):
    for _name in ("markdown_it.parser_block", *(f"markdown_it.rules_block.{m}" for m in _BLOCK_RULE_MODULES)):
        _module = importlib.import_module(_name)
        if isinstance(getattr(_module, "LOGGER", None), logging.Logger):
            setattr(_module, "LOGGER", _SilentLogger())  # noqa: B010 (mypy cannot see LOGGER)

_MD = MarkdownIt("commonmark").enable("table").use(front_matter_plugin).disable(["inline", "text_join"])

_MKDOCS_MARKER = re.compile(r" {0,3}(?:(?:!!!|\?\?\?\+?)[ \t]+\S|===\+?[ \t]+\")")
_DOCUSAURUS_OPEN = re.compile(r" {0,3}(:{3,})[ \t]*[A-Za-z]")
_DOCUSAURUS_CLOSE = re.compile(r" {0,3}(:{3,})[ \t]*$")
_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})")
_MDX_STATEMENT = re.compile(r"(?:import|export)\s")
_SIMPLE_TYPES = (str, int, float, bool, type(None))
#: metadata larger than this as JSON is not stored (it is repeated in every search row)
MAX_METADATA_CHARS = 16 * 1024
#: a front matter title is a name the index shows, never a paragraph
MAX_TITLE_CHARS = 1000

_GROUP_KIND: dict[str, BlockKind] = {
    "heading_open": "heading",
    "paragraph_open": "paragraph",
    "fence": "code",
    "code_block": "code",
    "table_open": "table",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "blockquote_open": "quote",
    "html_block": "html",
    "front_matter": "front_matter",
}


def _table_extent(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    """markdown-it's GFM table rule, emitting only ``table_open``/``table_close``.

    Sectioning needs a table's line range, never its cells; the stock rule
    pushes some ten tokens per row and was a third of all parsing time. The
    header is validated by the stock rule itself; the body loop below ends
    exactly where the stock one does (same terminators, same cell count for
    the cap), so the ``map`` is identical (tests/parse/test_markdown_tables.py).
    """
    if not gfm_table.table(state, start_line, end_line, True):
        return False
    if silent:
        return True
    column_count = cell_count(mdTrim(gfm_table.getLine(state, start_line)))
    old_parent, state.parentType = state.parentType, "table"
    terminators = state.md.block.ruler.getRules("blockquote")
    opening = state.push("table_open", "table", 1)
    filled = 0
    line = start_line + 2
    while line < end_line and state.sCount[line] >= state.blkIndent:
        if any(rule(state, line, end_line, True) for rule in terminators):
            break
        text = mdTrim(gfm_table.getLine(state, line))
        if not text or state.is_code_block(line):
            break
        filled += column_count - cell_count(text)
        if filled > MAX_FILLED_CELLS:
            break
        line += 1
    opening.map = [start_line, line]
    state.push("table_close", "table", -1)
    state.parentType = old_parent
    state.line = line
    return True


def _normalize(state: StateCore) -> None:
    """markdown-it's ``normalize`` rule, skipped when it would change nothing.

    It rewrites line ends and NUL characters with two regex passes over the
    whole document; decoded text rarely has either, and the passes cost more
    than a tenth of parsing.
    """
    if "\r" in state.src or "\0" in state.src:
        stock_normalize(state)


_MD.block.ruler.at("table", _table_extent, {"alt": ["paragraph", "reference"]})
_MD.core.ruler.at("normalize", _normalize)


def outline(text: str) -> Outline:
    """The top-level blocks of ``text`` (decoded, newline-normalised Markdown).

    The line scanner first; markdown-it for any document the scanner declines.
    """
    scanned = scanned_outline(text)
    return scanned if scanned is not None else markdown_it_outline(text)


def markdown_it_outline(text: str) -> Outline:
    """The outline from markdown-it's tokens: every document, the reference for the scanner."""
    return _Builder(text).from_tokens(_MD.parse(text))


def scanned_outline(text: str) -> Outline | None:
    """The outline from :func:`.markdown_scan.scan`, or ``None`` where it declines."""
    scanned = scan(text)
    return None if scanned is None else _Builder(text).from_scan(scanned)


class _Builder:
    """One pass over the top-level blocks of one document: markdown-it's token groups or the scanner's blocks."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines, self.offsets = line_offsets(text)
        self.tokens: list[Token] = []
        self.scanned: Scan | None = None
        self.blocks: list[Block] = []
        self.code: list[Span] = []
        self.tables: list[Span] = []
        self.metadata: dict[str, Any] = {}
        self.title: str | None = None
        self.lead = ""
        self._docusaurus_closers: dict[int, int] | None = None

    def from_scan(self, scanned: Scan) -> Outline:
        """The outline of the scanner's blocks, containers merged from the blocks they span."""
        self.scanned = scanned
        blocks = [block for block in scanned.blocks if block.kind != "reference"]  # no token in markdown-it
        spans = [(block.begin, block.end) for block in blocks]
        for index, container_end in self._containers(spans, [block.kind == "paragraph" for block in blocks]):
            if container_end is not None:
                self._add_container(spans[index][0], container_end)
                continue
            block = blocks[index]
            kind, begin, end = block.kind, block.begin, block.end
            if kind == "heading":
                self._heading(begin, end, block.level, block.content)
            elif kind == "table":
                self._table(begin, end)
            elif kind == "code":
                self._code(begin, end, indented=block.indented)
            elif kind == "paragraph":
                self._paragraph(begin, end)
            elif kind in ("list", "quote"):
                self._compound(begin, end, kind, block.items, block.code)
            elif kind == "front_matter":
                self._front_matter(begin, end, block.content)
            else:
                self._compound(begin, end, "html" if kind == "html" else "other", (), ())
        return self._outline()

    def from_tokens(self, tokens: list[Token]) -> Outline:
        """The outline of markdown-it's tokens, containers merged from the groups they span."""
        self.tokens = tokens
        groups = list(self._groups())
        heads = [tokens[first] for first, _ in groups]
        spans = [(head.map[0], head.map[1]) if head.map else (0, 0) for head in heads]
        paragraphs = [head.type == "paragraph_open" and head.map is not None for head in heads]
        for index, container_end in self._containers(spans, paragraphs):
            if container_end is None:
                self._add_group(*groups[index])
            else:
                self._add_container(spans[index][0], container_end)
        return self._outline()

    def _containers(self, spans: list[tuple[int, int]], paragraphs: list[bool]) -> Iterator[tuple[int, int | None]]:
        """(index, None) for each top-level block on its own; (index, end line) where a paragraph opens a
        container, which takes the blocks after it that start before its end (their ends extend it)."""
        index = 0
        while index < len(spans):
            container_end = self._container_end(*spans[index]) if paragraphs[index] else None
            if container_end is None:
                yield index, None
                index += 1
                continue
            opening = index
            while index < len(spans) and spans[index][0] < container_end:
                container_end = max(container_end, spans[index][1])
                index += 1
            yield opening, container_end

    def _outline(self) -> Outline:
        return Outline(
            blocks=tile(self.blocks, self.text),
            code=tuple(self.code),
            tables=tuple(self.tables),
            metadata=self.metadata,
            title=self.title,
            lead=self.lead,
        )

    def _groups(self):
        """(first, last) token indexes of each top-level block, in order."""
        tokens = self.tokens
        index = 0
        while index < len(tokens):
            if tokens[index].nesting == 1:
                end = index + 1
                while not (tokens[end].level == 0 and tokens[end].nesting == -1):
                    end += 1
                yield index, end
                index = end + 1
            else:
                yield index, index
                index += 1

    def _add_group(self, first: int, last: int) -> None:
        token = self.tokens[first]
        if token.map is None:
            return
        kind = _GROUP_KIND.get(token.type, "other")
        begin, stop = token.map
        if kind == "heading":
            self._heading(begin, stop, int(token.tag[1]), self.tokens[first + 1].content)
        elif kind == "table":
            self._table(begin, stop)
        elif kind == "code":
            self._code(begin, stop, indented=token.type == "code_block")
        elif kind == "paragraph":
            self._paragraph(begin, stop)  # its one inner token, the inline, gives no cut
        elif kind == "front_matter":
            self._front_matter(begin, stop, token.content)
        else:
            cuts: list[int] = []
            nested: list[tuple[int, int]] = []
            for inner in self.tokens[first + 1 : last]:
                if inner.map is None or inner.nesting == -1:
                    continue
                if inner.level == 1 and inner.map[0] > begin:
                    cuts.append(inner.map[0])
                if inner.type in ("fence", "code_block"):
                    nested.append((inner.map[0], inner.map[1]))
            self._compound(begin, stop, kind, cuts, nested)

    def _compound(
        self, begin: int, stop: int, kind: BlockKind, cut_lines: Iterable[int], code_lines: Iterable[tuple[int, int]]
    ) -> None:
        """A block of blocks (a list, a quote) over lines ``[begin, stop)``: cuts where its children start."""
        offsets = self.offsets
        self.code.extend((offsets[first], offsets[end]) for first, end in code_lines)
        cuts = tuple(sorted({offsets[line] for line in cut_lines}))
        self.blocks.append(Block(offsets[begin], offsets[stop], kind, cuts=cuts))

    def _heading(self, begin: int, stop: int, level: int, content: str) -> None:
        self.blocks.append(Block(self.offsets[begin], self.offsets[stop], "heading", level, plain_text(content)))

    def _table(self, begin: int, stop: int) -> None:
        start, end = self.offsets[begin], self.offsets[stop]
        self.tables.append((start, end))
        cuts = tuple(self.offsets[begin + 3 : stop])
        self.blocks.append(Block(start, end, "table", cuts=cuts, header_end=self.offsets[begin + 2]))

    def _code(self, begin: int, stop: int, *, indented: bool) -> None:
        """A code block; indented code may be divided between its lines, a fence never."""
        start, end = self.offsets[begin], self.offsets[stop]
        self.code.append((start, end))
        cuts = tuple(self.offsets[begin + 1 : stop]) if indented else ()
        self.blocks.append(Block(start, end, "code", cuts=cuts))

    def _paragraph(self, begin: int, stop: int) -> None:
        """A paragraph; the first with prose (not an MDX statement) is the lead the offline summary uses."""
        start, end = self.offsets[begin], self.offsets[stop]
        if not self.lead:
            source = self.text[start:end]
            if not _MDX_STATEMENT.match(source) and plain_text(source):
                self.lead = source
        self.blocks.append(Block(start, end, "paragraph"))

    def _container_end(self, begin: int, end: int) -> int | None:
        """The line after a container that starts at the paragraph on lines ``[begin, end)``, or None."""
        first = self.lines[begin]
        if _MKDOCS_MARKER.match(first):
            last = begin
            for number in range(begin + 1, len(self.lines)):
                line = self.lines[number]
                if line.startswith(("    ", "\t")):
                    last = number
                elif line.strip():
                    break
            return max(last + 1, end)
        opener = _DOCUSAURUS_OPEN.match(first)
        if opener:
            closer = self._docusaurus_close(begin, len(opener.group(1)))
            return None if closer is None else max(closer + 1, end)
        return None

    def _docusaurus_close(self, begin: int, colons: int) -> int | None:
        """The line closing a ``:::`` container opened on line ``begin``, outside code."""
        if self._docusaurus_closers is None:
            self._docusaurus_closers = self._match_docusaurus()
        return self._docusaurus_closers.get(begin)

    def _match_docusaurus(self) -> dict[int, int]:
        """Opening line -> closing line of every closed ``:::`` container, in one pass.

        Openers and closers nest like brackets, separately for each colon
        count, so a stack per count pairs them all at once: scanning forward
        from each opener instead was quadratic in a file of unclosed openers.
        """
        fence_lines = {number for begin, end in self._code_lines() for number in range(begin, end)}
        open_at: dict[int, list[int]] = {}
        closers: dict[int, int] = {}
        for number, line in enumerate(self.lines):
            if ":::" not in line or number in fence_lines:
                continue
            opened = _DOCUSAURUS_OPEN.match(line)
            if opened:
                open_at.setdefault(len(opened.group(1)), []).append(number)
                continue
            closed = _DOCUSAURUS_CLOSE.match(line)
            if closed and open_at.get(len(closed.group(1))):
                closers[open_at[len(closed.group(1))].pop()] = number
        return closers

    def _code_lines(self) -> list[tuple[int, int]]:
        """Line ranges of code blocks, nested ones included: the scanner's, or markdown-it's."""
        if self.scanned is not None:
            return self.scanned.code
        return [(t.map[0], t.map[1]) for t in self.tokens if t.type in ("fence", "code_block") and t.map]

    def _add_container(self, begin: int, end: int) -> None:
        """A container block over lines ``[begin, end)``: cuts at its paragraph breaks."""
        cuts: list[int] = []
        fence: str | None = None
        fence_start = 0
        blank_before = False
        for number in range(begin + 1, end):
            line = self.lines[number]
            if fence is not None:
                stripped = line.strip()
                if stripped.startswith(fence) and not stripped.strip(fence[0]):
                    self.code.append((self.offsets[fence_start], self.offsets[number + 1]))
                    fence = None
                blank_before = False
                continue
            opened = _FENCE_OPEN.match(line)
            if blank_before and line.strip():
                cuts.append(self.offsets[number])
            if opened:
                fence, fence_start = opened.group(1), number
            blank_before = not line.strip()
        if fence is not None:
            self.code.append((self.offsets[fence_start], self.offsets[end]))
        self.blocks.append(Block(self.offsets[begin], self.offsets[end], "container", cuts=tuple(cuts)))

    def _front_matter(self, begin: int, stop: int, source: str) -> None:
        """The front matter block over lines ``[begin, stop)`` and its YAML ``source`` read as metadata."""
        self.blocks.append(Block(self.offsets[begin], self.offsets[stop], "front_matter"))
        self._read_front_matter(source)

    def _read_front_matter(self, source: str) -> None:
        """Metadata from YAML front matter; on any problem, one ``front_matter_error`` entry.

        Front matter is the corpus author's, so it is read defensively: above
        :data:`MAX_FRONT_MATTER_CHARS` it is not parsed, aliases are refused
        before loading (eight nested levels of them in 339 bytes expanded to
        2 GB), and metadata whose JSON exceeds :data:`MAX_METADATA_CHARS` is
        not stored. The front matter stays part of the text either way.
        """
        if len(source) > MAX_FRONT_MATTER_CHARS:
            self.metadata = {"front_matter_error": f"front matter over {MAX_FRONT_MATTER_CHARS:,} characters not read"}
            return
        import yaml  # here: a corpus without front matter never pays for loading it (about 10 ms)

        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        metadata: dict[str, Any] = {}
        try:
            if any(isinstance(event, yaml.AliasEvent) for event in yaml.parse(source, Loader=loader)):
                self.metadata = {"front_matter_error": "front matter uses YAML aliases (not read)"}
                return
            data = yaml.load(source, Loader=loader)
            if isinstance(data, dict):
                metadata = {str(key): _json_safe(value) for key, value in data.items()}
        except yaml.YAMLError as exc:
            self.metadata = {"front_matter_error": " ".join(str(exc).split())[:300]}
            return
        except RecursionError:
            self.metadata = {"front_matter_error": "front matter nested too deeply"}
            return
        if data is None:
            return
        if not isinstance(data, dict):
            self.metadata = {"front_matter_error": "front matter is not a mapping"}
            return
        title = metadata.get("title")
        if isinstance(title, (str, int, float)) and str(title).strip():
            self.title = plain_text(str(title))[:MAX_TITLE_CHARS]  # entities and inline markup, as in headings
        if len(json.dumps(metadata, ensure_ascii=False)) > MAX_METADATA_CHARS:
            metadata = {"front_matter_error": f"front matter over {MAX_METADATA_CHARS:,} characters as JSON not stored"}
        self.metadata = metadata


def _json_safe(value: Any) -> Any:
    """Front matter values as JSON can store them (dates and the like become strings)."""
    if isinstance(value, _SIMPLE_TYPES):
        return value
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return str(value)
