"""One file's bytes to what the store writes: decode, section, analyse terms.

This is the CPU-heavy part of an ingest (Markdown parsing and term analysis
take about three quarters of it), so a large job runs it in worker processes
while the main process writes to SQLite. Results come back in input order
whatever the number of workers, so an ingest is deterministic, and at most a
bounded number of files is in flight, so memory stays flat on large corpora.
Workers are forked from a clean ``forkserver`` process, never from the
caller, which may have threads (a progress bar, a server).
"""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections import deque
from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..analysis.section_terms import SearchFields, document_fields
from ..parse import formats
from ..parse.rendering import Unparseable, parser_failed
from ..records import ParsedDocument
from ..settings import SectionSettings
from .discover import FoundFile
from .limits import FileSkipped, check_lines, check_sections, deadline, read_file

if TYPE_CHECKING:
    from concurrent.futures import Future

    from .isolate import Isolated

EMPTY = "no content (empty or whitespace only)"

#: below this many bytes to parse, worker start-up (about 85 ms on two idle cores) costs more than it
#: saves: at 0.5 MiB two workers broke even, at 1.2 and 2 MiB they took about 18 % off the wall time
#: (docs/adr/002-store-format.md, "Small corpora from the CLI")
PARALLEL_MIN_BYTES = 1 << 20
#: files handed to a worker at once: one file per task made a 100k ingest about a third slower
#: (a round trip per file); 8 keeps the IPC cost small and a worker's results to a few files
_FILES_PER_TASK = 8
#: tasks queued per worker beyond the one it works on: enough to hide the round trip, few enough to bound memory
_TASKS_IN_FLIGHT_PER_WORKER = 3
_WATCH_INTERVAL_S = 1.0


@dataclass(frozen=True)
class Analysed:
    """A file ready to store (``document`` set) or to record as skipped (``reason`` set).

    A ``deferred`` file was not read at all (the ingest's time budget ran
    out): the store keeps what it had for it, and the next ingest reads it.
    """

    path: str
    content_hash: str  # sha256 hex of the bytes read; "" when they could not be read
    size: int
    document: ParsedDocument | None = None
    fts: tuple[SearchFields, ...] = ()
    reason: str = ""
    deferred: bool = False


@dataclass(frozen=True)
class TimeBudget:
    """The ingest-wide time budget: a file not started by ``ends`` (``time.monotonic()``) is deferred.

    Per-file limits bound one file; this bounds N files that each run into
    theirs. A file already started may finish, so an ingest ends within
    ``seconds`` plus one file's ``time_s``.
    """

    seconds: float
    ends: float

    @classmethod
    def from_now(cls, seconds: float) -> TimeBudget:
        return cls(seconds, time.monotonic() + seconds)

    def spent(self) -> bool:
        return time.monotonic() > self.ends

    def defer(self, found: FoundFile) -> Analysed:
        reason = f"not read: the ingest's {self.seconds:g} s ran out (max_seconds); the next ingest reads it"
        return Analysed(found.path, "", 0, reason=reason, deferred=True)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def analyse_file(found: FoundFile, settings: SectionSettings) -> Analysed:
    """Read, decode, section and analyse ``found``; never raises for bad content.

    A file over one of ``settings.limits`` is skipped with a reason naming the limit.
    """
    limits = settings.limits
    try:
        data = read_file(found.location, limits)
    except FileSkipped as err:
        return Analysed(found.path, "", 0, reason=err.reason)
    digest = sha256(data)
    if not data.strip():
        return Analysed(found.path, digest, len(data), reason=EMPTY)
    missing = formats.missing_extra(found.format)
    if missing:
        return Analysed(found.path, digest, len(data), reason=missing)
    try:
        doc = _parse(found, data, settings)
        if not doc.text.strip() or not doc.sections:
            return Analysed(found.path, digest, len(data), reason=EMPTY)
        check_lines(doc.text, limits)
        check_sections(len(doc.sections), limits)
    except (Unparseable, FileSkipped) as err:
        return Analysed(found.path, digest, len(data), reason=err.reason)
    except Exception as err:  # noqa: BLE001 - a parser bug must cost its file, never the ingest
        return Analysed(found.path, digest, len(data), reason=parser_failed(err))
    fts = document_fields(doc)
    # The whole text is not stored (sections hold it); do not ship it back.
    return Analysed(found.path, digest, len(data), replace(doc, text=""), fts)


_isolated: Isolated | None = None


def _parse(found: FoundFile, data: bytes, settings: SectionSettings) -> ParsedDocument:
    """Section one file under the per-file time limit.

    Third-party parsers run in this process's child, which the child's own
    timer stops (a signal cannot interrupt their C code); everything else runs
    here under :func:`deadline`.
    """
    global _isolated
    limits = settings.limits
    if not formats.spec(found.format).isolated:
        with deadline(limits):
            return formats.parse_bytes(found.path, data, settings, found.format)
    if _isolated is None or (_isolated.time_limit, _isolated.memory_limit) != (limits.time_s, limits.max_memory):
        from .isolate import Isolated  # here: only PDF and Office files need it (subprocess, pickle)

        close_isolated()
        _isolated = Isolated(time_limit=limits.time_s, memory_limit=limits.max_memory)
    rendering = _isolated.call(formats.render, found.format, data)
    if len(rendering.text) > limits.max_bytes:  # what the parent sections must stay as small as a file
        raise FileSkipped(f"renders to more than {limits.max_bytes:,} characters of text (max_bytes)")
    with deadline(limits):
        return formats.parse_rendering(found.path, rendering, settings, found.format)


def close_isolated() -> None:
    """End this process's parser child, if one was started."""
    global _isolated
    if _isolated is not None:
        _isolated.close()
        _isolated = None


def _analyse_batch(batch: Sequence[FoundFile], settings: SectionSettings) -> list[Analysed]:
    return [analyse_file(f, settings) for f in batch]


def _exit_with(ingest_pid: int) -> None:
    """Worker initializer: end this worker soon after the ingest process is gone.

    A worker waits on a queue whose write end it holds itself, so it would
    otherwise outlive an ingest killed with SIGKILL or SIGTERM.
    """

    def watch() -> None:
        while True:
            time.sleep(_WATCH_INTERVAL_S)
            try:
                os.kill(ingest_pid, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                continue  # alive, owned by someone else after a PID reuse: keep waiting

    threading.Thread(target=watch, name="contextpull-parent-watch", daemon=True).start()


def default_workers(files: Sequence[FoundFile]) -> int:
    """1 for small jobs and on a machine whose CPUs are all busy; otherwise one worker per CPU.

    Busy means a one-minute load average of at least the CPUs this process may
    use: there, workers only queue behind the other processes and their
    start-up is pure cost (two workers made two small corpora about 35 %
    slower at load 5 on two CPUs).
    """
    cpus = _usable_cpus()
    if cpus < 2 or _load() >= cpus:
        return 1
    total = 0
    for f in files:
        try:
            total += f.location.stat().st_size
        except OSError:
            continue
        if total >= PARALLEL_MIN_BYTES:
            return cpus
    return 1


def _load() -> float:
    """The one-minute load average; 0 where the system does not report one."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # Windows has none
        return 0.0


def _usable_cpus() -> int:
    if hasattr(os, "sched_getaffinity"):  # Linux: honours taskset and cgroups pinning
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def analyse_all(
    files: Sequence[FoundFile], settings: SectionSettings, *, workers: int = 1, budget: TimeBudget | None = None
) -> Generator[Analysed, None, None]:
    """:func:`analyse_file` for each file, in order, using ``workers`` processes.

    Closing the iterator early (or an exception in the consumer) cancels the
    work not yet started. Once ``budget`` is spent, files not yet started
    come back deferred.
    """
    if workers <= 1:
        try:
            for f in files:
                yield budget.defer(f) if budget is not None and budget.spent() else analyse_file(f, settings)
        finally:
            close_isolated()
        return
    # Imported here: a small corpus never starts workers, and these imports are
    # a fixed cost of every ingest otherwise (about 20 ms).
    import multiprocessing
    from concurrent import futures
    from concurrent.futures import ProcessPoolExecutor

    # No forkserver preload: a preloaded server holds the whole parsing stack
    # (about 17 MB more resident), and each worker imports it once anyway.
    context = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_exit_with, initargs=(os.getpid(),))
    pending: deque[Future[list[Analysed]]] = deque()

    def submit(batch: Sequence[FoundFile]) -> Future[list[Analysed]]:
        if budget is None or not budget.spent():
            return pool.submit(_analyse_batch, batch, settings)
        deferred: Future[list[Analysed]] = futures.Future()
        deferred.set_result([budget.defer(f) for f in batch])
        return deferred

    try:
        queued = (files[i : i + _FILES_PER_TASK] for i in range(0, len(files), _FILES_PER_TASK))
        for batch in queued:
            pending.append(submit(batch))
            if len(pending) >= workers * _TASKS_IN_FLIGHT_PER_WORKER:
                break
        while pending:
            done = pending.popleft().result()
            nxt = next(queued, None)
            if nxt is not None:
                pending.append(submit(nxt))
            yield from done
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
