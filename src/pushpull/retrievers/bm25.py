"""BM25 over chunks, vectorised with ``bm25s`` and identifier-aware terms."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

import bm25s

from .base import ChunkLike, top_k
from .tokenize import terms


class BM25Retriever:
    """Okapi BM25 (Lucene idf) over the chunks' text.

    The index is a sparse term-by-document score matrix built once; a query
    sums the rows of its distinct terms, so a query costs a few array
    operations rather than a Python loop over postings. Only chunks that share
    at least one term with the query are returned.
    """

    name = "bm25"

    def __init__(self, chunks: Sequence[ChunkLike], *, k1: float = 1.5, b: float = 0.75) -> None:
        started = time.perf_counter()
        self.ids = [chunk.id for chunk in chunks]
        self._index = bm25s.BM25(k1=k1, b=b, method="lucene")
        if self.ids:
            self._index.index([terms(chunk.text) for chunk in chunks], show_progress=False)
        self.build_seconds = time.perf_counter() - started
        self._queries = 0

    def retrieve(self, query: str, k: int) -> list[str]:
        """Up to ``k`` chunk ids, best first; ``[]`` when no term of the query is indexed."""
        self._queries += 1
        if not self.ids:
            return []
        vocab = self._index.vocab_dict
        term_ids = sorted({vocab[t] for t in terms(query) if t in vocab})
        if not term_ids:
            return []
        scores = self._index.get_scores(term_ids)
        return [self.ids[i] for i in top_k(scores, k, positive_only=True)]

    def stats(self) -> dict[str, Any]:
        return {"queries": self._queries, "index_seconds": round(self.build_seconds, 3)}
