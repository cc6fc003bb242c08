"""pushpull's metrics agree with ir-measures (R@k, RR@k, nDCG@k) to 1e-9 on random runs."""

from __future__ import annotations

import random

import ir_measures
import pytest
from ir_measures import RR, Qrel, R, ScoredDoc, nDCG

from pushpull.scoring.metrics import (
    QuestionResult,
    equivalent_recall_at_k,
    ndcg_at_k,
    recall_at_k,
    reciprocal_rank_at_k,
    summarize,
)

DOCS = [f"d{i}" for i in range(30)]


def _random_case(rng: random.Random) -> tuple[list[str], list[str]]:
    gold = rng.sample(DOCS, rng.randint(1, 6))
    retrieved = rng.sample(DOCS, rng.randint(0, 15))
    return gold, retrieved


def _ir_measures(gold: list[str], retrieved: list[str], k: int) -> dict[str, float]:
    qrels = [Qrel("q", g, 1) for g in gold]
    run = [ScoredDoc("q", d, float(len(retrieved) - i)) for i, d in enumerate(retrieved)]
    measures = [R @ k, RR @ k, nDCG @ k]
    values = {str(m): 0.0 for m in measures}  # ir-measures omits a query with an empty run
    values.update({str(m.measure): m.value for m in ir_measures.iter_calc(measures, qrels, run)})
    return values


@pytest.mark.parametrize("seed", range(8))
def test_per_question_metrics_match_ir_measures(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(60):
        gold, retrieved = _random_case(rng)
        k = rng.choice([1, 3, 5, 10])
        ref = _ir_measures(gold, retrieved, k)
        assert recall_at_k(gold, retrieved, k) == pytest.approx(ref[f"R@{k}"], abs=1e-9)
        assert reciprocal_rank_at_k(gold, retrieved, k) == pytest.approx(ref[f"RR@{k}"], abs=1e-9)
        assert ndcg_at_k(gold, retrieved, k) == pytest.approx(ref[f"nDCG@{k}"], abs=1e-9)


def test_summary_means_match_ir_measures_aggregates() -> None:
    rng = random.Random(99)
    k = 5
    cases = [_random_case(rng) for _ in range(80)]
    results = [QuestionResult(f"q{i}", "conceptual", g, list(g), r) for i, (g, r) in enumerate(cases)]
    summary = summarize(results, k)
    refs = [_ir_measures(g, r, k) for g, r in cases]
    assert summary.recall == pytest.approx(sum(x[f"R@{k}"] for x in refs) / len(refs), abs=1e-9)
    assert summary.mrr == pytest.approx(sum(x[f"RR@{k}"] for x in refs) / len(refs), abs=1e-9)
    hit_refs = [x for x in refs if x[f"R@{k}"] > 0]
    assert summary.hit_rate == pytest.approx(len(hit_refs) / len(refs), abs=1e-9)
    assert summary.ndcg_given_hit == pytest.approx(sum(x[f"nDCG@{k}"] for x in hit_refs) / len(hit_refs), abs=1e-9)


def test_equivalent_recall_credits_any_equivalent_chunk_but_never_exceeds_one() -> None:
    assert equivalent_recall_at_k(["a"], ["a", "b"], ["b", "x"], 5) == 1.0
    assert equivalent_recall_at_k(["a"], ["a", "b"], ["x", "y"], 5) == 0.0
    assert equivalent_recall_at_k(["a", "c"], ["a", "b", "c"], ["b", "a", "c"], 5) == 1.0
    assert equivalent_recall_at_k(["a", "c"], ["a", "c"], ["a"], 5) == 0.5


def test_equivalent_recall_credits_each_gold_fact_once_through_its_own_equivalents() -> None:
    # a2 restates a: retrieving a and a2 finds one fact of two, never both
    assert equivalent_recall_at_k(["a", "c"], ["a", "a2", "c"], ["a", "a2"], 5) == 0.5
    assert equivalent_recall_at_k(["a", "c"], {"a": ["a2"], "c": ["c2"]}, ["a", "a2"], 5) == 0.5
    assert equivalent_recall_at_k(["a", "c"], {"a": ["a2"], "c": ["c2"]}, ["a2", "c2"], 5) == 1.0
    # a chunk restating both facts finds both; ids listed under a key that is not gold count for nothing
    assert equivalent_recall_at_k(["a", "c"], {"a": ["x"], "c": ["x"]}, ["x"], 5) == 1.0
    assert equivalent_recall_at_k(["a", "c"], {"z": ["x"]}, ["x"], 5) == 0.0
    # one gold fact: a flat list stands for it
    assert equivalent_recall_at_k(["a"], ["a", "b"], ["b"], 5) == 1.0


def test_duplicates_in_a_run_are_counted_once() -> None:
    assert recall_at_k(["a", "b"], ["a", "a", "a", "b"], 2) == 1.0
    assert reciprocal_rank_at_k(["b"], ["a", "a", "b"], 2) == 0.5


def test_errors_are_counted_and_score_as_misses() -> None:
    results = [
        QuestionResult("q1", "table", ["a"], ["a"], ["a"]),
        QuestionResult("q2", "table", ["b"], ["b"], [], error="RuntimeError: boom"),
    ]
    summary = summarize(results, 5)
    assert summary.n == 2 and summary.errors == 1
    assert summary.recall == 0.5 and summary.hit_rate == 0.5
    assert summary.ndcg_given_hit == 1.0
