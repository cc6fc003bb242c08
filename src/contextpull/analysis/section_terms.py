"""What one section contributes to the search indexes: analysed terms, computed once.

Term analysis, not storage: ingest workers compute these values beside the
parse (so the writer only inserts them), and the store recomputes them from
stored text to delete a section. Both must agree, so there is one function.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import NamedTuple

from ..records import HEADING_SEPARATOR, ParsedDocument
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


#: front matter is looked for within this many characters of a document's start
MAX_FRONT_MATTER_CHARS = 64 * 1024


def front_matter_length(text: str) -> int:
    """How many characters of ``text`` are a YAML front matter block (``---`` lines around it); 0 if none.

    Only the start of a document can hold one: callers ask for a
    document's first section. Its title and description are the document's
    metadata, used where the index shows them; as section text the block is
    noise that search would match and a snippet would show.
    """
    first = text.find("\n")
    if first < 0 or text[:first].rstrip(" \t") != "---":
        return 0
    position, limit = first + 1, min(len(text), MAX_FRONT_MATTER_CHARS)
    while position < limit:
        end = text.find("\n", position)
        end = len(text) if end < 0 else end
        if text[position:end].rstrip(" \t") == "---":
            return min(len(text), end + 1)
        position = end + 1
    return 0


#: front matter keys whose one-line value says what a document is about; the rest
#: (``redirect_from``, ``layout``, ``tags``, dates) stays out of the index
_DESCRIBING = re.compile(r"^(?:title|description|summary):(.*)$", re.MULTILINE)


def front_matter_description(block: str) -> str:
    """The one-line ``title``, ``description`` and ``summary`` values of a front matter ``block``, a line each.

    Search finds a document by what its author says it is about ("A guide to
    using uv with the Dependabot dependency bot"); a block scalar (``|``,
    ``>``) or any other key is left out, quotes around a value are dropped.
    """
    values = (value.strip() for value in _DESCRIBING.findall(block))
    return "\n".join(value.strip("'\"") for value in values if value and value[0] not in "|>")


#: a table's caption is the paragraph just above it when that paragraph is at most this long
MAX_CAPTION_CHARS = 300


def table_caption(texts: Sequence[str], ordinal: int, header_row: str) -> str:
    """The caption of the table whose header row is ``header_row`` in section ``ordinal`` of ``texts``.

    Writers name a table in the line above it ("Table 3: Supported flags",
    "The following options are accepted:", an HTML ``<caption>``). That is
    the short paragraph just above the header row, or, when the header row
    starts its section (a long section cut just before its table), the one
    that ends the section before. A heading, list, code fence or another
    table above is not a caption; nor is a paragraph longer than
    :data:`MAX_CAPTION_CHARS`.
    """
    text = texts[ordinal]
    at = text.find(header_row) if header_row else -1
    if at < 0:
        return ""
    above = (text[:at] if at else texts[ordinal - 1] if ordinal else "").rstrip()
    paragraph = above[above.rfind("\n\n") + 1 :].strip() if "\n\n" in above else above.strip()
    if not paragraph or len(paragraph) > MAX_CAPTION_CHARS or paragraph[0] in "#|`-*+>" or "\n#" in paragraph:
        return ""
    return paragraph


def has_front_matter(format: str, ordinal: int) -> bool:
    """Whether a section may start with front matter: a Markdown document's first."""
    return ordinal == 0 and format == "markdown"


def search_fields(
    heading_path: Iterable[str],
    title: str,
    path: str,
    text: str,
    table_header: str | None = None,
    *,
    front_matter: bool = False,
    caption: str = "",
) -> SearchFields:
    """The search fields of one section, on insert and on delete alike.

    The title field holds the document's title and its path: people name a
    document by either (``errors.md``, "the errors page"). A table
    continuation is searchable by its column names too (its header row is
    indexed with its body), as ``read`` shows it; a table section by its
    ``caption`` (:func:`section_caption`), which ``read`` does not show; grep stays exact
    to the section's own text. Identifiers are those of the heading path and the
    body, whole. With ``front_matter`` (a Markdown document's first section)
    a leading front matter block is left out of the body but for its title,
    description and summary (:func:`front_matter_description`): grep still
    finds all of it, as it is in the file.
    """
    heading = HEADING_SEPARATOR.join(heading_path)
    body = text
    if front_matter and (length := front_matter_length(text)):
        described = front_matter_description(text[:length])
        body = f"{described}\n{text[length:]}" if described else text[length:]
    body = f"{table_header}{body}" if table_header else body
    body = f"{caption}\n{body}" if caption else body
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


def document_fields(doc: ParsedDocument) -> tuple[SearchFields, ...]:
    """The search fields of every section of ``doc``, in order: in an ingest worker or in the writer."""
    texts = [s.text for s in doc.sections]
    return tuple(
        search_fields(
            s.heading_path,
            doc.title,
            doc.path,
            s.text,
            s.table_header,
            front_matter=has_front_matter(doc.format, s.ordinal),
            caption=section_caption(texts, s.ordinal, s.table_header, s.header_ordinal),
        )
        for s in doc.sections
    )


def section_caption(texts: Sequence[str], ordinal: int, table_header: str | None, header_ordinal: int | None) -> str:
    """The caption a table section is searchable by when its own text lacks it; "" for any other section.

    ``texts`` are its document's section texts by ordinal. A continuation
    (``table_header`` set) takes its table's caption; a section that starts
    with a table's header row takes the paragraph ending the section before.
    Search gains what the reader of the whole page sees above the rows;
    ``read`` and grep stay exact to the section's own text.
    """
    if table_header and header_ordinal is not None and 0 <= header_ordinal < len(texts):
        return table_caption(texts, header_ordinal, table_header.split("\n", 1)[0])
    text = texts[ordinal]
    if ordinal and text.startswith("|"):
        return table_caption(texts, ordinal, text.split("\n", 1)[0])
    return ""
