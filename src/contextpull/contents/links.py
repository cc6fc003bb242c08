"""Where a section can be opened in a browser: a collection's base URL and its pages' URLs.

A store built from a documentation site knows every page's URL (the crawl
recorded them); a folder or a git checkout is given a base URL by the user
(``--base-url https://github.com/org/repo/blob/main/docs/``), and a document's
URL is then the base joined with its path. The section's anchor is its
heading as the common renderers slug it (GitHub, MkDocs, Docusaurus: lower
case, punctuation dropped, spaces to hyphens); a PDF section opens at its
first page (``#page=N``, which browsers' PDF viewers follow).

The links are kept in the store's meta as one JSON value, written by an
ingest and read by every operation, so a re-ingest that changes them is seen
by a running server on its next call. A store without links gives no URLs and
its results are exactly what they were before links existed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from ..records import SIBLING_SEPARATOR

#: the store meta key that holds a store's links
META_KEY = "links"
_DROPPED = re.compile(r"[^\w\- ]", re.UNICODE)


class BadBaseUrl(ValueError):
    """A base URL that is not an absolute http(s) URL."""


def check_base_url(url: str) -> str:
    """``url`` as a base: absolute http(s), ending with ``/`` so paths join below it."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise BadBaseUrl(f"the base URL {url!r} is not an absolute http(s) URL")
    return url if url.endswith("/") else url + "/"


def anchor(heading: str) -> str:
    """The fragment a renderer gives ``heading``: lower case, punctuation dropped, spaces to hyphens."""
    return _DROPPED.sub("", heading.strip().lower()).replace(" ", "-")


@dataclass(frozen=True)
class Links:
    """A store's base URL (may be empty) and the URL of each page it knows exactly (``path -> URL``)."""

    base: str = ""
    pages: Mapping[str, str] = field(default_factory=dict)

    def page(self, doc: str) -> str | None:
        """The URL of document ``doc``: recorded, else the base joined with its path, else none."""
        known = self.pages.get(doc)
        if known is not None:
            return known
        return self.base + quote(doc) if self.base else None

    def url_for(self, doc: str, heading_path: tuple[str, ...], pages: tuple[int, int] | None = None) -> str | None:
        """The URL of a section: its page, and the anchor of its heading (or its first PDF page)."""
        page = self.page(doc)
        if page is None:
            return None
        if pages is not None:
            return f"{page}#page={pages[0]}"
        # a section merged from several headings ("Deletion; Exceptions") opens at the first of them
        fragment = anchor(heading_path[-1].split(SIBLING_SEPARATOR)[0]) if heading_path else ""
        return f"{page}#{fragment}" if fragment else page

    def to_meta(self) -> str:
        return json.dumps({"base": self.base, "pages": dict(sorted(self.pages.items()))}, ensure_ascii=False)

    @classmethod
    def from_meta(cls, text: str | None) -> Links | None:
        """The links a store's meta holds; ``None`` when it holds none (or a value this code cannot read)."""
        if not text:
            return None
        try:
            data = json.loads(text)
            base, pages = str(data.get("base", "")), {str(k): str(v) for k, v in dict(data.get("pages", {})).items()}
        except (ValueError, TypeError, AttributeError):
            return None
        return cls(base, pages) if base or pages else None
