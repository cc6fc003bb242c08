"""The value types that flow from parser to store to tool result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

SectionKind = Literal["prose", "table", "code", "mixed"]
HEADING_SEPARATOR = " > "
#: between the headings of siblings merged into one section ("PyPI; Homebrew"), in its last heading
SIBLING_SEPARATOR = "; "


def section_id(doc: str, ordinal: int) -> str:
    """The stable, citable id of a section: ``path#ordinal`` (docs/adr/003-section-ids.md)."""
    return f"{doc}#{ordinal}"


def split_section_id(sid: str) -> tuple[str, int]:
    """Inverse of :func:`section_id`; raises ValueError when ``sid`` has no ``#ordinal``.

    Splits on the *last* ``#`` so that paths containing ``#`` still round-trip.
    The ordinal must be written as :func:`section_id` writes it (ASCII
    digits, no leading zero), so each section has exactly one id: ``#٣``,
    ``#３`` and ``#03`` are not ids.
    """
    doc, sep, ordinal = sid.rpartition("#")
    canonical = ordinal.isascii() and ordinal.isdigit() and (ordinal == "0" or ordinal[0] != "0")
    if not sep or not doc or not canonical:
        raise ValueError(f"not a section id: {sid!r}")
    return doc, int(ordinal)


@dataclass(frozen=True)
class Section:
    """One citable slice of a document.

    ``text`` is the exact slice ``document_text[start:end]`` of the normalised
    source (for PDF, Office and HTML files: of their Markdown-like rendering,
    docs/adr/014-document-formats.md), so concatenating a document's sections in ordinal order gives back
    the whole document. A section that continues a table split between rows
    carries that table's header row and separator in ``table_header`` and the
    ordinal of the section holding the header in ``header_ordinal``; ``read``
    shows the header above the text so every table part can be read alone.
    """

    doc: str
    ordinal: int
    heading_path: tuple[str, ...]
    kind: SectionKind
    text: str
    start: int
    end: int
    table_header: str | None = None
    header_ordinal: int | None = None
    #: first and last page the section has text from (PDF); None for formats without pages
    pages: tuple[int, int] | None = None

    @property
    def id(self) -> str:
        return section_id(self.doc, self.ordinal)

    @property
    def heading(self) -> str:
        return HEADING_SEPARATOR.join(self.heading_path)


@dataclass(frozen=True)
class ParsedDocument:
    """A document after parsing and sectioning, before it reaches the store."""

    path: str
    text: str  # the whole document after newline normalisation, or its rendering
    title: str
    summary: str  # offline summary: title plus first sentence of prose
    metadata: dict[str, Any] = field(default_factory=dict)
    sections: tuple[Section, ...] = ()
    format: str = "markdown"  # a name from contextpull.parse.formats.FORMATS
