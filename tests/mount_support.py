"""Real read-only folders and full disks for CLI tests: a read-only bind mount and a tiny tmpfs.

Both need the right to mount (root, as on the CI machine); without it the
tests that use them skip. Each mount is undone when its block ends.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest


def _mount(*argv: str) -> None:
    done = subprocess.run(["mount", *argv], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        pytest.skip(f"cannot mount here ({done.stderr.strip() or done.returncode})")


@contextmanager
def read_only_view(source: Path, target: Path) -> Iterator[Path]:
    """``source`` seen read-only at ``target`` (writes fail with EROFS, even for root)."""
    target.mkdir(parents=True, exist_ok=True)
    _mount("--bind", str(source), str(target))
    try:
        done = subprocess.run(["mount", "-o", "remount,bind,ro", str(target)], capture_output=True, check=False)
        if done.returncode != 0:
            pytest.skip("cannot remount read-only here")
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)


@contextmanager
def small_disk(target: Path, size: str = "96k") -> Iterator[Path]:
    """A tmpfs of ``size`` at ``target``: writes past it fail with ENOSPC."""
    target.mkdir(parents=True, exist_ok=True)
    _mount("-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(target))
    try:
        yield target
    finally:
        subprocess.run(["umount", str(target)], check=False)
