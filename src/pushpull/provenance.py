"""Where a results file came from: the commit, whether the tree was clean, the command, the machine.

A published number is only reproducible if its file says which code made
it. ``provenance()`` is taken when a run starts and lands in
``results.json``; a run from a modified working tree says so (``clean:
false``) rather than naming a commit whose code it did not run.
"""

from __future__ import annotations

import os
import platform
import shlex
import subprocess
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any


def _git(source: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", str(source), *args], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def source_state(source: Path, *, exclude: Sequence[Path] = ()) -> dict[str, Any]:
    """The git commit holding ``source`` and whether its work tree is clean.

    ``clean`` is False when any tracked file differs from that commit or an
    untracked, unignored file exists, outside the ``exclude`` paths (the
    run's own output folder, which the run itself writes). Both are None
    when ``source`` is not in a git work tree (an installed wheel).
    """
    commit = _git(source, "rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "clean": None}
    top = (_git(source, "rev-parse", "--show-toplevel") or "").strip()
    specs = ["."]
    for path in exclude:
        resolved = Path(path).resolve()
        if top and resolved.is_relative_to(Path(top)):
            specs.append(f":(exclude){resolved.relative_to(Path(top)).as_posix()}")
    status = _git(Path(top or source), "status", "--porcelain", "--", *specs)
    return {"commit": commit.strip(), "clean": None if status is None else status.strip() == ""}


def machine() -> dict[str, Any]:
    """What the timing columns depend on: platform, CPU count, Python."""
    return {
        "platform": platform.platform(),
        "processor": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
    }


def _command(argv: Sequence[str]) -> str:
    """The command line as typed: the program by name, not by its path inside a venv."""
    program, *rest = argv or [""]
    path = Path(program)
    head = ["python", "-m", path.parent.name] if path.name == "__main__.py" else [path.name]
    return shlex.join([*head, *rest])


def provenance(*, argv: Sequence[str] | None = None, exclude: Sequence[Path] = ()) -> dict[str, Any]:
    """The ``provenance`` object of ``results.json`` for a run starting now."""
    return {
        **source_state(Path(__file__).resolve().parent, exclude=exclude),
        "command": _command(sys.argv if argv is None else argv),
        "machine": machine(),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
    }
