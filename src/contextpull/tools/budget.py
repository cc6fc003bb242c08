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

from ..errors import OutOfRange
from ..syntax import TOOL, Syntax

__all__ = ["DEFAULT_MAX_RESULT_CHARS", "fit", "json_size", "read_from"]

#: about 25k tokens: room for a long section, far below any context window
DEFAULT_MAX_RESULT_CHARS = 100_000
#: room kept for the ``truncated`` note itself
_NOTE_ROOM = 600
_MARK = "…"


def json_size(payload: Any) -> int:
    """Characters of ``payload`` as the tools send it (JSON, non-ASCII kept)."""
    return len(json.dumps(payload, ensure_ascii=False))


def fit(
    payload: dict[str, Any], max_chars: int, tool: str, arguments: dict[str, Any], syntax: Syntax = TOOL
) -> dict[str, Any]:
    """``payload`` unchanged when its JSON fits ``max_chars``; else a shortened copy with a ``truncated``
    note whose next step is spelled in ``syntax`` (a tool call, or a command for the CLI)."""
    size = json_size(payload)
    if size <= max_chars:
        return payload
    shortened = dict(_cut(payload, _largest_cap(payload, max(0, max_chars - _NOTE_ROOM))))
    shortened["truncated"] = _note(payload, shortened, tool, arguments, (size, max_chars), syntax)
    return shortened


def read_from(payload: dict[str, Any], offset: int) -> dict[str, Any]:
    """A read result whose text starts at character ``offset`` (continuing a truncated read)."""
    if offset < 0:
        raise OutOfRange(f"read: offset must be 0 or more, got {offset}", "use the offset from truncated.offset")
    if not offset:
        return payload
    if offset >= len(payload["text"]):
        raise OutOfRange(
            f"read: offset {offset} is past the end of {payload['id']} ({len(payload['text'])} characters)",
            "use the offset from the last result's truncated.offset",
        )
    return {**payload, "text": payload["text"][offset:], "offset": offset}


def _note(
    original: dict[str, Any],
    shortened: dict[str, Any],
    tool: str,
    arguments: dict[str, Any],
    sizes: tuple[int, int],
    syntax: Syntax,
) -> dict[str, Any]:
    size, cap = sizes
    note: dict[str, Any] = {"result_chars": size, "max_chars": cap}
    if tool == "read" and isinstance(original.get("text"), str):
        offset = int(arguments.get("offset", 0))
        shown = len(shortened["text"]) - (len(_MARK) if shortened["text"] != original["text"] else 0)
        total = offset + len(original["text"])
        note["text"] = f"characters {offset:,} to {offset + shown:,} of {total:,} shown"
        if shown < len(original["text"]):
            note["offset"] = offset + shown
            note["next"] = f"{syntax.read_from(str(original.get('id')), offset + shown)} for the rest"
        else:
            note["next"] = "the context sections were shortened; read each by its id"
    else:
        note["next"] = (
            f"long text in this result was shortened; narrow the call ({syntax.filter}, a smaller {syntax.limit})"
            " or read by id"
        )
    return note


def _longest_string(value: Any) -> int:
    if isinstance(value, str):
        return len(value)
    if isinstance(value, dict):
        return max((_longest_string(v) for v in value.values()), default=0)
    if isinstance(value, list):
        return max((_longest_string(v) for v in value), default=0)
    return 0


def _largest_cap(payload: Any, budget: int) -> int:
    """The largest string length ``cap`` such that cutting every longer string to ``cap`` fits ``budget``.

    Measured on the JSON itself, not on string lengths: a quote, backslash or
    newline is two characters of JSON, so code can be half again its length,
    and a cap from raw lengths once cut a 1.2-million-character section to
    nothing. The JSON size only grows with the cap, so a binary search over
    it takes about 20 encodings of the result for the largest sections.
    """
    low, high = 0, _longest_string(payload)
    while low < high:
        middle = (low + high + 1) // 2
        if json_size(_cut(payload, middle)) <= budget:
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
