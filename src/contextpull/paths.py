"""Where a store lives, decided in one place.

An explicit path wins, then ``$CONTEXTPULL_STORE``, then a default: the
corpus folder's own ``.contextpull/store.sqlite`` when a folder is known
(ingest, serve, bench), else ``./.contextpull/store.sqlite`` (the read
commands and adapters, which only know the working directory).
"""

from __future__ import annotations

import os
from pathlib import Path

STORE_ENV = "CONTEXTPULL_STORE"
STORE_DIR = ".contextpull"
STORE_NAME = "store.sqlite"
#: the store of the working directory, relative to it
DEFAULT_STORE = Path(STORE_DIR) / STORE_NAME


def default_store_path(root: Path) -> Path:
    """The store a folder gets when nothing else is said: ``root/.contextpull/store.sqlite``."""
    return Path(root) / DEFAULT_STORE


def env_store_path() -> Path | None:
    """``$CONTEXTPULL_STORE`` when it is set and not empty."""
    chosen = os.environ.get(STORE_ENV)
    return Path(chosen) if chosen else None


def store_path(explicit: str | Path | None = None) -> Path:
    """``explicit``, then ``$CONTEXTPULL_STORE``, then ``./.contextpull/store.sqlite``."""
    if explicit:
        return Path(explicit)
    return env_store_path() or DEFAULT_STORE


def bench_dir(root: Path) -> Path:
    """Where ``contextpull bench`` writes a folder's results: ``root/.contextpull/bench``."""
    return Path(root) / STORE_DIR / "bench"
