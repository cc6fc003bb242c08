"""Typed results of the five operations, each with a JSON-ready ``to_dict()``.

The dictionaries are what the CLI prints with ``--json``, what the MCP server
returns and what the API loop hands back to a model, so their keys are part of
the public contract. Optional keys are left out rather than set to ``null``
(a snippet in heading-only mode, a hint when there is nothing to say), which
keeps tool results short for a model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


def _location(sid: str, doc: str, heading_path: tuple[str, ...], url: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": sid, "doc": doc}
    if url is not None:
        out["url"] = url  # only in a store with links (contextpull/contents/links.py)
    out["heading_path"] = list(heading_path)
    return out


def _pointer(
    sid: str,
    doc: str,
    heading_path: tuple[str, ...],
    kind: str,
    pages: tuple[int, int] | None = None,
    url: str | None = None,
) -> dict[str, Any]:
    out = {**_location(sid, doc, heading_path, url), "kind": kind}
    if pages is not None:
        out["pages"] = list(pages)  # first and last page, for documents that have pages (PDF)
    return out


@dataclass(frozen=True)
class IndexResult:
    """The index text: the whole stored index, or the documents under ``prefix``."""

    text: str
    prefix: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"text": self.text}
        if self.prefix is not None:
            out["prefix"] = self.prefix
        return out


@dataclass(frozen=True)
class SearchHit:
    """A pointer to a matching section; ``snippet`` is ``None`` in heading-only mode.

    ``match`` says how it matched: ``phrase`` (the query's words in a row),
    ``all`` (every word, or a form of it) or ``any`` (some word), or ``vector`` for a hybrid hit found only by its
    vector. ``score`` never increases down a result list. It is for callers of the library (a fusion, a
    threshold of their own) and the CLI's text; the tool result (``to_dict``) carries the order and ``match``
    only: a relevance score has no unit a model could use, and a change to the analysis would change every
    score a recorded run was shown (docs/adr/027-tool-results-show-order-not-score.md).
    """

    id: str
    doc: str
    heading_path: tuple[str, ...]
    kind: str
    score: float
    match: str
    snippet: str | None = None
    pages: tuple[int, int] | None = None
    url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = _pointer(self.id, self.doc, self.heading_path, self.kind, self.pages, self.url)
        out["match"] = self.match
        if self.snippet is not None:
            out["snippet"] = self.snippet
        return out


@dataclass(frozen=True)
class SearchResult:
    """Hits best first; ``mode`` says how they were ranked (``lexical`` or ``hybrid``).

    ``weak`` flags hits that are no strong match for the query (the rule is
    :func:`contextpull.ops.operations.weak_match`); the hint then says what to try.
    """

    query: str
    hits: tuple[SearchHit, ...]
    hint: str | None = None
    mode: str = "lexical"
    weak: bool = False

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"query": self.query, "hits": [hit.to_dict() for hit in self.hits]}
        if self.mode != "lexical":
            out["mode"] = self.mode
        if self.weak:
            out["weak"] = True
        if self.hint:
            out["hint"] = self.hint
        return out


@dataclass(frozen=True)
class SectionView:
    """A section's verbatim text with its place in the document.

    For a table continuation ``text`` starts with the table's header and
    separator rows (``table_header_added`` is then true), so the part can be
    read alone. ``context`` is true for sections shown around the one asked for.
    """

    id: str
    doc: str
    heading_path: tuple[str, ...]
    kind: str
    text: str
    table_header_added: bool = False
    context: bool = False
    pages: tuple[int, int] | None = None
    url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = _pointer(self.id, self.doc, self.heading_path, self.kind, self.pages, self.url)
        out["text"] = self.text
        if self.table_header_added:
            out["table_header_added"] = True
        if self.context:
            out["context"] = True
        return out


@dataclass(frozen=True)
class ReadResult:
    """The section asked for, its neighbours' ids, and optional context sections."""

    section: SectionView
    prev_id: str | None
    next_id: str | None
    before: tuple[SectionView, ...] = ()
    after: tuple[SectionView, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = self.section.to_dict()
        out["prev_id"] = self.prev_id
        out["next_id"] = self.next_id
        if self.before or self.after:
            out["before"] = [view.to_dict() for view in self.before]
            out["after"] = [view.to_dict() for view in self.after]
        return out


@dataclass(frozen=True)
class NeighboursResult:
    """Sections adjacent to ``id`` within its document, and a continued table's header section."""

    id: str
    before: tuple[SectionView, ...]
    after: tuple[SectionView, ...]
    table_header_section: SectionView | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "before": [view.to_dict() for view in self.before],
            "after": [view.to_dict() for view in self.after],
        }
        if self.table_header_section is not None:
            out["table_header_section"] = self.table_header_section.to_dict()
        return out


@dataclass(frozen=True)
class GrepLine:
    """A matching line (trimmed around the match) and its 1-based line number in the document's file."""

    line_number: int
    line: str

    def to_dict(self) -> dict[str, Any]:
        return {"line_number": self.line_number, "line": self.line}


@dataclass(frozen=True)
class GrepMatch:
    """A matching section: its first matching line, and the next ones when more were asked for.

    ``line_number`` counts lines in the document's file, so an editor opens
    the file at it. ``more_lines`` is empty unless the caller asked for more
    than one line per section (the CLI does; the tool shows one).
    """

    id: str
    doc: str
    heading_path: tuple[str, ...]
    line_number: int
    line: str
    more_lines: tuple[GrepLine, ...] = ()
    url: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            **_location(self.id, self.doc, self.heading_path, self.url),
            "line_number": self.line_number,
            "line": self.line,
        }
        if self.more_lines:
            out["more_lines"] = [line.to_dict() for line in self.more_lines]
        return out


@dataclass(frozen=True)
class GrepResult:
    """Matches in document order; ``truncated`` when more sections matched (or the scan stopped)."""

    pattern: str
    regex: bool
    matches: tuple[GrepMatch, ...]
    truncated: bool
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "pattern": self.pattern,
            "regex": self.regex,
            "matches": [match.to_dict() for match in self.matches],
            "truncated": self.truncated,
        }
        if self.hint:
            out["hint"] = self.hint
        return out
