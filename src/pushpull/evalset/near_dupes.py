"""Cross-document near-duplicate chunk pairs: the raw material of comparison questions.

Two versions of one policy, two variants of one page: high word overlap
(token Jaccard in a band, by default 0.5–0.9) and differing numbers. Such a
pair is where a comparison question ("what changed between …") needs both
chunks. Candidates come from an inverted index over the rarer tokens, so the
cost follows the number of genuinely overlapping pairs rather than n².
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..chunks import Chunk

_TOKEN = re.compile(r"\w+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
MIN_TOKENS = 12


@dataclass(frozen=True)
class NearDuplicate:
    a: Chunk
    b: Chunk
    jaccard: float


def _tokens(text: str) -> frozenset[str]:
    return frozenset(t.casefold() for t in _TOKEN.findall(text))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def near_duplicate_pairs(chunks: Sequence[Chunk], *, lo: float = 0.5, hi: float = 0.9) -> list[NearDuplicate]:
    """Pairs from different sources with Jaccard in [lo, hi] and different numbers, best first.

    Each chunk appears in at most one pair (its best), so questions do not
    pile onto one popular chunk.
    """
    tokens = {c.id: _tokens(c.text) for c in chunks}
    df: dict[str, int] = defaultdict(int)
    for toks in tokens.values():
        for tok in toks:
            df[tok] += 1
    cap = max(20, len(chunks) // 20)
    postings: dict[str, list[int]] = defaultdict(list)
    for i, chunk in enumerate(chunks):
        if len(tokens[chunk.id]) >= MIN_TOKENS:
            for tok in tokens[chunk.id]:
                if 2 <= df[tok] <= cap:
                    postings[tok].append(i)
    candidates: set[tuple[int, int]] = set()
    for ids in postings.values():
        for x, i in enumerate(ids):
            for j in ids[x + 1 :]:
                if chunks[i].source != chunks[j].source:
                    candidates.add((i, j))
    scored: list[NearDuplicate] = []
    for i, j in sorted(candidates):
        a, b = chunks[i], chunks[j]
        score = jaccard(tokens[a.id], tokens[b.id])
        if lo <= score <= hi and set(_NUMBER.findall(a.text)) != set(_NUMBER.findall(b.text)):
            scored.append(NearDuplicate(a, b, score))
    scored.sort(key=lambda p: (-p.jaccard, p.a.id, p.b.id))
    used: set[str] = set()
    pairs: list[NearDuplicate] = []
    for pair in scored:
        if pair.a.id not in used and pair.b.id not in used:
            used.update((pair.a.id, pair.b.id))
            pairs.append(pair)
    return pairs
