"""Whether one row of a table answers a query: a long table is not drowned by its own length.

BM25 divides a term's weight by the length of the section holding it, so a
3,000-character flag table whose one row names everything the question asks
("What is the type of `prefix` in registries?") scores below a short page of
prose that uses the same words in passing. The row is the unit that answers
such a question; :func:`row_answers` says when a section holds one, and
``ranking`` raises such a section as it raises an exact phrase
(docs/adr/028-table-rows-and-captions.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..analysis.terms import index_terms

#: section kinds that can hold a table row
TABLE_KINDS = frozenset({"table", "mixed"})


def table_blocks(text: str, table_header: str | None) -> Iterable[tuple[str, list[str]]]:
    """``(header row, body rows)`` of each table in ``text``, a table being a run of lines that begin with ``|``.

    A section continuing a table split between rows starts with body rows;
    its header row is ``table_header``'s first line. Separator rows
    (``|---|``) and grid-table borders (``+---+``) are neither header nor
    body; a grid table's cell that wraps is read line by line.
    """
    header: str | None = table_header.split("\n", 1)[0] if table_header else None
    rows: list[str] = []
    for line in [*text.split("\n"), ""]:
        stripped = line.strip()
        if stripped[:1] in ("|", "+") and set(stripped) <= set("|-:+= "):
            continue  # a separator row, or a grid table's border
        if stripped.startswith("|"):
            if header is None:
                header = stripped
            else:
                rows.append(stripped)
        elif header is not None or rows:
            if rows:
                yield header or "", rows
            header, rows = None, []


def row_answers(
    text: str,
    table_header: str | None,
    parts: Sequence[frozenset[str]],
    context: frozenset[str],
) -> bool:
    """Whether one body row of a table in ``text`` holds every query part the ``context`` does not.

    ``parts`` are the index terms each content part of the query stands for
    (a part is held when any of its terms is); ``context`` the index terms of
    the section's heading path and document title and path, which say what
    every row is about. The row's table header counts with the row, as a
    column name ("type", "default") is part of what the row says. A row must
    hold at least one part itself: a table under a heading that names the
    whole query does not answer it by any row.

    When more than half the rows hold what the row must, the table answers
    only if the ``context`` names part of the query too: then the question
    asks for those rows ("the recommended attributes for Cosmos DB", the
    Cosmos DB table's rows marked Recommended). Otherwise the words are just
    the table's vocabulary ("Conditionally Required" in a requirement-level
    column of every span table), counted in full by BM25 already.
    """
    open_parts = [terms for terms in parts if not terms & context]
    if not open_parts:
        return False
    about_the_query = len(open_parts) < len(parts)
    for header, rows in table_blocks(text, table_header):
        held_by_header = set(index_terms(header))
        left = [terms for terms in open_parts if not terms & held_by_header]
        answering = 0
        for row in rows:
            row_terms = set(index_terms(row))
            if all(terms & row_terms for terms in left) and any(terms & row_terms for terms in open_parts):
                if about_the_query:
                    return True
                answering += 1
        if answering and answering * 2 <= len(rows):
            return True
    return False
