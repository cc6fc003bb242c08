"""``contextpull ingest URL`` for sites, single files and llms.txt: a real HTTP server on loopback."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from cli_support import one_line_error, run
from loopback import port_of, serving

LAST_MODIFIED = "Tue, 01 Dec 2026 10:00:00 GMT"


class Site:
    """Pages by path (content type, body), a log of requests, and the paths that fail (``"*"``: every page)."""

    def __init__(self) -> None:
        self.pages: dict[str, tuple[str, bytes]] = {}
        self.requests: list[tuple[str, dict[str, str]]] = []
        self.broken: dict[str, int] = {}
        self.url = ""  # set once it is served

    def page(self, path: str, text: str, kind: str = "text/html") -> None:
        self.pages[path] = (kind, text.encode())

    def asked(self, path: str) -> list[dict[str, str]]:
        return [headers for asked, headers in self.requests if asked == path]

    def handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.requests.append((self.path, dict(self.headers)))
                status = site.broken.get(self.path) or site.broken.get("*")
                if status and self.path != "/robots.txt":
                    self.send_error(status)
                    return
                if self.path not in site.pages:
                    self.send_error(404)
                    return
                kind, body = site.pages[self.path]
                etag = '"' + hashlib.sha256(body).hexdigest()[:12] + '"'
                if self.headers.get("If-None-Match") == etag:
                    self.send_response(304)
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("ETag", etag)
                self.send_header("Last-Modified", LAST_MODIFIED)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler


@pytest.fixture
def site() -> Iterator[Site]:
    served = Site()
    with serving(served.handler()) as server:
        served.url = base = f"http://127.0.0.1:{port_of(server)}"
        _pages(served, base)
        yield served


def _pages(served: Site, base: str) -> None:
    served.page("/robots.txt", "User-agent: *\nDisallow: /docs/private/\n", "text/plain")
    served.page(
        "/sitemap.xml",
        '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{base}/docs/orphan.html</loc></url><url><loc>{base}/blog/post.html</loc></url></urlset>",
        "application/xml",
    )
    served.page(
        "/docs/",
        "<html><head><title>Docs</title></head><body><main><h1>Docs home</h1><p>Start here.</p>"
        '<a href="guide/install.html#step-2">Install</a> <a href="/outside.html">Elsewhere</a>'
        '<a href="private/secret.html">Secret</a> <a href="broken.html">Broken</a>'
        '<a href="logo.png">Logo</a> <a href="guide/install.html?print=1">Print</a></main></body></html>',
    )
    served.page(
        "/docs/guide/install.html",
        "<html><body><main><h1>Install</h1><p>Run the installer with the flag quetzalmode.</p>"
        '<a href="../">Home</a></main></body></html>',
    )
    served.page(
        "/docs/orphan.html", "<html><body><h1>Orphan</h1><p>Only the sitemap links the heronpage.</p></body></html>"
    )
    served.page("/docs/private/secret.html", "<html><body><h1>Secret</h1></body></html>")
    served.page("/docs/logo.png", "PNG", "image/png")
    served.page("/outside.html", "<html><body><h1>Outside</h1></body></html>")


def ingest(*args: str, cwd: Path) -> dict:
    proc = run("ingest", *args, "--delay", "0", "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def search_ids(query: str, cwd: Path) -> list[str]:
    found = run("search", query, "--json", cwd=cwd)
    assert found.returncode == 0, found.stderr
    return [hit["id"] for hit in json.loads(found.stdout)["hits"]]


def test_a_site_is_crawled_within_its_folder_with_robots_sitemap_and_a_reason_for_every_skip(
    site: Site, tmp_path: Path
) -> None:
    report = ingest(f"{site.url}/docs/", cwd=tmp_path)
    source = report["source"]
    assert report["documents"] == 3 and source["pages"] == 3 and source["downloaded"] == 3
    folder = Path(source["folder"])
    saved = sorted(
        p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file() and ".contextpull" not in p.parts
    )
    assert [p for p in saved if not p.startswith(".")] == ["guide/install.html", "index.html", "orphan.html"]
    skipped = dict(map(tuple, source["skipped"]))
    assert skipped == {
        f"{site.url}/docs/private/secret.html": "disallowed by robots.txt",
        f"{site.url}/docs/broken.html": "HTTP 404",
        f"{site.url}/docs/logo.png": "not a document ingest reads (image/png)",
    }
    assert not site.asked("/outside.html") and not site.asked("/blog/post.html")  # outside the folder
    assert not site.asked("/docs/private/secret.html")  # robots.txt is read before the page
    assert not any("?" in path for path, _ in site.requests)  # query strings are not followed
    assert all(headers.get("User-Agent", "").startswith("contextpull/") for _, headers in site.requests)
    assert search_ids("quetzalmode", tmp_path)[:1] == ["guide/install.html#0"]
    assert search_ids("heronpage", tmp_path)[:1] == ["orphan.html#0"]


def test_hits_from_a_site_link_to_the_pages_they_came_from(site: Site, tmp_path: Path) -> None:
    ingest(f"{site.url}/docs/", "--collection", "site", cwd=tmp_path)
    found = run("search", "quetzalmode", "--collection", "site", "--json", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    hit = json.loads(found.stdout)["hits"][0]
    assert hit["url"] == f"{site.url}/docs/guide/install.html#install"
    home = json.loads(run("read", "index.html#0", "--collection", "site", "--json", cwd=tmp_path).stdout)
    assert home["url"] == f"{site.url}/docs/#docs-home"  # the folder URL the page was fetched as


def test_re_ingest_downloads_only_changed_pages_and_re_reads_only_those(site: Site, tmp_path: Path) -> None:
    ingest(f"{site.url}/docs/", cwd=tmp_path)
    site.page("/docs/orphan.html", "<html><body><h1>Orphan</h1><p>Now it mentions the ibispage.</p></body></html>")
    site.requests.clear()
    again = ingest(f"{site.url}/docs/", cwd=tmp_path)
    assert (again["source"]["downloaded"], again["source"]["unchanged"]) == (1, 2)
    assert (again["changed"], again["unchanged"]) == (1, 2)
    assert site.asked("/docs/guide/install.html")[0].get("If-None-Match")  # the validator went back
    assert search_ids("ibispage", tmp_path)[:1] == ["orphan.html#0"]
    del site.pages["/docs/orphan.html"]
    gone = ingest(f"{site.url}/docs/", cwd=tmp_path)
    assert (gone["deleted"], gone["documents"]) == (1, 2)


def test_the_page_cap_stops_the_crawl_and_says_how_many_were_left(site: Site, tmp_path: Path) -> None:
    proc = run("ingest", f"{site.url}/docs/", "--delay", "0", "--max-pages", "2", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(
        run("ingest", f"{site.url}/docs/", "--delay", "0", "--max-pages", "2", "--json", cwd=tmp_path).stdout
    )
    assert report["source"]["pages"] <= 2 and report["source"]["left"] >= 1
    assert "not fetched (page cap; raise --max-pages)" in proc.stdout


def test_a_failing_site_leaves_the_copy_and_the_store_as_they_were(site: Site, tmp_path: Path) -> None:
    first = ingest(f"{site.url}/docs/", cwd=tmp_path)
    folder = Path(first["source"]["folder"])
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and ".contextpull" not in p.parts}
    site.broken["*"] = 503
    error = one_line_error(run("ingest", f"{site.url}/docs/", "--delay", "0", cwd=tmp_path))
    assert "could not fetch" in error and "HTTP 503" in error
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file() and ".contextpull" not in p.parts} == before
    assert search_ids("quetzalmode", tmp_path)[:1] == ["guide/install.html#0"]
    # one page failing on a re-fetch keeps its previous copy
    site.broken = {"/docs/guide/install.html": 500}
    site.page("/docs/guide/install.html", "<html><body><h1>Install</h1><p>changed</p></body></html>")
    kept = ingest(f"{site.url}/docs/", cwd=tmp_path)
    assert kept["source"]["kept"] == 1 and kept["documents"] == 3
    assert [f"{site.url}/docs/guide/install.html", "HTTP 500; the previous copy is kept"] in kept["source"]["skipped"]
    assert search_ids("quetzalmode", tmp_path)[:1] == ["guide/install.html#0"]


def test_a_single_file_url_is_ingested_alone(site: Site, tmp_path: Path) -> None:
    site.page("/files/handbook.md", "# Handbook\n\nThe handbook names the pelicanrule.\n", "text/markdown")
    report = ingest(f"{site.url}/files/handbook.md", cwd=tmp_path)
    assert report["documents"] == 1 and report["source"]["pages"] == 1
    assert search_ids("pelicanrule", tmp_path)[:1] == ["handbook.md#0"]


def test_llms_txt_brings_the_pages_it_lists_and_llms_full_txt_is_one_document(site: Site, tmp_path: Path) -> None:
    site.page(
        "/llms.txt",
        "# Project\n\n> A project.\n\n## Docs\n\n"
        f"- [Quickstart]({site.url}/docs/quickstart.md): first steps\n"
        "- [Install](/docs/guide/install.html)\n- [Elsewhere](https://example.invalid/x.md)\n",
        "text/plain",
    )
    site.page("/docs/quickstart.md", "# Quickstart\n\nBegin with the condorstep.\n", "text/markdown")
    report = ingest(f"{site.url}/llms.txt", cwd=tmp_path)
    folder = Path(report["source"]["folder"])
    assert (folder / "llms.md").is_file() and report["documents"] == 3  # llms.md, quickstart, install
    assert not site.asked("/docs/")  # one hop: the listed pages' own links are not followed
    assert search_ids("condorstep", tmp_path)[:1] == ["docs/quickstart.md#0"]
    site.page("/llms-full.txt", "# Project\n\n## Everything\n\nAll of it, including the ospreyfact.\n", "text/plain")
    elsewhere = tmp_path / "full"
    elsewhere.mkdir()
    full = ingest(f"{site.url}/llms-full.txt", cwd=elsewhere)
    assert full["documents"] == 1 and Path(full["source"]["folder"], "llms-full.md").is_file()
    assert search_ids("ospreyfact", elsewhere)[:1] == ["llms-full.md#0"]


def test_site_options_without_a_site_url_and_a_bad_url_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n", encoding="utf-8")
    proc = run("ingest", str(tmp_path / "docs"), "--max-pages", "3", cwd=tmp_path)
    assert proc.returncode == 2 and "--max-pages and --delay go with a site URL" in proc.stderr
    error = one_line_error(run("ingest", "http://127.0.0.1:9/docs/", "--delay", "0", cwd=tmp_path))
    assert "could not fetch http://127.0.0.1:9/docs/" in error
