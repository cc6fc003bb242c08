"""The one wrapper every provider goes through: disk cache, then ledger.

Backends (Anthropic, OpenAI, local) only translate a call to their wire format
and back. Caching, pricing and accounting happen here once, so every provider
gets the same guarantees: a cached answer makes no request and costs nothing;
a failure is counted and never stored.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Protocol

from .base import Completion, Message, ModelError, Provider
from .cache import CompletionCache, request_key
from .ledger import Ledger
from .pricing import cost_usd


class Backend(Provider, Protocol):
    """What a provider implements (a :class:`Provider`, plus its names); ``MeteredProvider`` adds the rest."""

    model: str

    @property
    def provider(self) -> str:
        """The provider's name (``anthropic``, ``openai``, ``local``); a class attribute will do."""
        ...


class MeteredProvider:
    """A ``Provider``: a backend behind an optional disk cache, counted in a ledger."""

    def __init__(
        self, backend: Backend, *, ledger: Ledger, cache: CompletionCache | None = None, read_cache: bool = True
    ) -> None:
        self.backend = backend
        self.spec = backend.spec
        self.ledger = ledger
        self.cache = cache
        #: False: every call goes to the backend and its answer is stored (a run made again in full, timed)
        self.read_cache = read_cache

    def identity(self) -> dict[str, Any]:
        """The backend's identity: what, besides a request, changes its answers (for callers' cache keys)."""
        return self.backend.identity()

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
        """One call; answered from the cache when an identical call succeeded before.

        A cache hit comes back with ``cached=True`` and the usage of the original
        call; the ledger books it as cached, with no spend.
        """
        request: dict[str, Any] = {
            "system": system,
            "tools": tools,
            "json_schema": json_schema,
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        key = request_key(self.backend.identity(), messages, **request) if self.cache is not None else ""
        if self.cache is not None and self.read_cache and (hit := self.cache.get(key)) is not None:
            if isinstance(hit, ModelError):
                raise hit  # the model's recorded failure on this request, as in the run that met it
            self.ledger.record(self.spec, hit.usage, cached=True)
            return hit
        try:
            completion = self.backend.complete(messages, **request)
        except ModelError as err:
            if err.counted:
                self.ledger.record_failure(self.spec)
            if err.recorded and self.cache is not None:
                self.cache.put_failure(key, self.spec, err)
            raise
        usage = completion.usage
        if usage.usd is None:
            usage = replace(
                usage, usd=cost_usd(self.backend.provider, self.backend.model, usage.tokens_in, usage.tokens_out)
            )
        completion = replace(completion, usage=usage, cached=False)
        if self.cache is not None:
            self.cache.put(key, self.spec, completion)
        self.ledger.record(self.spec, usage, cached=False)
        return completion
