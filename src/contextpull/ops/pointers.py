"""Rewriting every pointer in an operation's result: a URL on each, or a collection before each id.

A result points at sections in several places (search hits, a read section
and its context, a neighbour, a table's header section, grep matches, the
previous and next ids). :func:`rewrite` visits all of them, so the citation
links (:mod:`contextpull.contents.links`) and a collection's prefix
(:mod:`contextpull.ops.library`) are each one function of a pointer, applied
the same way to every result type.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Protocol, TypeVar, cast

from ..contents.links import Links
from .results import (
    GrepMatch,
    GrepResult,
    IndexResult,
    NeighboursResult,
    ReadResult,
    SearchHit,
    SearchResult,
    SectionView,
)

AnyResult = IndexResult | SearchResult | ReadResult | NeighboursResult | GrepResult
Result = TypeVar("Result", bound=AnyResult)
Pointer = TypeVar("Pointer", SearchHit, SectionView, GrepMatch)


class Change(Protocol):
    """A pointer of any kind → the same kind, changed."""

    def __call__(self, pointer: Pointer, /) -> Pointer: ...


def _same(sid: str) -> str:
    return sid


def rewrite(result: Result, change: Change, rename: Callable[[str], str] = _same) -> Result:
    """``result`` with ``change`` applied to every pointer in it and ``rename`` to every bare id."""
    return cast(Result, _rewritten(result, change, rename))


def _rewritten(result: AnyResult, change: Change, rename: Callable[[str], str]) -> AnyResult:
    if isinstance(result, SearchResult):
        return replace(result, hits=tuple(change(hit) for hit in result.hits))
    if isinstance(result, ReadResult):
        return replace(
            result,
            section=change(result.section),
            prev_id=None if result.prev_id is None else rename(result.prev_id),
            next_id=None if result.next_id is None else rename(result.next_id),
            before=tuple(change(view) for view in result.before),
            after=tuple(change(view) for view in result.after),
        )
    if isinstance(result, NeighboursResult):
        header = result.table_header_section
        return replace(
            result,
            id=rename(result.id),
            before=tuple(change(view) for view in result.before),
            after=tuple(change(view) for view in result.after),
            table_header_section=None if header is None else change(header),
        )
    if isinstance(result, GrepResult):
        return replace(result, matches=tuple(change(match) for match in result.matches))
    return result


def with_links(result: Result, links: Links | None) -> Result:
    """``result`` with each pointer's URL, when the store has links; else ``result`` itself."""
    if links is None:
        return result
    known = links

    def linked(pointer: Pointer) -> Pointer:
        pages = getattr(pointer, "pages", None)
        return replace(pointer, url=known.url_for(pointer.doc, pointer.heading_path, pages))

    return rewrite(result, linked)
