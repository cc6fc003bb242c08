"""Running the real CLI as a user does, in a subprocess, and checking its one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CLI = [sys.executable, "-m", "contextpull"]


def run(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m contextpull ARGS`` with no store from the environment unless ``env`` names one."""
    environment = {k: v for k, v in os.environ.items() if k != "CONTEXTPULL_STORE"} | (env or {})
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=environment, cwd=cwd, timeout=120)


def one_line_error(proc: subprocess.CompletedProcess[str], status: int = 1) -> str:
    """The one ``contextpull: error: …`` line a failed command printed (and no traceback)."""
    assert proc.returncode == status, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("contextpull: error: "), proc.stderr
    return lines[0]
