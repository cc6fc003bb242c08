"""One family of errors, each carrying a message and what to do next.

The same shape reaches the CLI (one line on stderr, or a JSON object with
``--json``), the MCP tool result and the API tool loop, so a user or a model
always gets a sentence and a suggestion, never a traceback.
"""

from __future__ import annotations


class ContextPullError(Exception):
    """Something the user or the model can fix; carries a suggestion."""

    #: stable machine-readable name of the condition, e.g. ``unknown_id``
    code: str = "error"
    #: CLI exit status: 1 for store or input problems, 2 for usage or tool errors
    exit_code: int = 1

    def __init__(self, message: str, suggestion: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion

    def __str__(self) -> str:
        return f"{self.message} ({self.suggestion})" if self.suggestion else self.message

    def to_dict(self) -> dict[str, str]:
        """The JSON-ready error object shared by CLI ``--json``, MCP and the API loop."""
        return {"error": self.code, "message": self.message, "suggestion": self.suggestion}


# --- store -----------------------------------------------------------------
class StoreError(ContextPullError):
    """The store file cannot be used as asked."""

    code = "store_error"


class StoreMissing(StoreError):
    """No store exists at the given path."""

    code = "store_missing"


class NotAStore(StoreError):
    """The file exists but is not a ContextPull store."""

    code = "not_a_store"


class FormatVersionError(StoreError):
    """The store was written in a format version this reader cannot read."""

    code = "format_version"


class StoreFromNewerVersion(StoreError):
    """The store was written by a newer ContextPull: refused for reading and writing alike (never rebuilt)."""

    code = "store_from_newer_version"


class StoreCorrupt(StoreError):
    """The store file is damaged (a page fails SQLite's checks)."""

    code = "store_corrupt"


class StoreUnwritable(StoreError):
    """The store cannot be created or written at the given path."""

    code = "store_unwritable"


class StoreLocked(StoreError):
    """Another process holds the write lock on the store."""

    code = "store_locked"


class StoreOfAnotherCorpus(StoreError):
    """The store holds another folder's corpus; ingesting this one would replace it."""

    code = "store_of_another_corpus"


# --- ingest ----------------------------------------------------------------
class IngestError(ContextPullError):
    """The corpus cannot be ingested as asked."""

    code = "ingest_error"


class UnreadableCorpus(IngestError):
    """The corpus path does not exist, is not a folder, or cannot be listed."""

    code = "unreadable_corpus"


# --- tools -----------------------------------------------------------------
class ToolError(ContextPullError):
    """A tool call that cannot be served as asked; the model may retry."""

    code = "tool_error"
    exit_code = 2


class UnknownSection(ToolError):
    """No section has the given id."""

    code = "unknown_id"


class BadFilter(ToolError):
    """A path filter is empty, malformed or matches no document."""

    code = "bad_filter"


class PatternRejected(ToolError):
    """A grep pattern is invalid, too long, or too expensive to run."""

    code = "bad_pattern"


class BadArgument(ToolError):
    """A tool argument is missing, of the wrong type or out of range."""

    code = "bad_argument"


class UnknownTool(ToolError):
    """The tool name is not one of the five."""

    code = "unknown_tool"


class MissingArgument(BadArgument):
    """A required tool argument was not given."""

    code = "missing_argument"


class UnknownArgument(BadArgument):
    """A tool was given an argument it does not take."""

    code = "unknown_argument"


class WrongType(BadArgument):
    """A tool argument has the wrong JSON type."""

    code = "wrong_type"


class OutOfRange(BadArgument):
    """A tool argument is outside its allowed bounds (value or length)."""

    code = "out_of_range"


# --- embeddings ------------------------------------------------------------
class EmbeddingError(ContextPullError):
    """Section or query vectors cannot be made as asked."""

    code = "embedding_error"


class EmbedderUnavailable(EmbeddingError):
    """The embedder cannot be built here: an unknown spec, or the ``embed`` extra is missing."""

    code = "embedder_unavailable"
    exit_code = 2


class MixedModels(EmbeddingError):
    """The store holds vectors of another model (or dimension) than the one asked for."""

    code = "mixed_models"


class EmbeddingFailed(EmbeddingError):
    """The embedder failed while embedding (an endpoint refused or broke off)."""

    code = "embedding_failed"


# --- installation ----------------------------------------------------------
class MissingDependency(ContextPullError):
    """A library an optional capability needs is not installed; the suggestion names the extra."""

    code = "missing_dependency"


# --- collections -------------------------------------------------------------
class CollectionError(ContextPullError):
    """A collection name that is not valid here, or one that does not exist."""

    code = "collection_error"
    exit_code = 2
