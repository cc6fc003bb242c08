"""``contextpull ui``: the web page and its API, as a real server on a loopback port.

The API is checked with raw HTTP (same payloads as the tools, the guards of
the HTTP MCP server); the page itself in real headless Chromium (Debian's
``chromium`` and ``chromedriver``, which the test command installs where apt
works): load it, type a query, open the first hit, follow a neighbour, and take
screenshots (``CONTEXTPULL_UI_SCREENSHOTS=DIR`` keeps them).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from browser_support import browser, screenshots  # noqa: F401 - the fixture
from contextpull.ingestion.run import default_store_path, ingest
from contextpull.ops.operations import Ops
from contextpull.tools.schemas import call_json
from server_support import ServerProcess, copy_corpus, listening

TOKEN = "ui-test-token"
PAGE_AT = re.compile(r"is at (http://\S+)")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = copy_corpus(tmp_path_factory.mktemp("ui") / "corpus")
    ingest(corpus)
    return default_store_path(corpus)


@pytest.fixture(scope="module")
def page(store: Path) -> Iterator[ServerProcess]:
    with listening(["ui", str(store), "--port", "0"], PAGE_AT, env={"CONTEXTPULL_TOKEN": TOKEN}) as server:
        yield server


def base(server: ServerProcess) -> str:
    return server.url.split("?")[0]


def get(server: ServerProcess, path: str, **headers: str) -> httpx.Response:
    return httpx.get(base(server) + path, headers={"Authorization": f"Bearer {TOKEN}", **headers}, timeout=30)


def test_the_printed_url_carries_the_token_once_and_sets_a_cookie(page: ServerProcess) -> None:
    assert page.url.endswith(f"/?token={TOKEN}")
    assert httpx.get(base(page), timeout=30).status_code == 401
    first = httpx.get(page.url, timeout=30)
    assert first.status_code == 303 and first.headers["location"] == "/"
    cookie = first.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie.replace("samesite", "SameSite")
    with httpx.Client(cookies=first.cookies, timeout=30) as client:
        assert client.get(base(page)).status_code == 200
        assert client.get(base(page) + "api/documents").status_code == 200
    assert httpx.get(page.url.replace(TOKEN, "wrong"), timeout=30).status_code == 401


def test_the_api_answers_with_the_tools_own_payloads(page: ServerProcess, store: Path) -> None:
    with Ops.open(store) as ops:
        for tool, query, arguments in [
            ("search", "q=TX-4419&limit=3", {"query": "TX-4419", "limit": 3}),
            ("search", "q=hotel&in=policies/", {"query": "hotel", "in": ["policies/"]}),
            ("read", "id=reference/spec-sheet.md%232", {"id": "reference/spec-sheet.md#2"}),
            ("neighbours", "id=reference/spec-sheet.md%232", {"id": "reference/spec-sheet.md#2"}),
            ("grep", "pattern=TX-44%5B0-9%5D%7B2%7D&regex=true", {"pattern": "TX-44[0-9]{2}", "regex": True}),
            ("index", "prefix=guides/", {"prefix": "guides/"}),
        ]:
            answer = get(page, f"api/{tool}?{query}")
            assert answer.status_code == 200, answer.text
            assert answer.json() == call_json(ops, tool, arguments)[0]


def test_api_errors_are_one_line_with_what_to_do(page: ServerProcess) -> None:
    unknown = get(page, "api/read?id=guides/nonexist.md%231")
    assert unknown.status_code == 400 and unknown.json()["error"] == "unknown_id"
    hostile = get(page, "api/grep?pattern=(a%2B)%2B%24&regex=1")  # RE2: linear time, no catastrophic backtracking
    assert hostile.status_code == 200 and hostile.json()["matches"] == []
    wrong = get(page, "api/search?q=x&limit=lots")
    assert wrong.status_code == 400 and wrong.json()["message"] == "limit must be a whole number, got 'lots'"
    weak = get(page, "api/search?q=agent+kubernetes").json()
    assert weak["weak"] is True and weak["hint"].startswith("no strong match")


def test_the_guards_of_the_mcp_server_apply(page: ServerProcess) -> None:
    port = urlsplit(page.url).port
    assert get(page, "", Host=f"attacker.example:{port}").status_code == 421
    assert get(page, "api/documents", Origin="http://attacker.example").status_code == 403
    assert get(page, "api/documents", Origin=f"http://localhost:{port}").status_code == 200
    served = get(page, "")
    assert "script-src 'self'" in served.headers["content-security-policy"]
    assert served.headers["x-content-type-options"] == "nosniff"


def test_a_search_opened_by_url_is_in_the_page_as_served(page: ServerProcess, store: Path) -> None:
    html = get(page, "?q=hotel+allowance").text
    state = json.loads(
        re.search(r'<script id="state" type="application/json">(.*?)</script>', html, re.DOTALL).group(1)
    )
    with Ops.open(store) as ops:
        assert state["opened"]["payload"] == call_json(ops, "search", {"query": "hotel allowance"})[0]
    hostile = get(page, "?q=%3C/script%3E%3Cscript%3Ealert(1)%3C/script%3E").text
    assert "</script><script>alert(1)" not in hostile


def test_the_static_files_ship_in_the_package(page: ServerProcess) -> None:
    for name, kind in (("app.js", "javascript"), ("style.css", "css")):
        answer = get(page, f"static/{name}")
        assert answer.status_code == 200 and kind in answer.headers["content-type"] and len(answer.text) > 500
    assert get(page, "static/../../etc/passwd").status_code == 404
    assert get(page, "api/report").status_code == 404  # no bench run yet: the page hides its link


def test_serve_mounts_the_page_beside_the_mcp_endpoint(store: Path) -> None:
    from server_support import http_server

    with http_server(store, "--ui", env={"CONTEXTPULL_TOKEN": TOKEN}) as server:
        printed = "".join(server.announced)
        ui = re.search(r"the web page is at (http://\S+)", printed)
        assert ui and ui.group(1).endswith(f"/ui/?token={TOKEN}")
        root = server.url.removesuffix("/mcp")
        headers = {"Authorization": f"Bearer {TOKEN}"}
        assert httpx.get(f"{root}/ui/api/search?q=refund", headers=headers, timeout=30).json()["hits"]
        page_html = httpx.get(f"{root}/ui/", headers=headers, timeout=30).text
        assert 'src="/ui/static/app.js"' in page_html
        assert httpx.get(f"{root}/ui/", timeout=30).status_code == 401


# --- the page in real headless Chromium ------------------------------------------------------


def test_type_a_query_open_the_first_hit_and_follow_a_neighbour(browser, page: ServerProcess, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 30)
    browser.get(page.url)  # the token URL: the page sets its cookie and drops the token from the address
    wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "#tree button[data-path]")))
    assert "token" not in browser.current_url
    assert "10 documents" in browser.find_element(By.ID, "tree").text

    browser.find_element(By.TAG_NAME, "body").send_keys("/")  # the key that focuses search
    box = browser.switch_to.active_element
    assert box.get_attribute("id") == "q"
    box.send_keys("Currency not supported", Keys.ENTER)
    first = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "ol.hits li a[data-id]")))
    assert "q=Currency+not+supported" in browser.current_url
    assert browser.find_elements(By.CSS_SELECTOR, "ol.hits mark")  # matched terms are marked in the snippets
    meta = browser.find_element(By.CSS_SELECTOR, "ol.hits li .meta").text
    assert meta.split(" · ")[1] in {"phrase", "all", "any"} and "undefined" not in meta  # the tool's fields only
    shots = screenshots(tmp_path)
    browser.save_screenshot(str(shots / "ui-search.png"))

    hit_id = first.get_attribute("data-id")
    first.click()
    wait.until(seen.text_to_be_present_in_element((By.ID, "section-id"), hit_id))
    assert "TX-4419" in browser.find_element(By.ID, "section-text").text
    browser.find_element(By.XPATH, "//button[text()='neighbours']").click()
    neighbour = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, "#neighbours a[data-id]")))
    target = neighbour.get_attribute("data-id")
    neighbour.click()
    wait.until(seen.text_to_be_present_in_element((By.ID, "section-id"), target))
    browser.save_screenshot(str(shots / "ui-section.png"))
    assert (shots / "ui-search.png").stat().st_size > 10_000 and (shots / "ui-section.png").stat().st_size > 10_000

    browser.back()  # history: back to the first hit's section
    wait.until(seen.text_to_be_present_in_element((By.ID, "section-id"), hit_id))


def test_a_table_part_shows_its_header_and_a_weak_search_says_so(browser, page: ServerProcess) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 30)
    browser.get(base(page) + "?id=reference/spec-sheet.md%232")
    text = wait.until(seen.presence_of_element_located((By.ID, "section-text"))).text
    assert text.startswith("| Model | Screen |")
    assert "continues a table" in browser.find_element(By.ID, "view").text
    browser.get(base(page) + "?q=agent+kubernetes")
    hint = wait.until(seen.presence_of_element_located((By.CSS_SELECTOR, ".hint.weak")))
    assert "kubernetes" in hint.text


def test_a_long_section_comes_cut_as_the_model_gets_it_and_reads_on(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as seen
    from selenium.webdriver.support.ui import WebDriverWait

    corpus = tmp_path / "long"
    corpus.mkdir()
    body = "```\n" + "\n".join(f"line {n} of one long code block" for n in range(200)) + "\n```\n"
    (corpus / "long.md").write_text(body, encoding="utf-8")  # a fence is never divided: one long section
    ingest(corpus)
    argv = ["ui", str(default_store_path(corpus)), "--port", "0", "--max-result-chars", "2000"]
    with listening(argv, PAGE_AT) as server:
        wait = WebDriverWait(browser, 30)
        browser.get(base(server) + "?id=long.md%230")
        button = wait.until(seen.presence_of_element_located((By.XPATH, "//button[starts-with(text(), 'read on')]")))
        assert len(browser.find_element(By.ID, "section-text").text) < len(body)
        for _ in range(10):  # each answer is cut to the cap again: read on until the end
            button.click()
            wait.until(seen.staleness_of(button))
            more = browser.find_elements(By.XPATH, "//button[starts-with(text(), 'read on')]")
            if not more:
                break
            button = more[0]
        assert browser.find_element(By.ID, "section-text").text.strip() == body.strip()
