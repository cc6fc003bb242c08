"""``contextpull serve --transport http`` as a real server on a loopback port.

The SDK's streamable-HTTP client does the round trip; raw httpx requests check
the guards a shared deployment relies on: bearer token, Host/Origin checks
against DNS rebinding, and the request-size limit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from contextpull.ingestion.run import default_store_path, ingest
from contextpull.store.connection import Store
from contextpull.tools.instructions import server_instructions
from server_support import ServerProcess, copy_corpus, http_server

TOKEN = "s3cret-token-for-tests"
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = copy_corpus(tmp_path_factory.mktemp("http") / "corpus")
    ingest(corpus)
    return default_store_path(corpus)


@pytest.fixture(scope="module")
def served(store: Path) -> Iterator[ServerProcess]:
    with http_server(store, "--log", env={"CONTEXTPULL_TOKEN": TOKEN}) as server:
        yield server


def raw_post(url: str, body: bytes, **headers: str) -> httpx.Response:
    return httpx.post(url, content=body, headers={**MCP_HEADERS, **headers}, timeout=30)


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.mark.anyio
@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_sdk_client_round_trip_over_http(served: ServerProcess, store: Path, mode: str) -> None:
    async with (
        httpx2.AsyncClient(headers=bearer(), timeout=30) as http,
        Client(streamable_http_client(served.url, http_client=http), mode=mode) as client,
    ):
        with Store.open(store) as opened:
            assert client.instructions == server_instructions(opened.index_text)
        found = await client.call_tool("search", {"query": "merchant key"})
        hits = json.loads(found.content[0].text)["hits"]  # type: ignore[union-attr]
        read = await client.call_tool("read", {"id": hits[0]["id"]})
        assert json.loads(read.content[0].text)["id"] == hits[0]["id"]  # type: ignore[union-attr]
        missing = await client.call_tool("read", {"id": "no/such.md#0"})
        assert missing.is_error
    assert any(line.startswith("contextpull: read ") for line in served.stderr)


def test_raw_initialize_with_the_token_is_answered(served: ServerProcess) -> None:
    response = raw_post(served.url, json.dumps(INITIALIZE).encode(), **bearer())
    assert response.status_code == 200, response.text
    assert "guides/install.md" in response.json()["result"]["instructions"]


@pytest.mark.parametrize("headers", [{}, bearer("wrong"), {"Authorization": TOKEN}, {"Authorization": "Basic x"}])
def test_requests_without_the_token_are_refused(served: ServerProcess, headers: dict[str, str]) -> None:
    response = raw_post(served.url, json.dumps(INITIALIZE).encode(), **headers)
    assert response.status_code == 401
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert response.json()["error"] == "unauthorized"
    assert httpx.get(served.url, headers=headers, timeout=30).status_code == 401


def test_a_foreign_host_or_origin_is_refused(served: ServerProcess) -> None:
    port = urlsplit(served.url).port
    body = json.dumps(INITIALIZE).encode()
    assert raw_post(served.url, body, Host=f"attacker.example:{port}", **bearer()).status_code == 421
    assert raw_post(served.url, body, Host="127.0.0.1:1", **bearer()).status_code == 421
    assert raw_post(served.url, body, Origin="http://attacker.example", **bearer()).status_code == 403
    assert (
        raw_post(served.url, body, Host=f"localhost:{port}", Origin=f"http://localhost:{port}", **bearer()).status_code
        == 200
    )


def test_an_oversize_body_is_refused(served: ServerProcess) -> None:
    huge = dict(INITIALIZE, padding="x" * (1024 * 1024 + 1))
    assert raw_post(served.url, json.dumps(huge).encode(), **bearer()).status_code == 413


def test_without_a_token_the_server_is_open_on_loopback(store: Path) -> None:
    with http_server(store, "--allow-host", "docs.internal") as server:
        body = json.dumps(INITIALIZE).encode()
        port = urlsplit(server.url).port
        assert urlsplit(server.url).hostname == "127.0.0.1"
        assert raw_post(server.url, body).status_code == 200
        # A name the operator allowed (say, behind a proxy) passes with or without the port.
        assert raw_post(server.url, body, Host="docs.internal").status_code == 200
        assert raw_post(server.url, body, Host=f"docs.internal:{port}").status_code == 200
        assert raw_post(server.url, body, Host="docs.internal.attacker.example").status_code == 421


@pytest.mark.anyio
async def test_stateless_mode_serves_the_sdk_client(store: Path) -> None:
    with http_server(store, "--stateless") as server:
        async with Client(server.url, mode="legacy") as client:
            found = await client.call_tool("search", {"query": "merchant key"})
            assert not found.is_error
            hits = json.loads(found.content[0].text)["hits"]  # type: ignore[union-attr]
            assert hits


def test_healthz_answers_a_load_balancer_without_the_token(served: ServerProcess, store: Path) -> None:
    """A balancer's check carries no token and dials the replica by any name; it learns the store's identity."""
    health = served.url.replace("/mcp", "/healthz")
    answer = httpx.get(health, headers={"Host": "replica-3.internal"}, timeout=30)
    assert answer.status_code == 200 and answer.headers["cache-control"] == "no-store"
    with Store.open(store) as opened:
        assert answer.json() == {
            "status": "ok",
            "corpus_fingerprint": opened.fingerprint,
            "format_version": opened.format_version,
            "sections": opened.section_total(),
        }
    assert httpx.head(health, timeout=30).status_code == 200
    # only the health path is open: the MCP endpoint still wants the token
    assert httpx.get(served.url.replace("/mcp", "/healthz/x"), timeout=30).status_code == 401


def test_healthz_is_503_when_the_store_is_gone(tmp_path: Path) -> None:
    from contextpull.server.health import probe

    status, body = probe(tmp_path / "missing.sqlite")
    assert status == 503 and body["status"] == "unavailable" and body["error"]
