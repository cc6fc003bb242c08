"""The block outline a parser hands to the sectioner.

Parsers (``markdown``, ``plaintext``) know syntax; the sectioner
(``sections``) knows sizes, headings and merges. The outline between them is
deliberately small: top-level blocks that tile the text exactly (each block
owns the blank lines after it), where a block may be divided, which spans are
code or table, and the document's own title and metadata.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate
from typing import Any, Literal

BlockKind = Literal[
    "heading", "paragraph", "code", "table", "container", "list", "quote", "html", "front_matter", "other"
]
Span = tuple[int, int]


@dataclass(frozen=True, slots=True)
class Block:
    """One top-level block, ``text[start:end]``, trailing blank lines included.

    ``cuts`` are offsets strictly inside the block where it may be divided
    without breaking its structure (list items, table rows, container
    paragraphs, lines of indented code). A fenced code block has no cuts. For a
    table, ``header_end``
    is the offset just after its separator line, so ``text[start:header_end]``
    is the header row and separator exactly.
    """

    start: int
    end: int
    kind: BlockKind
    level: int = 0
    heading: str = ""
    cuts: tuple[int, ...] = ()
    header_end: int = 0


@dataclass(frozen=True, slots=True)
class Outline:
    """What a parser found: blocks tiling the text, code and table spans, metadata.

    ``code`` and ``tables`` are sorted, non-overlapping spans covering source
    lines only (no trailing blank lines); no division point may fall strictly
    inside one of them except a table's own row cuts. ``lead`` is the source of
    the first prose paragraph, for the offline summary.
    """

    blocks: tuple[Block, ...]
    code: tuple[Span, ...] = ()
    tables: tuple[Span, ...] = ()
    metadata: dict[str, Any] = field(default_factory=dict)
    title: str | None = None
    lead: str = ""


def line_offsets(text: str) -> tuple[list[str], list[int]]:
    """The lines of ``text`` and the offset where each starts, plus ``len(text)`` last.

    ``offsets[k]`` is the start of line ``k`` for every line number a parser
    can report, including one past the last line, so line ranges map to
    slices without special cases.
    """
    lines = text.split("\n")
    offsets = list(accumulate((len(line) + 1 for line in lines), initial=0))
    offsets[-1] = len(text)
    return lines, offsets


def tile(blocks: list[Block], text: str) -> tuple[Block, ...]:
    """``blocks`` (parser spans, in order) stretched to cover ``text`` exactly.

    Each block runs to the next one's start; the first starts at 0, so any
    leading blank lines belong to it. Source the parser produced no block
    for (link reference definitions) becomes an ``other`` block of its own,
    so it never inflates a code block or table. Text with no block at all is
    one ``other`` block.
    """
    spans: list[Block] = []
    for index, block in enumerate(blocks):
        spans.append(block)
        following = blocks[index + 1].start if index + 1 < len(blocks) else len(text)
        gap = text[block.end : following]
        if gap.strip():
            spans.append(Block(block.end + len(gap) - len(gap.lstrip()), following, "other"))
    out: list[Block] = []
    for index, block in enumerate(spans):
        begin = 0 if index == 0 else block.start
        end = spans[index + 1].start if index + 1 < len(spans) else len(text)
        if end > begin:
            out.append(Block(begin, end, block.kind, block.level, block.heading, block.cuts, block.header_end))
    if not out and text:
        out.append(Block(0, len(text), "other"))
    return tuple(out)
