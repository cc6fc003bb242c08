"""ContextPull: a folder of documents as a small index plus five citable retrieval tools.

The library surface: build or update a store with :func:`ingest`, open it
read-only with :meth:`Store.open`. Errors are the :class:`ContextPullError`
family, each with a message and a suggestion.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("contextpull")
except PackageNotFoundError:  # pragma: no cover - running from a bare source tree
    __version__ = "0+unknown"

# Imported after __version__, which the ingest module records in the store.
from .errors import (  # noqa: E402
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
from .ingestion.run import IngestReport, ingest  # noqa: E402
from .ops.operations import Ops  # noqa: E402
from .ops.results import (  # noqa: E402
    GrepMatch,
    GrepResult,
    IndexResult,
    NeighboursResult,
    ReadResult,
    SearchHit,
    SearchResult,
    SectionView,
)
from .settings import SectionSettings  # noqa: E402
from .store import Store  # noqa: E402

__all__ = [
    "BadArgument",
    "BadFilter",
    "ContextPullError",
    "FormatVersionError",
    "GrepMatch",
    "GrepResult",
    "IndexResult",
    "IngestError",
    "IngestReport",
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
]
