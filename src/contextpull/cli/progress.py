"""Progress for CLI commands that ingest: a rich bar on stderr, never on stdout.

Shared by ``contextpull ingest`` and ``contextpull serve`` (which ingests a
folder before serving it). The bar appears only on a terminal and only once the
work is large enough to be worth watching; otherwise the callback does nothing,
so stderr of a piped or served process stays quiet.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..ingestion.run import Progress

#: below this many files to parse no progress bar is shown
MIN_FILES = 200


@contextmanager
def progress_bar(label: str = "ingesting", *, min_total: int = MIN_FILES) -> Iterator[Progress]:
    """Yield a ``progress(done, total)`` callback that drives a transient bar named ``label``.

    The bar is created on the first call whose ``total`` is at least ``min_total``
    and cleared when the block ends.
    """
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import Progress as Bar

    with Bar(console=Console(stderr=True), transient=True) as bar:
        task = None

        def update(done: int, total: int) -> None:
            nonlocal task
            if total < min_total:
                return
            if task is None:
                task = bar.add_task(label, total=total)
            bar.update(task, completed=done)

        yield update
