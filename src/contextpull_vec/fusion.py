"""Reciprocal rank fusion: one ordering from several, with no score calibration."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

#: the constant of the original RRF paper; it damps the weight of the very first ranks
K_RRF = 60

Key = TypeVar("Key", bound=Hashable)


def rrf_scores(rankings: Sequence[Sequence[Key]], *, k_rrf: int = K_RRF) -> dict[Key, float]:
    """``key -> sum of 1 / (k_rrf + rank)`` over the rankings (rank from 1), in first-appearance order."""
    fused: dict[Key, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking, start=1):
            fused[key] = fused.get(key, 0.0) + 1.0 / (k_rrf + rank)
    return fused


def reciprocal_rank_fusion(rankings: Sequence[Sequence[Key]], *, k_rrf: int = K_RRF) -> list[Key]:
    """Keys ordered by their RRF score.

    RRF needs no score calibration between retrievers, which is why it is the
    standard way to combine a lexical and a dense ranking. Ties keep first
    appearance (ranking order, then position), so the result is deterministic.
    """
    fused = rrf_scores(rankings, k_rrf=k_rrf)
    return sorted(fused, key=lambda key: -fused[key])
