"""Reciprocal rank fusion: the arithmetic on fixed rankings, and the retriever around it."""

from __future__ import annotations

import pytest

from pushpull.retrievers import HybridRRF, reciprocal_rank_fusion


class FixedRanking:
    """A retriever that always returns the same ranking (cut at k)."""

    def __init__(self, name: str, ranking: list[str]) -> None:
        self.name = name
        self.ranking = ranking
        self.depths: list[int] = []

    def retrieve(self, query: str, k: int) -> list[str]:
        self.depths.append(k)
        return self.ranking[:k]


def test_rrf_scores_with_k_60() -> None:
    # a: 1/61 + 1/63 = 0.032266   b: 1/62 + 1/61 = 0.032522   c: 1/63 = 0.015873   d: 1/62 = 0.016129
    fused = reciprocal_rank_fusion([["a", "b", "c"], ["b", "d", "a"]], k_rrf=60)
    assert fused == ["b", "a", "d", "c"]


def test_rrf_ties_keep_first_appearance() -> None:
    assert reciprocal_rank_fusion([["x", "y"], ["y", "x"]], k_rrf=60) == ["x", "y"]
    assert reciprocal_rank_fusion([["p"], ["q"]], k_rrf=60) == ["p", "q"]


def test_rrf_constant_changes_the_balance() -> None:
    # "solo" is first once; "pair" is fourth three times.
    # k=0: solo 1/1 = 1.0 > pair 3/4;  k=60: solo 1/61 < pair 3/64
    rankings = [["solo", "m1", "m2", "pair"], ["x1", "x2", "x3", "pair"], ["y1", "y2", "y3", "pair"]]
    small, standard = reciprocal_rank_fusion(rankings, k_rrf=0), reciprocal_rank_fusion(rankings, k_rrf=60)
    assert small.index("solo") < small.index("pair")
    assert standard[0] == "pair" and standard.index("pair") < standard.index("solo")


def test_hybrid_asks_each_retriever_for_depth_and_cuts_at_k() -> None:
    lexical = FixedRanking("bm25", ["a", "b", "c", "d"])
    dense = FixedRanking("dense (minilm)", ["c", "a", "e"])
    hybrid = HybridRRF([lexical, dense], k_rrf=60, depth=50)
    assert hybrid.name == "hybrid rrf (bm25+dense)"
    assert hybrid.retrieve("q", 2) == ["a", "c"]
    assert lexical.depths == [50] and dense.depths == [50]
    assert hybrid.retrieve("q", 100) == ["a", "c", "b", "e", "d"]
    assert lexical.depths[-1] == 100
    assert hybrid.stats() == {"queries": 2}


def test_hybrid_needs_a_retriever() -> None:
    with pytest.raises(ValueError):
        HybridRRF([])
