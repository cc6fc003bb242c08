"""A pull driver stops after three identical failures in a row: the fault is the set-up, not the questions.

A Claude Code that is not logged in failed 36 questions in a row at about 10 s
each with one and the same message. The base class now records the rest as
"not run" at once and says why; the bench prints that line under its table.
"""

from __future__ import annotations

from pathlib import Path

from contextpull.eval.bench import driver_lines
from contextpull.eval.pull_record import PullRun, PullRunFailed
from contextpull.eval.pull_retriever import STOP_AFTER, PullRetriever
from pushpull.pipeline import Rows, RunRow


class Driver(PullRetriever):
    """A driver whose agent fails the way a script says; it counts the runs it really started."""

    model = "driver-under-test"

    def __init__(self, outcomes: list[str | None], cache: Path) -> None:
        super().__init__(k=5, mode="read", cache_dir=cache, concurrency=1)
        self.outcomes = outcomes
        self.started = 0

    def run_key(self, question: str) -> str:
        return question

    def execute(self, question: str) -> PullRun:
        outcome = self.outcomes[self.started]
        self.started += 1
        if outcome is not None:
            raise PullRunFailed(outcome, "log in to Claude Code")
        return PullRun(question=question, model=self.model, answer="ok")


def test_three_identical_failures_stop_the_rest(tmp_path: Path) -> None:
    same = "Claude Code could not connect the contextpull MCP server (status 'failed')"
    driver = Driver([same] * 10, tmp_path)
    sibling = driver.counting("surfaced")
    runs = [driver.run(f"q{n}") for n in range(6)]
    assert driver.started == STOP_AFTER == 3
    assert [run.failure for run in runs[:3]] == [same] * 3
    assert all(
        run.failure and run.failure.startswith("not run: 3 runs in a row failed the same way") for run in runs[3:]
    )
    assert sibling.stopped == driver.stopped and sibling.stop_suggestion == "log in to Claude Code"
    rows = Rows([RunRow("pull, ids read", driver), RunRow("pull, ids surfaced", sibling)])
    assert driver_lines(rows) == [f"driver-under-test: stopped, {driver.stopped} — log in to Claude Code"]


def test_different_failures_or_a_success_between_them_do_not_stop(tmp_path: Path) -> None:
    driver = Driver(["timeout", "timeout", None, "timeout", "timeout", "other", "timeout"], tmp_path)
    for n in range(7):
        driver.run(f"q{n}")
    assert driver.started == 7 and driver.stopped is None
    assert driver_lines(Rows([RunRow("pull", driver)])) == []


def test_an_older_claude_code_gets_a_warning_line() -> None:
    from contextpull.eval.claudecode import TESTED_VERSION, older_warning

    assert older_warning("2.0.0").startswith(f"Claude Code 2.0.0 is older than {TESTED_VERSION}")
    assert older_warning(TESTED_VERSION) == "" and older_warning("9.0.0") == "" and older_warning("dev") == ""
