"""CSV and TSV files to a Markdown-like rendering: one table per file.

The first non-empty row is the header, so every part of a long file carries
it. The text is decoded like any text file before it gets here.
"""

from __future__ import annotations

import csv
import io

from .rendering import Rendering, Writer
from .xlsx import trimmed

__all__ = ["render"]


def render(text: str, *, delimiter: str) -> Rendering:
    """The rendering of delimited ``text`` (decoded, newline-normalised)."""
    csv.field_size_limit(1 << 24)
    rows = trimmed(csv.reader(io.StringIO(text), delimiter=delimiter))
    writer = Writer()
    writer.table(rows)
    return writer.rendering()
