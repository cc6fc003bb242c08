"""Bridges from ContextPull to the ``pushpull`` harness.

Adapters that expose ContextPull through the harness protocol (one-shot
``search``, the API tool loop, Claude Code) and ``bench``, the one-command
evaluation of a folder. The core never imports this package; this package
imports ``pushpull``, never the reverse.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .apiloop import ApiLoopRetriever
    from .claudecode import ClaudeCodeRetriever
    from .search_adapter import ContextPullSearch

#: public name -> the submodule that defines it; imported on first use, so
#: ``import contextpull.eval`` stays light (no model SDKs, no numpy)
_PUBLIC = {
    "ApiLoopRetriever": "apiloop",
    "ClaudeCodeRetriever": "claudecode",
    "ContextPullSearch": "search_adapter",
}

__all__ = ["ApiLoopRetriever", "ClaudeCodeRetriever", "ContextPullSearch"]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_PUBLIC})
