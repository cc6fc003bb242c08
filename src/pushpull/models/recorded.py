"""A provider that answers only from the disk cache: replaying a run without its model.

A replay must reproduce a published table on a machine without the model
(no key, no GGUF file, no runtime). The run's ``results.json`` records each
provider's identity; a :class:`RecordedBackend` takes that identity, so the
cache keys of the original calls are computed again, and every call the run
made is answered by :class:`~pushpull.models.metered.MeteredProvider` from the
cache. A call that was never made before reaches the backend and fails, with
a message that says so, rather than silently asking a different model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Completion, Message, ModelError
from .cache import CompletionCache
from .ledger import Ledger, default_ledger
from .metered import MeteredProvider


class NotRecorded(ModelError):
    """A replay needed a model call the original run never made."""


class RecordedBackend:
    """The backend of a replay: the identity of the original provider, and no model behind it."""

    def __init__(self, spec: str, identity: dict[str, Any]) -> None:
        self.spec = spec
        self.provider, _, self.model = spec.partition(":")
        self._identity = dict(identity)

    def identity(self) -> dict[str, Any]:
        return dict(self._identity)

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
        raise NotRecorded(f"{self.spec}: the replayed run never made this call, and a replay calls no model")


def recorded_provider(
    spec: str, identity: dict[str, Any], cache_dir: Path, *, ledger: Ledger | None = None
) -> MeteredProvider:
    """A provider for ``spec`` that answers from ``cache_dir`` only, keyed by the recorded ``identity``."""
    backend = RecordedBackend(spec, identity)
    return MeteredProvider(backend, ledger=ledger or default_ledger(), cache=CompletionCache(cache_dir))
