"""A stand-in for the OpenAI Chat Completions API (``POST /v1/chat/completions``).

with OpenAIFake(script=[tool_calls_reply(("search", {"query": "x"})), text_reply("done")]) as fake:
    monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)   # ends in /v1
    monkeypatch.setenv("OPENAI_API_KEY", fake.api_key)
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from .scripted import Reply, Request, ScriptedServer

_ids = itertools.count(1)


def _completion(
    message: dict[str, Any], finish_reason: str, tokens_in: int, tokens_out: int, model: str
) -> dict[str, Any]:
    return {
        "id": f"chatcmpl-fake{next(_ids)}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}],
        "usage": {"prompt_tokens": tokens_in, "completion_tokens": tokens_out, "total_tokens": tokens_in + tokens_out},
    }


def text_reply(text: str, *, tokens_in: int = 10, tokens_out: int = 5, model: str = "gpt-fake") -> dict[str, Any]:
    """An assistant message with text content."""
    return _completion({"role": "assistant", "content": text}, "stop", tokens_in, tokens_out, model)


def tool_calls_reply(
    *calls: tuple[str, dict[str, Any]] | tuple[str, dict[str, Any], str],
    tokens_in: int = 10,
    tokens_out: int = 5,
    model: str = "gpt-fake",
) -> dict[str, Any]:
    """An assistant message calling tools: each call is ``(name, arguments[, id])``."""
    tool_calls = [
        {
            "id": call[2] if len(call) > 2 else f"call_fake{next(_ids)}",  # type: ignore[misc]
            "type": "function",
            "function": {"name": call[0], "arguments": json.dumps(call[1])},
        }
        for call in calls
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    return _completion(message, "tool_calls", tokens_in, tokens_out, model)


def raw_tool_call_reply(name: str, raw_arguments: str) -> dict[str, Any]:
    """A tool call whose ``arguments`` string is sent verbatim (to test malformed output)."""
    call = {"id": f"call_fake{next(_ids)}", "type": "function", "function": {"name": name, "arguments": raw_arguments}}
    return _completion({"role": "assistant", "content": None, "tool_calls": [call]}, "tool_calls", 10, 5, "gpt-fake")


def error_reply(status: int, message: str = "scripted failure") -> Reply:
    """An API error in OpenAI's shape (e.g. 429, 500, 503)."""
    return Reply(status, OpenAIFake.error_body(status, message))


class OpenAIFake(ScriptedServer):
    """``base_url`` (ending in ``/v1``) is the value for OPENAI_BASE_URL; the key is a Bearer token."""

    endpoint = "/v1/chat/completions"
    base_path = "/v1"

    @staticmethod
    def error_body(status: int, message: str) -> dict[str, Any]:
        kind = "invalid_request_error" if status < 500 else "server_error"
        return {"error": {"message": message, "type": kind, "param": None, "code": None}}

    def presented_key(self, request: Request) -> str | None:
        auth = request.headers.get("authorization", "")
        return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
