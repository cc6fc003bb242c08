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
    return index_text(HEADING_SEPARATOR.join(heading_path)), index_text(body), trigram_text(text)


def trigram_text(text: str) -> str:
    """What the trigram index holds for ``text``: case-folded, NUL written as a space.

    The trigram tokenizer reads text as a C string and stopped at the first
    NUL, so grep's candidates missed everything after it. A space instead can
    only add candidates (grep verifies each against the real text), and a
    pattern that itself holds a NUL is never looked up by trigram.
    """
    return text.casefold().replace("\x00", " ")
