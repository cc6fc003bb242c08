"""``anthropic:<model>`` through the official ``anthropic`` SDK (Messages API).

The key comes from ANTHROPIC_API_KEY and the endpoint from ANTHROPIC_BASE_URL
(default https://api.anthropic.com), so tests point the real SDK at a loopback
stand-in. JSON mode: with no tools the schema becomes one forced tool,
``json_response``, whose input is the answer (works on every Claude model);
alongside tools it is sent as ``output_config.format`` (native structured
output), so the model may still call a tool instead. ``temperature`` is not
sent: the Messages API of SDK 2.x has no such parameter (it still keys the cache).
"""

from __future__ import annotations

import json
from typing import Any

from .base import Completion, Message, ModelError, ToolCall, Usage
from .hosted import HostedProvider

DEFAULT_BASE_URL = "https://api.anthropic.com"
JSON_TOOL = "json_response"
_WRAPPED = "value"


def _blocks(message: Message) -> list[dict[str, Any]]:
    if message.role == "tool":
        return [
            {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id or "",
                "content": message.content,
                "is_error": message.is_error,
            }
        ]
    blocks: list[dict[str, Any]] = [{"type": "text", "text": message.content}] if message.content else []
    blocks += [
        {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments} for call in message.tool_calls
    ]
    return blocks


def to_anthropic_messages(messages: list[Message]) -> list[dict[str, Any]]:
    """Our turns as Messages API turns: tool results become user ``tool_result`` blocks,
    and consecutive turns of the same API role are merged (the API wants alternation)."""
    converted: list[dict[str, Any]] = []
    for message in messages:
        role = "assistant" if message.role == "assistant" else "user"
        if converted and converted[-1]["role"] == role:
            converted[-1]["content"].extend(_blocks(message))
        else:
            converted.append({"role": role, "content": _blocks(message)})
    return converted


def _json_tool(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The forced tool carrying ``schema``; non-object schemas are wrapped in ``{"value": ...}``."""
    wrapped = schema.get("type") != "object"
    input_schema = {"type": "object", "properties": {_WRAPPED: schema}, "required": [_WRAPPED]} if wrapped else schema
    return {
        "name": JSON_TOOL,
        "description": "Reply with your answer as this JSON value.",
        "input_schema": input_schema,
    }, wrapped


class AnthropicProvider(HostedProvider):
    """A ``Backend`` for the Messages API; wrap it in ``MeteredProvider`` (``get_provider`` does)."""

    provider = "anthropic"
    client_class = "Anthropic"
    default_base_url = DEFAULT_BASE_URL

    def complete(
        self,
        messages: list[Message],
        *,
        system: str = "",
        tools: list[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> Completion:
        request: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "messages": to_anthropic_messages(messages),
        }
        if system:
            request["system"] = system
        api_tools: list[dict[str, Any]] = [
            {key: tool[key] for key in ("name", "description", "input_schema") if key in tool} for tool in tools or []
        ]
        wrapped = False
        if json_schema is not None and not api_tools:
            json_tool, wrapped = _json_tool(json_schema)
            api_tools = [json_tool]
            request["tool_choice"] = {"type": "tool", "name": JSON_TOOL}
        elif json_schema is not None:
            request["output_config"] = {"format": {"type": "json_schema", "schema": json_schema}}
        if api_tools:
            request["tools"] = api_tools
        response = self._call(lambda: self._client.messages.create(**request))
        return self._completion(
            response, json_mode=json_schema is not None and "tool_choice" in request, wrapped=wrapped
        )

    def _completion(self, response: Any, *, json_mode: bool, wrapped: bool) -> Completion:
        texts: list[str] = []
        calls: list[ToolCall] = []
        for block in response.content:
            if block.type == "text":
                texts.append(block.text)
            elif block.type == "tool_use":
                calls.append(ToolCall(id=block.id, name=block.name, arguments=dict(block.input or {})))
        if json_mode:
            answer = next((call for call in calls if call.name == JSON_TOOL), None)
            if answer is None:
                raise ModelError(f"{self.spec}: bad output: the forced {JSON_TOOL} tool was not called")
            texts, calls = [json.dumps(answer.arguments.get(_WRAPPED) if wrapped else answer.arguments)], []
        usage = response.usage
        cache_tokens = (
            getattr(usage, name, None) or 0 for name in ("cache_creation_input_tokens", "cache_read_input_tokens")
        )
        tokens_in = usage.input_tokens + sum(cache_tokens)
        return Completion(
            text="".join(texts),
            tool_calls=tuple(calls),
            usage=Usage(tokens_in=tokens_in, tokens_out=usage.output_tokens),
            stop_reason=response.stop_reason or "",
        )
