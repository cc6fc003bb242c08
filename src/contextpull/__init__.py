"""ContextPull: a folder of documents as a small index plus five citable retrieval tools.

The library surface: build or update a store with :func:`ingest`, open it
read-only with :meth:`Store.open`, run the five operations with :class:`Ops`
(or over several named stores with :class:`Library`). Errors are the :class:`ContextPullError`
family, each with a message and a suggestion.

Names are imported on first use (module ``__getattr__``), so ``import
contextpull`` and the read commands do not load the parsers or the ingest
machinery they never call.
"""

from __future__ import annotations

from importlib import import_module

from ._version import __version__

#: ``typing`` costs more to import than the rest of this module (issue 14): type checkers
#: treat any ``TYPE_CHECKING`` constant as true, so it is spelled out here
TYPE_CHECKING = False
if TYPE_CHECKING:  # what the lazy names are, for type checkers (``X as X`` marks a re-export)
    from typing import Any

    from .contents.links import Links as Links
    from .errors import BadArgument as BadArgument
    from .errors import BadFilter as BadFilter
    from .errors import CollectionError as CollectionError
    from .errors import ContextPullError as ContextPullError
    from .errors import FormatVersionError as FormatVersionError
    from .errors import IngestError as IngestError
    from .errors import MissingArgument as MissingArgument
    from .errors import NotAStore as NotAStore
    from .errors import OutOfRange as OutOfRange
    from .errors import PatternRejected as PatternRejected
    from .errors import StoreError as StoreError
    from .errors import StoreFromNewerVersion as StoreFromNewerVersion
    from .errors import StoreLocked as StoreLocked
    from .errors import StoreMissing as StoreMissing
    from .errors import ToolError as ToolError
    from .errors import UnknownArgument as UnknownArgument
    from .errors import UnknownSection as UnknownSection
    from .errors import UnknownTool as UnknownTool
    from .errors import UnreadableCorpus as UnreadableCorpus
    from .errors import WrongType as WrongType
    from .ingestion.run import IngestOptions as IngestOptions
    from .ingestion.run import IngestReport as IngestReport
    from .ingestion.run import ingest as ingest
    from .ingestion.run import ingest_with as ingest_with
    from .ops.library import Library as Library
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

__all__ = [
    "BadArgument",
    "BadFilter",
    "CollectionError",
    "ContextPullError",
    "FormatVersionError",
    "GrepMatch",
    "GrepResult",
    "IndexResult",
    "IngestError",
    "IngestOptions",
    "IngestReport",
    "Library",
    "Links",
    "MissingArgument",
    "NeighboursResult",
    "NotAStore",
    "Ops",
    "OutOfRange",
    "PatternRejected",
    "ReadResult",
    "SearchHit",
    "SearchResult",
    "SectionSettings",
    "SectionView",
    "Store",
    "StoreError",
    "StoreFromNewerVersion",
    "StoreLocked",
    "StoreMissing",
    "ToolError",
    "UnknownArgument",
    "UnknownSection",
    "UnknownTool",
    "UnreadableCorpus",
    "WrongType",
    "__version__",
    "ingest",
    "ingest_with",
]

#: where the public names are defined, cheapest first: a name is taken from the first that has it
_HOMES = (
    ".errors",
    ".ops.results",
    ".settings",
    ".store",
    ".contents.links",
    ".ops.operations",
    ".ops.library",
    ".ingestion.run",
)


def __getattr__(name: str) -> Any:
    if name in __all__:
        for home in _HOMES:
            module = import_module(home, __name__)
            if hasattr(module, name):
                value = getattr(module, name)
                globals()[name] = value
                return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
