"""Per-file limits (:class:`~contextpull.settings.FileLimits`) and the reads they bound.

Every limit ends in :class:`FileSkipped`, whose reason names the limit, so
one oversized or pathological file costs itself, never the ingest. Files are
opened without blocking and checked to be regular before a byte is read (a
file swapped for a FIFO after discovery would otherwise hang the ingest), and
never read past the size limit, so memory stays bounded by it.

The time limit for parsers that run in this process is a timer signal: the
parsers are Python, so the signal interrupts them between bytecodes. It needs
the main thread (ingest in worker processes always has it); elsewhere the
limit is not enforced and the linear parsers and size limits are the bound.
"""

from __future__ import annotations

import hashlib
import os
import signal
import stat
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType

from ..settings import FileLimits

__all__ = ["FileSkipped", "check_lines", "check_sections", "deadline", "digest_file", "read_file"]

_CHUNK = 1 << 20


class FileSkipped(Exception):
    """This file is left out; ``reason`` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def size_text(limit: int) -> str:
    """A limit as a person reads it: ``512 MiB``, ``4,096 bytes``."""
    return f"{limit / (1 << 20):g} MiB" if limit >= 1 << 20 else f"{limit:,} bytes"


def _open_regular(path: Path, limits: FileLimits) -> int:
    """A descriptor on ``path`` once it is known to be a regular file within ``max_bytes``."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as err:
        raise FileSkipped(f"cannot read file ({err.strerror or err})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileSkipped("not a regular file")
        if info.st_size > limits.max_bytes:
            raise FileSkipped(f"larger than {size_text(limits.max_bytes)} (max_bytes)")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _chunks(fd: int, limits: FileLimits) -> Iterator[bytes]:
    total = 0
    while chunk := os.read(fd, _CHUNK):
        total += len(chunk)
        if total > limits.max_bytes:  # it grew after the size check
            raise FileSkipped(f"larger than {size_text(limits.max_bytes)} (max_bytes)")
        yield chunk


def read_file(path: Path, limits: FileLimits) -> bytes:
    """The bytes of ``path``; raises :class:`FileSkipped` when unreadable, special or too large."""
    fd = _open_regular(path, limits)
    try:
        return b"".join(_chunks(fd, limits))
    except OSError as err:
        raise FileSkipped(f"cannot read file ({err.strerror or err})") from None
    finally:
        os.close(fd)


def digest_file(path: Path, limits: FileLimits) -> str:
    """sha256 (hex) of ``path``, streamed in 1 MiB chunks: change detection holds no file in memory."""
    fd = _open_regular(path, limits)
    digest = hashlib.sha256()
    try:
        for chunk in _chunks(fd, limits):
            digest.update(chunk)
    except OSError as err:
        raise FileSkipped(f"cannot read file ({err.strerror or err})") from None
    finally:
        os.close(fd)
    return digest.hexdigest()


def check_lines(text: str, limits: FileLimits) -> None:
    if text.count("\n") >= limits.max_lines:
        raise FileSkipped(f"more than {limits.max_lines:,} lines (max_lines)")


def check_sections(count: int, limits: FileLimits) -> None:
    if count > limits.max_sections:
        raise FileSkipped(f"more than {limits.max_sections:,} sections (max_sections)")


@contextmanager
def deadline(limits: FileLimits) -> Iterator[None]:
    """Raise :class:`FileSkipped` in the block once it has run ``time_s`` seconds (main thread only)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise FileSkipped(f"took longer than {limits.time_s:g} s (time_s)")

    previous = signal.signal(signal.SIGALRM, expire)
    started = time.monotonic()
    outer, _ = signal.setitimer(signal.ITIMER_REAL, limits.time_s)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # a caller's own timer was running: give it back what is left of it
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - started), 0.001))
