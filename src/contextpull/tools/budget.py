"""Every tool result fits a size cap, and says how to get what was left out.

A section has no size limit of its own: an unclosed code fence makes the rest
of a document one section, and ``read`` once returned 5.5 MB of JSON, more
than any model's context. :func:`fit` shortens the longest strings of a
result until its JSON fits ``max_chars`` and adds a ``truncated`` entry: for
``read``, the ``offset`` to pass to read on from where the text stops; for the
other tools, how to narrow the call.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["DEFAULT_MAX_RESULT_CHARS", "fit", "json_size"]

#: about 25k tokens: room for a long section, far below any context window
DEFAULT_MAX_RESULT_CHARS = 100_000
#: room kept for the ``truncated`` note itself
_NOTE_ROOM = 600
_MARK = "…"


def json_size(payload: Any) -> int:
    """Characters of ``payload`` as the tools send it (JSON, non-ASCII kept)."""
    return len(json.dumps(payload, ensure_ascii=False))


def fit(payload: dict[str, Any], max_chars: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """``payload`` unchanged when its JSON fits ``max_chars``; else a shortened copy with a ``truncated`` note."""
    size = json_size(payload)
    if size <= max_chars:
        return payload
    budget = max(0, max_chars - _NOTE_ROOM)
    cap = _longest_string(payload)
    shortened = payload
    while cap > 0 and json_size(shortened) > budget:
        cap = _cap_for(shortened, json_size(shortened) - budget, cap)
        shortened = _cut(payload, cap)
    shortened = dict(shortened)
    shortened["truncated"] = _note(payload, shortened, tool, arguments, size, max_chars)
    return shortened


def _note(
    original: dict[str, Any], shortened: dict[str, Any], tool: str, arguments: dict[str, Any], size: int, cap: int
) -> dict[str, Any]:
    note: dict[str, Any] = {"result_chars": size, "max_chars": cap}
    if tool == "read" and isinstance(original.get("text"), str):
        offset = int(arguments.get("offset", 0))
        shown = len(shortened["text"]) - (len(_MARK) if shortened["text"] != original["text"] else 0)
        total = offset + len(original["text"])
        note["text"] = f"characters {offset:,} to {offset + shown:,} of {total:,} shown"
        if shown < len(original["text"]):
            note["offset"] = offset + shown
            note["next"] = f"read id={original.get('id')!r} offset={offset + shown} for the rest"
        else:
            note["next"] = "the context sections were shortened; read each by its id"
    else:
        note["next"] = "long text in this result was shortened; narrow the call (`in`, a smaller limit) or read by id"
    return note


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max((_longest_string(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return max((_longest_string(v) for v in value), default=0)
    return 0


def _lengths(value: Any, out: list[int]) -> list[int]:
    if isinstance(value, str):
        out.append(len(value))
    elif isinstance(value, dict):
        for v in value.values():
            _lengths(v, out)
    elif isinstance(value, list):
        for v in value:
            _lengths(v, out)
    return out


def _cap_for(payload: Any, excess: int, ceiling: int) -> int:
    """The largest string length ``c < ceiling`` cutting every longer string to ``c`` removes ``excess`` characters."""
    lengths = sorted(_lengths(payload, []), reverse=True)
    low, high = 0, ceiling - 1
    while low < high:
        middle = (low + high + 1) // 2
        removed = sum(length - middle for length in lengths if length > middle)
        if removed >= excess:
            low = middle
        else:
            high = middle - 1
    return low


def _cut(value: Any, cap: int) -> Any:
    if isinstance(value, str):
        return value if len(value) <= cap else value[:cap] + _MARK
    if isinstance(value, dict):
        return {k: _cut(v, cap) for k, v in value.items()}
    if isinstance(value, list):
        return [_cut(v, cap) for v in value]
    return value
