"""Every failure the CLI can meet, as one line with what to do next.

Library errors (:class:`ContextPullError`) already carry a message and a
suggestion. This module covers the rest: the operating system refusing a file
(no permission, read-only disk, full disk, a folder where a file belongs),
SQLite's own errors (asked of :mod:`contextpull.store.failures`) and, last, a
bug, which still prints one line and says how to see the traceback
(``CONTEXTPULL_DEBUG=1``).
"""

from __future__ import annotations

import errno
import os
import traceback

from ..errors import ContextPullError, StoreError
from ..store.failures import as_store_error

DEBUG_ENV = "CONTEXTPULL_DEBUG"

_WRITABLE = "pass --store PATH (or --out PATH) in a folder you can write"
#: errno -> (what happened, what to do)
_OS_ERRORS: dict[int, tuple[str, str]] = {
    errno.EACCES: ("permission denied", _WRITABLE + ", or fix the permissions"),
    errno.EPERM: ("operation not permitted", _WRITABLE),
    errno.EROFS: ("the file system is read-only", _WRITABLE),
    errno.ENOSPC: ("no space left on the disk", "free some space, or write to another disk with --store / --out"),
    errno.EDQUOT: ("disk quota exceeded", "free some space, or write to another disk with --store / --out"),
    errno.EFBIG: ("the file grew past the size this process may write", "raise the file-size limit (ulimit -f)"),
    errno.EISDIR: ("it is a folder, where a file was expected", "pass a file path, such as FOLDER/store.sqlite"),
    errno.ENOTDIR: ("part of the path is a file, where a folder was expected", "check the path"),
    errno.ENOENT: ("no such file or folder", "check the path"),
    errno.ENAMETOOLONG: ("the path is too long", "use a shorter path"),
}


def as_error(exc: BaseException) -> ContextPullError:
    """The one-line error for an exception that is not a :class:`ContextPullError`."""
    if os.environ.get(DEBUG_ENV):
        traceback.print_exception(exc)
    store_error = as_store_error(exc)
    if store_error is not None:
        return store_error
    if isinstance(exc, OSError):
        return _os_error(exc)
    return ContextPullError(
        f"unexpected internal error ({type(exc).__name__}: {exc})",
        f"please report it; {DEBUG_ENV}=1 prints the traceback",
    )


def _os_error(exc: OSError) -> StoreError:
    what, todo = _OS_ERRORS.get(exc.errno or 0, (exc.strerror or str(exc), "check the path and its permissions"))
    where = exc.filename if exc.filename is not None else "a file"
    return StoreError(f"cannot use {where}: {what}", todo)
