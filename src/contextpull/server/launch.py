"""How a host starts this install's MCP server: the command, and the host's config entry.

One place for both, so ``contextpull mcp-config`` and the Claude Code pull
adapter hand hosts the same thing.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import Any

from .http_guard import TOKEN_ENV


def server_command() -> list[str]:
    """The absolute command that starts this install's ``contextpull``.

    The running script when it is ``contextpull``, else the one beside this
    interpreter, else the one on PATH, else ``python -m contextpull``.
    """
    argv0 = Path(sys.argv[0])
    if argv0.name == "contextpull" and argv0.is_file():
        return [str(argv0.absolute())]
    beside = Path(sys.executable).parent / "contextpull"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("contextpull")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "contextpull"]


def serve_argv(target: Path) -> list[str]:
    """The full argv that serves ``target`` (a store file or a corpus folder) over stdio."""
    return [*server_command(), "serve", str(Path(target).absolute())]


def stdio_entry(target: Path) -> dict[str, Any]:
    """The host's ``mcpServers`` entry that starts the stdio server on ``target``."""
    command, *args = serve_argv(target)
    return {"type": "stdio", "command": command, "args": args}


def http_entry(host: str, port: int, *, with_token: bool) -> dict[str, Any]:
    """The host's ``mcpServers`` entry for a running HTTP server; the token stays ``${CONTEXTPULL_TOKEN}``."""
    from .app import ENDPOINT, url_host  # the server itself (mcp, uvicorn) only when a URL is wanted

    entry: dict[str, Any] = {"type": "http", "url": f"http://{url_host(host)}:{port}{ENDPOINT}"}
    if with_token:
        entry["headers"] = {"Authorization": f"Bearer ${{{TOKEN_ENV}}}"}
    return entry
