"""Cross-document near-duplicate chunk pairs: the raw material of comparison questions.

Two versions of one policy, two variants of one page: high word overlap
(token Jaccard of at least 0.5) and some tokens present on one side only.
Such a pair is where a comparison question ("what changed between …") needs
both chunks. Pairs whose differences include numbers (days, prices,
versions) come first: they make the sharpest questions. Candidates come from an inverted index over the rarer tokens, so the
cost follows the number of genuinely overlapping pairs rather than n².
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from ..chunks import Chunk

_TOKEN = re.compile(r"\w+")
_DIFF_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]\w*")
MIN_TOKENS = 12


@dataclass(frozen=True)
class NearDuplicate:
    a: Chunk
    b: Chunk
    jaccard: float


def _tokens(text: str) -> frozenset[str]:
    return frozenset(t.casefold() for t in _TOKEN.findall(text))


def only_in(text: str, other: str) -> list[str]:
    """Tokens (numbers with their decimals, words) of ``text`` absent from ``other``, in order, distinct."""
    theirs = {t.casefold() for t in _DIFF_TOKEN.findall(other)}
    return list(dict.fromkeys(t for t in _DIFF_TOKEN.findall(text) if t.casefold() not in theirs))


def is_number(token: str) -> bool:
    return token[:1].isdigit()


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    union = len(a | b)
    return len(a & b) / union if union else 0.0


def near_duplicate_pairs(chunks: Sequence[Chunk], *, lo: float = 0.5, hi: float = 1.0) -> list[NearDuplicate]:
    """Pairs from different sources with Jaccard in [lo, hi] and some differing token, best first.

    Best is: numbers differ, then higher overlap.

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
    scored: list[tuple[bool, NearDuplicate]] = []
    for i, j in sorted(candidates):
        a, b = chunks[i], chunks[j]
        score = jaccard(tokens[a.id], tokens[b.id])
        if not lo <= score <= hi:
            continue
        differing = only_in(a.text, b.text) + only_in(b.text, a.text)
        if differing:
            scored.append((any(map(is_number, differing)), NearDuplicate(a, b, score)))
    scored.sort(key=lambda s: (not s[0], -s[1].jaccard, s[1].a.id, s[1].b.id))
    used: set[str] = set()
    pairs: list[NearDuplicate] = []
    for _, pair in scored:
        if pair.a.id not in used and pair.b.id not in used:
            used.update((pair.a.id, pair.b.id))
            pairs.append(pair)
    return pairs
