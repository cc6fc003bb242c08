"""``local:<name-or-path.gguf>``: a GGUF model run in-process by llama-cpp-python.

A small local model calls tools reliably only when a grammar forces the shape
of its reply (see ``../shared/MODELS.md`` beside the repository), so with ``tools`` every turn is
constrained to ``turn_schema(tools)``: one object per tool,
``{"action": <tool name>, "arguments": {...its required arguments...}}``, or the
final ``{"action": "answer", "answer": "..."}``. The chosen object comes back
as a ``Completion`` with ``tool_calls`` or ``text``. A caller may pass its own
``json_schema`` with ``tools`` to narrow one turn (for instance no ``answer``
before a read); it must keep that action shape, and ``turn_schema`` builds it.

Prompts are rendered by the model's own chat template through
``create_chat_completion`` with only system, user and assistant roles: tool
results go back as user turns that name the call, so nothing is dropped
(``chatml-function-calling`` drops them). Earlier assistant turns are replayed
as the exact JSON the model produced, which keeps the prompt a growing prefix
and lets llama.cpp reuse its KV cache across turns. One ``Llama`` per model
file per process, behind a lock: llama.cpp is not thread-safe, so local calls
run one at a time.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol, cast

from .base import (
    BadOutput,
    Completion,
    ContextFull,
    Message,
    ModelError,
    NoModelConfigured,
    ReplyCutOff,
    ToolCall,
    Usage,
)

ANSWER = "answer"
#: bump when the prompt shaping changes, so cached answers of the old shape are not reused
PROMPT_FORMAT = 2
REPEAT_PENALTY = 1.1
DEFAULT_CONTEXT = 8192


class ChatLLM(Protocol):
    """The slice of ``llama_cpp.Llama`` this provider uses (tests supply their own)."""

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]: ...


def required_arguments(tool: dict[str, Any]) -> dict[str, Any]:
    """``tool``'s input schema cut down to its required arguments; the rest take their defaults.

    Under a grammar a small model fills in every optional argument it is
    offered, and fills them badly (an empty path filter, a limit of 1, the
    example from the description), then repeats the failed call verbatim.
    Offering only what a call needs removes that failure; the tools' defaults
    are the ones a careful caller would pick.
    """
    schema = tool.get("input_schema", {"type": "object"})
    required = list(schema.get("required", []))
    properties = {name: spec for name, spec in schema.get("properties", {}).items() if name in required}
    return {**schema, "properties": properties, "required": required, "additionalProperties": False}


def action_schema(tool: dict[str, Any]) -> dict[str, Any]:
    """The reply object that calls ``tool`` (an Anthropic-shaped tool) with its required arguments."""
    arguments = required_arguments(tool)
    return {
        "type": "object",
        "properties": {"action": {"const": tool["name"]}, "arguments": arguments},
        "required": ["action", "arguments"],
        "additionalProperties": False,
    }


def answer_schema(answer: dict[str, Any] | None = None) -> dict[str, Any]:
    """The reply object that ends the loop; ``answer`` is a string unless a schema is given."""
    return {
        "type": "object",
        "properties": {"action": {"const": ANSWER}, ANSWER: answer or {"type": "string"}},
        "required": ["action", ANSWER],
        "additionalProperties": False,
    }


def turn_schema(
    tools: list[dict[str, Any]], *, allow_answer: bool = True, answer: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One turn's grammar: any of ``tools``, or the final answer when ``allow_answer``."""
    options = [action_schema(tool) for tool in tools] + ([answer_schema(answer)] if allow_answer else [])
    if not options:
        raise ValueError("a turn needs at least one tool or the answer")
    return options[0] if len(options) == 1 else {"oneOf": options}


def tool_instructions(tools: list[dict[str, Any]]) -> str:
    """Appended to the system prompt so the model knows the tools and the reply shape."""
    lines = [
        "You can call these tools. Reply with exactly one JSON object and nothing else:",
        '{"action": "<tool name>", "arguments": {...}} to call a tool, or',
        '{"action": "answer", "answer": "..."} when you are done.',
        "",
        "Tools:",
    ]
    for tool in tools:
        schema = json.dumps(required_arguments(tool), separators=(",", ":"))
        lines.append(f"- {tool['name']}: {tool.get('description', '').strip()} Arguments schema: {schema}")
    return "\n".join(lines)


def _assistant_text(message: Message, with_tools: bool) -> str:
    if message.tool_calls:
        return "\n".join(json.dumps({"action": call.name, "arguments": call.arguments}) for call in message.tool_calls)
    return json.dumps({"action": ANSWER, ANSWER: message.content}) if with_tools else message.content


def to_chat_messages(system: str, messages: list[Message], tools: list[dict[str, Any]] | None) -> list[dict[str, str]]:
    """Our turns in system/user/assistant roles only, consecutive user turns merged."""
    system_text = "\n\n".join(part for part in (system, tool_instructions(tools) if tools else "") if part)
    chat: list[dict[str, str]] = [{"role": "system", "content": system_text}] if system_text else []
    names = {call.id: call.name for message in messages for call in message.tool_calls}
    for message in messages:
        if message.role == "assistant":
            chat.append({"role": "assistant", "content": _assistant_text(message, bool(tools))})
            continue
        content = message.content
        if message.role == "tool":
            name = names.get(message.tool_call_id or "", "tool")
            label = "Error from" if message.is_error else "Result of"
            content = f"{label} {name} ({message.tool_call_id}):\n{message.content}"
        if chat and chat[-1]["role"] == "user":
            chat[-1]["content"] += "\n\n" + content
        else:
            chat.append({"role": "user", "content": content})
    return chat


_LOADED: dict[Path, tuple[ChatLLM, threading.Lock]] = {}
_LOADING = threading.Lock()


@atexit.register
def _close_loaded() -> None:
    """Free models before interpreter teardown; ``Llama.__del__`` fails noisily once modules are gone."""
    with _LOADING:
        for llm, lock in _LOADED.values():
            with lock:
                getattr(llm, "close", lambda: None)()
        _LOADED.clear()


def default_threads() -> int:
    return max(1, min(4, os.cpu_count() or 1))


def runtime_version() -> str:
    """The installed llama-cpp-python version (part of a local model's identity), or "" when absent."""
    try:
        return metadata.version("llama-cpp-python")
    except metadata.PackageNotFoundError:
        return ""


def _stopped_short(spec: str, usage: Usage, max_tokens: int, n_ctx: object) -> ModelError:
    """Why a constrained reply stopped before its JSON was complete.

    llama.cpp stops with ``length`` at ``max_tokens`` and also when prompt
    and reply fill the context window. The two need different remedies (a
    bounded reply, or a shorter prompt), and the second was reported as the
    first: a reply of 254 tokens "cut off at max_tokens=1024" after four long
    sections were read into an 8,192-token context.
    """
    if usage.tokens_out < max_tokens:
        window = f"{n_ctx:,}-token " if isinstance(n_ctx, int) else ""
        return ContextFull(
            f"{spec}: the {window}context window filled while the model replied"
            f" (prompt {usage.tokens_in:,} tokens, reply {usage.tokens_out:,} when it stopped)"
        )
    return ReplyCutOff(f"{spec}: bad output: the JSON reply was cut off at max_tokens={max_tokens}", usage.tokens_out)


def load_llama(path: Path, *, n_ctx: int = DEFAULT_CONTEXT, n_threads: int = 1) -> tuple[ChatLLM, threading.Lock]:
    """The process's one ``Llama`` for ``path`` and the lock every call must hold."""
    path = path.resolve()
    with _LOADING:
        if path not in _LOADED:
            try:
                from llama_cpp import Llama
            except ImportError as error:
                raise NoModelConfigured(
                    "local models need llama-cpp-python: run `pushpull models install-local --with-runtime`"
                ) from error
            # cast: Llama's signature is wider than the slice ChatLLM names (typed only where it is installed)
            llm = cast(
                ChatLLM,
                Llama(model_path=str(path), n_ctx=n_ctx, n_threads=n_threads, flash_attn=True, verbose=False),
            )
            _LOADED[path] = (llm, threading.Lock())
        return _LOADED[path]


class LocalProvider:
    """A ``Backend`` over a llama-cpp-python model (or anything with its chat interface)."""

    provider = "local"

    def __init__(
        self,
        llm: ChatLLM,
        *,
        name: str,
        lock: threading.Lock | None = None,
        model_bytes: int = 0,
        runtime: dict[str, Any] | None = None,
    ) -> None:
        self.llm = llm
        self.model = name
        self.spec = f"local:{name}"
        self.model_bytes = model_bytes
        #: what besides the file changes answers: file hash, context size, threads, runtime version
        self.runtime = dict(runtime or {})
        self._lock = lock or threading.Lock()

    @classmethod
    def from_path(
        cls, path: Path, *, name: str | None = None, n_ctx: int = DEFAULT_CONTEXT, n_threads: int | None = None
    ) -> LocalProvider:
        from .local_model import recorded_sha256

        threads = n_threads or default_threads()
        llm, lock = load_llama(path, n_ctx=n_ctx, n_threads=threads)
        runtime = {
            "model_sha256": recorded_sha256(path),
            "n_ctx": n_ctx,
            "n_threads": threads,
            "llama_cpp_python": runtime_version(),
        }
        return cls(llm, name=name or path.stem, lock=lock, model_bytes=path.stat().st_size, runtime=runtime)

    def identity(self) -> dict[str, Any]:
        """Model, file, context size, threads and runtime version, prompt shaping and sampling.

        Threads are in it because llama.cpp's floating-point sums depend on how
        work is split, so the same prompt can decode differently.
        """
        return {
            "provider": self.provider,
            "model": self.model,
            "model_bytes": self.model_bytes,
            **self.runtime,
            "prompt_format": PROMPT_FORMAT,
            "repeat_penalty": REPEAT_PENALTY,
        }

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
        """One constrained turn; with ``tools``, ``json_schema`` (if given) replaces ``turn_schema(tools)``."""
        schema = json_schema if json_schema is not None or not tools else turn_schema(tools)
        request: dict[str, Any] = {
            "messages": to_chat_messages(system, messages, tools),
            "max_tokens": max_tokens,
            "temperature": temperature,
            "repeat_penalty": REPEAT_PENALTY,
        }
        if schema is not None:
            request["response_format"] = {"type": "json_object", "schema": schema}
        with self._lock:
            try:
                response = self.llm.create_chat_completion(**request)
            except (RuntimeError, ValueError) as error:
                said = " ".join(str(error).split())
                full = "exceed context window" in said  # llama-cpp-python's words for a prompt too long
                raise (ContextFull if full else ModelError)(f"{self.spec}: {said}") from error
        choice = response["choices"][0]
        text = choice["message"].get("content") or ""
        stop_reason = choice.get("finish_reason") or ""
        usage = response.get("usage") or {}
        completion = Completion(
            text=text,
            usage=Usage(tokens_in=usage.get("prompt_tokens", 0), tokens_out=usage.get("completion_tokens", 0)),
            stop_reason=stop_reason,
        )
        if schema is None:
            return completion
        if stop_reason == "length":
            raise _stopped_short(self.spec, completion.usage, max_tokens, self.runtime.get("n_ctx"))
        try:
            reply = json.loads(text, strict=False)  # a raw newline or tab inside a string is still the model's text
        except json.JSONDecodeError as error:
            raise BadOutput(f"{self.spec}: bad output: the reply is not JSON ({error})") from error
        return self._as_action(reply, completion, messages) if tools else completion

    def _as_action(self, reply: Any, completion: Completion, messages: list[Message]) -> Completion:
        action = reply.get("action") if isinstance(reply, dict) else None
        if action == ANSWER:
            answer = reply.get(ANSWER)
            return Completion(
                text=answer if isinstance(answer, str) else json.dumps(answer),
                usage=completion.usage,
                stop_reason="end_turn",
            )
        if not isinstance(action, str) or not isinstance(reply.get("arguments"), dict):
            raise BadOutput(f"{self.spec}: bad output: expected an action object, got {json.dumps(reply)[:200]}")
        call_number = 1 + sum(len(message.tool_calls) for message in messages)
        call = ToolCall(id=f"call_{call_number}", name=action, arguments=reply["arguments"])
        return Completion(text="", tool_calls=(call,), usage=completion.usage, stop_reason="tool_use")
