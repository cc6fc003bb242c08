"""What the two hosted providers (``anthropic:``, ``openai:``) share.

Both read their key and endpoint from the environment, refuse to start without
a key (``NoModelConfigured``, so callers skip model-driven shapes), switch the
SDK's own retries off in favour of one ``RetryPolicy``, and report the same
identity. A subclass names its provider (which is also its SDK's module and
the prefix of its variables), client class and default endpoint; it holds
only what differs: the request and response wire format.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any, ClassVar, TypeVar

from ..errors import EVAL_EXTRA_HINT
from .base import NoModelConfigured
from .retry import RetryPolicy, call_sdk

T = TypeVar("T")


class HostedProvider:
    """A ``Backend`` for an API reached through a Stainless SDK (``anthropic`` or ``openai``)."""

    #: the spec prefix, also the SDK's module name and the prefix of its variables
    #: (``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``)
    provider: ClassVar[str]
    #: the SDK's client class, e.g. ``Anthropic``
    client_class: ClassVar[str]
    default_base_url: ClassVar[str]

    def __init__(self, model: str, *, retry: RetryPolicy | None = None, timeout: float = 120.0) -> None:
        variables = self.provider.upper()
        api_key = os.environ.get(f"{variables}_API_KEY")
        if not api_key:
            raise NoModelConfigured(f"{self.provider}:{model} needs {variables}_API_KEY in the environment")
        self.model = model
        self.spec = f"{self.provider}:{model}"
        self.base_url = os.environ.get(f"{variables}_BASE_URL") or self.default_base_url
        self.retry = retry or RetryPolicy()
        # Imported here, not at module level, so the harness loads without either SDK.
        try:
            self._sdk = importlib.import_module(self.provider)
        except ModuleNotFoundError as exc:
            raise NoModelConfigured(
                f"{self.spec} needs the {exc.name} package, which is not installed; {EVAL_EXTRA_HINT}"
            ) from exc
        client = getattr(self._sdk, self.client_class)
        self._client = client(api_key=api_key, base_url=self.base_url, max_retries=0, timeout=timeout)

    def identity(self) -> dict[str, Any]:
        return {"provider": self.provider, "model": self.model, "base_url": self.base_url}

    def _call(self, create: Callable[[], T]) -> T:
        """Run one SDK request under ``self.retry``: connection failures and retryable statuses are retried."""
        return call_sdk(
            create,
            policy=self.retry,
            spec=self.spec,
            status_error=self._sdk.APIStatusError,
            connection_error=self._sdk.APIConnectionError,
        )
