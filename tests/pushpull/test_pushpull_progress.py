"""Progress when stderr is not a terminal: throttled plain lines, nothing on stdout."""

from __future__ import annotations

import io
import subprocess
import sys
import threading

import pytest

from pushpull.progress import LogProgress, progress_bars


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_lines_come_at_most_every_interval_with_name_count_and_elapsed() -> None:
    out, clock = io.StringIO(), Clock()
    progress = LogProgress(out, interval=10, clock=clock)
    bm25 = progress.add_task("bm25", total=8)
    for _ in range(5):
        clock.now += 1
        progress.advance(bm25)
    assert out.getvalue() == ""  # 5 s in: too soon for a line
    clock.now += 6
    progress.advance(bm25)
    assert out.getvalue() == "bm25: 6/8 (11s)\n"
    clock.now += 3
    progress.advance(bm25)
    assert out.getvalue().count("\n") == 1  # throttled
    clock.now += 120
    progress.advance(bm25)
    phrasing = progress.add_task("phrasing questions", total=None)
    progress.update(phrasing, advance=3)
    clock.now += 10
    progress.update(phrasing, completed=4)
    assert out.getvalue().splitlines()[1:] == ["bm25: 8/8 (2m14s)", "phrasing questions: 4 (10s)"]
    clock.now += 10
    progress.advance(phrasing)
    assert out.getvalue().splitlines()[3:] == ["phrasing questions: 5 (20s)"]  # a finished task is not repeated


def test_updates_from_many_threads_are_all_counted() -> None:
    out, clock = io.StringIO(), Clock()
    progress = LogProgress(out, interval=10, clock=clock)
    task = progress.add_task("dense", total=4000)

    def work() -> None:
        for _ in range(1000):
            progress.advance(task)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    clock.now += 10
    progress.update(task, advance=0)
    assert out.getvalue() == "dense: 4,000/4,000 (10s)\n"


def test_off_a_terminal_progress_goes_to_stderr_as_lines_and_stdout_stays_clean() -> None:
    script = (
        "import pushpull.progress as p\n"
        "p.LOG_INTERVAL = 0.0\n"
        "with p.progress_bars() as progress:\n"
        "    task = progress.add_task('rows', total=2)\n"
        "    progress.advance(task)\n"
        "    progress.advance(task)\n"
        "print('data')\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "data\n"
    assert done.stderr.splitlines() == ["rows: 1/2 (0s)", "rows: 2/2 (0s)"]


def test_progress_bars_picks_plain_lines_when_stderr_is_not_a_terminal() -> None:
    with progress_bars() as progress:  # pytest captures stderr, so it is not a terminal
        assert isinstance(progress, LogProgress)


def test_hidden_progress_accepts_updates_and_writes_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    with progress_bars(show=False) as progress:
        task = progress.add_task("embedding chunks", total=3)
        progress.advance(task, 3)
    assert capfd.readouterr() == ("", "")
