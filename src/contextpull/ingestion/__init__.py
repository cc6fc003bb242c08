"""Ingest: discover the files of a folder, analyse them (in worker processes for
large jobs) and write the store in one transaction, incrementally.

The package is not named ``ingest`` because ``contextpull.ingest`` is the public
function re-exported by the top-level package.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..paths import default_store_path
    from .run import IngestReport, Progress, ingest

__all__ = ["IngestReport", "Progress", "default_store_path", "ingest"]


def __getattr__(name: str) -> Any:
    """The names above on first use: a parser worker imports ``ingestion.analyse``,
    and loading the writer, index and vector modules with it cost each worker
    memory it never uses."""
    if name == "default_store_path":
        from ..paths import default_store_path

        return default_store_path
    if name in ("IngestReport", "Progress", "ingest"):
        from . import run

        return getattr(run, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
