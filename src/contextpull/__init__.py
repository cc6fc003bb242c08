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

if TYPE_CHECKING:  # what the lazy names are, for type checkers (``X as X`` marks a re-export)
    from .errors import BadArgument as BadArgument
    from .errors import BadFilter as BadFilter
    from .errors import ContextPullError as ContextPullError
    from .errors import FormatVersionError as FormatVersionError
    from .errors import IngestError as IngestError
    from .errors import MissingArgument as MissingArgument
    from .errors import NotAStore as NotAStore
    from .errors import OutOfRange as OutOfRange
    from .errors import PatternRejected as PatternRejected
    from .errors import StoreError as StoreError
    from .errors import StoreLocked as StoreLocked
    from .errors import StoreMissing as StoreMissing
    from .errors import ToolError as ToolError
    from .errors import UnknownArgument as UnknownArgument
    from .errors import UnknownSection as UnknownSection
    from .errors import UnknownTool as UnknownTool
    from .errors import UnreadableCorpus as UnreadableCorpus
    from .errors import WrongType as WrongType
    from .ingestion.run import IngestReport as IngestReport
    from .ingestion.run import ingest as ingest
    from .ops.operations import Ops as Ops
    from .ops.results import GrepMatch as GrepMatch
    from .ops.results import GrepResult as GrepResult
    from .ops.results import IndexResult as IndexResult
    from .ops.results import NeighboursResult as NeighboursResult
    from .ops.results import ReadResult as ReadResult
    from .ops.results import SearchHit as SearchHit
    from .ops.results import SearchResult as SearchResult
    from .ops.results import SectionView as SectionView
    from .settings import SectionSettings as SectionSettings
    from .store import Store as Store

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
