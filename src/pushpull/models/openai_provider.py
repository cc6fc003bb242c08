"""``openai:<model>`` through the official ``openai`` SDK (Chat Completions API).

The key comes from OPENAI_API_KEY and the endpoint from OPENAI_BASE_URL, so any
OpenAI-compatible server (vLLM, Ollama, llama.cpp's server, a test stand-in)
works. JSON mode uses ``response_format`` ``json_schema`` with ``strict`` off,
because strict mode rejects schemas with optional properties. Two concessions
to the real API: on api.openai.com the limit is sent as
``max_completion_tokens`` (newer models reject ``max_tokens``), and reasoning
models (o1/o3/o4/gpt-5 families) are sent no temperature, which they reject.
"""

from __future__ import annotations

import json
from typing import Any

from .base import Completion, Message, ModelError, ToolCall, Usage
from .hosted import HostedProvider

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_REASONING_PREFIXES = ("o1", "o3", "o4", "gpt-5")


def to_openai_messages(system: str, messages: list[Message]) -> list[dict[str, Any]]:
    """Our turns as chat messages; an assistant turn always has string content
    (some compatible servers reject ``null``), and a failed tool result is marked in its text."""
    converted: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
    for message in messages:
        if message.role == "tool":
            content = f"error: {message.content}" if message.is_error else message.content
            converted.append({"role": "tool", "tool_call_id": message.tool_call_id or "", "content": content})
        elif message.role == "assistant" and message.tool_calls:
            calls = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": json.dumps(call.arguments)},
                }
                for call in message.tool_calls
            ]
            converted.append({"role": "assistant", "content": message.content, "tool_calls": calls})
        else:
            converted.append({"role": message.role, "content": message.content})
    return converted


def to_openai_tools(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic-shaped tools (name, description, input_schema) as function tools."""
    return [
        {
            "type": "function",
            "function": {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": tool["input_schema"],
            },
        }
        for tool in tools
    ]


class OpenAIProvider(HostedProvider):
    """A ``Backend`` for Chat Completions; wrap it in ``MeteredProvider`` (``get_provider`` does)."""

    provider = "openai"
    client_class = "OpenAI"
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
        limit = "max_completion_tokens" if self.base_url == DEFAULT_BASE_URL else "max_tokens"
        request: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(system, messages),
            limit: max_tokens,
        }
        if not self.model.startswith(_REASONING_PREFIXES):
            request["temperature"] = temperature
        if tools:
            request["tools"] = to_openai_tools(tools)
        if json_schema is not None:
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "response", "schema": json_schema, "strict": False},
            }
        response = self._call(lambda: self._client.chat.completions.create(**request))
        if not response.choices:
            raise ModelError(f"{self.spec}: bad output: the response has no choices")
        choice = response.choices[0]
        usage = response.usage
        return Completion(
            text=choice.message.content or "",
            tool_calls=tuple(self._tool_call(call) for call in choice.message.tool_calls or []),
            usage=Usage(
                tokens_in=usage.prompt_tokens if usage else 0, tokens_out=usage.completion_tokens if usage else 0
            ),
            stop_reason=choice.finish_reason or "",
        )

    def _tool_call(self, call: Any) -> ToolCall:
        try:
            arguments = json.loads(call.function.arguments or "{}")
        except json.JSONDecodeError as error:
            raise ModelError(
                f"{self.spec}: bad output: arguments of {call.function.name} are not JSON ({error})"
            ) from error
        if not isinstance(arguments, dict):
            raise ModelError(f"{self.spec}: bad output: arguments of {call.function.name} are not a JSON object")
        return ToolCall(id=call.id, name=call.function.name, arguments=arguments)
