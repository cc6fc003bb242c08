"""Reciprocal rank fusion of several retrievers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..protocol import Retriever
from .base import family_name


def reciprocal_rank_fusion(rankings: Sequence[Sequence[str]], *, k_rrf: int = 60) -> list[str]:
    """Ids ordered by the sum of ``1 / (k_rrf + rank)`` over the rankings (rank from 1).

    RRF needs no score calibration between retrievers, which is why it is the
    standard way to combine a lexical and a dense ranking. Ties are broken by
    first appearance (ranking order, then position), so the result is
    deterministic.
    """
    fused: dict[str, float] = {}
    for ranking in rankings:
        for rank, chunk_id in enumerate(ranking, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (k_rrf + rank)
    return sorted(fused, key=lambda chunk_id: -fused[chunk_id])  # stable: ties keep first appearance


class HybridRRF:
    """Fuses the top ``depth`` of each retriever and returns the best ``k``."""

    def __init__(self, retrievers: Sequence[Retriever], *, k_rrf: int = 60, depth: int = 50) -> None:
        if not retrievers:
            raise ValueError("HybridRRF needs at least one retriever")
        self.retrievers = list(retrievers)
        self.k_rrf = k_rrf
        self.depth = depth
        self.name = f"hybrid rrf ({'+'.join(family_name(r) for r in self.retrievers)})"
        self._queries = 0

    def retrieve(self, query: str, k: int) -> list[str]:
        self._queries += 1
        depth = max(self.depth, k)
        rankings = [r.retrieve(query, depth) for r in self.retrievers]
        return reciprocal_rank_fusion(rankings, k_rrf=self.k_rrf)[:k]

    def stats(self) -> dict[str, Any]:
        return {"queries": self._queries}
