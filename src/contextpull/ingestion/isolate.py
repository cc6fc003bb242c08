"""Run a parser in a child process with a time limit, so one file cannot stop an ingest.

Third-party parsers (PDF, Office, HTML) read untrusted bytes: a malformed
file can make one loop for minutes, crash the interpreter or inflate a few
kilobytes into gigabytes. Each process that analyses files keeps one child
for them, with an address-space limit (``RLIMIT_AS``) set by the child on
itself; a call that overruns the time limit, runs out of that memory or
kills the child costs that file, with its reason, and the next call starts a
fresh child.

The child is a fresh interpreter (``python -m contextpull.ingestion.isolate``)
talking length-prefixed pickles over its stdin and stdout, not a
multiprocessing process: spawn and forkserver children re-import the
caller's ``__main__``, which would break every script that calls
:func:`contextpull.ingest` without an ``if __name__ == "__main__":`` guard,
and forking a process that may have threads (a server, a progress bar) is
unsafe. The child ends when its stdin closes, so it never outlives its
parent by more than a read.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct
import subprocess
import sys
from collections.abc import Callable
from typing import IO, Any, Self

from ..parse.rendering import Unparseable, parser_failed
from .limits import size_text

__all__ = ["DEFAULT_MEMORY_LIMIT", "DEFAULT_TIME_LIMIT_S", "Isolated"]

#: per file; a 1,000-page PDF takes about 100 s on one slow core (docs/adr/015-pdf-extraction.md)
DEFAULT_TIME_LIMIT_S = 300.0
#: address space of the child: its interpreter with every parser imported maps about 210 MB
DEFAULT_MEMORY_LIMIT = 1 << 30
_LENGTH = struct.Struct("<Q")
_OUT_OF_MEMORY = "memory"  # the reply status after a MemoryError: the child is ended, not reused


def _send(stream: IO[bytes], value: object) -> None:
    payload = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(payload)) + payload)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    """The next value on ``stream``; raises EOFError when the other side is gone."""
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError
    (size,) = _LENGTH.unpack(head)
    payload = stream.read(size)
    if len(payload) < size:
        raise EOFError
    return pickle.loads(payload)  # our own child, over our own pipe


def _limit_memory(limit: int) -> None:
    try:
        import resource
    except ImportError:  # Windows: no rlimits; the time limit and the parsers' own limits remain
        return
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def serve(memory_limit: int = 0) -> None:
    """The child: call what the parent sends until its stdin closes.

    The protocol keeps the real stdout; anything a parser prints goes to
    stderr, so it cannot corrupt a reply. With ``memory_limit`` the child
    caps its own address space, so a decompression bomb ends in a
    MemoryError here instead of exhausting the machine.
    """
    if memory_limit:
        _limit_memory(memory_limit)
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    while True:
        try:
            target, args = _receive(requests)
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", target(*args))
        except Unparseable as err:
            reply = ("skip", err.reason)
        except MemoryError:
            reply = (_OUT_OF_MEMORY, "")
        except Exception as err:  # noqa: BLE001 - a parser bug must cost its file only
            reply = ("skip", parser_failed(err))
        _send(replies, reply)


class Isolated:
    """Calls module-level functions in one child process, each under ``time_limit`` seconds
    and ``memory_limit`` bytes of address space (0: no limit)."""

    def __init__(self, time_limit: float = DEFAULT_TIME_LIMIT_S, memory_limit: int = DEFAULT_MEMORY_LIMIT) -> None:
        self.time_limit = time_limit
        self.memory_limit = memory_limit
        self._process: subprocess.Popen[bytes] | None = None

    def call(self, target: Callable[..., Any], *args: Any) -> Any:
        """``target(*args)`` in the child; raises :class:`Unparseable` when it fails, hangs or crashes.

        ``target`` must be importable by name in the child (it is pickled by
        reference); the child sees this process's ``sys.path``.
        """
        process = self._child()
        assert process.stdin is not None and process.stdout is not None
        try:
            _send(process.stdin, (target, args))
            ready, _, _ = select.select([process.stdout], [], [], self.time_limit)
            if not ready:
                self.close()
                raise Unparseable(f"parser took longer than {self.time_limit:g} s (time limit)")
            status, value = _receive(process.stdout)
        except (EOFError, OSError):
            try:
                code: int | None = process.wait(5)
            except subprocess.TimeoutExpired:
                code = None
            self.close()
            if code == -signal.SIGABRT and self.memory_limit:  # how native code (PDFium) fails an allocation
                raise Unparseable(
                    f"parser aborted, most likely needing more than {size_text(self.memory_limit)} of memory"
                    " (max_memory)"
                ) from None
            raise Unparseable(f"parser crashed (exit code {code})") from None
        if status == _OUT_OF_MEMORY:
            self.close()  # a MemoryError can leave any state half-built: the next file gets a fresh child
            raise Unparseable(f"needed more than {size_text(self.memory_limit)} of memory (max_memory)")
        if status == "skip":
            raise Unparseable(value)
        return value

    def _child(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self.close()
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
            self._process = subprocess.Popen(
                [sys.executable, "-m", __name__, str(self.memory_limit)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,  # parsers' warnings about odd files are not the user's business
                env=env,
            )
        return self._process

    def close(self) -> None:
        """End the child (killing it if it is busy)."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.kill()
        process.wait()
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    serve(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
