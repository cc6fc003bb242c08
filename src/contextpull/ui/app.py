"""The web page's ASGI app: one page, its script and style, and a JSON API over the five tools.

Every API answer is a tool's own payload (``call_json`` through the server's
per-thread :class:`~contextpull.server.app.StoreReaders`), so a search in the
page ranks, filters and cuts snippets exactly as the ``search`` tool does,
weak-match hint included. A page opened as ``/?q=…``, ``/?id=…`` or
``/?grep=…`` is served with that answer inside it.

The guards are the HTTP MCP server's: the ``Host`` must name this server (the
bound address, a loopback name with this port, or a name the operator
allowed) against DNS rebinding, a cross-site ``Origin`` is refused, and with
a token every request needs it. A browser cannot send a bearer header when it
opens a page, so the printed URL carries ``?token=…`` once: the page answers
by setting it as an HttpOnly, same-site cookie and redirecting to the URL
without it.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterable
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlencode, urlsplit

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send

from ..paths import bench_dir
from ..server.app import StoreReaders, host_names
from ..tools.budget import DEFAULT_MAX_RESULT_CHARS

UI_PREFIX = "/ui"
COOKIE = "contextpull_ui_token"
STATIC = {"app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8"}
#: the page's own files only: no inline script, no CDN, no frame
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
        " base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
}
#: query parameters of each API route: name → (tool argument, type)
_ARGUMENTS: dict[str, dict[str, tuple[str, type]]] = {
    "search": {"q": ("query", str), "in": ("in", list), "limit": ("limit", int), "mode": ("mode", str)},
    "read": {"id": ("id", str), "context": ("context", int), "offset": ("offset", int)},
    "neighbours": {"id": ("id", str), "before": ("before", int), "after": ("after", int)},
    "grep": {"pattern": ("pattern", str), "regex": ("regex", bool), "in": ("in", list), "limit": ("limit", int)},
    "index": {"prefix": ("prefix", str)},
}
#: what a page opened with one of these parameters is served with
_OPENED_BY = {"q": "search", "id": "read", "grep": "grep"}


class BadQuery(ValueError):
    """A query parameter the API cannot use: answered 400 with the tool errors' shape."""


def ui_app(
    store_path: Path,
    *,
    host: str,
    port: int,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    prefix: str = "",
    max_result_chars: int = DEFAULT_MAX_RESULT_CHARS,
) -> ASGIApp:
    """The page and its API over the store at ``store_path``, at ``prefix`` ("" or ``/ui``)."""
    readers = StoreReaders(store_path, max_result_chars)
    page = _Page(readers, prefix)
    routes = [
        Route("/", page.home, methods=["GET", "HEAD"]),
        Route("/static/{name}", _static, methods=["GET", "HEAD"]),
        Route("/api/documents", page.documents, methods=["GET"]),
        Route("/api/report", page.report, methods=["GET"]),
        *(Route(f"/api/{tool}", page.tool_route(tool), methods=["GET"]) for tool in _ARGUMENTS),
    ]
    app = Starlette(routes=routes)
    return UiGuard(app, hosts=frozenset(host_names(host, port, allowed_hosts)), token=token, prefix=prefix)


def mounted(mcp: ASGIApp, ui: ASGIApp, prefix: str = UI_PREFIX) -> ASGIApp:
    """``mcp`` with ``ui`` answering every path under ``prefix`` (the page's own guard applies there)."""

    async def route(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] in ("http", "websocket") else ""
        if path == prefix or path.startswith(prefix + "/"):
            inner = dict(scope, path=path[len(prefix) :] or "/", root_path=scope.get("root_path", "") + prefix)
            await ui(inner, receive, send)
            return
        await mcp(scope, receive, send)

    return route


class UiGuard:
    """Host and Origin checks against DNS rebinding and cross-site reads, and the token, before the page."""

    def __init__(self, app: ASGIApp, *, hosts: frozenset[str], token: str | None, prefix: str) -> None:
        if token == "":
            raise ValueError("an empty token would admit everyone")
        self.app = app
        self.hosts = hosts
        self.token = token.encode("utf-8") if token else None
        self.prefix = prefix

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self._refusal(request)
        if refusal is None and self.token is not None and not self._authorized(request):
            given = request.query_params.get("token", "").encode("utf-8")
            if given and hmac.compare_digest(given, self.token) and request.url.path.endswith("/"):
                refusal = self._remember_token(request)
            else:
                refusal = _error(
                    401,
                    "unauthorized",
                    "missing or wrong token",
                    "open the URL `contextpull ui` printed (it carries ?token=…), or send 'Authorization: Bearer <token>'",
                )
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _refusal(self, request: Request) -> Response | None:
        host = request.headers.get("host", "")
        if host not in self.hosts:
            return _error(421, "wrong_host", f"this server does not answer to Host {host!r}", "use the URL it printed")
        origin = request.headers.get("origin")
        if origin is not None and urlsplit(origin).netloc not in self.hosts:
            return _error(403, "wrong_origin", "a page from another site may not read this one", "open the page itself")
        return None

    def _authorized(self, request: Request) -> bool:
        assert self.token is not None
        scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
        presented = credentials.strip() if scheme.lower() == "bearer" else request.cookies.get(COOKIE, "")
        return hmac.compare_digest(presented.encode("utf-8"), self.token)

    def _remember_token(self, request: Request) -> Response:
        rest = [(key, value) for key, value in request.query_params.multi_items() if key != "token"]
        target = request.url.path + (f"?{urlencode(rest)}" if rest else "")
        response = RedirectResponse(target, status_code=303)
        assert self.token is not None
        response.set_cookie(
            COOKIE, self.token.decode("utf-8"), httponly=True, samesite="strict", path=self.prefix or "/"
        )
        return response


class _Page:
    """The routes that read the store."""

    def __init__(self, readers: StoreReaders, prefix: str) -> None:
        self.readers = readers
        self.prefix = prefix

    def home(self, request: Request) -> Response:
        opened: dict[str, Any] | None = None
        for parameter, tool in _OPENED_BY.items():
            if parameter in request.query_params:
                arguments = _arguments(tool, request, rename={parameter: _primary(tool)})
                payload, is_error = self.readers.call(tool, arguments)
                opened = {"tool": tool, "arguments": arguments, "payload": payload, "is_error": is_error}
                break
        store = self.readers.ops().store
        state = {"prefix": self.prefix, "corpus": store.meta("corpus_root") or "", "opened": opened}
        html = _resource("index.html").replace("{{prefix}}", self.prefix).replace("{{state}}", _script_json(state))
        return Response(html, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS)

    def documents(self, request: Request) -> Response:
        store = self.readers.ops().store
        with store.snapshot():
            documents = store.documents()
            fingerprint = store.fingerprint
        rows = [
            {"path": d.path, "title": d.title, "summary": d.summary, "sections": d.section_count} for d in documents
        ]
        return JSONResponse({"corpus_fingerprint": fingerprint, "documents": rows}, headers=SECURITY_HEADERS)

    def report(self, request: Request) -> Response:
        root = self.readers.ops().store.meta("corpus_root")
        found = bench_dir(Path(root)) / "report.html" if root else None
        if found is None or not found.is_file():
            return _error(
                404, "no_report", "this store has no bench report yet", "run `contextpull bench` on its folder"
            )
        headers = {
            **SECURITY_HEADERS,
            "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:; script-src 'unsafe-inline'",
        }
        return Response(found.read_bytes(), media_type="text/html; charset=utf-8", headers=headers)

    def tool_route(self, tool: str) -> Callable[[Request], Response]:
        def answer(request: Request) -> Response:
            try:
                arguments = _arguments(tool, request)
            except BadQuery as err:
                return _error(400, "bad_argument", str(err), "see the page's own requests for the parameters")
            payload, is_error = self.readers.call(tool, arguments)
            return JSONResponse(payload, status_code=400 if is_error else 200, headers=SECURITY_HEADERS)

        return answer


def _primary(tool: str) -> str:
    return next(iter(_ARGUMENTS[tool]))


def _arguments(tool: str, request: Request, rename: dict[str, str] | None = None) -> dict[str, Any]:
    """The tool arguments in ``request``'s query string; a parameter the tool lacks is left out."""
    params = request.query_params
    spec = _ARGUMENTS[tool]
    out: dict[str, Any] = {}
    for given, (argument, kind) in [*spec.items(), *((old, spec[new]) for old, new in (rename or {}).items())]:
        values = [value for value in params.getlist(given) if value != ""]
        if not values:
            continue
        if kind is list:
            out[argument] = [part.strip() for value in values for part in value.split(",") if part.strip()]
        elif kind is bool:
            out[argument] = values[-1].lower() in ("1", "true", "yes", "on")
        elif kind is int:
            try:
                out[argument] = int(values[-1])
            except ValueError:
                raise BadQuery(f"{given} must be a whole number, got {values[-1]!r}") from None
        else:
            out[argument] = values[-1]
    return out


def _error(status: int, code: str, message: str, suggestion: str) -> Response:
    body = {"error": code, "message": message, "suggestion": suggestion}
    return JSONResponse(body, status_code=status, headers=SECURITY_HEADERS)


def _static(request: Request) -> Response:
    name = request.path_params["name"]
    if name not in STATIC:
        return _error(404, "not_found", f"no file {name!r}", "the page uses app.js and style.css only")
    headers = {**SECURITY_HEADERS, "cache-control": "no-cache"}
    return Response(_resource(name), media_type=STATIC[name], headers=headers)


def _resource(name: str) -> str:
    return resources.files(__package__).joinpath("static", name).read_text(encoding="utf-8")


def _script_json(value: Any) -> str:
    """JSON safe inside a ``<script type="application/json">`` element: no ``</`` can close it."""
    return json.dumps(value, ensure_ascii=False).replace("</", "<\\/").replace("<!--", "<\\!--")
