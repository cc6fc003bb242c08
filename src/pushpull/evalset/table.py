"""Table questions, computed without a model: one cell of a GFM pipe table.

The row key (first cell) must head a row in exactly one chunk, so the
question "What is the <column> of <row key> in <context>?" has one answer.
When a chunker splits a table between rows, the continuation starts with data
rows; its header is taken from the previous chunk of the same source that
ended inside the table, and that chunk joins the gold (the answer cannot be
read without the header). A chunker that repeats the header at the top of a
continuation (as ContextPull's export may) makes the part self-contained, and
then the row's chunk alone is gold. Both layouts are handled.

Cells lose only real markup (see :mod:`contextpull_mdinline`), so a key such as
``LEDGERLINE_LOG_LEVEL`` is asked exactly as a user would type it, and a cell
with no letters or digits ("", "-", "—") is never an answer.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from contextpull_mdinline import plain_text

from ..chunks import Chunk
from ..questions import Question

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{1,}:?\s*(\|\s*:?-{1,}:?\s*)*\|?\s*$")
_PIPE = re.compile(r"(?<!\\)\|")


@dataclass(frozen=True)
class TableRow:
    chunk_id: str
    header_chunk_id: str
    header: tuple[str, ...]
    cells: tuple[str, ...]
    context: str
    source: str

    @property
    def key(self) -> str:
        return self.cells[0]


@dataclass(frozen=True)
class _OpenTable:
    header: tuple[str, ...]
    chunk_id: str
    context: str


def split_cells(line: str) -> tuple[str, ...]:
    """Cells of a pipe row, markup stripped; escaped pipes stay inside their cell."""
    body = line.strip()
    body = body.removeprefix("|")
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return tuple(plain_text(c) for c in _PIPE.split(body))


def has_content(cell: str) -> bool:
    """A cell worth asking for: holds a letter or digit (not empty, "-", "—" or "?")."""
    return any(ch.isalnum() for ch in cell)


def _is_row(line: str) -> bool:
    return "|" in line and bool(line.strip())


def _context(heading: str, source: str) -> str:
    return heading or PurePosixPath(source).stem or source


def _rows_of_source(chunks: Sequence[Chunk]) -> list[TableRow]:
    rows: list[TableRow] = []
    heading = ""
    carried: _OpenTable | None = None
    for chunk in chunks:
        lines = chunk.text.splitlines()
        table = carried
        i = 0
        while i < len(lines):
            line = lines[i]
            match = _HEADING.match(line)
            next_line = lines[i + 1] if i + 1 < len(lines) else ""
            if match:
                heading, table = plain_text(match.group(1)), None
            elif _is_row(line) and _SEPARATOR.match(next_line) and "-" in next_line:
                table = _OpenTable(split_cells(line), chunk.id, _context(heading, chunk.source))
                i += 1
            elif table is not None and _is_row(line):
                cells = split_cells(line)
                if len(cells) == len(table.header):
                    rows.append(TableRow(chunk.id, table.chunk_id, table.header, cells, table.context, chunk.source))
            else:
                table = None
            i += 1
        last = next((ln for ln in reversed(lines) if ln.strip()), "")
        carried = table if table is not None and _is_row(last) else None
    return rows


def table_rows(chunks: Sequence[Chunk]) -> list[TableRow]:
    """Every data row of every pipe table, sources walked in corpus order."""
    by_source: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        by_source[chunk.source].append(chunk)
    return [row for source in by_source for row in _rows_of_source(by_source[source])]


def _usable_key(key: str) -> bool:
    return len(key) >= 2 and any(ch.isalpha() for ch in key)


def _equivalent(key: str, answer: str, chunks: Sequence[Chunk]) -> list[str]:
    """Chunks with a line holding both the row key and the cell (markup aside): the same fact, restated."""
    words = re.findall(r"\w+", key)
    holders = [c for c in chunks if all(w in c.text for w in words)]
    return [
        c.id
        for c in holders
        if any(
            key in plain and answer in plain
            for plain in (plain_text(ln) for ln in c.text.splitlines() if words[0] in ln)
        )
    ]


def build_table(chunks: Sequence[Chunk], *, limit: int, seed: int) -> tuple[list[Question], str | None]:
    """Up to ``limit`` single-cell questions (seeded), or why the corpus has none."""
    rows = table_rows(chunks)
    if not rows:
        return [], "no GFM pipe tables in the corpus"
    heads: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        heads[row.key].append(row.chunk_id)
    unique = [r for r in rows if _usable_key(r.key) and len(heads[r.key]) == 1]
    if not unique:
        return [], "no table row key heads a row in exactly one chunk"
    rng = random.Random(seed)
    rng.shuffle(unique)
    questions: list[Question] = []
    for row in unique:
        if len(questions) >= limit:
            break
        columns = [
            c
            for c in range(1, len(row.cells))
            if has_content(row.header[c])
            and has_content(row.cells[c])
            and row.cells[c].casefold() != row.key.casefold()
        ]
        if not columns:
            continue
        col = rng.choice(columns)
        answer = row.cells[col]
        gold = [row.chunk_id] + ([row.header_chunk_id] if row.header_chunk_id != row.chunk_id else [])
        restating = _equivalent(row.key, answer, chunks)  # restates the row's cell, never the header
        questions.append(
            Question(
                id="",
                q=f"What is the {row.header[col]} of {row.key} in {row.context}?",
                shape="table",
                gold_chunk_ids=gold,
                answer=answer,
                source=row.source,
                identifier=row.key,
                equivalent_gold=restating,
                equivalent_of={row.chunk_id: restating},
            )
        )
    if not questions:
        return [], "uniquely keyed table rows have no non-empty cells to ask about"
    return questions, None
