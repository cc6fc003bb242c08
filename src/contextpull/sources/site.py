"""A documentation site, one file, or an ``llms.txt`` over HTTP as a corpus, fetched into a local folder.

``SiteSource(url)`` decides what the URL is:

* a page or folder (``https://example.org/docs/``): a crawl within the URL's
  folder, seeded with the site's ``sitemap.xml`` entries under it, following
  the links of every HTML page (no query strings, no fragments);
* a document (``…/guide.md``, ``…/manual.pdf``: a suffix ingest reads): that file;
* ``…/llms.txt``: the file and the pages it links on the same host, one hop;
  ``…/llms-full.txt``: the one file (both stored as Markdown, which they are).

Every request honours ``robots.txt`` (user agent ``contextpull``), waits
``delay_s`` after the previous one (or the site's ``Crawl-delay`` when
longer), and the crawl stops at ``max_pages`` (defaults below), saying how
many pages it left. Pages are saved under the URL's path (``guide/`` →
``guide/index.html``) so ids read like the site; HTML goes through the HTML
parser like any local page.

Re-fetching sends each page's ``ETag`` / ``Last-Modified`` back; a page the
server reports unchanged (304) is not downloaded again and its file keeps its
time, so the ingest after it does not re-read it. A page that fails on a
re-fetch keeps its previous copy. Downloads land beside the copy and are moved
in only when the crawl is done; when even the first page cannot be fetched,
:class:`SourceError` is raised and the old copy stays as it was.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import time
import urllib.error
import urllib.request
import urllib.robotparser
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urldefrag, urljoin, urlsplit
from xml.etree import ElementTree

from .._version import __version__
from ..parse.formats import format_for
from .folders import safe_name, source_folder
from .git import SourceError
from .kinds import DEFAULT_DELAY_S, DEFAULT_MAX_PAGES

REQUEST_TIMEOUT_S = 30.0
#: a page larger than this is skipped (a docs page is rarely over a megabyte; a PDF manual may be)
MAX_PAGE_BYTES = 50_000_000
#: sitemap files read at most (a sitemap index names several)
MAX_SITEMAPS = 20
#: the file in the copy that records every page's URL and validators (hidden: discovery skips it)
MANIFEST = ".contextpull-site.json"
USER_AGENT = f"contextpull/{__version__}"
_HTML_TYPES = ("text/html", "application/xhtml+xml")
_LLMS_FILES = ("llms.txt", "llms-full.txt")
_SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Page:
    """One saved page: where it came from, where it is in the copy, and the validators the server gave."""

    url: str
    path: str
    etag: str | None = None
    last_modified: str | None = None


@dataclass
class Crawled:
    """What a fetch brought: the pages kept, how many were downloaded, and every page skipped with its reason."""

    url: str
    folder: str
    pages: int = 0
    downloaded: int = 0
    unchanged: int = 0
    kept: int = 0
    left: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def describe(self) -> str:
        """One line for the ingest report."""
        parts = [f"{self.pages:,} pages: {self.downloaded:,} downloaded, {self.unchanged:,} unchanged"]
        if self.kept:
            parts.append(f"{self.kept:,} kept from the last fetch")
        if self.left:
            parts.append(f"{self.left:,} not fetched (page cap; raise --max-pages)")
        return f"{self.url}, {', '.join(parts)} ({self.folder})"


class _Links(HTMLParser):
    """The ``href`` of every ``<a>`` (and the page's ``<base>``)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.base: str | None = None
        self.hrefs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        href = dict(attrs).get("href")
        if not href:
            return
        if tag == "base" and self.base is None:
            self.base = href
        elif tag == "a":
            self.hrefs.append(href)


class SiteSource:
    """A site, a file or an llms.txt at ``url``, fetched into a folder of the user data folder."""

    def __init__(
        self,
        url: str,
        *,
        max_pages: int = DEFAULT_MAX_PAGES,
        delay_s: float = DEFAULT_DELAY_S,
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise SourceError(f"{url!r} is not an http(s) URL", "give a URL such as https://example.org/docs/")
        if max_pages < 1 or delay_s < 0:
            raise SourceError("--max-pages must be 1 or more and --delay 0 or more", "check the numbers")
        self.url = urldefrag(url)[0]
        self.max_pages = max_pages
        self.delay_s = delay_s
        name = PurePosixPath(parts.path).name
        self.kind = (
            "llms"
            if name == "llms.txt"
            else "file"
            if name == "llms-full.txt" or (format_for(name) not in (None, "html") and "." in name)
            else "site"
        )
        # a last segment without a suffix is a folder (``/docs`` crawls ``/docs/``), as servers treat it
        folder = parts.path if parts.path.endswith("/") or "." not in name else parts.path.rsplit("/", 1)[0] + "/"
        if "." not in name and not folder.endswith("/"):
            folder += "/"
        #: pages are crawled (and named) under this URL
        self.prefix = f"{parts.scheme}://{parts.netloc}{folder}"
        self._last_request = 0.0
        self._robots: urllib.robotparser.RobotFileParser | None = None

    def checkout(self) -> Path:
        """Where the copy lives: one folder per URL, in the user data folder."""
        return source_folder(urlsplit(self.url).netloc or "site", self.url)

    def fetch(self, progress: Progress | None = None) -> Crawled:
        """Fetch the pages beside the copy, then move them in; raises :class:`SourceError` if the first page fails.

        Only downloaded pages are moved into the copy, and pages no longer
        found are removed from it; unchanged pages are not touched, and the
        copy's hidden folders (a store in ``.contextpull/``) are left alone.
        """
        root = self.checkout()
        old = _read_manifest(root)
        root.parent.mkdir(parents=True, exist_ok=True)
        staging = root.parent / f".{root.name}.partial-{os.getpid()}"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        try:
            crawled, pages = self._crawl(root, staging, old, progress or (lambda done, total: None))
            (staging / MANIFEST).write_text(
                json.dumps([asdict(page) for page in pages], indent=1) + "\n", encoding="utf-8"
            )
            _sync(staging, root, pages)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return crawled

    # --- the crawl ---------------------------------------------------------------------------
    def _crawl(self, root: Path, staging: Path, old: dict[str, Page], progress: Progress) -> tuple[Crawled, list[Page]]:
        crawled = Crawled(self.url, str(root))
        queue = [self.url]
        if self.kind == "site":
            queue += self._sitemap_urls()
        seen = set(queue)
        pages: list[Page] = []
        fetched = 0
        while queue and fetched < self.max_pages:
            url = queue.pop(0)
            fetched += 1
            progress(fetched, min(self.max_pages, fetched + len(queue)))
            if not self._allowed(url):
                crawled.skipped.append((url, "disallowed by robots.txt"))
                continue
            page, downloaded, problem = self._get(url, old.get(url), staging, root)
            if url == self.url and problem:  # the site itself is not there: the copy stays as it was
                raise SourceError(
                    f"could not fetch {url}: {problem}", "check the URL and the network, then ingest again"
                )
            if page is None:
                crawled.skipped.append((url, problem))
                continue
            if problem:
                crawled.kept += 1
                crawled.skipped.append((url, f"{problem}; the previous copy is kept"))
            elif downloaded:
                crawled.downloaded += 1
            else:
                crawled.unchanged += 1
            pages.append(page)
            if self.kind == "file" or (self.kind == "llms" and url != self.url):
                continue
            saved = staging / page.path if downloaded else root / page.path
            for link in self._links(saved, url):
                if link not in seen:
                    seen.add(link)
                    queue.append(link)
        crawled.left = len(queue)
        crawled.pages = len(pages)
        return crawled, pages

    def _links(self, saved: Path, url: str) -> list[str]:
        """The crawlable links of a saved page: under the prefix (or, from llms.txt, on its host)."""
        text = saved.read_text(encoding="utf-8", errors="replace")
        if self.kind == "llms":
            hrefs = _markdown_links(text)
            base = url
        elif saved.suffix == ".html":
            parser = _Links()
            parser.feed(text)
            hrefs, base = parser.hrefs, urljoin(url, parser.base or url)
        else:
            return []
        host = urlsplit(self.url).netloc
        out = []
        for href in hrefs:
            link = urldefrag(urljoin(base, href.strip()))[0]
            parts = urlsplit(link)
            if parts.scheme not in ("http", "https") or parts.query:
                continue
            if link.startswith(self.prefix) if self.kind == "site" else parts.netloc == host:
                out.append(link)
        return out

    def _get(self, url: str, before: Page | None, staging: Path, root: Path) -> tuple[Page | None, bool, str]:
        """Fetch one page into ``staging``: (the page or None, whether it was downloaded, what went wrong or "").

        A page that failed but has a previous copy comes back with that copy and the problem.
        """
        headers = {"User-Agent": USER_AGENT}
        if before is not None and not (root / before.path).is_file():
            before = None  # the old copy is gone: fetch it whole
        if before and before.etag:
            headers["If-None-Match"] = before.etag
        if before and before.last_modified:
            headers["If-Modified-Since"] = before.last_modified
        try:
            with self._open(url, headers) as response:
                final = urldefrag(response.geturl())[0]
                if self.kind == "site" and not final.startswith(self.prefix):
                    return None, False, f"redirects outside {self.prefix}"
                kind = response.headers.get_content_type()
                length = int(response.headers.get("Content-Length") or 0)
                if length > MAX_PAGE_BYTES:
                    return None, False, f"larger than {MAX_PAGE_BYTES:,} bytes"
                body = response.read(MAX_PAGE_BYTES + 1)
                etag, modified = response.headers.get("ETag"), response.headers.get("Last-Modified")
        except urllib.error.HTTPError as err:
            if err.code == 304 and before is not None:
                return before, False, ""
            return _kept(before, f"HTTP {err.code}")
        except (urllib.error.URLError, OSError, ValueError) as err:
            return _kept(before, f"network error: {getattr(err, 'reason', err)}")
        if len(body) > MAX_PAGE_BYTES:
            return None, False, f"larger than {MAX_PAGE_BYTES:,} bytes"
        path = self._path_for(final, kind)
        if path is None:
            return None, False, f"not a document ingest reads ({kind})"
        target = staging / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(body)
        return Page(url, path, etag, modified), True, ""

    def _path_for(self, url: str, kind: str) -> str | None:
        """Where a page is saved in the copy: its path under the prefix, with a suffix ingest reads."""
        path = unquote(urlsplit(url).path)
        prefix_path = unquote(urlsplit(self.prefix).path)
        rel = path[len(prefix_path) :] if path.startswith(prefix_path) else path.lstrip("/")
        if rel == "" or rel.endswith("/"):
            rel += "index.html"
        parts = [safe_name(part) for part in PurePosixPath(rel).parts if part not in ("", ".", "..")]
        if not parts:
            return None
        rel = "/".join(parts)
        name = parts[-1]
        if name in _LLMS_FILES:
            return rel[: -len(".txt")] + ".md"
        if kind in _HTML_TYPES:
            return rel if format_for(rel) == "html" else rel + ".html"
        if format_for(rel) is not None:
            return rel
        if kind == "text/markdown":
            return rel + ".md"
        return None

    def _open(self, url: str, headers: dict[str, str]) -> http.client.HTTPResponse:
        """One request, at least the crawl delay after the previous one."""
        wait = self._delay() - (time.monotonic() - self._last_request)
        if wait > 0:
            time.sleep(wait)
        try:
            response: http.client.HTTPResponse = urllib.request.urlopen(
                urllib.request.Request(url, headers=headers), timeout=REQUEST_TIMEOUT_S
            )
            return response
        finally:
            self._last_request = time.monotonic()

    # --- robots.txt and sitemaps ----------------------------------------------------------------
    def _robots_file(self) -> urllib.robotparser.RobotFileParser:
        if self._robots is None:
            parts = urlsplit(self.url)
            where = f"{parts.scheme}://{parts.netloc}/robots.txt"
            robots = urllib.robotparser.RobotFileParser(where)
            try:
                with self._open(where, {"User-Agent": USER_AGENT}) as response:
                    robots.parse(response.read(1_000_000).decode("utf-8", "replace").splitlines())
            except urllib.error.HTTPError as err:
                # the convention: no robots.txt (4xx) allows everything, except a denied one (401, 403)
                robots.parse(["User-agent: *", "Disallow: /"] if err.code in (401, 403) else [])
            except (urllib.error.URLError, OSError, ValueError):
                robots.parse([])  # unreachable: the first page's own fetch says whether the site is there
            self._robots = robots
        return self._robots

    def _allowed(self, url: str) -> bool:
        return self._robots_file().can_fetch("contextpull", url)

    def _delay(self) -> float:
        robots = self._robots
        crawl_delay = robots.crawl_delay("contextpull") if robots is not None else None
        return max(self.delay_s, float(crawl_delay or 0))

    def _sitemap_urls(self) -> list[str]:
        """Pages under the prefix that the site's sitemaps list (robots.txt's, else /sitemap.xml)."""
        parts = urlsplit(self.url)
        todo = list(self._robots_file().site_maps() or []) or [f"{parts.scheme}://{parts.netloc}/sitemap.xml"]
        found: list[str] = []
        read = 0
        while todo and read < MAX_SITEMAPS:
            read += 1
            try:
                with self._open(todo.pop(0), {"User-Agent": USER_AGENT}) as response:
                    tree = ElementTree.fromstring(response.read(10_000_000))
            except (urllib.error.URLError, OSError, ValueError, ElementTree.ParseError):
                continue
            for loc in tree.iter(f"{_SITEMAP}loc"):
                link = urldefrag((loc.text or "").strip())[0]
                if tree.tag == f"{_SITEMAP}sitemapindex":
                    todo.append(link)
                elif link.startswith(self.prefix) and not urlsplit(link).query and link not in found:
                    found.append(link)
        return found


def _markdown_links(text: str) -> list[str]:
    """The targets of ``[name](url)`` links, as llms.txt lists its pages."""
    return re.findall(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)", text)


def page_urls(folder: str | Path) -> dict[str, str]:
    """The URL each saved page came from, by its path in the copy (what citations link to)."""
    return {page.path: page.url for page in _read_manifest(Path(folder)).values()}


def _read_manifest(root: Path) -> dict[str, Page]:
    try:
        rows = json.loads((root / MANIFEST).read_text(encoding="utf-8"))
        return {row["url"]: Page(**row) for row in rows}
    except (OSError, ValueError, TypeError, KeyError):
        return {}


def _kept(before: Page | None, reason: str) -> tuple[Page | None, bool, str]:
    """A page that failed: its previous copy stays, unless there is none or the server says it is gone."""
    if before is None or reason in ("HTTP 404", "HTTP 410"):
        return None, False, reason
    return before, False, reason


def _sync(staging: Path, root: Path, pages: list[Page]) -> None:
    """Move the downloaded pages from ``staging`` into ``root``, remove pages no longer there, then the manifest.

    Each page is replaced whole (a rename), and the manifest last, so an
    interrupted sync leaves whole files and a manifest naming older
    validators: the next fetch downloads those pages again.
    """
    root.mkdir(parents=True, exist_ok=True)
    wanted = {page.path for page in pages}
    for page in pages:
        downloaded = staging / page.path
        if downloaded.is_file():
            (root / page.path).parent.mkdir(parents=True, exist_ok=True)
            os.replace(downloaded, root / page.path)
    for path in sorted(root.rglob("*"), reverse=True):
        rel = path.relative_to(root)
        if any(part.startswith(".") for part in rel.parts):
            continue  # the manifest, a store, anything hidden: not pages
        if path.is_file() and rel.as_posix() not in wanted:
            path.unlink()
        elif path.is_dir() and not any(path.iterdir()):
            path.rmdir()
    os.replace(staging / MANIFEST, root / MANIFEST)
