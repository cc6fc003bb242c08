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

from .base import Completion, Message, ModelError, NoModelConfigured, Provider
from .cache import CompletionCache
from .ledger import Ledger, default_ledger
from .metered import MeteredProvider
from .registry import get_provider


class NotRecorded(ModelError):
    """A replay needed a model call the original run never made."""

    counted = False  # not a failure of the model


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


def live_provider(spec: str, cache_dir: Path, recorded_identity: dict[str, Any]) -> tuple[MeteredProvider | None, str]:
    """The model ``spec`` itself, storing answers in ``cache_dir`` but never reading them; or None and why.

    None when the model cannot run here, or when the one installed is not the
    recorded one (another identity): one row's answers must come from one model.
    """
    try:
        provider = get_provider(spec, cache_dir=cache_dir)
    except NoModelConfigured as err:
        return None, str(err)
    if not isinstance(provider, MeteredProvider) or provider.identity() != recorded_identity:
        return None, f"the {spec} here is not the one the run recorded (its identity differs)"
    provider.read_cache = False
    return provider, ""


class RecordedFirst:
    """A provider answering each call as a recorded run did, asking ``live`` only what the run never asked.

    The provider of a re-execution (``contextpull bench --replay RUN
    --re-execute``): the code running now makes every request, and a request
    the run recorded gets the recorded answer. ``recorded`` and ``live`` stay
    reachable, for a caller that must tell the two apart (a pull run is
    either reproduced from the record or run again in full); ``why_not_live``
    says why there is no live model, when there is none.
    """

    def __init__(self, recorded: Provider, live: Provider | None, why_not_live: str = "") -> None:
        self.recorded, self.live, self.why_not_live = recorded, live, why_not_live
        self.spec = recorded.spec

    def identity(self) -> dict[str, Any]:
        return self.recorded.identity()

    def complete(self, messages: list[Message], **request: Any) -> Completion:
        try:
            return self.recorded.complete(messages, **request)
        except NotRecorded:
            if self.live is None:
                raise
            return self.live.complete(messages, **request)
