"""What the MCP server tests share: a private copy of the sample corpus and a server subprocess."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

REPO = Path(__file__).resolve().parents[1]
SAMPLE_CORPUS = REPO / "examples" / "corpus"
CONTEXTPULL = Path(sys.executable).parent / "contextpull"
LISTENING = re.compile(r"at (http://\S+/mcp)")


def copy_corpus(dest: Path) -> Path:
    """A writable copy of the bundled sample corpus (tests change it to test re-ingest)."""
    return Path(shutil.copytree(SAMPLE_CORPUS, dest, ignore=shutil.ignore_patterns(".contextpull")))


def command() -> list[str]:
    """How to start this checkout's CLI: the venv script, else the module."""
    return [str(CONTEXTPULL)] if CONTEXTPULL.is_file() else [sys.executable, "-m", "contextpull"]


@dataclass
class ServerProcess:
    url: str
    proc: subprocess.Popen[str]
    stderr: list[str] = field(default_factory=list)
    #: the lines it printed up to and including the one with its URL
    announced: list[str] = field(default_factory=list)


@contextmanager
def http_server(target: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[ServerProcess]:
    """``contextpull serve TARGET --transport http --port 0 ...`` until the block ends."""
    argv = ["serve", str(target), "--transport", "http", "--port", "0", *extra]
    with listening(argv, LISTENING, env=env) as server:
        yield server


@contextmanager
def listening(
    argv: list[str], announces: re.Pattern[str], *, env: dict[str, str] | None = None
) -> Iterator[ServerProcess]:
    """``contextpull ARGV...`` until the block ends; its URL is the first match of ``announces``.

    The server announces its URL on stderr once the socket is bound; later
    stderr lines are collected in ``ServerProcess.stderr`` (so the pipe never
    fills). The process is terminated (SIGTERM, then SIGKILL) on exit.
    """
    proc = subprocess.Popen(
        [*command(), *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    try:
        url, seen = _wait_for_url(proc, announces)
        server = ServerProcess(url, proc, announced=seen)
        assert proc.stderr is not None
        threading.Thread(target=_collect, args=(proc.stderr, server.stderr), daemon=True).start()
        yield server
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _collect(stream: IO[str], lines: list[str]) -> None:
    lines.extend(stream)


def _wait_for_url(
    proc: subprocess.Popen[str], announces: re.Pattern[str], timeout: float = 60.0
) -> tuple[str, list[str]]:
    assert proc.stderr is not None
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        seen.append(line)
        if match := announces.search(line):
            return match.group(1), seen
    raise AssertionError(f"server did not start (exit {proc.poll()}):\n{''.join(seen)}")
