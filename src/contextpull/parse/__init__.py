"""Parsing: bytes of one file → text → blocks with exact offsets → sections.

One module per file format; each produces the same block stream
(:mod:`.blocks`), so sectioning, ids and the tools never depend on the format.
This layer imports only the shared core.
"""

from .formats import format_for
from .sections import parse_document

__all__ = ["format_for", "parse_document"]
