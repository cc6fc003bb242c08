"""Limits that keep the HTTP server serving whatever clients do on the wire.

Without them, 1,100 sockets that never finish their headers locked every
client out of a server with 1,024 descriptors, and 10,000 ``initialize``
calls in 15 s left every new client with 503 for 30 minutes while memory grew
from 74 to 708 MB (docs/reliability.md). So:

* a connection must complete its request headers within ``header_timeout_s``
  of connecting or of its previous response, and its body within
  ``body_timeout_s`` of its headers, else it is closed; an idle keep-alive
  connection is closed after ``keep_alive_s``;
* at most ``max_connections`` connections are open at once (well below the
  process's descriptor limit). A connection over the cap closes the one that
  has waited longest on its client (headers or body not sent, or idle), so
  1,024 sockets that send headers and then nothing delay a new client by
  nothing; only when every connection is being served is the new one closed;
* a session with no request for ``session_idle_s`` ends, and at
  ``max_sessions`` the least recently used idle session, or else a session
  that only holds its ``GET`` stream open (this server sends nothing on it),
  is evicted to admit a new client, rather than the new client being refused.
"""

from __future__ import annotations

import asyncio
import logging
import math
import resource
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from starlette.types import ASGIApp, Receive, Scope, Send

if TYPE_CHECKING:  # the CLI reads HttpLimits without loading the server stack
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from uvicorn.protocols.http.h11_impl import H11Protocol

SESSION_HEADER = b"mcp-session-id"


def _descriptor_cap() -> int:
    """Half the soft descriptor limit: the rest is for the store, logs and the SDK."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return 1024 if soft == resource.RLIM_INFINITY else max(16, soft // 2)


@dataclass(frozen=True)
class HttpLimits:
    """What one HTTP server allows; every field can be set from ``contextpull serve``."""

    header_timeout_s: float = 10.0
    keep_alive_s: float = 5.0
    max_connections: int = 0  # 0: half the descriptor limit, at most 1,024
    session_idle_s: float = 600.0
    max_sessions: int = 256
    body_timeout_s: float = 10.0  # request bodies are at most 4 MiB (MAX_REQUEST_BYTES)

    def __post_init__(self) -> None:
        timeouts = (self.header_timeout_s, self.keep_alive_s, self.session_idle_s, self.body_timeout_s)
        if min(timeouts) <= 0 or self.max_sessions < 1:
            raise ValueError("HTTP limits must be positive")

    @property
    def connections(self) -> int:
        return self.max_connections or min(1024, _descriptor_cap())


DEFAULT_LIMITS = HttpLimits()


def guarded_protocol(limits: HttpLimits) -> type[H11Protocol]:
    """uvicorn's h11 protocol with a header deadline and a connection cap."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _deadline: asyncio.TimerHandle | None = None
        #: when this connection connected or last received request headers: of the connections
        #: waiting on their clients, the one with the oldest mark makes room at the cap
        _since: float = 0.0

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._since = self.loop.time()
            if len(self.connections) > limits.connections and not self._make_room():
                transport.abort()  # every connection is being served: refuse this one, free its descriptor
                return
            self._arm(limits.header_timeout_s)

        def data_received(self, data: bytes) -> None:
            waiting = self.cycle is None or self.cycle.response_complete
            before = self.cycle
            super().data_received(data)
            if self.cycle is not before:  # a request's headers arrived
                self._disarm()
                self._since = self.loop.time()
                if self.cycle is not None and self.cycle.more_body:
                    self._arm(limits.body_timeout_s)
            elif self.cycle is not None and not self.cycle.more_body and not self.cycle.response_complete:
                self._disarm()  # the body is complete: the app has it
            elif waiting and self._deadline is None:
                self._arm(limits.header_timeout_s)

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def waiting_on_client(self) -> bool:
            """True while the client owes bytes: headers, the rest of a body, or a next request."""
            cycle = self.cycle
            return cycle is None or cycle.response_complete or cycle.more_body

        def _make_room(self) -> bool:
            waiting = [c for c in self.connections if isinstance(c, GuardedH11Protocol) and c is not self]
            waiting = [c for c in waiting if c.waiting_on_client()]
            if not waiting:
                return False
            min(waiting, key=lambda c: c._since).transport.abort()
            return True

        def _arm(self, seconds: float) -> None:
            self._deadline = self.loop.call_later(seconds, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if self.transport.is_closing():
                return
            if self.cycle is not None and self.cycle.more_body and not self.cycle.response_complete:
                self.transport.abort()  # a body that stopped arriving: the app sees a disconnect
                return
            if self.cycle is None or self.cycle.response_complete:
                if self.conn.our_state in (h11.IDLE, h11.DONE):
                    try:
                        self.conn.send(h11.ConnectionClosed())
                    except h11.LocalProtocolError:
                        pass
                self.transport.close()

    return GuardedH11Protocol


class SessionEvictor:
    """ASGI wrapper: a new client at the session cap replaces the least recently used idle session,
    or else the oldest session that only holds its GET stream.

    It reads the MCP SDK's session table (``_server_instances``) and ends a
    session the way the SDK does itself (``_discard_session``); the SDK's
    own cap stays one above ours, so its 503 only answers when every session
    is busy serving a request.
    """

    def __init__(self, app: ASGIApp, manager: StreamableHTTPSessionManager, max_sessions: int) -> None:
        self.app = app
        self.manager = manager
        self.max_sessions = max_sessions
        self.evicted = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST" and not _has_session(scope):
            await self._make_room()
        await self.app(scope, receive, send)

    async def _make_room(self) -> None:
        sessions: dict[str, Any] = self.manager._server_instances
        while len(sessions) >= self.max_sessions:
            ranked = [
                (_busy_rank(transport), _last_used(transport), order, session_id)
                for order, (session_id, transport) in enumerate(sessions.items())
            ]
            evictable = [entry for entry in ranked if entry[0] < 2]
            if not evictable:
                return  # every session is serving a request: the SDK answers 503
            *_, oldest = min(evictable)
            self.evicted += 1
            await self.manager._discard_session(oldest, sessions[oldest])


def _busy_rank(transport: Any) -> int:
    """0: idle; 1: only its GET stream is open (nothing is ever sent on it); 2: serving a request."""
    from mcp.server.streamable_http import GET_STREAM_KEY

    in_flight = int(getattr(transport, "_requests_in_flight", 0))
    if not in_flight:
        return 0
    streaming = GET_STREAM_KEY in getattr(transport, "_request_streams", {})
    return 1 if in_flight == 1 and streaming else 2


class QuietDisconnects(logging.Filter):
    """Drops the MCP SDK's traceback for a client that left mid-request: its own choice, not a fault.

    The SDK logs every failed body read with its traceback (528 bytes each);
    1,024 clients of a slow-body attack wrote 1,024 of them.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        from starlette.requests import ClientDisconnect

        return not (record.exc_info and isinstance(record.exc_info[1], ClientDisconnect))


def quiet_disconnects() -> None:
    """Install :class:`QuietDisconnects` on the SDK's HTTP transport logger (once)."""
    logger = logging.getLogger("mcp.server.streamable_http")
    if not any(isinstance(f, QuietDisconnects) for f in logger.filters):
        logger.addFilter(QuietDisconnects())


def _has_session(scope: Scope) -> bool:
    return any(name == SESSION_HEADER for name, _ in scope["headers"])


def _last_used(transport: Any) -> float:
    """When the session's idle countdown started (its deadline; earlier means older)."""
    scope = getattr(transport, "idle_scope", None)
    deadline = getattr(scope, "deadline", math.inf)
    return float(deadline)
