"""Limits that keep the HTTP server serving whatever clients do on the wire.

Without them, 1,100 sockets that never finish their headers locked every
client out of a server with 1,024 descriptors, and 10,000 ``initialize``
calls in 15 s left every new client with 503 for 30 minutes while memory grew
from 74 to 708 MB (docs/reliability.md). So:

* a connection must complete its request headers within ``header_timeout_s``
  of connecting or of its previous response, else it is closed; an idle
  keep-alive connection is closed after ``keep_alive_s``;
* at most ``max_connections`` connections are open at once (well below the
  process's descriptor limit); one over the cap is closed at once;
* a session with no request for ``session_idle_s`` ends, and at
  ``max_sessions`` the least recently used idle session is evicted to admit a
  new client, rather than the new client being refused.
"""

from __future__ import annotations

import asyncio
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

    def __post_init__(self) -> None:
        if min(self.header_timeout_s, self.keep_alive_s, self.session_idle_s) <= 0 or self.max_sessions < 1:
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

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > limits.connections:
                transport.abort()  # descriptors are what an attack exhausts: free this one now
                return
            self._arm()

        def data_received(self, data: bytes) -> None:
            waiting = self.cycle is None or self.cycle.response_complete
            before = self.cycle
            super().data_received(data)
            if self.cycle is not before:
                self._disarm()  # a request's headers arrived
            elif waiting and self._deadline is None:
                self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

        def _arm(self) -> None:
            self._deadline = self.loop.call_later(limits.header_timeout_s, self._expire)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _expire(self) -> None:
            self._deadline = None
            if (self.cycle is None or self.cycle.response_complete) and not self.transport.is_closing():
                if self.conn.our_state in (h11.IDLE, h11.DONE):
                    try:
                        self.conn.send(h11.ConnectionClosed())
                    except h11.LocalProtocolError:
                        pass
                self.transport.close()

    return GuardedH11Protocol


class SessionEvictor:
    """ASGI wrapper: a new client at the session cap replaces the least recently used idle session.

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
            idle = [
                (_last_used(transport), session_id)
                for session_id, transport in sessions.items()
                if getattr(transport, "_requests_in_flight", 0) == 0
            ]
            if not idle:
                return  # every session is busy: the SDK answers 503
            _, oldest = min(idle)
            self.evicted += 1
            await self.manager._discard_session(oldest, sessions[oldest])


def _has_session(scope: Scope) -> bool:
    return any(name == SESSION_HEADER for name, _ in scope["headers"])


def _last_used(transport: Any) -> float:
    """When the session's idle countdown started (its deadline; earlier means older)."""
    scope = getattr(transport, "idle_scope", None)
    deadline = getattr(scope, "deadline", math.inf)
    return float(deadline)
