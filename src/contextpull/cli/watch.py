"""``--watch``: re-ingest a corpus folder when its files change (polled, debounced, incremental).

The watcher polls what discovery would ingest (each document's size and
modification time, and every ``.contextpullignore``) rather than using an
OS notification API: it needs no dependency, sees network and container
mounts alike, and at one stat per file a poll costs milliseconds for a corpus
of thousands of files. A change is acted on once the folder has been quiet
for ``quiet_s`` (an editor's save, a ``git checkout`` of many files: one
ingest). The ingest itself is incremental, so only changed files are read; a
server on the same store sees the new data on its next call, as it does
after any ingest.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import ContextPullError

if TYPE_CHECKING:
    from ..ingestion.run import IngestReport

#: seconds between two looks at the folder
DEFAULT_POLL_S = 1.0
#: the folder must stay unchanged this long before it is re-ingested
DEFAULT_QUIET_S = 0.5
IGNORE_FILE = ".contextpullignore"

Snapshot = dict[str, tuple[int, int]]


def snapshot(root: Path) -> Snapshot:
    """Size and modification time of every file discovery finds, and of every ignore file."""
    from ..ingestion.discover import discover

    found: Snapshot = {}
    try:
        files = discover(root).files
    except ContextPullError:
        return {}  # the folder is gone or unreadable for now: an empty corpus until it is back
    for file in files:
        try:
            stat = file.location.stat()
        except OSError:
            continue
        found[file.path] = (stat.st_size, stat.st_mtime_ns)
    for folder, _, names in os.walk(root):
        if IGNORE_FILE in names:
            path = Path(folder, IGNORE_FILE)
            try:
                stat = path.stat()
            except OSError:
                continue
            found[str(path.relative_to(root))] = (stat.st_size, stat.st_mtime_ns)
    return found


def watch(
    root: Path,
    on_change: Callable[[], None],
    *,
    poll_s: float = DEFAULT_POLL_S,
    quiet_s: float = DEFAULT_QUIET_S,
    stop: threading.Event | None = None,
    since: Snapshot | None = None,
) -> None:
    """Call ``on_change`` after each change under ``root`` once it has been quiet ``quiet_s``; until ``stop``.

    ``since`` is the folder as the last ingest started to read it (taken
    before that ingest), so a change made while it ran is not missed; each
    later ingest is compared with the snapshot taken before it, likewise.
    """
    stop = stop or threading.Event()
    last = snapshot(root) if since is None else since
    while not stop.wait(poll_s):
        now = snapshot(root)
        if now == last:
            continue
        while not stop.wait(quiet_s):
            settled = snapshot(root)
            if settled == now:
                break
            now = settled
        if stop.is_set():
            return
        on_change()
        last = now


@contextmanager
def stop_on_signals() -> Iterator[threading.Event]:
    """An event that Ctrl-C (SIGINT) or SIGTERM sets, so a watch ends between polls, exit status 0.

    Both are handled here rather than left to Python's default: a process
    started in the background by a shell ignores SIGINT, and a service
    manager stops with SIGTERM; either way the watch should end cleanly.
    An ingest under way when the signal comes finishes first (the store is
    never left half-written).
    """
    stop = threading.Event()

    def handler(signum: int, frame: object) -> None:
        stop.set()

    previous = {sig: signal.signal(sig, handler) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def changed_line(report: IngestReport) -> str:
    """What one re-ingest did, in one line."""
    return (
        f"{report.store}: added {report.added:,}, changed {report.changed:,}, deleted {report.deleted:,};"
        f" {report.documents:,} documents, {report.sections:,} sections ({report.elapsed_s:.2f}s)"
    )


def reingest_quietly(run: Callable[[], str]) -> Callable[[], None]:
    """``run`` (an ingest returning a one-line summary) as a change handler: its line, or its error, to stderr.

    An error (a file half-written, a store locked) is reported and the watch
    goes on: the next change tries again.
    """

    def handle() -> None:
        try:
            line = run()
        except ContextPullError as err:
            print(f"contextpull: watch: {err.message}; waiting for the next change", file=sys.stderr, flush=True)
            return
        print(f"contextpull: watch: {line}", file=sys.stderr, flush=True)

    return handle


def add_watch_option(parser: argparse.ArgumentParser, what: str) -> None:
    """``--watch`` and ``--watch-poll`` on ``parser``."""
    parser.add_argument(
        "--watch", action="store_true", help=f"keep running and re-ingest the folder when its files change ({what})"
    )
    parser.add_argument(
        "--watch-poll",
        type=float,
        default=DEFAULT_POLL_S,
        metavar="S",
        help=f"with --watch: seconds between looks at the folder (default {DEFAULT_POLL_S:g})",
    )
