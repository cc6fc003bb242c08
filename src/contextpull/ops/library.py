"""Several collections behind one set of operations: the ids carry the collection.

A collection is a named store (``uv@0.5``, ``handbook``; docs/adr/024-collections-and-links.md).
:class:`Library` answers the five operations over several of them as
:class:`~contextpull.ops.operations.Ops` answers them over one, with one rule
for ids: a section of collection ``uv@0.5`` is ``uv@0.5:docs/cache.md#6``,
its document ``uv@0.5:docs/cache.md``. Every pointer in a result is
rewritten that way (:func:`contextpull.ops.pointers.rewrite`), so an id from
any result reads back through :meth:`Library.read` unchanged.

Routing: ``collection`` restricts ``index``, ``search`` and ``grep`` to one
collection; an ``in`` pattern that starts with ``name:`` applies to that
collection only (and selects it), one without a prefix to every collection
searched. An id without a prefix is read from the one collection that holds
its document, and is refused when none or several do.

Merging: each collection ranks its own sections (its own term statistics),
so scores of two collections are not comparable. Search therefore merges by
rank: the collections whose hits are no ``weak`` match come first, and
within each group the lists interleave by reciprocal rank (``1 / (60 +
rank)``, the RRF constant), which is the score shown. Grep keeps document
order: each collection's matches in turn, in the order of the collections.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ..errors import BadArgument, BadFilter, UnknownSection
from .operations import DEFAULT_GREP_LIMIT, DEFAULT_SEARCH_LIMIT, NO_MATCH, Ops, PathFilter
from .pointers import Pointer, Result, rewrite
from .results import GrepMatch, GrepResult, IndexResult, NeighboursResult, ReadResult, SearchResult

#: the reciprocal-rank constant of the merge (Cormack et al.'s RRF value)
RRF_K = 60
SEPARATOR = ":"


class Library:
    """The operations over named collections, each an open :class:`Ops`, in the order given."""

    def __init__(self, members: Mapping[str, Ops]) -> None:
        if not members:
            raise ValueError("a library needs at least one collection")
        self.members = dict(members)

    @property
    def names(self) -> list[str]:
        return list(self.members)

    # --- index ---------------------------------------------------------------
    def index(self, prefix: str | None = None, collection: str | None = None) -> IndexResult:
        """Every collection's index under its own heading, or one collection's (``prefix`` may name it)."""
        if collection is not None or (prefix is not None and self._owner(prefix) is not None):
            name, rest = (self._known(collection), prefix) if collection is not None else self._split(prefix or "")
            inner = self.members[name].index(rest or None)
            return IndexResult(_headed(name, inner.text), prefix)
        parts = [_headed(name, ops.index(prefix).text) for name, ops in self.members.items()]
        return IndexResult("\n\n".join(parts), prefix)

    # --- search --------------------------------------------------------------
    def search(
        self,
        query: str,
        in_: PathFilter = None,
        limit: int = DEFAULT_SEARCH_LIMIT,
        snippet: int | None = None,
        mode: str = "auto",
        collection: str | None = None,
    ) -> SearchResult:
        """Each collection in scope searched for ``query``; the lists merged by rank (see the module)."""
        results: list[tuple[str, SearchResult]] = []
        refusal: BadFilter | None = None
        for name, scope in self._scopes(in_, collection):
            try:
                results.append((name, self.members[name].search(query, scope, limit, snippet, mode)))
            except BadFilter as err:  # the filter selects nothing in this collection
                refusal = refusal or err
        if not results:
            raise self._nothing_selected(refusal, in_)
        ranked = sorted(
            (
                (result.weak, -1.0 / (RRF_K + rank), order, hit, name)
                for order, (name, result) in enumerate(results)
                for rank, hit in enumerate(result.hits, 1)
            ),
            key=lambda item: item[:3],
        )
        hits = tuple(replace(_prefixed(name, hit), score=round(-fused, 6)) for _, fused, _, hit, name in ranked[:limit])
        strong = [result for _, result in results if result.hits and not result.weak]
        first = strong or [result for _, result in results]
        hint = next((result.hint for result in first if result.hint), None)
        mode_used = "hybrid" if any(result.mode == "hybrid" for _, result in results) else "lexical"
        return SearchResult(query, hits, hint, mode=mode_used, weak=bool(hits) and not strong)

    # --- read, neighbours ----------------------------------------------------
    def read(self, id: str, context: int = 0) -> ReadResult:
        """The section ``id`` (``collection:path#N``) verbatim, with ``context`` sections either side."""
        name, inner = self._locate(id)
        return self._rewrite(name, self.members[name].read(inner, context))

    def neighbours(self, id: str, before: int = 1, after: int = 1) -> NeighboursResult:
        """The sections around ``id`` in its document, and a continued table's header section."""
        name, inner = self._locate(id)
        return self._rewrite(name, self.members[name].neighbours(inner, before, after))

    # --- grep ----------------------------------------------------------------
    def grep(
        self,
        pattern: str,
        in_: PathFilter = None,
        regex: bool = False,
        limit: int = DEFAULT_GREP_LIMIT,
        lines: int = 1,
        collection: str | None = None,
    ) -> GrepResult:
        """Sections containing ``pattern``: each collection's in document order, collection by collection."""
        matches: list[GrepMatch] = []
        truncated, searched, hints = False, False, []
        refusal: BadFilter | None = None
        for name, scope in self._scopes(in_, collection):
            if len(matches) >= limit:
                truncated = True
                break
            try:
                found = self.members[name].grep(pattern, scope, regex, limit - len(matches), lines)
            except BadFilter as err:  # the filter selects nothing in this collection
                refusal = refusal or err
                continue
            searched = True
            matches.extend(self._rewrite(name, found).matches)
            truncated = truncated or found.truncated
            if found.hint and found.matches:
                hints.append(found.hint)
        if not searched:
            raise self._nothing_selected(refusal, in_)
        hint = hints[0] if hints else (None if matches else NO_MATCH)
        return GrepResult(pattern, regex, tuple(matches), truncated, hint)

    # --- routing ---------------------------------------------------------------
    def _scopes(self, in_: PathFilter, collection: str | None) -> list[tuple[str, PathFilter]]:
        """``(collection, its path filter)`` for every collection a call covers.

        A collection whose filter then selects no document is passed over by
        the caller; the call fails only when it selects none anywhere
        (:meth:`_nothing_selected`).
        """
        names = [self._known(collection)] if collection is not None else self.names
        if in_ is None:
            return [(name, None) for name in names]
        patterns = [in_] if isinstance(in_, str) else list(in_)
        own: dict[str, list[str]] = {}
        shared: list[str] = []
        for pattern in patterns:
            owner = self._owner(pattern) if isinstance(pattern, str) else None
            if owner is None:
                shared.append(pattern)
            else:
                own.setdefault(owner, []).append(pattern.split(SEPARATOR, 1)[1] or "*")
        chosen = [name for name in names if name in own] if own and not shared else names
        return [(name, [*own.get(name, []), *shared]) for name in chosen]

    def _nothing_selected(self, refusal: BadFilter | None, in_: PathFilter) -> BadFilter:
        """The error of a filter that selected no document in any collection it was tried on."""
        return refusal or BadFilter(
            f"no collection matches in {in_!r}", f"start a pattern with a collection: {', '.join(self.names)}"
        )

    def _locate(self, sid: str) -> tuple[str, str]:
        """The collection of a section id and the id within it."""
        if not isinstance(sid, str):
            raise BadArgument("id must be a string", "pass an id from search, grep or the index")
        owner = self._owner(sid.strip())
        if owner is not None:
            return self._split(sid.strip())
        doc = sid.strip().rsplit("#", 1)[0]
        holders = [name for name, ops in self.members.items() if ops.store.section_count(doc)]
        if len(holders) == 1:
            return holders[0], sid
        example = f"{self.names[0]}{SEPARATOR}{sid.strip()}"
        if holders:
            raise UnknownSection(
                f"{doc!r} is in several collections ({', '.join(holders)}), so {sid!r} is ambiguous",
                f"name the collection, like {holders[0]}{SEPARATOR}{sid.strip()}",
            )
        raise UnknownSection(
            f"no collection has a section {sid!r} (ids here look like {example})",
            "search first and use an id from its results",
        )

    def _owner(self, text: str) -> str | None:
        """The collection ``text`` starts with (``name:``), if any."""
        head, sep, _ = text.partition(SEPARATOR)
        return head if sep and head in self.members else None

    def _split(self, text: str) -> tuple[str, str]:
        head, _, rest = text.partition(SEPARATOR)
        return head, rest

    def _known(self, name: str) -> str:
        if name not in self.members:
            raise BadArgument(f"there is no collection {name!r}", f"use one of: {', '.join(self.names)}")
        return name

    def _rewrite(self, name: str, result: Result) -> Result:
        def change(pointer: Pointer) -> Pointer:
            return _prefixed(name, pointer)

        return rewrite(result, change, lambda sid: f"{name}{SEPARATOR}{sid}")


def _prefixed(name: str, pointer: Pointer) -> Pointer:
    return replace(pointer, id=f"{name}{SEPARATOR}{pointer.id}", doc=f"{name}{SEPARATOR}{pointer.doc}")


def _headed(name: str, text: str) -> str:
    return f"## Collection {name} (ids and paths start with `{name}{SEPARATOR}`)\n\n{text.strip()}"
