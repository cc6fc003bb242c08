"""``provider:model`` → a metered, cached ``Provider``: the one door to every model backend."""

from __future__ import annotations

from pathlib import Path

from .base import ModelError, NoModelConfigured, Provider
from .cache import CompletionCache
from .ledger import Ledger, default_ledger
from .metered import Backend, MeteredProvider
from .retry import RetryPolicy

PROVIDERS = ("anthropic", "openai", "local")


def _backend(kind: str, model: str, retry: RetryPolicy | None) -> Backend:
    if kind == "anthropic":
        from .anthropic_provider import AnthropicProvider

        return AnthropicProvider(model, retry=retry)
    if kind == "openai":
        from .openai_provider import OpenAIProvider

        return OpenAIProvider(model, retry=retry)
    from .local_model import resolve_local_model
    from .local_provider import LocalProvider

    return LocalProvider.from_path(resolve_local_model(model), name=model)


def get_provider(
    spec: str,
    *,
    cache_dir: Path | None = None,
    ledger: Ledger | None = None,
    retry: RetryPolicy | None = None,
) -> Provider:
    """The provider for ``spec``, cached in ``cache_dir`` (no disk cache when None) and
    counted in ``ledger`` (the process-wide ``default_ledger()`` when None).

    Raises NoModelConfigured for ``none`` and for a provider that cannot run here
    (missing API key, model file or runtime), ModelError for a malformed spec.
    """
    if spec.strip() in ("", "none"):
        raise NoModelConfigured("no model configured (spec 'none'); model-driven shapes are skipped")
    kind, _, model = spec.partition(":")
    if kind not in PROVIDERS or not model:
        raise ModelError(
            f"bad model spec {spec!r}: expected one of {', '.join(p + ':<model>' for p in PROVIDERS)} or 'none'"
        )
    backend = _backend(kind, model, retry)
    cache = CompletionCache(cache_dir) if cache_dir is not None else None
    return MeteredProvider(backend, ledger=ledger if ledger is not None else default_ledger(), cache=cache)
