"""Token and dollar accounting for every model call a run makes.

A run prints one "spend" line from its ledger at the end, so the ledger keeps
what was actually billed apart from what the disk cache answered: a cached
answer costs nothing now, but its tokens say how much work it stands for.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass
from typing import Any

from .base import Usage


@dataclass
class _Tally:
    calls: int = 0
    cached_calls: int = 0
    failures: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cached_tokens_in: int = 0
    cached_tokens_out: int = 0
    usd: float = 0.0
    cached_usd: float = 0.0
    unpriced_calls: int = 0


class Ledger:
    """Thread-safe counters of calls, tokens and dollars, per ``provider:model`` spec.

    ``record`` is called by the model layer once per answered call; a cached
    answer is counted as a hit with its original tokens and no spend.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_spec: dict[str, _Tally] = {}

    def record(self, spec: str, usage: Usage, *, cached: bool) -> None:
        with self._lock:
            tally = self._by_spec.setdefault(spec, _Tally())
            if cached:
                tally.cached_calls += 1
                tally.cached_tokens_in += usage.tokens_in
                tally.cached_tokens_out += usage.tokens_out
                tally.cached_usd += usage.usd or 0.0
                return
            tally.calls += 1
            tally.tokens_in += usage.tokens_in
            tally.tokens_out += usage.tokens_out
            if usage.usd is None:
                tally.unpriced_calls += 1
            else:
                tally.usd += usage.usd

    def record_failure(self, spec: str) -> None:
        with self._lock:
            self._by_spec.setdefault(spec, _Tally()).failures += 1

    def total(self) -> dict[str, Any]:
        """All specs summed: the same keys as one spec in ``to_dict``."""
        with self._lock:
            tallies = list(self._by_spec.values())
        summed = _Tally()
        for tally in tallies:
            for name, value in asdict(tally).items():
                setattr(summed, name, getattr(summed, name) + value)
        return asdict(summed)

    def to_dict(self) -> dict[str, Any]:
        """``{"total": {...}, "by_spec": {spec: {...}}}`` with plain numbers, for JSON reports."""
        with self._lock:
            by_spec = {spec: asdict(tally) for spec, tally in sorted(self._by_spec.items())}
        return {"total": self.total(), "by_spec": by_spec}

    def summary(self) -> str:
        """One line for the end of a run, e.g. ``spend: 12 calls, 3 cached, ... $0.0421``."""
        total = self.total()
        if not total["calls"] and not total["cached_calls"] and not total["failures"]:
            return "spend: no model calls"
        parts = [
            f"{total['calls']} calls",
            f"{total['cached_calls']} cached",
            f"{total['tokens_in']:,} tokens in",
            f"{total['tokens_out']:,} out",
            f"${total['usd']:.4f}",
        ]
        if total["failures"]:
            parts.insert(2, f"{total['failures']} failed")
        line = "spend: " + ", ".join(parts)
        unpriced = [spec for spec, tally in self.to_dict()["by_spec"].items() if tally["unpriced_calls"]]
        if unpriced:
            line += f" (price unknown for {', '.join(unpriced)})"
        if total["cached_calls"]:
            line += f"; cache saved ${total['cached_usd']:.4f}"
        return line


_default_ledger = Ledger()


def default_ledger() -> Ledger:
    """The process-wide ledger used when a caller does not pass one."""
    return _default_ledger
