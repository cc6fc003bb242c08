"""The adapter side shared by every pull driver: one run per question, counted three ways.

A driver (the API tool loop, Claude Code) only says how to run one question
and what identifies that run; this base gives it the harness protocol
(``retrieve``, ``generate``, ``evidence``, ``stats``, ``concurrency``), the
on-disk replay and the in-memory memo that lets two rows (ids read, ids
surfaced) share one run per question.
"""

from __future__ import annotations

import threading
from typing import Any

from pushpull.judge import judge_faithfulness
from pushpull.models import ModelError

from .pull_record import COUNT_MODES, CountMode, PullRun, RunCache, summarise


class _Runs:
    """Finished runs by question, shared by sibling retrievers; thread-safe.

    A per-question lock makes concurrent askers of the same question wait for
    one run instead of paying for two.
    """

    def __init__(self) -> None:
        self.done: dict[str, PullRun] = {}
        self.failed = 0
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def lock_for(self, question: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(question, threading.Lock())

    def count_failure(self) -> None:
        with self._guard:
            self.failed += 1

    def remember(self, question: str, run: PullRun) -> None:
        with self._guard:
            self.done[question] = run

    def snapshot(self) -> tuple[list[PullRun], int]:
        with self._guard:
            return list(self.done.values()), self.failed


class PullRetriever:
    """Base of the pull adapters; subclasses implement :meth:`run_key` and :meth:`execute`.

    ``mode`` picks how a run is counted (docs/adr/008-pull-rows.md). A run that
    raises is never cached or memoised, so asking again runs it again.
    """

    #: the model or agent named in the row and in ``stats()["model"]``
    model: str

    def __init__(self, *, k: int, mode: CountMode, cache_dir: Any, concurrency: int) -> None:
        if mode not in COUNT_MODES:
            raise ValueError(f"mode must be one of {', '.join(COUNT_MODES)}; got {mode!r}")
        self.k = k
        self.mode = mode
        self.concurrency = max(1, int(concurrency))
        self.cache = RunCache(cache_dir)
        #: a model provider that, when set, judges answers against the evidence in ``stats()``
        self.judge: Any | None = None
        self._runs = _Runs()

    # --- what a driver provides ------------------------------------------------
    def run_key(self, question: str) -> str:
        """The cache key of ``question``'s run under this driver's settings."""
        raise NotImplementedError

    def execute(self, question: str) -> PullRun:
        """Run the agent on ``question``; raise :class:`PullRunFailed` when it cannot finish."""
        raise NotImplementedError

    # --- the harness protocol ---------------------------------------------------
    def run(self, question: str) -> PullRun:
        """The run for ``question``: memoised, else replayed from disk, else executed and stored."""
        with self._runs.lock_for(question):
            found = self._runs.done.get(question)
            if found is not None:
                return found
            key = self.run_key(question)
            found = self.cache.get(key)
            if found is None:
                try:
                    found = self.execute(question)
                except Exception:
                    self._runs.count_failure()
                    raise
                self.cache.put(key, found)
            self._runs.remember(question, found)
            return found

    def retrieve(self, query: str, k: int) -> list[str]:
        return self.run(query).ranked(self.mode, k)

    def generate(self, query: str, ids: list[str] | None = None) -> str:
        """The agent's own final answer; ``ids`` is ignored, since the agent chose what to read."""
        return self.run(query).answer

    def evidence(self, query: str) -> dict[str, list[str]]:
        """What the agent was shown: the sections it read, and the snippets it only glimpsed."""
        run = self.run(query)
        return {
            "read": [f"[{sid}]\n{text}" for sid, text in run.read_sections],
            "snippets": [f"[{sid}] {text}" for sid, text in run.snippets],
        }

    def stats(self) -> dict[str, Any]:
        """Spend and tool use over the runs so far; with a ``judge``, the two faithfulness rates too."""
        runs, failed = self._runs.snapshot()
        stats = {**summarise(runs, model=self.model, failed=failed), "mode": self.mode}
        if self.judge is not None:
            stats.update(judge_runs(self.judge, runs))
        return stats

    def counting(self, mode: CountMode) -> PullRetriever:
        """A sibling adapter that counts the same runs under another mode (no extra model calls).

        Only ``read`` and ``surfaced`` may share runs: ``strict`` changes the
        prompt, so it is a run of its own.
        """
        if {mode, self.mode} & {"strict"} and mode != self.mode:
            raise ValueError("strict reads come from their own runs; build a separate strict retriever")
        sibling = object.__new__(type(self))
        sibling.__dict__.update(self.__dict__)
        sibling.mode = mode
        return sibling


def judge_runs(judge: Any, runs: list[PullRun]) -> dict[str, Any]:
    """Faithfulness of the agent's answers, judged two ways (docs/adr/008-pull-rows.md).

    ``faithful_to_reads``: every claim is supported by the sections the agent
    read. ``faithful_to_shown``: the same, but a run that read nothing is
    judged against the snippets it was shown instead, so an answer built from
    snippets alone is told apart from one that is invented. Runs that hit
    ``max_turns`` have no answer and are not judged; a judge failure leaves
    that run unjudged.
    """
    to_reads = to_shown = judged = 0
    for run in runs:
        if run.max_turns_hit:
            continue
        try:
            on_reads = judge_faithfulness(judge, run.question, run.read_sections, run.answer)
            on_shown = on_reads if run.read_sections else judge_faithfulness(
                judge, run.question, run.snippets, run.answer)
        except ModelError:
            continue
        judged += 1
        to_reads += on_reads
        to_shown += on_shown

    def rate(count: int) -> float | None:
        return round(count / judged, 3) if judged else None

    return {"judged": judged, "faithful_to_reads": rate(to_reads), "faithful_to_shown": rate(to_shown)}
