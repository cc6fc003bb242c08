"""The MCP server (stdio and streamable HTTP) over the five tools; it holds no logic."""

from .app import build_server, http_app, serve_http, serve_stdio

__all__ = ["build_server", "http_app", "serve_http", "serve_stdio"]
