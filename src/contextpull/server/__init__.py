"""The MCP server (stdio and streamable HTTP) over the five tools; it holds no logic.

The server itself (``mcp``, ``uvicorn``) loads on first use of one of these
names, so ``contextpull mcp-config`` and the launch helpers stay light.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .app import build_server, http_app, serve_http, serve_stdio

__all__ = ["build_server", "http_app", "serve_http", "serve_stdio"]


def __getattr__(name: str) -> Any:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(".app", __name__), name)
