"""Hybrid search: the lexical ranking leads, the vector ranking fills in below it.

Measured on every eval set we have, plain reciprocal rank fusion of the two
rankings put vector-only sections above correct word hits far more often
than the reverse (docs/adr/010-embeddings.md): words that match a question
are stronger evidence than a vector's nearness. So fusion is *lexical-led*:

* first, word hits that tie by their words, each scoring within
  :data:`TIE_SHARE` of the first of its run, are put in the order of their
  vectors' nearness (:func:`ties_by_vector`): BM25 cannot tell apart sibling
  sections that share the question's words (a page's sections on one topic,
  a clause repeated across licences), and the vector is the evidence it lacks
  about which of them says what the question asks (ADR 010, follow-up). Not
  for a query naming an identifier family by prefix (``PIP_*``);
* the *confident* word hits, those scoring at least :data:`CONFIDENT_SHARE`
  of the best word hit, come first, in that order, and the vector ranking
  cannot move them;
* below them, the remaining word hits and the sections found by vectors are
  merged by RRF, except that word hits keep their order among themselves (a
  section found only by its vector can pass a weak word hit, never reorder two)
  and, for a query naming an identifier family by prefix (``PIP_*``), come
  before every section found only by its vector: the members of a family are
  named in the text, so a section the words did not find holds none of them;
* the one section nearest by vector earns rank :data:`VECTOR_SLOT` at worst
  when the words found it too (it is among the word hits): a question worded
  unlike its answer (paraphrase) fills the top with confident hits on its
  everyday words, and a section both rankings found is the best guess at what
  they missed. A nearest section the words did not find at all gets no slot:
  on a table lookup it pushed a correct fifth word hit out (ADR 010, decision
  5). Not for a query naming an identifier family by prefix (``PIP_*``): its
  words are exact evidence. The slot is placed last, after the sides of a
  comparison (``ops/sides.py``), so it moves a side's section down a place,
  never out (decision 7).

A query whose words find little (few hits, or hits far weaker than the best)
is thus answered by the vectors; a query the words answer well keeps its
word hits, one place of the first few aside.
Both rankings are taken to a fixed depth (:data:`DEPTH`), never to the
caller's limit, so the first k hits do not depend on how many were asked for;
the path filter applies to both.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

import contextpull_vec
from contextpull_vec.fusion import K_RRF

from ..analysis.vectors import META_COUNT, META_DIM, META_MODEL, VectorIndex, embed, get_embedder
from ..errors import BadArgument, EmbeddingError
from .ranking import RankedSection

if TYPE_CHECKING:
    import numpy as np

    from ..store.connection import Store

#: search modes: ``auto`` is hybrid when the store has vectors, lexical otherwise
MODES = ("auto", "lexical", "hybrid")
#: candidates taken from each ranking before fusion (= the largest search limit)
DEPTH = 50
#: a word hit scoring at least this share of the best word hit is confident: vectors never move it.
#: Not fitted: a hit holding a third of the best hit's word evidence still matches a good part of
#: the question; 1/2, 1/3 and 1/4 were all checked on every eval set (ADR 010)
CONFIDENT_SHARE = 1 / 3
#: the rank the nearest section by vector takes when the words placed it lower. Measured on the
#: hand-written sets (ADR 010, decision 5): ranks 3, 4 and 5 gave the same recall@5; 3 keeps it
#: inside the first few an agent reads, and the first two word hits are never moved
VECTOR_SLOT = 3
#: word hits scoring within this share of the first of their run tie by their words, and the vectors
#: order them. Checked at 1%, 2%, 3%, 5% and 10% on every eval set (ADR 010, follow-up): up to 5% all
#: gain over none; 3% gained most and 10% lost overall
TIE_SHARE = 0.03


def check_mode(mode: object) -> str:
    """``mode`` if it is one of :data:`MODES`; otherwise :class:`BadArgument`."""
    if mode not in MODES:
        raise BadArgument(f"mode must be one of {', '.join(MODES)}, got {mode!r}", "omit mode for auto")
    return str(mode)


class StoreVectors:
    """The vectors of one open store and the embedder for its queries, loaded on first use.

    The matrix is reloaded when another process has committed to the store
    (SQLite's ``data_version``), so a long-lived handle never ranks by stale vectors.
    """

    def __init__(self, store: Store, embedder: contextpull_vec.Embedder | None = None) -> None:
        self._store = store
        self._embedder = embedder
        self._index: VectorIndex | None = None
        self._version: int | None = None

    @property
    def model(self) -> str | None:
        """The model the store's vectors were made with; ``None`` for a store without vectors."""
        return self._store.meta(META_MODEL)

    def available(self) -> bool:
        """True when the store holds vectors (read from its meta: nothing is loaded, numpy not needed)."""
        return self.model is not None and int(self._store.meta(META_COUNT) or 0) > 0

    def index(self) -> VectorIndex:
        """Every stored vector; the caller holds a read snapshot."""
        version = self._store.data_version()
        if self._index is None or version != self._version:
            rowids, doc_ids, blobs = self._store.section_vectors()
            self._index = VectorIndex(rowids, doc_ids, blobs, int(self._store.meta(META_DIM) or 0))
            self._version = version
        return self._index

    def query_vector(self, query: str) -> np.ndarray:
        """``query`` embedded by the store's model; raises the :class:`EmbeddingError` family."""
        model = self.model
        if model is None:
            raise BadArgument(
                "this store has no section vectors, so hybrid search cannot run",
                "search with mode lexical (or auto), or ingest with `contextpull ingest DIR --embed static`",
            )
        if self._embedder is None or self._embedder.name != model:
            if self._embedder is not None:
                raise EmbeddingError(
                    f"the store holds {model} vectors, but the embedder given is {self._embedder.name}",
                    f"open the store with the embedder for {model}, or none to build it from the store",
                )
            self._embedder = get_embedder(model)
        return embed(self._embedder, [query], queries=True)[0]


def ties_by_vector(ranked: Sequence[RankedSection], nearness: Mapping[int, float]) -> list[RankedSection]:
    """``ranked`` (word hits, best first) with each run of hits tied by their words in order of ``nearness``.

    A run starts at a hit and holds the hits after it scoring at least
    ``1 - TIE_SHARE`` of its score; it ends at the first that scores less,
    which starts the next. Within a run the nearest by vector comes first
    (a hit without a vector last), equal nearness keeping the word order, so
    copies of one text keep theirs (``ops/copies.py``). Each hit takes the
    score of the place it lands in, so scores still never increase.
    """
    order: list[RankedSection] = []
    start = 0
    while start < len(ranked):
        floor = ranked[start].score * (1.0 - TIE_SHARE)
        end = start + 1
        while end < len(ranked) and ranked[end].score >= floor:
            end += 1
        order.extend(sorted(ranked[start:end], key=lambda hit: -nearness.get(hit.section.rowid, -math.inf)))
        start = end
    return [replace(hit, score=place.score) for hit, place in zip(order, ranked, strict=True)]


def confident_count(lexical_scores: Sequence[float]) -> int:
    """How many leading word hits are confident (score >= :data:`CONFIDENT_SHARE` of the first)."""
    if not lexical_scores:
        return 0
    floor = lexical_scores[0] * CONFIDENT_SHARE
    count = 0
    while count < len(lexical_scores) and lexical_scores[count] >= floor:
        count += 1
    return count


def fuse(lexical: Sequence[tuple[int, float]], vector: Sequence[int], exact: bool = False) -> list[tuple[int, float]]:
    """The lexical-led fusion of ``lexical`` (``(rowid, score)``, best first) and ``vector`` (row ids, best first).

    Returns ``(rowid, fused score)`` for every candidate, best first: the
    :func:`merge`, then the :func:`slot_holder` at :data:`VECTOR_SLOT`. The
    score is ``1 / (60 + position)``, the reciprocal-rank form, so it falls
    down the list whatever side a hit came from.
    """
    order = take_slot(merge(lexical, vector, exact), slot_holder(lexical, vector, exact), lambda rowid: rowid)
    return [(rowid, rank_score(position)) for position, rowid in enumerate(order, start=1)]


def slot_holder(lexical: Sequence[tuple[int, float]], vector: Sequence[int], exact: bool) -> int | None:
    """The section that earns :data:`VECTOR_SLOT`: the nearest by vector, when the words found it too.

    ``None`` when it is not a word hit, or the query names an identifier family (``exact``).
    """
    if not vector or exact or vector[0] not in {rowid for rowid, _ in lexical}:
        return None
    return vector[0]


T = TypeVar("T")


def take_slot(order: list[T], holder: T | None, key: Callable[[T], int]) -> list[T]:
    """``order`` with ``holder`` at :data:`VECTOR_SLOT` at worst: moved up, or put there from beyond the list.

    Applied last, after every other rule has placed its hits (a side of a
    comparison, ``ops/sides.py``), so the slot moves one of them down a place
    rather than hiding it; nothing else moves.
    """
    if holder is None:
        return order
    at = next((i for i, item in enumerate(order) if key(item) == key(holder)), None)
    if at is not None and at < VECTOR_SLOT:
        return order
    out = list(order)
    moved = holder if at is None else out.pop(at)
    out.insert(VECTOR_SLOT - 1, moved)
    return out


def merge(lexical: Sequence[tuple[int, float]], vector: Sequence[int], exact: bool = False) -> list[int]:
    """Every candidate of the two rankings in the lexical-led order, before the vector slot.

    ``exact`` (the query names an identifier family by prefix) puts every
    word hit before the sections only the vectors found. Deterministic: ties
    go to the word hit, and each side's order is a total order.
    """
    confident = confident_count([score for _, score in lexical])
    head = [rowid for rowid, _ in lexical[:confident]]
    taken = set(head)
    words = [rowid for rowid, _ in lexical[confident:]]
    nearest = [rowid for rowid in vector if rowid not in taken]
    rrf = contextpull_vec.rrf_scores([words, nearest])
    in_words = set(words)
    only_vector = [rowid for rowid in nearest if rowid not in in_words]
    merged: list[int] = []
    w = v = 0
    while w < len(words) or v < len(only_vector):
        # A family's members are named in the text: a section the words did not find holds none.
        if v >= len(only_vector) or (w < len(words) and (exact or rrf[words[w]] >= rrf[only_vector[v]])):
            merged.append(words[w])
            w += 1
        else:
            merged.append(only_vector[v])
            v += 1
    return head + merged


def rank_score(position: int) -> float:
    """The fused score of the hit at ``position`` (from 1): the reciprocal-rank form, falling down the list."""
    return 1.0 / (K_RRF + position)


def vectors_can_change(lexical_scores: Sequence[float], limit: int, exact: bool) -> bool:
    """False when the first ``limit`` fused hits are the word hits whatever the vectors say (skip them).

    That is when the confident word hits alone fill ``limit`` and the
    nearest section cannot take :data:`VECTOR_SLOT` within it.
    """
    return confident_count(lexical_scores) < limit or (not exact and limit >= VECTOR_SLOT)
