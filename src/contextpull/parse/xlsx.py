"""Excel (.xlsx) workbooks to a Markdown-like rendering.

Each visible sheet with data becomes a level-1 heading (so its sections form
one group) followed by one pipe table: the first row filled at least half as
wide as the sheet is the header, so every part of a long sheet carries it,
and sparse rows above it (a title, a note) are paragraphs. Cells show their cached
values (what Excel last computed for a formula), dates in ISO form.
Hidden and empty sheets are left out; each is named with its reason in the
document's metadata (``skipped_sheets``).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from .rendering import Rendering, Unparseable, Writer, open_package

__all__ = ["render", "value_text"]

CORRUPT = "not a readable Excel workbook (damaged, or not .xlsx)"
NO_SHEETS = "no visible sheet with data"


def render(data: bytes) -> Rendering:
    """The rendering of the workbook in ``data``; raises :class:`Unparseable` with the reason."""
    import openpyxl  # the `office` extra

    book = open_package(lambda stream: openpyxl.load_workbook(stream, read_only=True, data_only=True), data, CORRUPT)
    writer = Writer()
    skipped = []
    try:
        for sheet in book.worksheets:
            if sheet.sheet_state != "visible":
                skipped.append({"sheet": sheet.title, "reason": "hidden"})
                continue
            rows = trimmed(sheet.iter_rows(values_only=True))
            if not rows:
                skipped.append({"sheet": sheet.title, "reason": "empty"})
                continue
            writer.heading(1, sheet.title)
            header = _header_row(rows)
            for row in rows[:header]:
                writer.paragraph(" ".join(value for value in row if value))
            writer.table(rows[header:])
    finally:
        book.close()
    rendering = writer.rendering(metadata={"skipped_sheets": skipped} if skipped else None)
    if not rendering.text:
        raise Unparseable(NO_SHEETS)
    return rendering


def _header_row(rows: list[list[str]]) -> int:
    """The first row filled at least half as wide as the table: rows above it are titles."""
    width = max(len(row) for row in rows)
    for index, row in enumerate(rows):
        if sum(1 for value in row if value) * 2 >= width:
            return index
    return 0


#: cells read from one sheet or table, empty ones included: a sheet with one cell at A1 and one at
#: XFD1048576 is 17 billion cells to a streaming reader, and even 5 million is a data dump, not a document
MAX_CELLS = 5_000_000


def trimmed(rows: Iterable[Iterable[Any]], max_cells: int = MAX_CELLS) -> list[list[str]]:
    """Rows as text with empty rows dropped and empty columns at the right cut off.

    Streams: only rows with a value are kept, each without its trailing empty
    cells, and every cell read counts against ``max_cells`` (:class:`Unparseable`
    past it), so a sheet's declared size cannot cost memory or time.
    """
    kept: list[tuple[list[str], int]] = []  # (row up to its last value, its width as read)
    cells = 0
    for row in rows:
        texts = [value_text(value) for value in row]
        cells += len(texts)
        if cells > max_cells:
            raise Unparseable(f"more than {max_cells:,} cells in one sheet or table")
        last = max((i + 1 for i, v in enumerate(texts) if v), default=0)
        if last:
            kept.append((texts[:last], len(texts)))
    width = max((len(texts) for texts, _ in kept), default=0)
    return [texts + [""] * (min(read, width) - len(texts)) for texts, read in kept]


def value_text(value: Any) -> str:
    """A cell value as a reader would see it: integral floats without ``.0``, dates in ISO form."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    if isinstance(value, datetime.datetime) and value.time() == datetime.time():
        return value.date().isoformat()
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    return str(value)
