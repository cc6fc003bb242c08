"""BM25 over chunks with ``bm25s``: the floor (bare identifier-aware terms) and bm25s as its README deploys it."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import bm25s

from .base import ChunkLike, top_k
from .tokenize import terms

#: texts → one term list per text; documents and queries go through the same analyzer
Analyzer = Callable[[list[str]], list[list[str]]]


def bare_terms(texts: list[str]) -> list[list[str]]:
    """The floor's analyzer: case-folded identifiers and their pieces, no stemming, no stopwords."""
    return [terms(text) for text in texts]


def snowball_english(texts: list[str]) -> list[list[str]]:
    """bm25s's own tokenizer with its English stopwords and the Snowball English stemmer (PyStemmer).

    This is the configuration bm25s documents for English text, so the row
    stands for what a practitioner picking bm25s would deploy.
    """
    import Stemmer

    stemmer = Stemmer.Stemmer("english")
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer.stemWords, return_ids=False, show_progress=False)
    return [list(t) for t in tokens]


class BM25Retriever:
    """Okapi BM25 (Lucene idf) over the chunks' text, with a pluggable analyzer.

    The index is a sparse term-by-document score matrix built once; a query
    sums the rows of its distinct terms, so a query costs a few array
    operations rather than a Python loop over postings. Only chunks that share
    at least one term with the query are returned.
    """

    def __init__(
        self,
        chunks: Sequence[ChunkLike],
        *,
        k1: float = 1.5,
        b: float = 0.75,
        analyzer: Analyzer = bare_terms,
        name: str = "bm25 floor (bare terms)",
    ) -> None:
        started = time.perf_counter()
        self.name = name
        self.ids = [chunk.id for chunk in chunks]
        self._analyze = analyzer
        self._index = bm25s.BM25(k1=k1, b=b, method="lucene")
        if self.ids:
            self._index.index(analyzer([chunk.text for chunk in chunks]), show_progress=False)
        self.build_seconds = time.perf_counter() - started
        self._queries = 0

    def retrieve(self, query: str, k: int) -> list[str]:
        """Up to ``k`` chunk ids, best first; ``[]`` when no term of the query is indexed."""
        self._queries += 1
        if not self.ids:
            return []
        vocab = self._index.vocab_dict
        term_ids = sorted({vocab[t] for t in self._analyze([query])[0] if t in vocab})
        if not term_ids:
            return []
        scores = self._index.get_scores(term_ids)
        return [self.ids[i] for i in top_k(scores, k, positive_only=True)]

    def stats(self) -> dict[str, Any]:
        return {"queries": self._queries, "index_seconds": round(self.build_seconds, 3)}
