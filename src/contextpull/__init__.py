"""ContextPull: a folder of documents as a small index plus five citable retrieval tools.

The library surface: build or update a store with :func:`ingest`, open it
read-only with :meth:`Store.open`. Errors are the :class:`ContextPullError`
family, each with a message and a suggestion.

Names are imported on first use (module ``__getattr__``), so ``import
contextpull`` and the read commands do not load the parsers or the ingest
machinery they never call.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from .errors import (
        BadArgument,
        BadFilter,
        ContextPullError,
        FormatVersionError,
        IngestError,
        MissingArgument,
        NotAStore,
        OutOfRange,
        PatternRejected,
        StoreError,
        StoreLocked,
        StoreMissing,
        ToolError,
        UnknownArgument,
        UnknownSection,
        UnknownTool,
        UnreadableCorpus,
        WrongType,
    )
    from .ingestion.run import IngestReport, ingest
    from .ops.operations import Ops
    from .ops.results import (
        GrepMatch,
        GrepResult,
        IndexResult,
        NeighboursResult,
        ReadResult,
        SearchHit,
        SearchResult,
        SectionView,
    )
    from .settings import SectionSettings
    from .store import Store

_ERRORS = (
    "BadArgument",
    "BadFilter",
    "ContextPullError",
    "FormatVersionError",
    "IngestError",
    "MissingArgument",
    "NotAStore",
    "OutOfRange",
    "PatternRejected",
    "StoreError",
    "StoreLocked",
    "StoreMissing",
    "ToolError",
    "UnknownArgument",
    "UnknownSection",
    "UnknownTool",
    "UnreadableCorpus",
    "WrongType",
)
_RESULTS = (
    "GrepMatch",
    "GrepResult",
    "IndexResult",
    "NeighboursResult",
    "ReadResult",
    "SearchHit",
    "SearchResult",
    "SectionView",
)
#: public name → the module that defines it
_HOMES: dict[str, str] = {
    **dict.fromkeys(_ERRORS, ".errors"),
    **dict.fromkeys(_RESULTS, ".ops.results"),
    "IngestReport": ".ingestion.run",
    "ingest": ".ingestion.run",
    "Ops": ".ops.operations",
    "SectionSettings": ".settings",
    "Store": ".store",
}

__all__ = sorted([*_HOMES, "__version__"])


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
