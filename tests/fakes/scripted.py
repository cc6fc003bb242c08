"""A loopback HTTP server that replays a scripted conversation and records every request.

The provider fakes subclass it with their endpoint, auth check and error body;
the real SDKs talk to it over a real socket, so tests see exactly what the SDK
sent and the SDK parses exactly what a real API would return. A reply with
``events`` goes out as a server-sent-event stream in HTTP chunks, as the
providers stream a response.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import urlsplit

from loopback import serving


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer: a JSON ``body``, or, when ``events`` is set, that ``(event, data)`` stream."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    events: tuple[tuple[str, dict[str, Any]], ...] = ()


@dataclass(frozen=True)
class Request:
    """One request as the server received it (header names lower-cased)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


Script = list[Reply | dict[str, Any]] | Callable[[Request], Reply | dict[str, Any]]


class ScriptedServer:
    """Serve ``script`` on 127.0.0.1: a list answered in order, or a function of the request.

    A plain dict in the script is a 200 JSON body. Requests to another path get
    404, a wrong key gets 401, and a request after the script ran out gets 400,
    each with the provider's error body, so a test fails loudly, never hangs.
    """

    endpoint = "/"
    base_path = ""

    def __init__(self, script: Script, *, api_key: str = "test-key") -> None:
        self.script = script
        self.api_key = api_key
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._next = 0
        self._server: ThreadingHTTPServer | None = None
        self._serving = ExitStack()

    # -- for subclasses -------------------------------------------------
    @staticmethod
    def error_body(status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError

    def presented_key(self, request: Request) -> str | None:
        raise NotImplementedError

    def side_route(self, request: Request) -> Reply | None:
        """The answer to a request for another path than ``endpoint``; ``None`` is 404."""
        return None

    def render(self, request: Request, reply: Reply) -> Reply:
        """The scripted reply as it goes on the wire (a provider fake streams it when asked)."""
        return reply

    # -- lifecycle --------------------------------------------------------
    def __enter__(self) -> Self:
        self._server = self._serving.enter_context(serving(self._handler_class()))
        return self

    def __exit__(self, *exc: object) -> None:
        self._serving.close()

    @property
    def base_url(self) -> str:
        assert self._server is not None, "use the fake as a context manager"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}{self.base_path}"

    @property
    def bodies(self) -> list[Any]:
        """The JSON body of every request so far, in arrival order."""
        with self._lock:
            return [request.body for request in self.requests]

    # -- serving ----------------------------------------------------------
    def _answer(self, request: Request) -> Reply:
        with self._lock:
            self.requests.append(request)
            on_endpoint = urlsplit(request.path).path == self.endpoint
            routed = None if on_endpoint else self.side_route(request)
            if not on_endpoint and routed is None:
                return Reply(404, self.error_body(404, f"fake serves only {self.endpoint}, not {request.path}"))
            if self.presented_key(request) != self.api_key:
                return Reply(401, self.error_body(401, "invalid api key"))
            if routed is not None:
                return routed
            if callable(self.script):
                reply = self.script(request)
            elif self._next < len(self.script):
                reply = self.script[self._next]
                self._next += 1
            else:
                return Reply(400, self.error_body(400, f"fake script exhausted after {self._next} replies"))
        return self.render(request, reply if isinstance(reply, Reply) else Reply(200, reply))

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                self._send(fake._answer(Request("POST", self.path, self._headers(), body)))

            def do_GET(self) -> None:
                self._send(fake._answer(Request("GET", self.path, self._headers(), None)))

            def _headers(self) -> dict[str, str]:
                return {name.lower(): value for name, value in self.headers.items()}

            def _send(self, reply: Reply) -> None:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if reply.events:
                    self._stream(reply.events)
                    return
                payload = json.dumps(reply.body).encode("utf-8")
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def _stream(self, events: tuple[tuple[str, dict[str, Any]], ...]) -> None:
                self.send_header("content-type", "text/event-stream; charset=utf-8")
                self.send_header("cache-control", "no-cache")
                self.send_header("transfer-encoding", "chunked")
                self.end_headers()
                for name, data in events:
                    chunk = f"event: {name}\ndata: {json.dumps(data)}\n\n".encode()
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
