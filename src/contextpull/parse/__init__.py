"""Parsing: bytes of one file → text → blocks with exact offsets → sections.

One module per file format; each produces the same block stream
(:mod:`.blocks`), so sectioning, ids and the tools never depend on the format.
This layer imports only the shared core.
"""

from typing import TYPE_CHECKING, Any

from .formats import format_for

if TYPE_CHECKING:
    from .sections import parse_document

__all__ = ["format_for", "parse_document"]


def __getattr__(name: str) -> Any:
    """``parse_document`` on first use: importing the package must not load the Markdown stack."""
    if name == "parse_document":
        from .sections import parse_document

        return parse_document
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
