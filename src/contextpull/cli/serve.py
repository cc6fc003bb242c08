"""``contextpull serve`` and ``contextpull mcp-config``: the MCP server and how to plug it in."""

from __future__ import annotations

import argparse
import json
import os
import shlex
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import BadArgument, ContextPullError, StoreMissing
from ..paths import remember
from ..server.http_guard import TOKEN_ENV
from ..server.http_limits import HttpLimits
from ..server.launch import LAUNCHERS, http_entry, serve_argv, stdio_entry
from ..tools.budget import DEFAULT_MAX_RESULT_CHARS
from .common import add_json_option, add_store_option, emit, resolve_store_path
from .progress import progress_bar
from .watch import Snapshot, add_watch_option, changed_line, reingest_quietly, snapshot, watch

if TYPE_CHECKING:
    from ..store.artifact import Follower

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
#: how often a replica asks whether a newer store was published
DEFAULT_POLL_S = 30.0


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    serve = subparsers.add_parser(
        "serve",
        help="serve the index and the five tools over MCP (stdio or streamable HTTP)",
        description=(
            "Serve a store over MCP. PATH is a store file, or a folder that is first ingested"
            " (incrementally) into its default store. Re-ingesting while the server runs is"
            " picked up by new connections and by every tool call."
        ),
    )
    serve.add_argument("path", nargs="?", metavar="PATH", help="store file or corpus folder")
    add_store_option(serve, artifact=True, several=True)
    add_poll_option(serve)
    add_watch_option(serve, "PATH a folder; the server answers from each new ingest")
    _add_transport_options(serve)
    serve.add_argument(
        "--token",
        help=f"HTTP only: require 'Authorization: Bearer TOKEN' on every request (default: ${TOKEN_ENV})",
    )
    serve.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="HTTP only: another host name clients use to reach this server (checked against DNS rebinding)",
    )
    serve.add_argument(
        "--stateless",
        action="store_true",
        help="HTTP only: no MCP sessions; every request stands alone",
    )
    serve.add_argument(
        "--ui",
        action="store_true",
        help="HTTP only: also serve the web page at /ui (same token and host checks; see `contextpull ui`)",
    )
    serve.add_argument(
        "--log",
        action="store_true",
        help="write one line per tool call (tool, arguments, result size, ms) to stderr",
    )
    serve.add_argument(
        "--max-result-chars",
        type=int,
        default=DEFAULT_MAX_RESULT_CHARS,
        metavar="N",
        help=f"cut any tool result longer than this, saying how to read on (default {DEFAULT_MAX_RESULT_CHARS:,})",
    )
    limits = HttpLimits()
    for flag, default, meaning in (
        ("--header-timeout", limits.header_timeout_s, "seconds a connection has to send its request headers"),
        ("--body-timeout", limits.body_timeout_s, "seconds a request has to send its body after its headers"),
        ("--keep-alive", limits.keep_alive_s, "seconds an idle connection stays open"),
        ("--session-idle", limits.session_idle_s, "seconds an MCP session may sit unused before it ends"),
    ):
        serve.add_argument(
            flag, type=float, default=default, metavar="S", help=f"HTTP only: {meaning} (default {default:g})"
        )
    serve.add_argument(
        "--max-connections",
        type=int,
        default=0,
        metavar="N",
        help="HTTP only: open connections at most (default 0: half the descriptor limit, at most 1,024)",
    )
    serve.add_argument(
        "--max-sessions",
        type=int,
        default=limits.max_sessions,
        metavar="N",
        help=f"HTTP only: open MCP sessions at most; the least recently used idle one makes room (default {limits.max_sessions})",
    )
    serve.set_defaults(func=run_serve)

    config = subparsers.add_parser(
        "mcp-config",
        help="print the MCP host configuration (and the `claude mcp add` line) for this install",
        description=(
            'Print the {"mcpServers": ...} JSON an MCP host needs to start this install\'s server,'
            " and the equivalent `claude mcp add` command."
        ),
    )
    config.add_argument("path", nargs="?", metavar="PATH", help="store file or corpus folder to serve")
    add_store_option(config)
    config.add_argument("--name", default="contextpull", help="server name in the host (default: contextpull)")
    config.add_argument(
        "--launcher",
        choices=LAUNCHERS,
        default="path",
        help="stdio only: how the host starts the server: this install's script (path, the default),"
        " or uvx / pipx, which fetch the package themselves (no clone or venv needed)",
    )
    config.add_argument(
        "--spec",
        metavar="SPEC",
        help="uvx / pipx only: the package they install: a requirement, a wheel file or a URL"
        " (default: this version, pinned)",
    )
    _add_transport_options(config)
    config.add_argument(
        "--with-token",
        action="store_true",
        help=f"HTTP only: send 'Authorization: Bearer ${{{TOKEN_ENV}}}' (expanded by the host)",
    )
    add_json_option(config)
    config.set_defaults(func=run_mcp_config)


def _add_transport_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transport", choices=("stdio", "http"), default="stdio", help="default: stdio")
    add_address_options(parser, DEFAULT_PORT, "HTTP only: ")


def add_address_options(parser: argparse.ArgumentParser, port: int, only: str = "") -> None:
    """``--host`` and ``--port`` of a command that listens."""
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"{only}address to bind (default: {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=port, help=f"{only}port, 0 for any free one (default: {port})")


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, or one line saying why not."""
    from ..server import app as server

    try:
        return server.bind(host, port)
    except OSError as err:
        raise ContextPullError(
            f"cannot listen on {host}:{port} ({err.strerror or err})",
            "pick another --port (0 takes any free one) or --host",
        ) from None


def _target(args: argparse.Namespace) -> Path:
    return Path(args.path) if args.path else resolve_store_path(args)


# --- serve ------------------------------------------------------------------
def run_serve(args: argparse.Namespace) -> int:
    from ..server import app as server

    if args.transport == "stdio" and args.token:
        raise BadArgument(
            "--token applies to --transport http only", "stdio needs no token: the host starts the server"
        )
    if args.transport == "stdio" and args.ui:
        raise BadArgument("--ui applies to --transport http only", "add --transport http, or run `contextpull ui`")
    library = _library(args)
    watched = _watched_folder(args)
    before = snapshot(watched) if watched else None  # before the ingest: an edit while it runs is seen
    store_path = next(iter(library.values())) if library else store_to_serve(args)
    if watched:
        _watch_in_background(watched, args.watch_poll, before)
    log = server.CallLog(sys.stderr) if args.log else None
    if args.max_result_chars < 1000:
        raise BadArgument("--max-result-chars must be at least 1000", "results need room for their pointers")
    try:
        limits = HttpLimits(
            args.header_timeout,
            args.keep_alive,
            args.max_connections,
            args.session_idle,
            args.max_sessions,
            args.body_timeout,
        )
    except ValueError as err:
        raise BadArgument(str(err), "pass positive numbers") from None
    mcp_server = server.build_server(library or store_path, log=log, max_result_chars=args.max_result_chars)
    if args.transport == "stdio":
        server.serve_stdio(mcp_server)
        return 0
    token = args.token or os.environ.get(TOKEN_ENV) or None
    sock = listen(args.host, args.port)
    host, port = args.host, sock.getsockname()[1]
    app = server.http_app(
        mcp_server,
        host=host,
        port=port,
        token=token,
        allowed_hosts=args.allow_host,
        stateless=args.stateless,
        limits=limits,
        health=store_path,
    )
    if args.ui:
        from ..ui import UI_PREFIX, mounted, ui_app

        page = ui_app(store_path, host=host, port=port, token=token, allowed_hosts=args.allow_host, prefix=UI_PREFIX)
        app = mounted(app, page)
        print(f"contextpull: the web page is at {page_url(host, port, UI_PREFIX, token)}", file=sys.stderr, flush=True)
    auth = "bearer token required" if token else "no token"
    warn_if_open(host, port, token)
    served = f"collections {', '.join(library)}" if library else str(store_path)
    print(
        f"contextpull: serving {served} at http://{server.url_host(host)}:{port}{server.ENDPOINT} ({auth})",
        file=sys.stderr,
        flush=True,
    )
    server.serve_http(app, sock, limits)
    return 0


def _library(args: argparse.Namespace) -> dict[str, Path] | None:
    """The collections to serve together (``--collections``, or ``--collection`` given twice or more),
    by key; None to serve one store."""
    from ..store.collections import find, known_collections

    keys = list(args.collection or [])
    if not args.collections and len(keys) < 2:
        return None
    if args.path or args.store or args.watch or args.ui:
        raise BadArgument(
            "several collections are served on their own: PATH, --store, --watch and --ui go with one store",
            "serve the collections alone, or one store with its options",
        )
    chosen = [find(key) for key in dict.fromkeys(keys)] if keys else known_collections()
    if not chosen:
        raise BadArgument("there are no collections yet", "make one with `contextpull ingest DIR --collection NAME`")
    return {entry.key: Path(entry.store) for entry in chosen}


def warn_if_open(host: str, port: int, token: str | None) -> None:
    """One warning line for a server listening beyond this machine without a token."""
    if not token and not _is_loopback(host):
        print(
            f"contextpull: WARNING: listening on {host} without a token: anyone who can reach port {port} "
            f"can read this store; set {TOKEN_ENV} or pass --token",
            file=sys.stderr,
            flush=True,
        )


def page_url(host: str, port: int, path: str, token: str | None) -> str:
    """The web page's address to open in a browser; with a token it carries it once (``?token=``)."""
    from urllib.parse import quote

    from ..server.app import url_host

    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "[::]") else host
    return f"http://{url_host(shown)}:{port}{path}/" + (f"?token={quote(token, safe='')}" if token else "")


def _is_loopback(host: str) -> bool:
    """Whether ``host`` is reachable from this machine only (a loopback name or address)."""
    import ipaddress

    if host.strip("[]") in ("localhost", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def store_to_serve(args: argparse.Namespace) -> Path:
    """The store a serving command names (PATH, ``--store`` or the folder's own), brought up to date.

    ``--store`` may name a published artifact (a URL, or the folder `contextpull
    publish` wrote): it is fetched into a cache, verified, and followed; the
    path returned is the cache's served file, which a newer publication
    replaces in one rename.
    """
    from ..store.artifact import is_artifact

    if not args.path and args.store and is_artifact(args.store):
        return follow_artifact(args.store, getattr(args, "poll", DEFAULT_POLL_S))
    target = _target(args)
    if args.path and not target.exists():
        raise StoreMissing(
            f"no such folder or store file: {target}",
            "name a corpus folder (it is ingested first) or a store file that `contextpull ingest` wrote",
        )
    return _store_for(target)


def follow_artifact(source: str, poll_s: float) -> Path:
    """Fetch the artifact at ``source`` now, then check it every ``poll_s`` seconds on a thread (0: never)."""
    import hashlib
    import threading
    import time

    from ..paths import data_home
    from ..store.artifact import ArtifactError, Follower

    cache = data_home() / "artifacts" / hashlib.sha256(source.encode("utf-8")).hexdigest()[:16]
    follower = Follower(source, cache)
    follower.refresh()
    _say_serving(follower)

    def keep_following() -> None:
        while True:
            time.sleep(poll_s)
            try:
                if follower.refresh():
                    _say_serving(follower)
            except ArtifactError as err:  # keep serving the version we have
                print(f"contextpull: still serving the last good store: {err.message}", file=sys.stderr, flush=True)

    if poll_s > 0:
        threading.Thread(target=keep_following, name="artifact-follower", daemon=True).start()
    return follower.served


def _say_serving(follower: Follower) -> None:
    manifest = follower.current
    assert manifest is not None  # called after a refresh that succeeded
    print(
        f"contextpull: serving {manifest.store} (corpus {manifest.corpus_fingerprint[:12]}, published"
        f" {manifest.published_at}) from {follower.source}",
        file=sys.stderr,
        flush=True,
    )


def add_poll_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--poll",
        type=float,
        default=DEFAULT_POLL_S,
        metavar="S",
        help=f"with --store URL|ARTIFACT: check for a newly published store every S seconds (default {DEFAULT_POLL_S:g}; 0: never)",
    )


def _watched_folder(args: argparse.Namespace) -> Path | None:
    """The folder ``serve --watch`` re-ingests (None without ``--watch``); a one-line error when PATH is not one."""
    if not args.watch:
        return None
    target = Path(args.path) if args.path else None
    if target is None or not target.is_dir():
        raise BadArgument("--watch needs PATH to be a corpus folder", "serve a folder: `contextpull serve DIR --watch`")
    if args.watch_poll <= 0:
        raise BadArgument("--watch-poll must be more than 0 seconds", "omit it for the default")
    return target


def _watch_in_background(target: Path, poll_s: float, since: Snapshot | None) -> None:
    """Re-ingest the served folder on a thread whenever it changes (``serve DIR --watch``)."""
    import threading

    from ..ingestion.run import ingest_with

    handler = reingest_quietly(lambda: changed_line(ingest_with(target)))
    thread = threading.Thread(
        target=watch, args=(target, handler), kwargs={"poll_s": poll_s, "since": since}, name="watch", daemon=True
    )
    thread.start()
    print(f"contextpull: watching {target} for changes", file=sys.stderr, flush=True)


def _store_for(target: Path) -> Path:
    """The store to serve: ``target`` itself, or a folder's default store brought up to date."""
    if not target.is_dir():
        return target
    from ..ingestion.run import IngestOptions, ingest_with

    with progress_bar() as progress:
        report = ingest_with(target, None, IngestOptions(progress=progress))
    state = "updated" if report.wrote else "up to date"
    print(
        f"contextpull: {report.store} {state}: {report.documents} documents, {report.sections} sections",
        file=sys.stderr,
        flush=True,
    )
    remember(Path(report.store), target)
    return Path(report.store)


# --- mcp-config ---------------------------------------------------------------
def mcp_config(args: argparse.Namespace) -> tuple[dict[str, Any], list[str], list[str] | None]:
    """``({"mcpServers": {name: entry}}, claude_mcp_add_argv, serve_argv)`` for the chosen transport.

    ``serve_argv`` is the command that starts the HTTP server the entry points at (None for
    stdio, where the host starts the server itself).
    """
    if args.transport == "http":
        if args.launcher != "path":
            raise BadArgument(
                "--launcher applies to --transport stdio only",
                "an HTTP host connects to a running server: start it with `contextpull serve --transport http`",
            )
        entry = http_entry(args.host, args.port, with_token=args.with_token)
        serve = [*serve_argv(_target(args)), "--transport", "http", "--host", args.host, "--port", str(args.port)]
        claude = ["claude", "mcp", "add", "--transport", "http", args.name, entry["url"]]
        if args.with_token:
            claude += ["--header", f"Authorization: Bearer ${TOKEN_ENV}"]
        return {"mcpServers": {args.name: entry}}, claude, serve
    if args.with_token:
        raise BadArgument("--with-token applies to --transport http only", "drop --with-token for stdio")
    if args.spec and args.launcher == "path":
        raise BadArgument("--spec applies to --launcher uvx or pipx only", "add --launcher uvx (or pipx)")
    target = _target(args)
    if not args.path and not target.exists():  # a named PATH may be a folder to ingest later
        raise StoreMissing(
            f"no store at {target}, so the configuration would point at nothing",
            "run `contextpull ingest DIR` first, or name the folder: `contextpull mcp-config DIR`",
        )
    spec = str(Path(args.spec).absolute()) if args.spec and Path(args.spec).is_file() else args.spec
    entry = stdio_entry(target.resolve(), args.launcher, spec)
    return (
        {"mcpServers": {args.name: entry}},
        [
            "claude",
            "mcp",
            "add",
            args.name,
            "--",
            entry["command"],
            *entry["args"],
        ],
        None,
    )


def run_mcp_config(args: argparse.Namespace) -> int:
    config, claude, serve = mcp_config(args)

    def render(data: dict[str, Any]) -> str:
        line = " ".join(_shell_word(word) for word in claude)
        first = (
            "First start the server (it must be running when the host connects):\n\n  "
            + " ".join(shlex.quote(word) for word in serve)
            + ("   # with CONTEXTPULL_TOKEN set" if args.with_token else "")
            + "\n\n"
            if serve
            else ""
        )
        return (
            f"{first}Add this to your MCP host's configuration (.mcp.json, claude_desktop_config.json, ...):\n\n"
            f"{json.dumps(data, indent=2, ensure_ascii=False)}\n\n"
            f"Or, for Claude Code:\n\n  {line}"
        )

    emit(args, config, render)
    return 0


def _shell_word(word: str) -> str:
    # $CONTEXTPULL_TOKEN stays expandable by the user's shell; everything else is quoted literally.
    if f"${TOKEN_ENV}" in word:
        return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return shlex.quote(word)
