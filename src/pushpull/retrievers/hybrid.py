"""Several retrievers fused by reciprocal rank fusion (:mod:`contextpull_vec`'s, shared with hybrid search)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from contextpull_vec import reciprocal_rank_fusion

from ..protocol import Retriever
from .base import family_name


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
