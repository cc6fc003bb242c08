"""Reading a model's JSON reply, the one way both the eval-set builder and the judge need."""

from __future__ import annotations

import json
from typing import Any

from .models.base import ModelError


def parse_json_object(text: str) -> dict[str, Any]:
    """The JSON object in ``text``, tolerating a Markdown code fence; ``ModelError`` otherwise."""
    body = text.strip()
    if body.startswith("```"):
        body = body.strip("`").strip().removeprefix("json").strip()
    try:
        reply = json.loads(body, strict=False)  # a raw newline inside a string is still the reply
    except json.JSONDecodeError as err:
        raise ModelError(f"model reply is not JSON: {text[:120]!r}") from err
    if not isinstance(reply, dict):
        raise ModelError(f"model reply is not a JSON object: {text[:120]!r}")
    return reply
