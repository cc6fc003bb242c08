"""A damaged store file reaches every surface as one :class:`StoreCorrupt`, never an SQLite traceback."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import StoreCorrupt


def corrupt(path: Path | str, err: sqlite3.DatabaseError) -> StoreCorrupt:
    """The one error for a damaged store; SQLite's message names the fault, never the content."""
    return StoreCorrupt(
        f"the store {path} is damaged ({err})",
        "run `contextpull ingest DIR --store PATH`: it rebuilds the store and keeps the damaged file beside it",
    )


@contextmanager
def damage_reported(path: Path | str) -> Iterator[None]:
    """Turn SQLite's errors on a damaged file into :class:`StoreCorrupt`."""
    try:
        yield
    except sqlite3.DatabaseError as err:
        raise corrupt(path, err) from None
