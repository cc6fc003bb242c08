"""The provider-neutral shape of a model call (the contract of the model layer).

Every provider (``anthropic:``, ``openai:``, ``local:``) turns these into its
own wire format and back, so the eval-set builder, the judge, the listwise
reranker and the pull tool loop are written once. Tools are given in the
Anthropic tool shape (name, description, input_schema); providers convert.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class Message:
    """One turn. ``role="tool"`` carries the result of ``tool_call_id``."""

    role: Literal["user", "assistant", "tool"]
    content: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    is_error: bool = False


@dataclass(frozen=True)
class Usage:
    tokens_in: int = 0
    tokens_out: int = 0
    usd: float | None = None  # None when no price is known for the model

    def __add__(self, other: Usage) -> Usage:
        usd = None if self.usd is None and other.usd is None else (self.usd or 0.0) + (other.usd or 0.0)
        return Usage(self.tokens_in + other.tokens_in, self.tokens_out + other.tokens_out, usd)


@dataclass(frozen=True)
class Completion:
    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    stop_reason: str = ""
    cached: bool = False


class ModelError(Exception):
    """A model call failed (network, API error, bad output); not cached, unless :attr:`recorded`."""

    #: the failure is the model's own answer to the request (its output, or a prompt it cannot take),
    #: not the road to it: the cache keeps it like an answer, so a replay fails the same way
    recorded = False
    #: a failure of the model, counted in the ledger (a replay's unrecorded call is not one)
    counted = True


class Provider(Protocol):
    #: ``provider:model`` as the user wrote it, e.g. ``anthropic:claude-sonnet-4-5``
    spec: str

    def identity(self) -> dict[str, Any]:
        """Everything besides a request that changes an answer: model, endpoint, file, runtime, sampling."""
        ...

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
        """One model call. ``json_schema`` constrains the reply to JSON (as text)."""
        ...


class ContextFull(ModelError):
    """The request does not fit in the model's context window (a local model's is small)."""

    recorded = True


class ReplyCutOff(ModelError):
    """A constrained reply reached ``max_tokens`` before its JSON was complete.

    ``tokens_out`` is the reply's length when it stopped: it tells a reply
    cut off at ``max_tokens`` from one stopped by a full context window
    (:class:`ContextFull`), which llama.cpp reports alike.
    """

    recorded = True

    def __init__(self, message: str, tokens_out: int | None = None) -> None:
        super().__init__(message)
        self.tokens_out = tokens_out


class BadOutput(ModelError):
    """A constrained reply that is not what its grammar asked for (not JSON, not an action)."""

    recorded = True


#: the recorded failures by name, as the cache stores them
RECORDED_FAILURES: dict[str, type[ModelError]] = {kind.__name__: kind for kind in (ContextFull, ReplyCutOff, BadOutput)}


class NoModelConfigured(ModelError):
    """No usable model: the spec is ``none``, or its key, file or runtime is missing.

    Callers skip the model-driven shapes and print this message as the reason.
    """
