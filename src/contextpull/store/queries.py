"""Every read the five operations make, as small functions over a connection.

The operations never write SQL themselves; they call these. Each function
takes an open ``sqlite3.Connection`` and assumes the caller holds a read
snapshot (:func:`snapshot`) when it makes more than one call, so a concurrent
re-ingest is never seen half-way.

Document order is ``(path, ordinal)``: SQLite's BINARY collation orders
UTF-8 bytes, which is the same as Python's code-point order for ``str``, so
ordering in SQL and sorting in Python agree.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Generator, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import TracebackType

from .damage import corrupt

_POINTER_COLUMNS = "s.id, s.sid, s.path, s.ordinal, s.heading_path, s.kind, s.first_page, s.last_page"
_SECTION_COLUMNS = _POINTER_COLUMNS + ", s.text, s.table_header, s.header_ordinal"
#: an FTS5 MATCH expression, built only by the functions below (every term quoted)
FtsQuery = str
#: up to this many grep candidates are fetched by id; more are walked in document order
FEW_CANDIDATES = 1000


@dataclass(frozen=True, slots=True)
class SectionRow:
    """One stored section; ``text`` is ``None`` when only a pointer was loaded."""

    rowid: int
    sid: str
    path: str
    ordinal: int
    heading_path: tuple[str, ...]
    kind: str
    pages: tuple[int, int] | None = None  # first and last page (PDF)
    text: str | None = None
    table_header: str | None = None
    header_ordinal: int | None = None


#: sections read lazily from an open cursor; ``close()`` stops the read early
SectionStream = Generator[SectionRow, None, None]


@dataclass(frozen=True, slots=True)
class RankedRow:
    """A ranked hit: the section pointer, its document title and its score."""

    section: SectionRow
    title: str
    score: float


@lru_cache(maxsize=4096)
def _heading_path(stored: str) -> tuple[str, ...]:
    """A stored heading path (a JSON array) as a tuple; cached, as a document's sections share a few
    paths, and bounded, so a long-running server does not grow with the corpus (issue 14)."""
    return tuple(json.loads(stored))


def _row(values: Sequence[object]) -> SectionRow:
    rowid, sid, path, ordinal, heading_path, kind, first_page, last_page, *rest = values
    return SectionRow(
        int(rowid),  # type: ignore[call-overload]
        str(sid),
        str(path),
        int(ordinal),  # type: ignore[call-overload]
        _heading_path(str(heading_path)),
        str(kind),
        (int(first_page), int(last_page)) if first_page is not None else None,  # type: ignore[call-overload]
        *rest,  # type: ignore[arg-type]
    )


class snapshot:  # lower case: used as a function, ``with snapshot(conn):``
    """Hold one read transaction so several queries see the same store state.

    Nested use joins the outer snapshot. The transaction only reads, so it is
    always rolled back. SQLite errors inside (a damaged page) surface as
    :class:`~contextpull.errors.StoreCorrupt`, the one error every surface shows.
    A class rather than a ``@contextmanager`` generator: every operation opens
    one, and the generator machinery cost more than the two statements (issue 14).
    """

    __slots__ = ("_conn", "_owner")

    def __init__(self, conn: sqlite3.Connection) -> None:
        self._conn = conn
        self._owner = False

    def __enter__(self) -> sqlite3.Connection:
        if not self._conn.in_transaction:
            self._conn.execute("BEGIN")
            self._owner = True
        return self._conn

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        if not self._owner:
            return
        self._owner = False
        try:
            if isinstance(err, sqlite3.DatabaseError):
                raise corrupt(_database_file(self._conn), err) from None
        finally:
            self._conn.execute("ROLLBACK")


def _database_file(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return str(row[2]) if row and row[2] else "store"


def fts_quote(term: str) -> FtsQuery:
    """Quote one term for an FTS5 MATCH expression so no syntax can leak in."""
    return '"' + term.replace('"', '""') + '"'


def fts_any(terms: Sequence[str]) -> FtsQuery:
    """Sections holding at least one of ``terms``."""
    return " OR ".join(fts_quote(term) for term in terms)


def fts_all(terms: Sequence[str]) -> FtsQuery:
    """Sections holding every one of ``terms``."""
    return " AND ".join(fts_quote(term) for term in terms)


def fts_in_headings(match: FtsQuery) -> FtsQuery:
    """``match`` restricted to the heading column."""
    return f"{{heading}} : ({match})"


def document_paths(conn: sqlite3.Connection) -> list[str]:
    return [path for (path,) in conn.execute("SELECT path FROM documents ORDER BY path")]


def documents_matching(conn: sqlite3.Connection, patterns: Sequence[str]) -> list[int]:
    """Ids of documents whose path matches any glob, or lies under a matching folder.

    Globs use SQLite ``GLOB`` (case-sensitive; ``*`` also crosses ``/``), so
    ``policies/*``, ``guide.md`` and the folder name ``policies`` all work.
    """
    clauses = " OR ".join("path GLOB ? OR path GLOB ? || '/*'" for _ in patterns)
    params = [p for pattern in patterns for p in (pattern, pattern)]
    sql = f"SELECT doc_id FROM documents WHERE {clauses} ORDER BY doc_id"
    return [doc_id for (doc_id,) in conn.execute(sql, params)]


#: the search index's fields, in column order (docs/adr/011-search-terms-and-ranking.md)
SEARCH_FIELDS = ("heading", "title", "identifiers", "body")


def _doc_filter(doc_ids: Sequence[int] | None) -> tuple[str, list[object]]:
    # CROSS JOIN keeps the FTS scan as the outer loop: bm25 is then computed
    # once per match, not re-derived for every row id the filter names.
    if doc_ids is None:
        return "", []
    return (
        "CROSS JOIN sections s ON s.id = sections_fts.rowid WHERE s.doc_id IN (SELECT value FROM json_each(?)) AND",
        [json.dumps(list(doc_ids))],
    )


@dataclass(frozen=True, slots=True)
class WeightedTerm:
    """One index term of a query, for :func:`relevance`.

    ``part`` numbers the query part it stands for; ``group`` is 0 for the
    part as typed, 1 for an identifier it expands to, 2 for one of its word
    pieces; ``scale`` multiplies FTS5's score for the term (turning FTS5's IDF
    into the caller's); ``named`` marks the exact term of an identifier the
    query names. ``within`` > 0 gates a piece: it counts only in sections
    that hold its part as typed (in any of its spellings), which about that
    many sections do (the sum of each spelling's count, so a section holding
    two spellings counts twice: an estimate, used only to choose the query
    plan). ``held`` is how many sections hold the term itself (0 when not
    given).
    """

    term: str
    part: int
    group: int
    scale: float
    named: bool = False
    within: int = 0
    held: int = 0


@dataclass(frozen=True, slots=True)
class Relevance:
    """A section's relevance to a query, how many query parts it holds, how many named identifiers,
    and which parts it holds (bit ``i`` for part ``i``)."""

    rowid: int
    score: float
    parts: int
    named: int
    held_parts: int = 0


#: an FTS5 look-up of one row id costs about as much as scanning this many matches of a term
#: (about 15 µs against 2.5 µs a match with ``bm25``, at 100,000 sections): a gated piece is
#: looked up in its sections when that is cheaper, else its matches are scanned and filtered
PROBE_MATCHES = 6


def relevance(
    conn: sqlite3.Connection,
    terms: Sequence[WeightedTerm],
    weights: dict[str, float],
    limit: int,
    doc_ids: Sequence[int] | None = None,
) -> list[Relevance]:
    """The ``limit`` most relevant sections for ``terms``, best first (ties by row id).

    Each term is scored alone by FTS5's ``bm25`` with a weight per field
    (:data:`SEARCH_FIELDS`): its frequencies are weighted per field and
    summed before saturation, which is BM25F. A section's score for one
    query part is the larger of its as-typed-plus-expansions sum and its
    pieces sum (so an identifier counts once, written whole or apart), and
    its relevance is the sum over parts. A gated piece (``within``) scores
    only in sections its part's typed terms matched: with few of them it is
    looked up there by row id, so its own list is never walked. Every match
    of every other term is read, so the cost grows with the terms' section
    counts: callers bound them (:func:`term_counts`). One statement; the
    arithmetic runs inside SQLite.
    """
    if not terms:
        return []
    join, filter_params = _doc_filter(doc_ids)
    field_weights = [weights[field] for field in SEARCH_FIELDS]
    select = "SELECT ? AS part, ? AS grp, ? AS named, sections_fts.rowid AS rowid, -bm25(sections_fts, ?, ?, ?, ?) * ? AS score FROM sections_fts"
    arms, gated, params, gated_params = [], [], [], []
    for term in terms:
        values = [term.part, term.group, int(term.named), *field_weights, term.scale]
        if term.within:
            # `+rowid` keeps the row id out of FTS5's hands, so the matches are scanned and filtered instead.
            rowid = "sections_fts.rowid" if term.within * PROBE_MATCHES <= term.held else "+sections_fts.rowid"
            gated.append(f"{select} WHERE sections_fts MATCH ? AND {rowid} IN (SELECT rowid FROM typed WHERE part = ?)")
            gated_params += [*values, fts_quote(term.term), term.part]
        else:
            arms.append(f"{select} {join or 'WHERE'} sections_fts MATCH ?")
            params += [*values, *filter_params, fts_quote(term.term)]
    typed = " UNION ALL ".join(arms)  # a gated piece's typed term is always among them
    hits = " UNION ALL ".join(["SELECT * FROM typed", *gated])
    sql = f"""
        WITH typed AS MATERIALIZED ({typed}),
        hits AS MATERIALIZED ({hits}),
        by_part AS (
            SELECT rowid, part, max(named) AS named,
                   max(sum(CASE WHEN grp < 2 THEN score ELSE 0 END), sum(CASE WHEN grp = 2 THEN score ELSE 0 END)) AS score
            FROM hits GROUP BY rowid, part
        )
        SELECT rowid, sum(score) AS relevance, count(*), sum(named), sum(1 << part) FROM by_part
        GROUP BY rowid ORDER BY relevance DESC, rowid LIMIT ?
    """
    return [Relevance(*row) for row in conn.execute(sql, [*params, *gated_params, limit])]


def sampled_best(
    conn: sqlite3.Connection,
    terms: Sequence[str],
    weights: dict[str, float],
    cap: int,
    limit: int,
    doc_ids: Sequence[int] | None = None,
    headed: Sequence[str] | None = None,
) -> list[tuple[int, float]]:
    """The ``limit`` best ``(row id, -bm25)`` of a bounded sample of the sections holding any of ``terms``.

    The sample is the first ``cap`` such sections in row-id order plus the
    first ``cap`` holding one of the terms in a heading (so definitions are
    not lost). FTS5 walks its lists in row-id order, so each ``LIMIT`` stops
    a walk: the cost is bounded by ``cap`` however common the terms are.
    Scores are FTS5's ``bm25`` with a weight per field over all the terms.

    ``headed`` (default: all of ``terms``) are the terms some heading holds
    (:func:`held_in_headings`). A term no heading holds adds no section to
    the heading sample and scores exactly 0 in every one there, so leaving it
    out changes nothing but the cost: FTS5's ``bm25`` would walk its whole
    list to count its heading matches (about 3 ms for a term in 100,000
    sections).
    """
    join, params = _doc_filter(doc_ids)
    field_weights = [weights[name] for name in SEARCH_FIELDS]
    arm = f"""
        SELECT * FROM (SELECT sections_fts.rowid AS rowid, -bm25(sections_fts, ?, ?, ?, ?) AS score
        FROM sections_fts {join or "WHERE"} sections_fts MATCH ? LIMIT ?)
    """
    in_headings = [term for term in terms if term in headed] if headed is not None else list(terms)
    arms, values = [arm], [*field_weights, *params, fts_any(terms), cap]
    if in_headings:
        arms.append(arm)
        values += [*field_weights, *params, fts_in_headings(fts_any(in_headings)), cap]
    sql = f"""
        WITH sample AS MATERIALIZED ({" UNION ALL ".join(arms)})
        SELECT rowid, max(score) AS best FROM sample GROUP BY rowid ORDER BY best DESC, rowid LIMIT ?
    """
    return conn.execute(sql, [*values, limit]).fetchall()


def held_in_headings(conn: sqlite3.Connection, terms: Sequence[str]) -> dict[str, bool]:
    """Whether some section holds each of ``terms`` in its heading path, whatever the path filter.

    One ``LIMIT 1`` lookup per term: it stops at the first heading holding
    the term, and walks the term's whole list only when none does.
    """
    sql = "SELECT 1 FROM sections_fts WHERE sections_fts MATCH ? LIMIT 1"
    return {term: conn.execute(sql, (fts_in_headings(fts_quote(term)),)).fetchone() is not None for term in terms}


def section_total(conn: sqlite3.Connection) -> int:
    """How many sections the store holds (as its last ingest recorded)."""
    row = conn.execute("SELECT value FROM meta WHERE key = 'section_count'").fetchone()
    return int(row[0]) if row else int(conn.execute("SELECT count(*) FROM sections").fetchone()[0])


def _marks(count: int) -> str:
    """``count`` parameter marks for an ``IN (...)`` list of the few values a query names (a query's
    terms, a page of hits): binding them directly skips ``json_each``'s encoding and table, about a
    third of such a look-up (issue 14). Long or caller-sized lists still go through ``json_each``."""
    return ", ".join("?" * count)


def term_counts(conn: sqlite3.Connection, terms: Sequence[str]) -> dict[str, int]:
    """How many sections hold each of ``terms`` (0 for a term the index lacks)."""
    sql = f"SELECT term, sections FROM term_sections WHERE term IN ({_marks(len(terms))})"
    found = dict(conn.execute(sql, terms).fetchall())
    return {term: int(found.get(term, 0)) for term in terms}


def terms_with_prefix(conn: sqlite3.Connection, prefix: str, limit: int) -> list[tuple[str, int]]:
    """Up to ``limit`` indexed terms that start with ``prefix`` (itself included), and the sections holding each.

    The most widely held first, then in term order; a range scan over the
    term table, so the cost is bounded by the terms sharing the prefix.
    """
    sql = """
        SELECT term, sections FROM term_sections WHERE term >= ? AND term < ?
        ORDER BY sections DESC, term LIMIT ?
    """
    return [(str(t), int(n)) for t, n in conn.execute(sql, (prefix, prefix + "\U0010ffff", limit))]


def ranked_pointers(conn: sqlite3.Connection, scored: Iterable[tuple[int, float]]) -> list[RankedRow]:
    """Pointers (and document titles) for scored row ids, in the order given; never bodies."""
    scores = dict(scored)
    sql = f"""
        SELECT {_POINTER_COLUMNS}, d.title FROM sections s JOIN documents d ON d.doc_id = s.doc_id
        WHERE s.id IN ({_marks(len(scores))})
    """
    rows = {values[0]: values for values in conn.execute(sql, list(scores))}
    return [RankedRow(_row(rows[rowid][:-1]), str(rows[rowid][-1]), score) for rowid, score in scores.items()]


def section_vectors(conn: sqlite3.Connection) -> tuple[list[int], list[int], list[bytes]]:
    """Row ids, document ids and vector BLOBs of every section that has a vector, by row id.

    Two scans instead of a join: a join would walk the sections table, texts
    and all, while ``(id, doc_id)`` comes from the covering index on
    ``(doc_id, ordinal)`` (the planner picks it); at 10^5 sections that is most of the load time.
    """
    rows = conn.execute("SELECT section_id, vector FROM section_vectors ORDER BY section_id").fetchall()
    if not rows:
        return [], [], []
    document_of = dict(conn.execute("SELECT id, doc_id FROM sections"))
    rowids, blobs = zip(*rows, strict=True)
    return list(rowids), [document_of[rowid] for rowid in rowids], list(blobs)


def data_version(conn: sqlite3.Connection) -> int:
    """SQLite's counter of commits by other connections: unchanged means the store is as last read."""
    return int(conn.execute("PRAGMA data_version").fetchone()[0])


def section_texts(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, str]:
    """The raw text of the given sections, by row id (for snippets of returned hits)."""
    ids = list(rowids)
    sql = f"SELECT id, text FROM sections WHERE id IN ({_marks(len(ids))})"
    return {rowid: text for rowid, text in conn.execute(sql, ids)}


def section_tables(conn: sqlite3.Connection, rowids: Iterable[int]) -> dict[int, tuple[str, str | None]]:
    """``(text, table header)`` of the given sections, by row id (to look for the row that answers a query)."""
    ids = list(rowids)
    sql = f"SELECT id, text, table_header FROM sections WHERE id IN ({_marks(len(ids))})"
    return {rowid: (text, header) for rowid, text, header in conn.execute(sql, ids)}


def opening_headings(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The heading path of each document's first section, by document path."""
    wanted = list(paths)
    sql = f"SELECT path, heading_path FROM sections WHERE ordinal = 0 AND path IN ({_marks(len(wanted))})"
    return {path: _heading_path(stored) for path, stored in conn.execute(sql, wanted)}


def section_by_sid(conn: sqlite3.Connection, sid: str) -> SectionRow | None:
    row = conn.execute(f"SELECT {_SECTION_COLUMNS} FROM sections s WHERE s.sid = ?", (sid,)).fetchone()
    return _row(row) if row else None


def sections_between(conn: sqlite3.Connection, path: str, first: int, last: int) -> list[SectionRow]:
    """Sections of one document with ``first <= ordinal <= last``, in order."""
    sql = f"""
        SELECT {_SECTION_COLUMNS} FROM sections s
        WHERE s.path = ? AND s.ordinal BETWEEN ? AND ?
        ORDER BY s.ordinal
    """
    return [_row(values) for values in conn.execute(sql, (path, first, last))]


_WINDOW = (
    f"SELECT 0, d.section_count, {_SECTION_COLUMNS} FROM documents d"
    " LEFT JOIN sections s ON s.path = d.path AND s.ordinal BETWEEN ? AND ? WHERE d.path = ?"
)
_WINDOW_ONLY = _WINDOW + " ORDER BY s.ordinal"
#: the window, then (tagged 1, so last) the header section of the table one of its sections continues
_WINDOW_AND_HEADER = (
    f"{_WINDOW} UNION ALL SELECT 1, NULL, {_SECTION_COLUMNS} FROM sections s"
    " WHERE s.path = ? AND s.ordinal = (SELECT header_ordinal FROM sections WHERE path = ? AND ordinal = ?)"
    " ORDER BY 1, s.ordinal"
)


def section_window(
    conn: sqlite3.Connection, path: str, first: int, last: int, header_of: int | None = None
) -> tuple[int | None, list[SectionRow], SectionRow | None]:
    """The section count of the document at ``path`` (``None`` if there is none), its sections
    with ``first <= ordinal <= last`` in order, and with ``header_of`` the header section of
    the table that section ``header_of`` continues (``None`` when it continues none).

    One statement, so one consistent read without a transaction around it:
    ``read`` and ``neighbours`` need nothing else, and a statement and a
    transaction fewer were most of their cost beside the previous
    implementation (issue 14).
    """
    try:
        if header_of is None:
            rows = conn.execute(_WINDOW_ONLY, (first, last, path)).fetchall()
        else:
            rows = conn.execute(_WINDOW_AND_HEADER, (first, last, path, path, path, header_of)).fetchall()
    except sqlite3.DatabaseError as err:
        raise corrupt(_database_file(conn), err) from None
    header = _row(rows.pop()[2:]) if rows and rows[-1][0] else None
    if not rows:
        return None, [], None
    return int(rows[0][1]), [_row(values[2:]) for values in rows if values[2] is not None], header


def section_count(conn: sqlite3.Connection, path: str) -> int | None:
    """How many sections the document at ``path`` has; ``None`` if there is no such document."""
    row = conn.execute("SELECT section_count FROM documents WHERE path = ?", (path,)).fetchone()
    return int(row[0]) if row else None


def lines_before(conn: sqlite3.Connection, path: str, ordinal: int) -> int:
    """How many lines of the document come before section ``ordinal``.

    A document's sections concatenate back to its text, so this is the
    newline count of the sections before it: add it to a line number within
    the section to get the line number in the file.
    """
    row = conn.execute(
        "SELECT coalesce(sum(length(text) - length(replace(text, char(10), ''))), 0)"
        " FROM sections WHERE path = ? AND ordinal < ?",
        (path, ordinal),
    ).fetchone()
    return int(row[0])


def trigram_match(folded: str) -> str:
    """The ``sections_tri`` MATCH expression for sections that may contain ``folded``.

    The trigram table stores no positions (``detail=none``), so this is the
    AND of the needle's distinct trigrams, each quoted, rather than one
    phrase: every section containing the needle matches it, and so may a few
    that hold the trigrams apart, which callers weed out by verifying the
    text. ``folded`` must be at least three characters long.
    """
    return fts_all(list(dict.fromkeys(folded[i : i + 3] for i in range(len(folded) - 2))))


def word_phrase(folded: str) -> str | None:
    """A ``sections_fts`` expression every section containing ``folded`` matches, or ``None``.

    The trigram index has no positions, so a needle of common words (``the
    cache index``) would list nearly every section as a candidate; the word
    index narrows it. The expression asks for the needle's space-separated
    parts that are ASCII letters and digits, excluding the first part (it
    may end a longer token) and taking the last as a prefix (it may start
    one): in a text containing the needle, each inner part is a whole token,
    and a token's first term is the token case-folded (:mod:`contextpull.analysis.terms`).
    The parts are joined by AND, not as a phrase: a token is also indexed
    with its stem and pieces, so the parts' terms need not sit at
    consecutive positions. Only characters that are themselves word
    characters case-fold to ASCII letters and digits, and only whitespace to
    a space (tests/store/test_grep_phrase.py checks every code point). ``None``
    unless two parts or more qualify.
    """
    parts = folded.split(" ")
    best, start = (0, 0), 0
    for index in range(1, len(parts)):
        part = parts[index]
        if not (part.isascii() and part.isalnum()):
            start = 0
            continue
        start = start or index
        if index + 1 - start > best[1] - best[0]:
            best = (start, index + 1)
    first, end = best
    if end - first < 2:
        return None
    words = [f'"{part}"' for part in parts[first:end]]
    if end == len(parts):
        words[-1] += " *"
    return f"body : ({' AND '.join(words)})"


def _candidate_rowids(conn: sqlite3.Connection, table: str, match: str) -> list[int]:
    sql = f"SELECT rowid FROM {table} WHERE {table} MATCH ? LIMIT ?"
    return [rowid for (rowid,) in conn.execute(sql, (match, FEW_CANDIDATES + 1))]


def grep_candidates(
    conn: sqlite3.Connection, literal: str | None, doc_ids: Sequence[int] | None = None
) -> SectionStream:
    """Sections that may contain the case-folded ``literal`` (all without one), in document order.

    Candidates come from the trigram index, or, when its trigrams are all
    common, from the word index (:func:`word_phrase`). Up to
    :data:`FEW_CANDIDATES` are looked up by id and sorted. With more, matches
    are common, so walking every section in document order reaches the
    caller's limit sooner than sorting all the candidates would. Callers
    verify every section against its text.
    """
    if literal is None:
        return sections_in_order(conn, doc_ids)
    rowids = _candidate_rowids(conn, "sections_tri", trigram_match(literal))
    phrase = word_phrase(literal) if len(rowids) > FEW_CANDIDATES else None
    if phrase is not None:
        rowids = _candidate_rowids(conn, "sections_fts", phrase)
    if len(rowids) > FEW_CANDIDATES:
        return sections_in_order(conn, doc_ids)
    return sections_in_order(conn, doc_ids, rowids=rowids)


def sections_in_order(
    conn: sqlite3.Connection,
    doc_ids: Sequence[int] | None = None,
    rowids: Sequence[int] | None = None,
) -> SectionStream:
    """Sections with their text in document order, lazily, for scanning.

    ``rowids`` limits the scan to those sections (few: they are looked up
    and sorted); ``doc_ids`` to those documents, walked one document at a
    time. Rows are read lazily, so a caller that stops early reads few texts.
    """
    if rowids is None and doc_ids is not None:
        sql = "SELECT path FROM documents WHERE doc_id IN (SELECT value FROM json_each(?)) ORDER BY path"
        for (path,) in conn.execute(sql, (json.dumps(list(doc_ids)),)).fetchall():
            yield from _walk(conn, "WHERE s.path = ?", [path])
        return
    clauses: list[str] = []
    params: list[object] = []
    if rowids is not None:
        clauses.append("s.id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(rowids)))
    if doc_ids is not None:
        clauses.append("s.doc_id IN (SELECT value FROM json_each(?))")
        params.append(json.dumps(list(doc_ids)))
    yield from _walk(conn, f"WHERE {' AND '.join(clauses)}" if clauses else "", params)


def _walk(conn: sqlite3.Connection, where: str, params: list[object]) -> SectionStream:
    cursor = conn.execute(f"SELECT {_SECTION_COLUMNS} FROM sections s {where} ORDER BY s.path, s.ordinal", params)
    try:
        for values in cursor:
            yield _row(values)
    finally:
        cursor.close()
