"""Re-executing a recorded run: today's code, the model's recorded answers, the model only for what is new.

A replay (:mod:`.replay`) re-scores the pull runs a run recorded, so it must
refuse once the code behind them changed. Re-making the run instead costs the
model's time again, hours on a laptop, even when the change cannot alter
what the model was asked (a faster parser for a format the corpus lacks, a
refactor). A re-execution sits between the two: every row is computed again
by the code running now (push rows, search, every tool call of every pull
run, the prompts), and each model call is answered with the answer the run
recorded for that exact request (the model layer's cache key: provider
identity, system prompt, messages, tools, schema, sampling). A request the
recording lacks means today's code asks the model something new; that
question is then run again, in full and timed, by the model itself when it
is installed here and is the recorded one (same identity), else it is
recorded as not reproduced. So every figure is today's code's, and a
question's model answers are either all recorded or all new.

Timings cannot be re-executed: ms/query stays the recorded one, except for
the questions run again, which are measured. The table's notes say how many
runs were reproduced and how many run again, and a replay of the re-executed
folder repeats those lines (docs/adr/023-re-executing-recorded-runs.md).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pushpull.models import Provider
from pushpull.models.recorded import NotRecorded, RecordedFirst

from .pull_record import PullRun, PullRunFailed, RunCache
from .replay import PULL_RUNS, REEXECUTED_KEY, Replay

#: how the failure of a pull run the re-execution could not reproduce begins
NOT_REPRODUCED = "not reproduced:"


@dataclass
class QuestionRerun:
    """How a re-executed pull driver runs one question: from the recorded answers, else again by the model.

    ``recorded_wall`` gives a question's recorded run time (seconds), which a
    reproduced run keeps: its model calls took that long when they were made.
    """

    recorded: Provider
    live: Provider | None
    why_not_live: str
    recorded_wall: Callable[[str], float | None]
    reproduced: set[str] = field(default_factory=set)
    run_again: set[str] = field(default_factory=set)
    not_reproduced: set[str] = field(default_factory=set)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def execute(self, question: str, loop: Callable[[str, Provider], PullRun]) -> PullRun:
        """``loop(question, provider)`` on the recorded answers; again on the live model if they do not suffice."""
        try:
            run = loop(question, self.recorded)
        except PullRunFailed as err:
            if not isinstance(err.__cause__, NotRecorded):
                raise
            if self.live is None:
                with self._lock:
                    self.not_reproduced.add(question)
                raise PullRunFailed(
                    f"{NOT_REPRODUCED} today's code asks the model something the recorded run never did"
                    f" ({self.why_not_live})",
                    "install the recorded model so the question can run again, or re-make the run",
                ) from err
            with self._lock:
                self.run_again.add(question)
            return loop(question, self.live)
        with self._lock:
            self.reproduced.add(question)
        recorded = self.recorded_wall(question)
        run.wall_s = recorded if recorded is not None else run.wall_s
        return run


def rerun_for(provider: Provider, replay: Replay, row: str) -> QuestionRerun:
    """The re-execution of the pull row named ``row``, from the :class:`RecordedFirst` a replay gave it."""
    if not isinstance(provider, RecordedFirst):
        raise TypeError("a re-executed pull row needs the replay's RecordedFirst provider")
    return QuestionRerun(provider.recorded, provider.live, provider.why_not_live, recorded_walls(replay, row))


def recorded_walls(replay: Replay, row: str) -> Callable[[str], float | None]:
    """question → the wall time of its run in the replayed folder, for the pull row named ``row``."""
    runs = RunCache(replay.run_dir / PULL_RUNS)
    keys = replay.run_keys(row)

    def wall(question: str) -> float | None:
        key = keys.get(question)
        found = runs.get(key) if key else None
        return found.wall_s if found is not None and found.wall_s > 0 else None

    return wall


def made_at(recorded: dict[str, Any]) -> str:
    """The commit whose run first recorded the model answers (carried over re-executions)."""
    earlier = recorded.get(REEXECUTED_KEY) or {}
    return str(earlier.get("made_at") or (recorded.get("provenance") or {}).get("commit") or "unknown")


def summary_lines(replay: Replay, reruns: list[QuestionRerun]) -> list[str]:
    """The table's note on a re-execution: where the answers came from, and what ran again."""
    reproduced = sum(len(rerun.reproduced) for rerun in reruns)
    again = sum(len(rerun.run_again) for rerun in reruns)
    commit = made_at(replay.recorded)[:12]
    return [
        f"re-executed by this code from a run made at {commit}: every row computed again;",
        f"  {reproduced} pull runs reproduced from the model answers recorded then, {again} run again by the model",
        "  (ms/query as recorded, except for the runs made again)",
    ]
