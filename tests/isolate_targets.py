"""Functions the isolation tests run in a child process (importable by name there)."""

from __future__ import annotations

import os
import time


def echo(value: str) -> str:
    return value


def hang(seconds: float) -> None:
    time.sleep(seconds)


def die(code: int) -> None:
    os._exit(code)


def fail(message: str) -> None:
    raise RuntimeError(message)


def abort() -> None:
    """End the process as native code does when an allocation fails (PDFium under a memory limit)."""
    os.abort()
