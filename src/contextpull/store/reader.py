"""The reads a :class:`~.connection.Store` offers, as methods over its own connection.

The connection never leaves the store package: operations and adapters ask
the store for a snapshot and for rows, and :mod:`.queries` holds the SQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager

from . import queries
from .queries import RankedRow, SectionRow, SectionStream

#: terms whose presence in headings a reader remembers at most (they are common ones: few)
_KNOWN_TERMS = 10_000


class StoreReader:
    """Query methods shared by every read handle; the subclass provides ``_conn``."""

    _conn: sqlite3.Connection
    #: which terms some heading holds, as of one ``data_version`` (see :meth:`sampled_best`)
    _in_headings: tuple[int, dict[str, bool]] | None = None

    def snapshot(self) -> AbstractContextManager[object]:
        """One read transaction, so several calls see one store state (nested use joins it)."""
        return queries.snapshot(self._conn)

    def document_paths(self) -> list[str]:
        return queries.document_paths(self._conn)

    def documents_matching(self, patterns: Sequence[str]) -> list[int]:
        return queries.documents_matching(self._conn, patterns)

    def section_count(self, path: str) -> int | None:
        return queries.section_count(self._conn, path)

    def section_by_sid(self, sid: str) -> SectionRow | None:
        return queries.section_by_sid(self._conn, sid)

    def sections_between(self, path: str, first: int, last: int) -> list[SectionRow]:
        return queries.sections_between(self._conn, path, first, last)

    def section_window(
        self, path: str, first: int, last: int, header_of: int | None = None
    ) -> tuple[int | None, list[SectionRow], SectionRow | None]:
        """The document's section count (``None`` without it), its sections ``first..last``, and with
        ``header_of`` the header section of the table that section continues; one read."""
        return queries.section_window(self._conn, path, first, last, header_of)

    def lines_before(self, path: str, ordinal: int) -> int:
        return queries.lines_before(self._conn, path, ordinal)

    def section_texts(self, rowids: Iterable[int]) -> dict[int, str]:
        return queries.section_texts(self._conn, rowids)

    def section_tables(self, rowids: Iterable[int]) -> dict[int, tuple[str, str | None]]:
        return queries.section_tables(self._conn, rowids)

    def opening_headings(self, paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
        return queries.opening_headings(self._conn, paths)

    def section_total(self) -> int:
        return queries.section_total(self._conn)

    def term_counts(self, terms: Sequence[str]) -> dict[str, int]:
        return queries.term_counts(self._conn, terms)

    def terms_with_prefix(self, prefix: str, limit: int) -> list[tuple[str, int]]:
        return queries.terms_with_prefix(self._conn, prefix, limit)

    def relevance(
        self,
        terms: Sequence[queries.WeightedTerm],
        weights: dict[str, float],
        limit: int,
        doc_ids: Sequence[int] | None = None,
    ) -> list[queries.Relevance]:
        return queries.relevance(self._conn, terms, weights, limit, doc_ids)

    def sampled_best(
        self,
        terms: Sequence[str],
        weights: dict[str, float],
        cap: int,
        limit: int,
        doc_ids: Sequence[int] | None = None,
    ) -> list[tuple[int, float]]:
        """:func:`.queries.sampled_best`, its heading arm limited to the terms some heading holds.

        Whether a heading holds a term is remembered until another connection
        commits (``data_version``): the sampled terms are common ones, which
        queries repeat, and finding that no heading holds one walks its whole
        list. The result is the same with or without the memory.
        """
        known = self._headings_known()
        missing = [term for term in terms if term not in known]
        if missing:
            known.update(queries.held_in_headings(self._conn, missing))
        headed = [term for term in terms if known[term]]
        return queries.sampled_best(self._conn, terms, weights, cap, limit, doc_ids, headed)

    def _headings_known(self) -> dict[str, bool]:
        version = queries.data_version(self._conn)
        if self._in_headings is None or self._in_headings[0] != version or len(self._in_headings[1]) > _KNOWN_TERMS:
            self._in_headings = (version, {})
        return self._in_headings[1]

    def ranked_pointers(self, scored: Iterable[tuple[int, float]]) -> list[RankedRow]:
        return queries.ranked_pointers(self._conn, scored)

    def grep_candidates(self, literal: str | None, doc_ids: Sequence[int] | None = None) -> SectionStream:
        return queries.grep_candidates(self._conn, literal, doc_ids)

    def sections_in_order(self, doc_ids: Sequence[int] | None = None) -> SectionStream:
        return queries.sections_in_order(self._conn, doc_ids)

    def section_vectors(self) -> tuple[list[int], list[int], list[bytes]]:
        """Row ids, document ids and vector BLOBs of every section with a vector (docs/adr/010-embeddings.md)."""
        return queries.section_vectors(self._conn)

    def data_version(self) -> int:
        """Changes when another connection commits: unchanged means the store is as last read."""
        return queries.data_version(self._conn)
