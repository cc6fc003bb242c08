"""ragbisect, the independent harness we compare against, in a Python 3.12 venv of its own.

ragbisect 0.2.0 needs Python 3.12 while this project runs on 3.11, so the
cross-harness test and ``benchmarks/push_speed.py`` run it in a separate venv
that they create themselves. The interpreter is, in order: the one given
(a flag, or ``$RAGBISECT_PYTHON``), ``python3.12`` on PATH, a pyenv 3.12, one
``uv python find 3.12`` knows, or one ``uv python install 3.12`` fetches (uv
itself pip-installed when missing). Each candidate is run once to check that
it really is 3.12 (a pyenv shim for an inactive version is not). When none
works the caller gets the reasons, to print as its skip message.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

RAGBISECT = "ragbisect==0.2.0"
PYTHON_ENV = "RAGBISECT_PYTHON"
DEFAULT_VENV = Path.home() / ".cache" / "contextpull-tests" / "rb312"


class Unavailable(Exception):
    """ragbisect cannot be set up here; the message says why (a skip reason)."""


def _run(command: list[str], timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)


def is_python312(python: str) -> bool:
    try:
        done = _run([python, "-c", "import sys; print(sys.version_info[:2] == (3, 12))"], timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0 and done.stdout.strip() == "True"


def _uv() -> str | None:
    """uv on PATH or beside this interpreter, else pip-installed into this interpreter's environment."""
    found = shutil.which("uv") or shutil.which("uv", path=str(Path(sys.executable).parent))
    if found:
        return found
    if _run([sys.executable, "-m", "pip", "install", "-q", "uv"]).returncode != 0:
        return None
    return shutil.which("uv", path=str(Path(sys.executable).parent))


def _candidates(given: str | None) -> Iterator[tuple[str, str]]:
    """(where it came from, interpreter) pairs, cheapest first; uv ones are computed only if reached."""
    if given or os.environ.get(PYTHON_ENV):
        yield "given", str(given or os.environ[PYTHON_ENV])
        return
    on_path = shutil.which("python3.12")
    if on_path:
        yield "PATH", on_path
    pyenv = shutil.which("pyenv")
    if pyenv:
        versions = _run([pyenv, "versions", "--bare"], timeout=60).stdout.split()
        for version in sorted(v for v in versions if v.startswith("3.12")):
            prefix = _run([pyenv, "prefix", version], timeout=60).stdout.strip()
            if prefix:
                yield f"pyenv {version}", str(Path(prefix) / "bin" / "python")
    uv = _uv()
    if uv:
        found = _run([uv, "python", "find", "3.12"]).stdout.strip()
        if found:
            yield "uv python find", found
        installed = _run([uv, "python", "install", "3.12"])
        if installed.returncode == 0:
            yield "uv python install", _run([uv, "python", "find", "3.12"]).stdout.strip()


def find_python312(given: str | None = None) -> str:
    """A working Python 3.12 interpreter; raises Unavailable listing what was tried."""
    tried = []
    for origin, python in _candidates(given):
        if python and is_python312(python):
            return python
        tried.append(f"{origin}: {python or 'nothing'}")
    if not tried:
        tried.append("no python3.12 on PATH, no pyenv, and uv could not be installed")
    raise Unavailable(f"no Python 3.12 for ragbisect ({'; '.join(tried)}); pass one with --python312 or ${PYTHON_ENV}")


def ragbisect_venv(venv: Path = DEFAULT_VENV, python: str | None = None) -> Path:
    """The venv holding ragbisect (created and installed on first use); returns its ``bin/python``."""
    interpreter = venv / "bin" / "python"
    if interpreter.exists() and _run([str(interpreter), "-c", "import ragbisect"], timeout=120).returncode == 0:
        return interpreter
    base = find_python312(python)
    shutil.rmtree(venv, ignore_errors=True)
    steps = ([base, "-m", "venv", str(venv)], [str(interpreter), "-m", "pip", "install", "-q", RAGBISECT])
    for step in steps:
        done = _run(step)
        if done.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise Unavailable(f"cannot set up {RAGBISECT} with {base}: {tail[0]}")
    return interpreter
