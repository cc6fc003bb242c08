"""SQLite's exceptions, said as store errors a user can act on.

Only this package imports ``sqlite3``, so the surfaces cannot tell a full disk
from a locked file in a ``sqlite3.Error`` themselves: they ask here. The
message names the condition; the suggestion says what to do next. A failed
write leaves the previous store as it was (one transaction per ingest), and
the suggestions say so where it matters.
"""

from __future__ import annotations

import sqlite3

from ..errors import NotAStore, StoreError, StoreLocked

_UNCHANGED = "the previous store is unchanged"


def as_store_error(exc: BaseException) -> StoreError | None:
    """The :class:`StoreError` that ``exc`` means, or ``None`` when it is not an SQLite error."""
    if not isinstance(exc, sqlite3.Error):
        return None
    said = str(exc)
    text = said.lower()
    if "locked" in text or "busy" in text:
        return StoreLocked(
            "the store is locked by another process",
            "wait for the other ingest to finish, then run the command again",
        )
    if "full" in text or "disk i/o" in text or "too big" in text:
        return StoreError(
            f"the store could not be written: the disk is full ({said})",
            f"free some space or pass --store PATH on another disk; {_UNCHANGED}",
        )
    if "readonly" in text or "read-only" in text:
        return StoreError(
            "the store is read-only here",
            "pass --store PATH in a folder you can write, or fix the file's permissions",
        )
    if "unable to open" in text:
        return StoreError(
            "the store file cannot be opened (its folder is missing or not writable)",
            "pass --store PATH in a folder you can write",
        )
    if "not a database" in text or "malformed" in text or "encrypted" in text:
        return NotAStore(
            f"the store file is damaged or not a ContextPull store ({said})",
            "delete it and run `contextpull ingest DIR` again",
        )
    return StoreError(f"the store failed ({said})", f"run `contextpull ingest DIR` again; {_UNCHANGED}")
