"""CSV and TSV files to a Markdown-like rendering: one table per file.

The first non-empty row is the header, so every part of a long file carries
it. The text is decoded like any text file before it gets here.
"""

from __future__ import annotations

import csv
import io

from .rendering import Rendering, Unparseable, Writer
from .xlsx import trimmed

__all__ = ["render"]

#: one field; Python's csv refuses longer ones, and no table cell a reader wants is this long
_MAX_FIELD = 1 << 24


def render(text: str, *, delimiter: str) -> Rendering:
    """The rendering of delimited ``text`` (decoded, newline-normalised)."""
    csv.field_size_limit(_MAX_FIELD)
    try:
        rows = trimmed(csv.reader(io.StringIO(text), delimiter=delimiter))
    except csv.Error as err:
        raise Unparseable(f"not readable as a table ({err})") from None
    writer = Writer()
    writer.table(rows)
    return writer.rendering()
