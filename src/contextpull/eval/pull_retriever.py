"""The adapter side shared by every pull driver: one run per question, counted three ways.

A driver (the API tool loop, Claude Code) only says how to run one question
and what identifies that run; this base gives it the harness protocol
(``retrieve``, ``generate``, ``evidence``, ``stats``, ``concurrency``), the
on-disk replay and the in-memory memo that lets two rows (ids read, ids
surfaced) share one run per question.
"""

from __future__ import annotations

import copy
import threading
from typing import Any

from .pull_record import COUNT_MODES, CountMode, PullRun, PullRunFailed, RunCache, summarise


class _Runs:
    """Recorded runs by question, shared by sibling retrievers; thread-safe.

    A per-question lock makes concurrent askers of the same question wait for
    one run instead of paying for two.
    """

    def __init__(self) -> None:
        self.done: dict[str, PullRun] = {}
        #: question → the key its run is recorded under (results.json keeps them for a replay)
        self.keys: dict[str, str] = {}
        self._guard = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}

    def lock_for(self, question: str) -> threading.Lock:
        with self._guard:
            return self._locks.setdefault(question, threading.Lock())

    def remember(self, question: str, key: str, run: PullRun) -> None:
        with self._guard:
            self.done[question] = run
            self.keys[question] = key

    def snapshot(self) -> tuple[list[PullRun], dict[str, str]]:
        with self._guard:
            return list(self.done.values()), dict(self.keys)


#: identical failures in a row after which a driver stops running questions: the fault is the set-up's
STOP_AFTER = 3


class _Stop:
    """The failures in a row a driver and its siblings have seen, and whether they stopped it."""

    def __init__(self) -> None:
        self.reason: str | None = None
        self.suggestion = ""
        self._failures: list[str] = []
        self._lock = threading.Lock()

    def note(self, failure: str | None, suggestion: str) -> None:
        with self._lock:
            if failure is None:
                self._failures.clear()
                return
            self._failures.append(failure)
            recent = self._failures[-STOP_AFTER:]
            if self.reason is None and len(recent) == STOP_AFTER and len(set(recent)) == 1:
                self.reason = f"{STOP_AFTER} runs in a row failed the same way ({failure})"
                self.suggestion = suggestion


class PullRetriever:
    """Base of the pull adapters; subclasses implement :meth:`run_key` and :meth:`execute`.

    ``mode`` picks how a run is counted (docs/adr/008-pull-rows.md). Each
    question is run once per retriever and its siblings (:meth:`counting`),
    failures included: a run that raised :class:`PullRunFailed` is recorded
    with its message, so the ids-read and ids-surfaced rows always score the
    same run. A recorded failure on disk is retried by a later live run (it
    said nothing about the agent) and replayed as it is under ``replay``.
    After :data:`STOP_AFTER` runs in a row fail with the same message (the
    agent is not logged in, the server will not connect), the rest are not
    run: each records ``not run: …`` at once, and :attr:`stopped` says why.
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
        #: answer only from recorded runs; a question with none is noted in ``unrecorded``
        self.replay = False
        #: question → recorded run key, from the replayed results.json (a stale replay cannot recompute them)
        self.recorded_keys: dict[str, str] = {}
        self.unrecorded: list[str] = []
        self._runs = _Runs()
        self._stop = _Stop()

    # --- what a driver provides ------------------------------------------------
    def run_key(self, question: str) -> str:
        """The cache key of ``question``'s run under this driver's settings."""
        raise NotImplementedError

    def execute(self, question: str) -> PullRun:
        """Run the agent on ``question``; raise :class:`PullRunFailed` when it cannot finish."""
        raise NotImplementedError

    # --- the harness protocol ---------------------------------------------------
    def run(self, question: str) -> PullRun:
        """The run for ``question``: memoised, else recorded on disk, else executed and recorded."""
        with self._runs.lock_for(question):
            found = self._runs.done.get(question)
            if found is not None:
                return found
            key = self.recorded_keys.get(question) or self.run_key(question)
            found = self.cache.get(key)
            if found is None and self.replay:
                self.unrecorded.append(question)
                found = PullRun(question=question, model=self.model, failure="replay: no recorded run")
            elif found is None or (found.failure and not self.replay):
                found = self._execute(question)
                self.cache.put(key, found)
            self._runs.remember(question, key, found)
            return found

    def _execute(self, question: str) -> PullRun:
        stopped = self.stopped
        if stopped is not None:
            return PullRun(question=question, model=self.model, failure=f"not run: {stopped}")
        try:
            run = self.execute(question)
        except PullRunFailed as err:
            failure, suggestion = err.message, err.suggestion
        except Exception as err:  # noqa: BLE001 - whatever broke the run, both rows must see the same failure
            failure, suggestion = f"{type(err).__name__}: {err}", ""
        else:
            self._stop.note(None, "")
            return run
        self._stop.note(failure, suggestion)
        return PullRun(question=question, model=self.model, failure=failure, failure_suggestion=suggestion)

    @property
    def stopped(self) -> str | None:
        """Why the remaining questions are not run (:data:`STOP_AFTER` identical failures in a row), or None."""
        return self._stop.reason

    @property
    def stop_suggestion(self) -> str:
        return self._stop.suggestion

    def _finished(self, query: str) -> PullRun:
        """The run for ``query``; raises PullRunFailed when the rows must score it as an error."""
        run = self.run(query)
        if run.error is not None:
            raise PullRunFailed(run.error, run.failure_suggestion if run.failure else "")
        return run

    def retrieve(self, query: str, k: int) -> list[str]:
        return self._finished(query).ranked(self.mode, k)

    def agent_ms(self, query: str) -> float | None:
        """How long the agent took on ``query`` when its run was made; None before a run, or for a run
        that failed before timing itself. A run answered from the cache keeps its own time, so a
        row's ms/query is the agent's, never the cache's, and sibling rows of one run agree."""
        run = self._runs.done.get(query)
        return run.wall_s * 1000 if run is not None and run.wall_s > 0 else None

    def generate(self, query: str, ids: list[str] | None = None) -> str:
        """The agent's own final answer; ``ids`` is ignored, since the agent chose what to read."""
        return self._finished(query).answer

    def evidence(self, query: str) -> dict[str, list[str]]:
        """What the agent was shown: the sections it read, and the snippets it only glimpsed."""
        run = self._finished(query)
        return {
            "read": [f"[{sid}]\n{text}" for sid, text in run.read_sections],
            "snippets": [f"[{sid}] {text}" for sid, text in run.snippets],
        }

    def stats(self) -> dict[str, Any]:
        """Spend and tool use over the runs so far (answers are judged by the harness, from ``evidence``)."""
        runs, keys = self._runs.snapshot()
        return {**summarise(runs, model=self.model), "mode": self.mode, "run_keys": keys}

    def counting(self, mode: CountMode) -> PullRetriever:
        """A sibling adapter that counts the same runs under another mode (no extra model calls).

        Only ``read`` and ``surfaced`` may share runs: ``strict`` changes the
        prompt, so it is a run of its own. The sibling shares every attribute
        (the memo of runs above all); only ``mode`` differs.
        """
        if {mode, self.mode} & {"strict"} and mode != self.mode:
            raise ValueError("strict reads come from their own runs; build a separate strict retriever")
        sibling = copy.copy(self)
        sibling.mode = mode
        return sibling
