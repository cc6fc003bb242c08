"""The adapter protocol shared with ragbisect.

Only ``retrieve`` is required. ``generate`` lets the harness judge answers,
``evidence`` says what an answer may rest on (``{"read": [texts], "snippets":
[texts]}``: the passages the adapter read, and those it only glimpsed), so an
agent is judged on what it read rather than on the ids it returned; ``stats``
reports what the adapter spent, and ``concurrency`` says how many questions
the runner may send at once (default 1).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class Retriever(Protocol):
    def retrieve(self, query: str, k: int) -> list[str]:
        """Chunk ids, best first, at most ``k``."""
        ...


def adapter_stats(adapter: object) -> dict[str, Any]:
    """``adapter.stats()`` when it has one: tokens_in, tokens_out, tool_calls, queries, usd, …"""
    stats = getattr(adapter, "stats", None)
    return dict(stats()) if callable(stats) else {}


def adapter_concurrency(adapter: object) -> int:
    return max(1, int(getattr(adapter, "concurrency", 1) or 1))


def adapter_evidence(adapter: object, query: str) -> tuple[list[str], list[str]] | None:
    """``(read, snippets)`` from ``adapter.evidence(query)``, or None when it has no ``evidence``."""
    evidence = getattr(adapter, "evidence", None)
    if not callable(evidence):
        return None
    shown = evidence(query)
    return [str(text) for text in shown.get("read", [])], [str(text) for text in shown.get("snippets", [])]
