"""The HTTP server against clients that hold sockets or sessions: loopback only, bounded loops."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from contextpull.ingestion.run import default_store_path, ingest
from server_support import ServerProcess, copy_corpus, http_server

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
}
HEADERS = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = copy_corpus(tmp_path_factory.mktemp("rel-http") / "corpus")
    ingest(corpus)
    return default_store_path(corpus)


@pytest.fixture(scope="module")
def served(store: Path) -> Iterator[ServerProcess]:
    limits = ["--header-timeout", "1", "--max-connections", "40", "--max-sessions", "5", "--session-idle", "2"]
    with http_server(store, *limits) as server:
        yield server


def _address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or 80


def _initialize(url: str) -> httpx.Response:
    return httpx.post(url, content=json.dumps(INITIALIZE).encode(), headers=HEADERS, timeout=30)


def _closed_by_server(sock: socket.socket, within: float) -> bool:
    sock.settimeout(within)
    try:
        return sock.recv(1024) == b""
    except TimeoutError:
        return False
    except OSError:
        return True


def test_a_connection_that_never_finishes_its_headers_is_closed(served: ServerProcess) -> None:
    with socket.create_connection(_address(served.url), timeout=5) as sock:
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the rest
        started = time.monotonic()
        assert _closed_by_server(sock, within=10)
        assert time.monotonic() - started < 8


def test_idle_sockets_over_the_cap_do_not_lock_clients_out(served: ServerProcess) -> None:
    held: list[socket.socket] = []
    try:
        for _ in range(60):  # more than --max-connections
            held.append(socket.create_connection(_address(served.url), timeout=5))
        time.sleep(2)  # past the header timeout: the server has dropped them all
        assert _initialize(served.url).status_code == 200
    finally:
        for sock in held:
            sock.close()


def test_at_the_session_cap_an_idle_session_is_evicted_not_the_new_client_refused(served: ServerProcess) -> None:
    sessions = []
    for _ in range(12):  # more than --max-sessions, none ever closed
        response = _initialize(served.url)
        assert response.status_code == 200, response.text
        sessions.append(response.headers["mcp-session-id"])
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    newest = {**HEADERS, "mcp-session-id": sessions[-1], "mcp-protocol-version": "2025-06-18"}
    assert httpx.post(served.url, json=ping, headers=newest, timeout=30).status_code == 200
    oldest = {**newest, "mcp-session-id": sessions[0]}
    assert httpx.post(served.url, json=ping, headers=oldest, timeout=30).status_code == 404


def test_an_idle_session_expires(served: ServerProcess) -> None:
    response = _initialize(served.url)
    session = {**HEADERS, "mcp-session-id": response.headers["mcp-session-id"], "mcp-protocol-version": "2025-06-18"}
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert httpx.post(served.url, json=ping, headers=session, timeout=30).status_code == 200
    time.sleep(4)  # twice --session-idle without a request
    assert httpx.post(served.url, json=ping, headers=session, timeout=30).status_code == 404


def _slow_bodies(url: str, count: int, extra_headers: str = "") -> list[socket.socket]:
    """``count`` connections that send a POST's headers, promise a body and never send it."""
    held = []
    for _ in range(count):
        sock = socket.create_connection(_address(url), timeout=5)
        host, port = _address(url)
        sock.sendall(
            f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
            f"Accept: application/json, text/event-stream\r\n{extra_headers}Content-Length: 1000\r\n\r\n".encode()
        )
        held.append(sock)
    return held


def _served(url: str, headers: dict[str, str] | None = None) -> None:
    """A new client's ``initialize`` is answered 200, while the attack holds (a locked-out client got its
    connection closed or a 503). How fast is a figure of ``benchmarks/reliability.py attacks``, not a test."""
    response = httpx.post(
        url, content=json.dumps(INITIALIZE).encode(), headers={**HEADERS, **(headers or {})}, timeout=30
    )
    assert response.status_code == 200, response.text


def test_bodies_that_never_arrive_over_the_cap_do_not_delay_a_new_client(served: ServerProcess) -> None:
    held = _slow_bodies(served.url, 60)  # more than --max-connections, all past their headers
    try:
        _served(served.url)
        assert _closed_by_server(held[-1], within=15)  # the body timeout (default 10 s) closes the rest
    finally:
        for sock in held:
            sock.close()


def test_with_a_token_unauthenticated_slow_bodies_do_not_lock_clients_out(store: Path) -> None:
    limits = ["--max-connections", "40", "--body-timeout", "30"]
    with http_server(store, *limits, env={"CONTEXTPULL_TOKEN": "s3cret"}) as server:
        held = _slow_bodies(server.url, 60)
        try:
            _served(server.url, {"Authorization": "Bearer s3cret"})
        finally:
            for sock in held:
                sock.close()


def _hold_get_stream(url: str, session: str) -> socket.socket:
    host, port = _address(url)
    sock = socket.create_connection((host, port), timeout=5)
    sock.sendall(
        f"GET /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: text/event-stream\r\n"
        f"mcp-session-id: {session}\r\nmcp-protocol-version: 2025-06-18\r\n\r\n".encode()
    )
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    return sock


def test_sessions_that_only_hold_their_get_stream_make_room_for_a_new_client(store: Path) -> None:
    with http_server(store, "--max-sessions", "5") as server:
        streams = []
        try:
            for _ in range(7):  # past our cap and the SDK's own (one above it), every session streaming
                response = _initialize(server.url)
                assert response.status_code == 200, response.text
                streams.append(_hold_get_stream(server.url, response.headers["mcp-session-id"]))
            _served(server.url)
        finally:
            for sock in streams:
                sock.close()


def test_a_client_that_disconnects_mid_body_leaves_no_traceback_in_the_log(store: Path) -> None:
    with http_server(store) as server:
        for sock in _slow_bodies(server.url, 20):
            sock.sendall(b'{"jsonrpc": "2.0"')
            sock.close()
        _served(server.url)
        time.sleep(1)
        log = "".join(server.stderr)
        assert "Traceback" not in log and "Exception" not in log, log[-2000:]
