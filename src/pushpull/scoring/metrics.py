"""Retrieval metrics at a cutoff k, per question and averaged.

Definitions (binary relevance, validated against ir-measures in the tests):
recall@k is the fraction of gold ids in the top k (ir-measures ``R@k``);
MRR@k the reciprocal rank of the first gold id in the top k (``RR@k``);
NDCG@k uses binary gains and an ideal of min(|gold|, k) hits (``nDCG@k``) and
is reported *conditioned on a hit* — averaged over questions with a gold id in
the top k — so ranking quality is kept apart from recall. Retrieved lists are
deduplicated (first occurrence wins) before the cut, as a TREC run must be.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


def top_k(retrieved: Sequence[str], k: int) -> list[str]:
    return list(dict.fromkeys(retrieved))[:k]


def recall_at_k(gold: Sequence[str], retrieved: Sequence[str], k: int) -> float:
    if not gold:
        return 0.0
    top = set(top_k(retrieved, k))
    return sum(g in top for g in set(gold)) / len(set(gold))


def reciprocal_rank_at_k(gold: Sequence[str], retrieved: Sequence[str], k: int) -> float:
    wanted = set(gold)
    return next((1.0 / rank for rank, cid in enumerate(top_k(retrieved, k), 1) if cid in wanted), 0.0)


def ndcg_at_k(gold: Sequence[str], retrieved: Sequence[str], k: int) -> float:
    wanted = set(gold)
    dcg = sum(1.0 / math.log2(rank + 1) for rank, cid in enumerate(top_k(retrieved, k), 1) if cid in wanted)
    ideal = sum(1.0 / math.log2(rank + 1) for rank in range(1, min(len(wanted), k) + 1))
    return dcg / ideal if ideal else 0.0


#: gold id → the other chunk ids that state that same fact
EquivalentMap = Mapping[str, Sequence[str]]


def equivalents_by_gold(gold: Sequence[str], equivalent: Sequence[str] | EquivalentMap) -> dict[str, set[str]]:
    """Which chunks stand for which gold fact; the mapping rec≡ credits through.

    ``equivalent`` is either a mapping ``{gold id: [ids restating that fact]}``
    (what our eval sets record, ``Question.equivalent_of``) or a flat list
    (ragbisect's ``equivalent_gold``, which names no fact). A mapping is taken
    as given, each gold id also standing for itself; ids listed under a key
    that is not gold are ignored. A flat list is attributed only when the
    question has exactly one gold id: every listed id then stands for that
    fact. With several gold ids a flat list cannot say which fact a chunk
    restates, so it adds nothing and only the gold ids themselves count.
    """
    facts = list(dict.fromkeys(gold))
    by_gold = {g: {g} for g in facts}
    if isinstance(equivalent, Mapping):
        for g, ids in equivalent.items():
            if g in by_gold:
                by_gold[g].update(ids)
    elif len(facts) == 1:
        by_gold[facts[0]].update(equivalent)
    return by_gold


def equivalent_recall_at_k(
    gold: Sequence[str], equivalent: Sequence[str] | EquivalentMap, retrieved: Sequence[str], k: int
) -> float:
    """Recall where each gold fact may be found through a chunk that restates it.

    rec≡@k = |{g in gold : ({g} ∪ E(g)) ∩ top k ≠ ∅}| / |gold|, with E(g) from
    :func:`equivalents_by_gold`. Each gold fact is credited at most once and
    only through the equivalents recorded for that fact, so two chunks
    restating one fact never stand in for a second fact nobody retrieved.
    """
    by_gold = equivalents_by_gold(gold, equivalent)
    if not by_gold:
        return 0.0
    top = set(top_k(retrieved, k))
    return sum(bool(ids & top) for ids in by_gold.values()) / len(by_gold)


@dataclass
class QuestionResult:
    """What one configuration returned for one question, and what it cost."""

    qid: str
    shape: str
    gold: list[str]
    #: gold id → ids restating that fact (a flat list for files that record no mapping)
    equivalent: dict[str, list[str]] | list[str]
    retrieved: list[str]
    ms: float = 0.0
    error: str | None = None
    answer: str | None = None
    faithful: bool | None = None
    correct: bool | None = None
    #: faithful to the sections read, or, when none was read, to the snippets shown (``evidence`` adapters only)
    faithful_to_shown: bool | None = None
    #: how many sections the adapter read for its answer (``evidence`` adapters only)
    sections_read: int | None = None

    def recall(self, k: int) -> float:
        return recall_at_k(self.gold, self.retrieved, k)

    def hit(self, k: int) -> bool:
        return self.recall(k) > 0


@dataclass
class Summary:
    n: int
    recall: float
    mrr: float
    ndcg_given_hit: float | None
    hit_rate: float
    recall_equivalent: float
    errors: int
    ms_per_query: float
    faithfulness: float | None = None
    n_judged: int = 0
    correctness: float | None = None
    faithfulness_to_shown: float | None = None
    #: answers given without reading any section: faithfulness to what was read is undefined, so not judged
    unread_answers: int = 0


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def summarize(results: Sequence[QuestionResult], k: int) -> Summary:
    """Averages over every question; an adapter error is a question with nothing retrieved."""
    hits = [r for r in results if r.hit(k)]
    # an answer that read nothing has no evidence to be faithful to: undefined, whatever a record says
    faith = [r.faithful for r in results if r.faithful is not None and r.sections_read != 0]
    correct = [r.correct for r in results if r.correct is not None]
    to_shown = [r.faithful_to_shown for r in results if r.faithful_to_shown is not None]
    return Summary(
        n=len(results),
        recall=_mean([r.recall(k) for r in results]),
        mrr=_mean([reciprocal_rank_at_k(r.gold, r.retrieved, k) for r in results]),
        ndcg_given_hit=_mean([ndcg_at_k(r.gold, r.retrieved, k) for r in hits]) if hits else None,
        hit_rate=len(hits) / len(results) if results else 0.0,
        recall_equivalent=_mean([equivalent_recall_at_k(r.gold, r.equivalent, r.retrieved, k) for r in results]),
        errors=sum(r.error is not None for r in results),
        ms_per_query=_mean([r.ms for r in results]),
        faithfulness=_mean([float(f) for f in faith]) if faith else None,
        n_judged=len(faith),
        correctness=_mean([float(c) for c in correct]) if correct else None,
        faithfulness_to_shown=_mean([float(f) for f in to_shown]) if to_shown else None,
        unread_answers=sum(r.sections_read == 0 and r.answer is not None for r in results),
    )


def summarize_by_shape(results: Iterable[QuestionResult], k: int) -> dict[str, Summary]:
    groups: dict[str, list[QuestionResult]] = defaultdict(list)
    for result in results:
        groups[result.shape].append(result)
    return {shape: summarize(group, k) for shape, group in groups.items()}
