"""A stand-in for the Anthropic Messages API (``POST /v1/messages``).

with AnthropicFake(script=[tool_reply("search", {"query": "x"}), text_reply("done")]) as fake:
    monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
    ...
    assert fake.bodies[1]["messages"][-1]["content"][0]["type"] == "tool_result"
"""

from __future__ import annotations

import itertools
from typing import Any

from .scripted import Reply, Request, ScriptedServer

_ids = itertools.count(1)

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


def _message(
    content: list[dict[str, Any]], stop_reason: str, tokens_in: int, tokens_out: int, model: str
) -> dict[str, Any]:
    return {
        "id": f"msg_fake{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": tokens_in, "output_tokens": tokens_out},
    }


def text_reply(text: str, *, tokens_in: int = 10, tokens_out: int = 5, model: str = "claude-fake") -> dict[str, Any]:
    """An assistant message with one text block."""
    return _message([{"type": "text", "text": text}], "end_turn", tokens_in, tokens_out, model)


def tool_reply(
    name: str,
    arguments: dict[str, Any],
    *,
    id: str | None = None,
    text: str = "",
    tokens_in: int = 10,
    tokens_out: int = 5,
    model: str = "claude-fake",
) -> dict[str, Any]:
    """An assistant message calling one tool (optionally after some text)."""
    content = [{"type": "text", "text": text}] if text else []
    content.append({"type": "tool_use", "id": id or f"toolu_fake{next(_ids)}", "name": name, "input": arguments})
    return _message(content, "tool_use", tokens_in, tokens_out, model)


def error_reply(status: int, message: str = "scripted failure") -> Reply:
    """An API error in Anthropic's shape (e.g. 529 overloaded, 500, 429)."""
    return Reply(status, AnthropicFake.error_body(status, message))


class AnthropicFake(ScriptedServer):
    """``base_url`` is the value for ANTHROPIC_BASE_URL; the key is ``x-api-key`` or, as SDK 2.x sends it, a Bearer token."""

    endpoint = "/v1/messages"

    @staticmethod
    def error_body(status: int, message: str) -> dict[str, Any]:
        kind = _ERROR_TYPES.get(status, "api_error")
        return {"type": "error", "error": {"type": kind, "message": message}}

    def presented_key(self, request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        return request.headers.get("x-api-key") or (
            auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
        )
