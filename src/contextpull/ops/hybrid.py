"""Hybrid search: the lexical ranking and the vector ranking fused by RRF.

Both rankings are taken to a fixed depth (:data:`DEPTH`), never to the
caller's limit, so the first k hits do not depend on how many were asked for;
the path filter applies to both. Reciprocal rank fusion needs no score
calibration between BM25 and cosine, and a section ranked well by either
side surfaces (docs/adr/010-embeddings.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import pullvec

from ..errors import BadArgument, EmbeddingError
from ..vectors import META_COUNT, META_DIM, META_MODEL, VectorIndex, embed, get_embedder

if TYPE_CHECKING:
    import numpy as np

    from ..store.connection import Store

#: search modes: ``auto`` is hybrid when the store has vectors, lexical otherwise
MODES = ("auto", "lexical", "hybrid")
#: candidates taken from each ranking before fusion (= the largest search limit)
DEPTH = 50


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

    def __init__(self, store: Store, embedder: pullvec.Embedder | None = None) -> None:
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
        return embed(self._embedder, [query])[0]


def fuse(lexical: Sequence[int], vector: Sequence[int], limit: int) -> list[tuple[int, float]]:
    """``(rowid, fused score)`` for the best ``limit``, best first; ties keep lexical order first."""
    scores = pullvec.rrf_scores([lexical, vector])
    ranked = sorted(scores, key=lambda rowid: -scores[rowid])[:limit]
    return [(rowid, scores[rowid]) for rowid in ranked]
