"""Progress on stderr for long runs: rich bars on a terminal, plain log lines elsewhere.

A scoring run can take an hour with a local model. On a terminal the rich bars
show it live and vanish when done; in a CI log or under ``nohup`` a bar cannot
redraw, so ``LogProgress`` writes a plain line per running task (name,
done/total, elapsed) at most every ``interval`` seconds instead. Either way
stdout is untouched, so it keeps only data.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

#: seconds between two batches of plain progress lines
LOG_INTERVAL = 10.0


@dataclass
class _Task:
    description: str
    total: float | None
    started: float
    completed: float = 0.0
    reported: float | None = None

    def due(self) -> bool:
        """Worth a line: still running, or finished since its last line."""
        running = self.total is None or self.completed < self.total
        return running or self.completed != self.reported


def _elapsed(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


class LogProgress:
    """The slice of ``rich.progress.Progress`` the harness uses, written as throttled plain lines.

    Thread-safe (the runner advances from worker threads). Lines are written
    only from an update and at most once per ``interval`` seconds, so a short
    run stays silent; each batch has one line per task still running, plus a
    last line for a task that finished since the previous batch.
    """

    def __init__(
        self, stream: TextIO, *, interval: float = LOG_INTERVAL, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._stream = stream
        self._interval = interval
        self._clock = clock
        self._lock = threading.Lock()
        self._tasks: dict[TaskID, _Task] = {}
        self._last_batch = clock()

    def add_task(self, description: str, total: float | None = None, **fields: Any) -> TaskID:
        with self._lock:
            task_id = TaskID(len(self._tasks))
            self._tasks[task_id] = _Task(description, total, self._clock())
            return task_id

    def advance(self, task_id: TaskID, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def update(
        self,
        task_id: TaskID,
        *,
        completed: float | None = None,
        total: float | None = None,
        advance: float | None = None,
        description: str | None = None,
        **fields: Any,
    ) -> None:
        with self._lock:
            task = self._tasks[task_id]
            if completed is not None:
                task.completed = completed
            if advance is not None:
                task.completed += advance
            if total is not None:
                task.total = total
            if description is not None:
                task.description = description
            self._maybe_report()

    def _maybe_report(self) -> None:
        now = self._clock()
        if now - self._last_batch < self._interval:
            return
        self._last_batch = now
        for task in self._tasks.values():
            if task.due():
                task.reported = task.completed
                self._stream.write(f"{self._line(task, now)}\n")
        self._stream.flush()

    @staticmethod
    def _line(task: _Task, now: float) -> str:
        done = f"{task.completed:,.0f}" + (f"/{task.total:,.0f}" if task.total is not None else "")
        return f"{task.description}: {done} ({_elapsed(now - task.started)})"


@contextmanager
def progress_bars(*, show: bool = True) -> Iterator[Progress | LogProgress]:
    """Progress on stderr: rich bars on a terminal (cleared when done), else ``LogProgress`` lines.

    With ``show=False`` (work too small to report) the progress object accepts updates and writes nothing.
    """
    console = Console(stderr=True)
    if show and not console.is_terminal:
        yield LogProgress(sys.stderr, interval=LOG_INTERVAL)
        return
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console, transient=True, disable=not show) as progress:
        yield progress
