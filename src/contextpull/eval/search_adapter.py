"""ContextPull's own ``search`` as a one-shot push adapter.

One call, top ``k`` pointers, no model: the floor a pull loop starts from.
The constructor takes no required argument, so the same class loads under
pushpull and under ragbisect (``contextpull.eval.search_adapter:ContextPullSearch``),
opening ``$CONTEXTPULL_STORE`` or ``./.contextpull/store.sqlite``.
"""

from __future__ import annotations

from pathlib import Path

from ..ops.operations import Ops
from ..paths import store_path


class ContextPullSearch:
    """``retrieve(query, k)`` = the ids of ``search(query, limit=k, mode=mode)``, best first.

    ``concurrency`` stays 1: one store connection serves the whole row.
    A query search rejects (no words in it) raises, and the harness scores
    that question as a counted miss.
    """

    name = "contextpull search"
    concurrency = 1

    def __init__(self, store: str | Path | None = None, mode: str = "auto", name: str | None = None) -> None:
        self._ops = Ops.open(store_path(store), snippet=0)
        self._mode = mode
        if name is not None:
            self.name = name

    def retrieve(self, query: str, k: int) -> list[str]:
        return [hit.id for hit in self._ops.search(query, limit=k, snippet=0, mode=self._mode).hits]

    def close(self) -> None:
        self._ops.close()
