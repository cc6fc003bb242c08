"""What one section contributes to the search indexes: analysed terms, computed once.

Term analysis, not storage: ingest workers compute these values beside the
parse (so the writer only inserts them), and the store recomputes them from
stored text to delete a section. Both must agree, so there is one function.
"""

from __future__ import annotations

from collections.abc import Iterable

from .records import HEADING_SEPARATOR
from .terms import index_text

#: (heading, body, folded): what one section contributes to the word and trigram indexes
FtsValues = tuple[str, str, str]


def fts_values(heading_path: Iterable[str], text: str, table_header: str | None = None) -> FtsValues:
    """The values a section contributes to the search indexes, on insert and on delete alike.

    A table continuation is searchable by its column names too (its header
    row is indexed with its body), as ``read`` shows it; grep stays exact to
    the section's own text.
    """
    body = f"{table_header}{text}" if table_header else text
    return index_text(HEADING_SEPARATOR.join(heading_path)), index_text(body), text.casefold()
