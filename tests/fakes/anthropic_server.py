"""A stand-in for the Anthropic Messages API (``POST /v1/messages``, streamed or not).

    with AnthropicFake(script=[tool_reply("search", {"query": "x"}), text_reply("done")]) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
        ...
        assert fake.bodies[1]["messages"][-1]["content"][0]["type"] == "tool_result"

A request with ``"stream": true`` gets the scripted message as the API streams
it (``message_start``, ``content_block_start``/``_delta``/``_stop`` with
``text_delta`` and ``input_json_delta`` pieces, ``message_delta``,
``message_stop``), so a streaming client reassembles it the way it would from
the real API. ``POST /v1/messages/count_tokens`` is answered with an estimate.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

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


def stream_events(message: dict[str, Any], piece: int = 16) -> Iterator[tuple[str, dict[str, Any]]]:
    """``message`` as the Messages API streams it; text and tool input arrive in ``piece``-sized deltas."""
    usage = message["usage"]
    opening = {
        **message,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {**usage, "output_tokens": 1},
    }
    yield "message_start", {"type": "message_start", "message": opening}
    yield "ping", {"type": "ping"}
    for index, block in enumerate(message["content"]):
        if block["type"] == "tool_use":
            empty = {**block, "input": {}}
            kind, field, text = "input_json_delta", "partial_json", json.dumps(block["input"])
        else:
            empty = {**block, "text": ""}
            kind, field, text = "text_delta", "text", block["text"]
        yield "content_block_start", {"type": "content_block_start", "index": index, "content_block": empty}
        for start in range(0, len(text), piece):
            delta = {"type": kind, field: text[start : start + piece]}
            yield "content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
    closing = {"stop_reason": message["stop_reason"], "stop_sequence": message["stop_sequence"]}
    yield (
        "message_delta",
        {"type": "message_delta", "delta": closing, "usage": {"output_tokens": usage["output_tokens"]}},
    )
    yield "message_stop", {"type": "message_stop"}


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

    def side_route(self, request: Request) -> Reply | None:
        if request.method == "POST" and urlsplit(request.path).path == f"{self.endpoint}/count_tokens":
            return Reply(200, {"input_tokens": len(json.dumps(request.body)) // 4})
        return None

    def render(self, request: Request, reply: Reply) -> Reply:
        streamed = isinstance(request.body, dict) and request.body.get("stream")
        if not streamed or reply.status != 200 or reply.body.get("type") != "message":
            return reply
        return Reply(200, {}, reply.headers, tuple(stream_events(reply.body)))
