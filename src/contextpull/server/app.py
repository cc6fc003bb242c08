"""The MCP surface: the index as instructions and a resource, the five tools as MCP tools.

One :class:`mcp.server.Server` (the SDK's low-level server, so the tool
schemas are exactly :data:`contextpull.tools.TOOLS`, never re-derived from
Python signatures) serves any number of connections over stdio or
streamable HTTP. Guarantees:

* Every connection's instructions are ``store_instructions(store)`` read
  from the store *when the client connects*: a re-ingest while the server
  runs reaches the next session without a restart.
* Every tool call runs on a worker thread with that thread's own read-only
  store connection (sqlite3 connections never cross threads), inside one
  read transaction, so a call sees one committed ingest, never a mix.
* A failing call (unknown id, bad filter, bad pattern, bad or missing
  argument, unknown tool) is a tool result with ``isError: true`` carrying
  ``{"error", "message", "suggestion"}``; the server keeps serving.
"""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, TextIO

import anyio
import mcp_types as types
import uvicorn
from mcp.server import Server, ServerRequestContext
from mcp.server.context import CallNext, HandlerResult
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from starlette.types import ASGIApp

from .._version import __version__
from ..errors import ContextPullError
from ..ops.library import Library
from ..ops.operations import Ops
from ..store.connection import file_identity
from ..tools.budget import DEFAULT_MAX_RESULT_CHARS
from ..tools.instructions import served_notes, server_instructions, store_instructions
from ..tools.schemas import TOOLS, call_json, library_tools
from .health import HealthCheck
from .http_guard import BearerTokenGuard
from .http_limits import DEFAULT_LIMITS, HttpLimits, SessionEvictor, guarded_protocol, quiet_disconnects

SERVER_NAME = "contextpull"
INDEX_URI = "contextpull://index"
INDEX_MIME = "text/markdown"
ENDPOINT = "/mcp"
#: largest HTTP request body accepted; tool arguments are a few hundred bytes
MAX_REQUEST_BYTES = 1024 * 1024
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")

_READ_ONLY = types.ToolAnnotations(
    read_only_hint=True,
    destructive_hint=False,
    idempotent_hint=True,
    open_world_hint=False,
)


class StoreReaders:
    """Per-thread read-only :class:`Ops` over one store file.

    An ingest into an existing store commits in place (WAL), which every new
    read transaction sees; a rebuilt store is renamed over the old file, so a
    thread whose connection still points at the replaced file reopens it.
    Opening is checked once up front so a bad path fails before serving.
    """

    def __init__(self, path: Path, max_result_chars: int = DEFAULT_MAX_RESULT_CHARS) -> None:
        self.path = path
        self.max_result_chars = max_result_chars
        Ops.open(path).close()
        self._local = threading.local()

    def ops(self) -> Ops:
        """This thread's Ops, reopened if the file at ``path`` was replaced."""
        identity = file_identity(self.path)
        held: tuple[tuple[int, int] | None, Ops] | None = getattr(self._local, "held", None)
        if held is not None:
            if held[0] == identity:
                return held[1]
            held[1].close()
            self._local.held = None
        ops = Ops.open(self.path)
        self._local.held = (identity, ops)
        return ops

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Run one tool call on this thread's store: ``(payload, is_error)``.

        Each operation holds one read transaction (:class:`Ops` guarantees
        it), so the call sees one committed ingest.
        """
        try:
            ops = self.ops()
        except ContextPullError as err:
            return err.to_dict(), True
        return call_json(ops, name, arguments, max_chars=self.max_result_chars)

    def tools(self) -> list[dict[str, Any]]:
        return TOOLS

    def instructions(self) -> str:
        """The instructions a connecting client gets: pull discipline plus the current index."""
        return store_instructions(self.ops().store)

    def index_text(self) -> str:
        return self.ops().store.index_text


class LibraryReaders:
    """Per-thread :class:`Library` over named collections, each followed like :class:`StoreReaders` follows
    its store (a re-ingest of one collection reaches the next call)."""

    def __init__(self, stores: Mapping[str, Path], max_result_chars: int = DEFAULT_MAX_RESULT_CHARS) -> None:
        self.members = {name: StoreReaders(Path(path), max_result_chars) for name, path in stores.items()}
        self.max_result_chars = max_result_chars
        self._tools = library_tools(list(self.members))

    def library(self) -> Library:
        return Library({name: readers.ops() for name, readers in self.members.items()})

    def call(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Run one tool call over every collection (or the one it names): ``(payload, is_error)``."""
        try:
            library = self.library()
        except ContextPullError as err:
            return err.to_dict(), True
        return call_json(library, name, arguments, max_chars=self.max_result_chars, tools=self._tools)

    def tools(self) -> list[dict[str, Any]]:
        return self._tools

    def instructions(self) -> str:
        """The discipline, the collections and (when any collection has links) the URL rule, then the index."""
        library = self.library()
        links = any(ops.links() is not None for ops in library.members.values())
        return server_instructions(self.index_text(), served_notes(library.names, links))

    def index_text(self) -> str:
        return self.library().index().text


Readers = StoreReaders | LibraryReaders


class CallLog:
    """One line per tool call on a text stream: tool, arguments, result size, milliseconds."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def __call__(self, name: str, arguments: dict[str, Any], size: int, ms: float, is_error: bool) -> None:
        args = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
        outcome = " error" if is_error else ""
        self._stream.write(f"contextpull: {name} {args} -> {size} bytes {ms:.1f} ms{outcome}\n")
        self._stream.flush()


def mcp_tools(tools: list[dict[str, Any]] = TOOLS) -> list[types.Tool]:
    """The five tools as MCP tools: the exact names, descriptions and schemas of ``tools``."""
    return [
        types.Tool(
            name=tool["name"],
            description=tool["description"],
            input_schema=tool["input_schema"],
            annotations=_READ_ONLY,
        )
        for tool in tools
    ]


def build_server(
    store_path: str | Path | Mapping[str, Path],
    *,
    log: CallLog | None = None,
    max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
) -> Server[Any]:
    """An MCP server over the store at ``store_path`` (opened read-only), or over named collections
    (``{name: store path}``, docs/adr/024-collections-and-links.md).

    Each tool result's JSON is at most ``max_result_chars`` characters. Raises
    the store errors (:class:`~contextpull.errors.StoreMissing` and kin) at
    once if a file is not a readable store.
    """
    readers: Readers = (
        LibraryReaders(store_path, max_result_chars)
        if isinstance(store_path, Mapping)
        else StoreReaders(Path(store_path), max_result_chars)
    )
    tools = mcp_tools(readers.tools())

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=tools)

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        arguments = dict(params.arguments or {})
        started = time.perf_counter()
        payload, is_error = await anyio.to_thread.run_sync(readers.call, params.name, arguments)
        text = json.dumps(payload, ensure_ascii=False)
        if log is not None:
            log(params.name, arguments, len(text.encode("utf-8")), (time.perf_counter() - started) * 1000, is_error)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=payload,
            is_error=is_error,
        )

    async def list_resources(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListResourcesResult:
        return types.ListResourcesResult(
            resources=[
                types.Resource(
                    name="index",
                    title="Corpus index",
                    uri=INDEX_URI,
                    description="The table of contents of the corpus; the same text as the index tool.",
                    mime_type=INDEX_MIME,
                )
            ]
        )

    async def read_resource(
        ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
    ) -> types.ReadResourceResult:
        if params.uri != INDEX_URI:
            raise MCPError(
                code=types.INVALID_PARAMS,
                message=f"unknown resource {params.uri!r}; this server has only {INDEX_URI}",
            )
        text = await anyio.to_thread.run_sync(readers.index_text)
        return types.ReadResourceResult(
            contents=[types.TextResourceContents(uri=INDEX_URI, mime_type=INDEX_MIME, text=text)]
        )

    async def fresh_instructions(ctx: ServerRequestContext[Any], call_next: CallNext) -> HandlerResult:
        # The handshake answer is built from options fixed when the
        # connection opened; the instructions are re-read here instead so a
        # client always starts from the index as it is now.
        result = await call_next(ctx)
        if ctx.method in ("initialize", "server/discover") and isinstance(result, dict):
            result["instructions"] = await anyio.to_thread.run_sync(readers.instructions)
        return result

    server: Server[Any] = Server(
        SERVER_NAME,
        version=__version__,
        title="ContextPull",
        description="An index of a document corpus and five tools that return exact, citable sections.",
        instructions=readers.instructions(),
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_read_resource=read_resource,
    )
    server.middleware.append(fresh_instructions)
    return server


# --- transports -------------------------------------------------------------
def serve_stdio(server: Server[Any]) -> None:
    """Serve one client on stdin/stdout until it closes stdin; stdout carries only MCP."""

    async def run() -> None:
        async with stdio_server() as (read_stream, write_stream):
            await server.run(read_stream, write_stream, server.create_initialization_options())

    anyio.run(run)


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (``port`` 0 picks a free one).

    The protocol is named explicitly: asyncio turns Nagle's algorithm off
    only on sockets whose ``proto`` is TCP, and with it on every response
    written in two parts waits ~40 ms for the client's delayed ACK.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        sock.listen(socket.SOMAXCONN)
    except BaseException:
        sock.close()
        raise
    return sock


def url_host(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def host_names(host: str, port: int, allowed_hosts: Iterable[str] = ()) -> list[str]:
    """The ``Host`` values that name this server: the bound address or a loopback name with ``port``,
    and each of ``allowed_hosts`` with ``port`` or none (as behind a proxy on a default port).

    The MCP endpoint's DNS-rebinding check and the web page's guard both allow exactly these.
    """
    local = [f"{name}:{port}" for name in dict.fromkeys([url_host(host), *LOOPBACK_NAMES])]
    extra = [form for name in allowed_hosts for form in (url_host(name), f"{url_host(name)}:{port}")]
    return list(dict.fromkeys([*local, *extra]))


def http_app(
    server: Server[Any],
    *,
    host: str,
    port: int,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    stateless: bool = False,
    limits: HttpLimits = DEFAULT_LIMITS,
    health: Path | None = None,
) -> ASGIApp:
    """The streamable-HTTP ASGI app at ``/mcp`` with the shared-deployment guards.

    Host and Origin must name this server against DNS rebinding: the bound
    address or a loopback name with this port, or an ``allowed_hosts`` name
    (with this port or none, as behind a proxy on a default port). Bodies
    over :data:`MAX_REQUEST_BYTES` get 413; with a ``token`` every request
    needs ``Authorization: Bearer <token>``. Answers are single JSON bodies
    rather than SSE streams: no tool streams progress. Sessions expire and
    are evicted as :class:`~contextpull.server.http_limits.HttpLimits` says;
    eviction sits behind the token check, so only a client with the token can
    displace a session. With ``health`` (the store's path), ``GET /healthz``
    answers a load balancer in front of all of that (:mod:`.health`).
    """
    hosts = host_names(host, port, allowed_hosts)
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")],
    )
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=ENDPOINT,
        json_response=True,
        stateless_http=stateless,
        max_request_body_size=MAX_REQUEST_BYTES,
        session_idle_timeout=limits.session_idle_s,
        max_sessions=limits.max_sessions + 1,
        transport_security=security,
        host=host,
    )
    quiet_disconnects()
    if not stateless:
        app = SessionEvictor(app, server.session_manager, limits.max_sessions)
    if token:
        app = BearerTokenGuard(app, token)
    return HealthCheck(app, health) if health is not None else app


def serve_http(app: ASGIApp, sock: socket.socket, limits: HttpLimits = DEFAULT_LIMITS) -> None:
    """Serve ``app`` on an already bound socket until SIGINT/SIGTERM, with the connection limits."""
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        timeout_graceful_shutdown=3,
        http=guarded_protocol(limits),
        timeout_keep_alive=math.ceil(limits.keep_alive_s),
    )
    uvicorn.Server(config).run(sockets=[sock])
