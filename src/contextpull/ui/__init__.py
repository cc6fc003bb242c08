"""A local web page to browse, search and read a store: what the model will see, for a person.

``contextpull ui`` serves it alone; ``contextpull serve --transport http --ui``
mounts it at ``/ui`` beside the MCP endpoint. Its page, script and style ship
in this package (no build step, no CDN), and its JSON API answers with the
tools' own payloads (:func:`contextpull.tools.schemas.call_json`), so the page
shows exactly what a tool call returns.
"""

from __future__ import annotations

from .app import UI_PREFIX, mounted, ui_app

__all__ = ["UI_PREFIX", "mounted", "ui_app"]
