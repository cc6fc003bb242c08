"""``contextpull ui``: the web page over a store, on this machine."""

from __future__ import annotations

import argparse
import os
import sys

from ..errors import BadArgument
from ..server.http_guard import TOKEN_ENV
from ..tools.budget import DEFAULT_MAX_RESULT_CHARS
from .common import add_store_option
from .serve import add_address_options, add_poll_option, listen, page_url, store_to_serve, warn_if_open

DEFAULT_UI_PORT = 8766


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    ui = subparsers.add_parser(
        "ui",
        help="a local web page to browse, search and read a store (what the model will see)",
        description=(
            "Serve a web page over a store: the index as a tree, search with the search tool's ranking,"
            " snippets and filters, sections with their neighbours and table headers, grep, and the"
            " folder's latest bench report. PATH is a store file or a folder (ingested first). The page"
            " listens on 127.0.0.1 unless --host says otherwise; with a token, open the printed URL."
        ),
    )
    ui.add_argument("path", nargs="?", metavar="PATH", help="store file or corpus folder")
    add_store_option(ui, artifact=True)
    add_poll_option(ui)
    add_address_options(ui, DEFAULT_UI_PORT)
    ui.add_argument("--token", help=f"require this token (the printed URL carries it; default: ${TOKEN_ENV})")
    ui.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name browsers use to reach the page (checked against DNS rebinding)",
    )
    ui.add_argument(
        "--max-result-chars",
        type=int,
        default=DEFAULT_MAX_RESULT_CHARS,
        metavar="N",
        help=f"cut a result longer than this, as the MCP server does (default {DEFAULT_MAX_RESULT_CHARS:,})",
    )
    ui.set_defaults(func=run_ui)


def run_ui(args: argparse.Namespace) -> int:
    from ..server import app as server
    from ..ui import ui_app

    if args.max_result_chars < 1000:
        raise BadArgument("--max-result-chars must be at least 1000", "results need room for their pointers")
    store_path = store_to_serve(args)
    token = args.token or os.environ.get(TOKEN_ENV) or None
    sock = listen(args.host, args.port)
    port = sock.getsockname()[1]
    app = ui_app(
        store_path,
        host=args.host,
        port=port,
        token=token,
        allowed_hosts=args.allow_host,
        max_result_chars=args.max_result_chars,
    )
    warn_if_open(args.host, port, token)
    print(
        f"contextpull: the web page over {store_path} is at {page_url(args.host, port, '', token)}",
        file=sys.stderr,
        flush=True,
    )
    server.serve_http(app, sock)
    return 0
