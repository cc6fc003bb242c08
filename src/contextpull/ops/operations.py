"""The five operations over one store: index, search, read, grep, neighbours.

:class:`Ops` is what the CLI, the MCP server and the API tool loop all call.
Each operation validates its arguments (raising the :class:`ToolError`
family with a suggestion), runs inside one read transaction so a concurrent
re-ingest is never seen half-way, and returns a typed result from
:mod:`contextpull.ops.results`.

The discipline the results encode: ``search`` returns pointers (ids,
headings, snippets), never bodies; ``read`` and ``neighbours`` return text
verbatim; ``grep`` finds exact strings. Ids are ``path#ordinal``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import contextpull_vec

from ..analysis.section_terms import front_matter_length
from ..analysis.terms import Query, QueryPart, analyse_query, index_terms
from ..contents.index import DEFAULT_BUDGET, document_outline, index_for_prefix, normalise_prefix
from ..contents.links import META_KEY as LINKS_META_KEY
from ..contents.links import Links
from ..errors import (
    BadArgument,
    BadFilter,
    EmbeddingError,
    OutOfRange,
    PatternRejected,
    ToolError,
    UnknownSection,
    WrongType,
)
from ..records import section_id, split_section_id
from ..store import queries
from ..store.closeable import Closeable
from ..store.connection import Store
from ..store.reader import StoreReader
from ..syntax import TOOL, Syntax
from .copies import copies_last
from .grep import compile_pattern, scan, trim_line
from .hybrid import (
    DEPTH,
    StoreVectors,
    check_mode,
    merge,
    rank_score,
    slot_holder,
    take_slot,
    ties_by_vector,
    vectors_can_change,
)
from .pointers import with_links
from .ranking import RankedSection, rank
from .results import (
    GrepLine,
    GrepMatch,
    GrepResult,
    IndexResult,
    NeighboursResult,
    ReadResult,
    SearchHit,
    SearchResult,
    SectionView,
)
from .sides import FIRST_HITS, SIDE_SLOT, cover_sides, named_things, stressed
from .snippets import DEFAULT_SNIPPET, MAX_SNIPPET, make_snippet

#: the largest ordinal looked up: far beyond any document (files over max_sections are skipped), far
#: inside SQLite's 64-bit integers whatever ``before``/``after`` add
_MAX_ORDINAL = 1 << 40
#: inclusive bounds of every numeric argument, shared with the tool schemas
SEARCH_LIMIT = (1, 50)
GREP_LIMIT = (1, 100)
#: matching lines shown per section, at most
GREP_LINES = (1, 50)
SNIPPET_WIDTH = (0, MAX_SNIPPET)
CONTEXT = (0, 5)
QUERY_LENGTH = (1, 500)
ID_LENGTH = (1, 1000)
PREFIX_LENGTH = (0, 1000)
FILTER_PATTERNS = 20
DEFAULT_SEARCH_LIMIT = 10
DEFAULT_GREP_LIMIT = 20
_TOP_LEVEL_SHOWN = 30
#: grep's hint when nothing matched
NO_MATCH = "no section contains this text; check the spelling, or search for the words"
#: how alike an unknown file name must be to a real one (difflib ratio) to be suggested in its place
_SIMILAR_NAME = 0.75

if TYPE_CHECKING:
    import numpy as np

PathFilter = str | Sequence[str] | None


class Ops(Closeable):
    """The operations over one open :class:`Store` (one per thread, like the store).

    ``snippet`` is the default snippet width for :meth:`search`; 0 gives
    heading-only results. ``syntax`` is how hints and suggestions name the
    next action: tool calls (the default, for models) or CLI commands.
    """

    def __init__(
        self,
        store: Store,
        *,
        snippet: int = DEFAULT_SNIPPET,
        embedder: contextpull_vec.Embedder | None = None,
        syntax: Syntax = TOOL,
    ) -> None:
        self.store = store
        self.snippet = _bounded_int("snippet", snippet, SNIPPET_WIDTH)
        self._vectors = StoreVectors(store, embedder)
        self.syntax = syntax
        self._links: tuple[str | None, Links | None] = (None, None)  # (meta text, parsed)

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        snippet: int = DEFAULT_SNIPPET,
        embedder: contextpull_vec.Embedder | None = None,
        syntax: Syntax = TOOL,
    ) -> Ops:
        """Open the store at ``path`` read-only (raises the :class:`StoreError` family).

        ``embedder`` embeds queries for hybrid search; by default it is built
        from the model the store records, when the store has vectors.
        """
        return cls(Store.open(path), snippet=snippet, embedder=embedder, syntax=syntax)

    def close(self) -> None:
        self.store.close()

    # --- index ---------------------------------------------------------------
    def index(self, prefix: str | None = None) -> IndexResult:
        """The stored index, or the documents under ``prefix`` in the same line format.

        A prefix that is a document's whole path lists that document's
        sections with their ids.
        """
        if prefix is None:
            with self.store.snapshot():
                if self.syntax == TOOL:
                    return IndexResult(self.store.index_text)
                return IndexResult(index_for_prefix(self.store, "", syntax=self.syntax).text)
        _text("prefix", prefix, PREFIX_LENGTH)
        path = normalise_prefix(prefix)
        with self.store.snapshot():
            count = self.store.section_count(path) if path else None
            if count is None:
                return IndexResult(index_for_prefix(self.store, prefix, syntax=self.syntax).text, prefix)
            (doc,) = [entry for entry in self.store.documents(path) if entry.path == path]
            rows = self.store.sections_between(path, 0, count - 1)
            budget = int(self.store.meta("index_budget") or DEFAULT_BUDGET)
        outline = document_outline(doc, [(row.sid, row.heading_path, row.kind) for row in rows], budget)
        return IndexResult(outline.text, prefix)

    # --- search --------------------------------------------------------------
    def search(
        self,
        query: str,
        in_: PathFilter = None,
        limit: int = DEFAULT_SEARCH_LIMIT,
        snippet: int | None = None,
        mode: str = "auto",
    ) -> SearchResult:
        """Pointers to the sections that best match ``query``, best first; never bodies.

        ``mode="lexical"`` ranks by the query's words; ``"hybrid"`` fuses that
        ranking with the nearest section vectors (the store must have them);
        ``"auto"`` is hybrid when the store has vectors, and falls back to
        lexical with a hint when its query embedder is unavailable.
        """
        _text("query", query, QUERY_LENGTH)
        limit = _bounded_int("limit", limit, SEARCH_LIMIT)
        width = self.snippet if snippet is None else _bounded_int("snippet", snippet, SNIPPET_WIDTH)
        mode = check_mode(mode)
        analysed = analyse_query(query)
        if not analysed.parts:
            raise BadArgument(
                f"the query {query!r} has no words to search for",
                "search with words, or use grep for exact strings such as punctuation or codes",
            )
        store = self.store
        fallback = None
        with store.snapshot():
            doc_ids = self._documents(in_)
            query_vector = None
            if mode == "hybrid" or (mode == "auto" and self._vectors.available()):
                try:
                    query_vector = self._vectors.query_vector(query)
                except EmbeddingError as err:
                    if mode == "hybrid":
                        raise
                    fix = f"; {err.suggestion}" if err.suggestion else ""
                    fallback = f"these are lexical results: vector search is unavailable ({err.message}{fix})"
            compared = named_things(analysed)
            analysed = stressed(analysed, compared)
            ranking = rank(store, analysed, doc_ids, compared)
            # Two things named, and room for the place a side's best section takes (ops/sides.py).
            things = compared if limit >= SIDE_SLOT else None
            # At least the first hits cover_sides looks at, so its choice never depends on the limit.
            depth = limit if things is None else max(limit, FIRST_HITS)
            texts: dict[int, str] = {}
            sections = ranking.sections
            if query_vector is not None and not analysed.names_family:
                nearness = self._vectors.index().similarities(query_vector, [hit.section.rowid for hit in sections])
                sections = ties_by_vector(sections, nearness)
            lexical = copies_last(store, sections, depth, texts)
            if query_vector is None:
                order = cover_sides(store, analysed, things, lexical, doc_ids)
            else:
                fused, holder = self._fuse(lexical, query_vector, depth, doc_ids, analysed.names_family)
                # The vector slot comes last: it may move a side's best section down, never out.
                order = take_slot(cover_sides(store, analysed, things, fused, doc_ids), holder, _rowid)
            # Again: a side's best section or the vector slot's holder may repeat a hit above it.
            chosen = copies_last(store, order, limit, texts)[:limit]
            if query_vector is not None:
                chosen = _by_rank(chosen)
            if width:
                texts.update(store.section_texts(hit.section.rowid for hit in chosen if hit.section.rowid not in texts))
            missing = weak_match(store, analysed, chosen[0]) if chosen else ()
        terms = ranking.terms
        hits = tuple(
            SearchHit(
                id=hit.section.sid,
                doc=hit.section.path,
                heading_path=hit.section.heading_path,
                kind=hit.section.kind,
                score=hit.score,
                match=hit.match,
                snippet=make_snippet(_snippet_source(hit.section, texts), terms, width) if width else None,
                pages=hit.section.pages,
            )
            for hit in chosen
        )
        if not hits:
            hint: str | None = _no_hits_hint(self.syntax, in_ is not None, len(analysed.content))
        elif missing:
            hint = _weak_hint(self.syntax, missing)
        else:
            hint = _common_hint(self.syntax) if ranking.capped else None
        used = "lexical" if query_vector is None else "hybrid"
        return with_links(SearchResult(query, hits, fallback or hint, mode=used, weak=bool(missing)), self.links())

    def _fuse(
        self,
        lexical: Sequence[RankedSection],
        query_vector: np.ndarray,
        limit: int,
        doc_ids: list[int] | None,
        exact: bool,
    ) -> tuple[list[RankedSection], RankedSection | None]:
        """The first ``limit`` of the lexical-led merge (``ops/hybrid.py``) of the two rankings, each to :data:`DEPTH`,
        and the word hit that earns the vector slot (``slot_holder``), which the caller places last.

        A hit found by words keeps how it matched; one found only by its
        vector has ``match="vector"``. When vectors cannot change the first
        ``limit`` (``vectors_can_change``), the vector ranking is skipped
        (same hits, no cost). Scores are set by the caller from the final order.
        """
        by_words = {hit.section.rowid: hit for hit in lexical[:DEPTH]}
        words = [(rowid, hit.score) for rowid, hit in by_words.items()]
        if vectors_can_change([score for _, score in words], limit, exact):
            nearest = self._vectors.index().top(query_vector, DEPTH, doc_ids)
        else:
            nearest = []
        merged = merge(words, nearest, exact)[:limit]
        unseen = [(rowid, 0.0) for rowid in merged if rowid not in by_words]
        by_vector = {row.section.rowid: row for row in self.store.ranked_pointers(unseen)}
        hits = [
            by_words[rowid]
            if rowid in by_words
            else RankedSection(by_vector[rowid].section, by_vector[rowid].title, 0.0, "vector")
            for rowid in merged
        ]
        holder = slot_holder(words, nearest, exact)
        return hits, None if holder is None else by_words[holder]

    # --- read ----------------------------------------------------------------
    def read(self, id: str, context: int = 0) -> ReadResult:
        """The section ``id`` verbatim, with up to ``context`` sections either side."""
        context = _bounded_int("context", context, CONTEXT)
        # One statement reads the count and the rows, so no transaction is needed around it.
        doc, ordinal, count, rows, _ = self._window(id, context, context)
        # Rows come in document order, one per ordinal.
        views = [_view(row, context=row.ordinal != ordinal) for row in rows]
        at = ordinal - rows[0].ordinal
        result = ReadResult(
            section=views[at],
            prev_id=section_id(doc, ordinal - 1) if ordinal > 0 else None,
            next_id=section_id(doc, ordinal + 1) if ordinal + 1 < count else None,
            before=tuple(views[:at]),
            after=tuple(views[at + 1 :]),
        )
        return with_links(result, self.links())

    # --- neighbours ----------------------------------------------------------
    def neighbours(self, id: str, before: int = 1, after: int = 1) -> NeighboursResult:
        """Adjacent sections in document order (text verbatim), and a continued table's header."""
        before = _bounded_int("before", before, CONTEXT)
        after = _bounded_int("after", after, CONTEXT)
        # One statement reads the window and a continued table's header, so no transaction is needed.
        _, ordinal, _, rows, header = self._window(id, before, after, header=True)
        target = next(row for row in rows if row.ordinal == ordinal)
        result = NeighboursResult(
            id=target.sid,
            before=tuple(_view(row) for row in rows if row.ordinal < ordinal),
            after=tuple(_view(row) for row in rows if row.ordinal > ordinal),
            table_header_section=_view(header) if header else None,
        )
        return with_links(result, self.links())

    # --- grep ----------------------------------------------------------------
    def grep(
        self,
        pattern: str,
        in_: PathFilter = None,
        regex: bool = False,
        limit: int = DEFAULT_GREP_LIMIT,
        lines: int = 1,
    ) -> GrepResult:
        """Sections containing ``pattern`` (case-insensitive), in document order, with up to
        ``lines`` matching lines each (the tool shows one; the CLI more), numbered as in the file."""
        if not isinstance(pattern, str):
            raise WrongType("pattern must be a string", "pass the text to look for")
        _check_encodable("pattern", pattern, PatternRejected)
        if not isinstance(regex, bool):
            raise WrongType("regex must be true or false", "omit it for a literal match")
        limit = _bounded_int("limit", limit, GREP_LIMIT)
        lines = _bounded_int("lines", lines, GREP_LINES)
        compiled = compile_pattern(pattern, regex)
        store = self.store
        with store.snapshot():
            doc_ids = self._documents(in_)
            with closing(store.grep_candidates(compiled.prefilter, doc_ids)) as rows:
                outcome = scan(rows, compiled, limit, lines)
            offsets = [store.lines_before(row.path, row.ordinal) for row, _ in outcome.hits]
        matches = tuple(
            _grep_match(row, [GrepLine(offset + hit.line_number, trim_line(hit)) for hit in hits])
            for (row, hits), offset in zip(outcome.hits, offsets, strict=True)
        )
        hint = None
        if outcome.exhausted:
            hint = (
                f"the scan stopped at its time budget; narrow it with {self.syntax.filter} or grep for a longer literal"
            )
        elif not matches:
            hint = NO_MATCH
        return with_links(GrepResult(pattern, regex, matches, outcome.more or outcome.exhausted, hint), self.links())

    def links(self) -> Links | None:
        """The store's citation links, checked on each call so a re-ingest that changes them is seen;
        parsed again only when the stored text changed (a site's page map can be large)."""
        text = self.store.meta(LINKS_META_KEY)
        if text != self._links[0]:
            self._links = (text, Links.from_meta(text))
        return self._links[1]

    # --- export --------------------------------------------------------------
    def chunks(self) -> Iterator[dict[str, str]]:
        """Every section in document order as ``{"id", "text", "source"}`` (ragbisect's format).

        ``text`` is what :meth:`read` shows, so a table continuation carries
        its header; ``source`` is the document path. One snapshot covers the
        whole export.
        """
        store = self.store
        with store.snapshot(), closing(store.sections_in_order()) as rows:
            for row in rows:
                yield {"id": row.sid, "text": _view(row).text, "source": row.path}

    # --- shared ----------------------------------------------------------------
    def _documents(self, in_: PathFilter) -> list[int] | None:
        """Document ids a path filter selects; ``None`` for no filter. Raises :class:`BadFilter`."""
        if in_ is None:
            return None
        raw = [in_] if isinstance(in_, str) else in_
        if isinstance(raw, (bytes, dict)) or not isinstance(raw, Sequence):
            raise self._bad_filter(
                f"{self.syntax.filter} must be a path glob or a list of them, not {type(in_).__name__}"
            )
        patterns = []
        for item in raw:
            if not isinstance(item, str):
                raise self._bad_filter(f"{self.syntax.filter} entries must be strings, not {type(item).__name__}")
            normalized = item.strip().removeprefix("./").strip("/")
            if not normalized or not normalized.isprintable():
                raise self._bad_filter(f"{self.syntax.filter} entry {item!r} is not a path or glob")
            _check_encodable("in", normalized, BadFilter)
            patterns.append(normalized)
        if not patterns or len(patterns) > FILTER_PATTERNS:
            raise self._bad_filter(
                f"{self.syntax.filter} needs 1 to {FILTER_PATTERNS} paths or globs, got {len(patterns)}"
            )
        doc_ids = self.store.documents_matching(patterns)
        if not doc_ids:
            raise self._bad_filter(f"no document matches {self.syntax.filter} {', '.join(patterns)}")
        return doc_ids

    def _bad_filter(self, message: str) -> BadFilter:
        paths = self.store.document_paths()
        tops = sorted({path.split("/")[0] + ("/" if "/" in path else "") for path in paths})
        shown = ", ".join(tops[:_TOP_LEVEL_SHOWN]) + (", …" if len(tops) > _TOP_LEVEL_SHOWN else "")
        return BadFilter(message, f"use a path or glob such as `guides/*` or `guides`; top-level paths: {shown}")

    def _window(
        self, sid: str, before: int, after: int, header: bool = False
    ) -> tuple[str, int, int, list[queries.SectionRow], queries.SectionRow | None]:
        """``(doc, ordinal, section count, rows, header row)`` for an existing section id, the rows
        from ``before`` sections before it to ``after`` after it, and with ``header`` the header
        section of the table it continues (``None`` otherwise); raises :class:`UnknownSection`."""
        _text("id", sid, ID_LENGTH)
        try:
            doc, ordinal = split_section_id(sid.strip())
        except ValueError:
            raise self._not_an_id(sid.strip()) from None
        probe = min(ordinal, _MAX_ORDINAL)  # SQLite's integers are 64-bit; no document has this many sections
        count, rows, header_row = self.store.section_window(
            doc, probe - before, probe + after, probe if header else None
        )
        if count is not None and ordinal < count:
            return doc, ordinal, count, rows, header_row
        if count is not None:
            raise UnknownSection(
                f"{doc} has no section #{ordinal}; it has #0 to #{count - 1}",
                f"read {section_id(doc, count - 1)} for its last section, or search within it with {self.syntax.narrow(doc)}",
            )
        close = [self._same_section(path, ordinal) for path in similar_documents(doc, self.store.document_paths())]
        folder = doc.rsplit("/", 1)[0] + "/" if "/" in doc else ""
        listing = f"list the documents under {folder} with {self.syntax.expand(folder)}" if folder else ""
        suggestion = (
            "did you mean " + " or ".join(close) + "? Or search first"
            if close
            else (f"{listing}, or search first" if listing else "the index lists every document; or search first")
        )
        raise UnknownSection(f"no document {doc!r}, so no section {sid!r}", suggestion)

    def _not_an_id(self, text: str) -> UnknownSection:
        """The error for an id without ``#N``: a document's path gets its range of sections."""
        count = self.store.section_count(text)
        if count:
            return UnknownSection(
                f"{text!r} is a document, not a section id; its sections are #0 to #{count - 1}",
                f"read {section_id(text, 0)} for its first section, or search within it with {self.syntax.narrow(text)}",
            )
        return UnknownSection(
            f"{text!r} is not a section id (ids look like guides/install.md#3)",
            "search first and use an id from its results",
        )

    def _same_section(self, path: str, ordinal: int) -> str:
        """``path#ordinal`` when that document has such a section, else its first."""
        count = self.store.section_count(path) or 0
        return section_id(path, ordinal if ordinal < count else 0)


def _snippet_source(section: queries.SectionRow, texts: dict[int, str]) -> str:
    """The text a hit's snippet is cut from: a document's first section without its front matter.

    No format is at hand here; a first section that opens with a ``---``
    block is front matter in Markdown, and in any other format a block a
    snippet can do without (an overlined title).
    """
    text = texts[section.rowid]
    return text[front_matter_length(text) :] if section.ordinal == 0 else text


def similar_documents(doc: str, paths: Sequence[str], limit: int = 3) -> list[str]:
    """The documents an unknown path most likely meant, or none.

    A path typed from inside a folder (``install.md`` for ``guides/install.md``)
    is a suffix of the real one; otherwise a file name spelled nearly the
    same (``instal.md``). A file name that merely shares a folder or an
    ending with the unknown one is no suggestion: an unrelated file is worse
    than none.
    """
    suffixed = [path for path in paths if path.endswith("/" + doc)]
    if suffixed:
        return suffixed[:limit]
    import difflib  # only for an unknown id: kept off the import path of every command

    by_name: dict[str, list[str]] = {}
    for path in paths:
        by_name.setdefault(path.rsplit("/", 1)[-1], []).append(path)
    wanted = doc.rsplit("/", 1)[-1]
    names = difflib.get_close_matches(wanted, list(by_name), n=limit, cutoff=_SIMILAR_NAME)
    folder = doc.rsplit("/", 1)[0] if "/" in doc else ""
    ranked = [path for name in names for path in sorted(by_name[name], key=lambda p: not p.startswith(folder))]
    return ranked[:limit]


def _view(row: queries.SectionRow, context: bool = False) -> SectionView:
    text = row.text or ""
    header_added = bool(row.table_header)
    if row.table_header:
        text = row.table_header.rstrip("\n") + "\n" + text
    return SectionView(row.sid, row.path, row.heading_path, row.kind, text, header_added, context, row.pages)


def _grep_match(row: queries.SectionRow, lines: list[GrepLine]) -> GrepMatch:
    first, *more = lines
    return GrepMatch(row.sid, row.path, row.heading_path, first.line_number, first.line, tuple(more))


def _rowid(hit: RankedSection) -> int:
    return hit.section.rowid


def _by_rank(hits: Sequence[RankedSection]) -> list[RankedSection]:
    """Fused hits scored by their final position, after :func:`cover_sides` and the vector slot placed theirs."""
    return [replace(hit, score=round(rank_score(position), 6)) for position, hit in enumerate(hits, start=1)]


def weak_match(store: StoreReader, query: Query, best: RankedSection) -> tuple[str, ...]:
    """The query's words no section uses, when they make the best hit no strong match; else ``()``.

    The rule: some content word of the query is held by no section at all,
    and the content words the best hit holds (in its text, heading path,
    title or path) carry less than half of the query's weight, each word
    weighted by its rarity (inverse document frequency; a word no section
    holds weighs as much as one held by a single section). Such a query asks
    about something the corpus does not cover, and its hits, matched on the
    everyday words left, look like any others. A hit that matched every
    content word, or a query with a prefix (``PIP_*``), is never weak.
    """
    if best.match != "any" or any(part.expand for part in query.content):
        return ()
    content = query.content
    counts = store.term_counts(list(dict.fromkeys(term for part in content for term in part.terms)))
    held = {part.term: _sections_holding(part, counts) for part in content}
    missing = tuple(part.term for part in content if not held[part.term])
    if not missing:
        return ()
    row = best.section
    text = store.section_texts([row.rowid]).get(row.rowid, "")
    shown = set(index_terms(f"{best.title}\n{row.path}\n{' '.join(row.heading_path)}\n{text}"))
    total = store.section_total() or 1
    weight = {part.term: math.log(1 + total / max(held[part.term], 1)) for part in content}
    covered = sum(weight[part.term] for part in content if shown.intersection(part.exact or (part.term,)))
    return missing if covered * 2 < sum(weight.values()) else ()


def _sections_holding(part: QueryPart, counts: dict[str, int]) -> int:
    held = max((counts[term] for term in part.exact), default=0)
    if not held and part.pieces and all(counts[piece] for piece in part.pieces):
        held = min(counts[piece] for piece in part.pieces)
    return held


def _weak_hint(syntax: Syntax, missing: Sequence[str]) -> str:
    words = ", ".join(repr(word) for word in missing[:5])
    return (
        f"no strong match: no section uses {words}, so these hits match only the query's other words;"
        f" try other words for the same thing, or {syntax.grep} for an exact phrase"
    )


def _common_hint(syntax: Syntax) -> str:
    return (
        "these words occur in very many sections, so the ranking looked at a bounded sample;"
        f" add a more distinctive word, narrow with {syntax.filter}, or {syntax.grep} for an exact phrase"
    )


def _no_hits_hint(syntax: Syntax, filtered: bool, term_count: int) -> str:
    tips = [f"{syntax.grep} for exact codes, flags or punctuation"]
    if filtered:
        tips.append(f"drop the {syntax.filter} filter")
    if term_count > 1:
        tips.append("use fewer or other words")
    return "no section matches; " + ", ".join(tips)


def _bounded_int(name: str, value: object, bounds: tuple[int, int]) -> int:
    low, high = bounds
    if isinstance(value, bool) or not isinstance(value, int):
        raise WrongType(
            f"{name} must be an integer from {low} to {high}, got {value!r}", f"pass {name} as a whole number"
        )
    if not low <= value <= high:
        raise OutOfRange(f"{name} must be from {low} to {high}, got {value}", f"pass {name} between {low} and {high}")
    return value


def _text(name: str, value: object, bounds: tuple[int, int]) -> str:
    low, high = bounds
    if not isinstance(value, str):
        raise WrongType(f"{name} must be a string, got {type(value).__name__}", f"pass {name} as text")
    if low and value and not value.strip():
        raise OutOfRange(f"{name} is blank (only spaces)", f"pass a non-empty {name}: the words to look for")
    significant = len(value.strip()) if low else len(value)
    if significant < low or len(value) > high:
        raise OutOfRange(
            f"{name} must be {low} to {high} characters long (got {len(value)})",
            f"pass a non-empty {name}" if low else f"pass a shorter {name}",
        )
    _check_encodable(name, value, BadArgument)
    return value


def _check_encodable(name: str, value: str, error: type[ToolError]) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise error(
            f"{name} is not valid Unicode text (it contains a lone surrogate)", f"pass {name} as plain text"
        ) from None
