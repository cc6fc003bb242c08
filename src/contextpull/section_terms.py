"""What one section contributes to the search indexes: analysed terms, computed once.

Term analysis, not storage: ingest workers compute these values beside the
parse (so the writer only inserts them), and the store recomputes them from
stored text to delete a section. Both must agree, so there is one function.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from .records import HEADING_SEPARATOR
from .terms import index_text, index_text_and_identifiers


class SearchFields(NamedTuple):
    """What one section contributes to the search index, field by field, as analysed text.

    ``folded`` is the case-folded source text for the grep (trigram) index.
    """

    heading: str
    title: str
    identifiers: str
    body: str
    folded: str


def search_fields(
    heading_path: Iterable[str], title: str, path: str, text: str, table_header: str | None = None
) -> SearchFields:
    """The search fields of one section, on insert and on delete alike.

    The title field holds the document's title and its path: people name a
    document by either (``errors.md``, "the errors page"). A table
    continuation is searchable by its column names too (its header row is
    indexed with its body), as ``read`` shows it; grep stays exact to the
    section's own text. Identifiers are those of the heading path and the
    body, whole.
    """
    heading = HEADING_SEPARATOR.join(heading_path)
    body = f"{table_header}{text}" if table_header else text
    # One pass per field for terms and identifiers alike; the identifiers of
    # "heading\nbody" are the heading's then the body's (whitespace splits them).
    heading_terms, heading_ids = index_text_and_identifiers(heading)
    body_terms, body_ids = index_text_and_identifiers(body)
    return SearchFields(
        heading_terms,
        index_text(f"{title}\n{path}"),
        f"{heading_ids} {body_ids}" if heading_ids and body_ids else heading_ids or body_ids,
        body_terms,
        trigram_text(text),
    )


def trigram_text(text: str) -> str:
    """What the trigram index holds for ``text``: case-folded, NUL written as a space.

    The trigram tokenizer reads text as a C string and stopped at the first
    NUL, so grep's candidates missed everything after it. A space instead can
    only add candidates (grep verifies each against the real text), and a
    pattern that itself holds a NUL is never looked up by trigram.
    """
    return text.casefold().replace("\x00", " ")
