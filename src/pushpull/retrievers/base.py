"""What the push retrievers need from a chunk, and the shared top-k helper.

The harness's chunk type lives in ``pushpull.chunks``; retrievers accept any
object with ``id``, ``text`` and ``source`` so they stay usable on chunk lists
from other tools (ragbisect's, a test's) without conversion.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np


class ChunkLike(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def text(self) -> str: ...

    @property
    def source(self) -> str: ...


def top_k(scores: np.ndarray, k: int, *, positive_only: bool = False) -> np.ndarray:
    """Indices of the ``k`` highest scores, best first; ties keep corpus order.

    Stable tie order matters: the same query must give the same ranking on
    every run, or metrics wobble between identical configurations.
    """
    if k <= 0 or scores.size == 0:
        return np.empty(0, dtype=np.int64)
    candidates = np.flatnonzero(scores > 0) if positive_only else np.arange(scores.size)
    if candidates.size > k:
        # keep everything tied with the k-th score so the stable sort can break ties by index
        kth = np.partition(scores[candidates], candidates.size - k)[candidates.size - k]
        candidates = candidates[scores[candidates] >= kth]
    order = np.lexsort((candidates, -scores[candidates]))
    return candidates[order[:k]]


def family_name(retriever: object) -> str:
    """``dense (minilm)`` → ``dense``: how a retriever is named inside a combined config's name."""
    return str(getattr(retriever, "name", type(retriever).__name__)).split(" (")[0]
