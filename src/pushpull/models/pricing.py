"""List prices of a few hosted models, so the spend line can say what a run cost.

Prices are US dollars per million tokens (input, output), standard tier, no
batch or prompt-caching discounts. Sources, read 2026-11 (no network from the
build machines, so from stored copies of these pages):
- Anthropic 5.x models: https://platform.claude.com/docs/about-claude/models/whats-new-opus-5
  (its "current lineup" table);
- Anthropic 4.x and 3.x models: https://docs.anthropic.com/en/docs/about-claude/pricing
  (Opus 4.6 / Sonnet 4.6 as quoted from it by deploybase.ai, 2026-03-21);
- OpenAI: https://openai.com/api/pricing/ as of 2025-11.
Prices change and models come and go, so a model missing here is reported as
"price unknown" rather than guessed; local models always cost nothing.
"""

from __future__ import annotations

import re

PRICES_AS_OF = "2026-11"
_SNAPSHOT = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$")

#: model name -> (USD per 1M input tokens, USD per 1M output tokens)
PRICES_PER_MTOK: dict[str, dict[str, tuple[float, float]]] = {
    "anthropic": {
        "claude-fable-5-1": (10.00, 50.00),
        "claude-opus-5-5": (4.00, 20.00),
        "claude-opus-5": (5.00, 25.00),
        "claude-sonnet-5-5": (2.00, 10.00),
        "claude-opus-4-6": (5.00, 25.00),
        "claude-sonnet-4-6": (3.00, 15.00),
        "claude-opus-4-5": (5.00, 25.00),
        "claude-opus-4-1": (15.00, 75.00),
        "claude-opus-4": (15.00, 75.00),
        "claude-sonnet-4-5": (3.00, 15.00),
        "claude-sonnet-4": (3.00, 15.00),
        "claude-3-7-sonnet": (3.00, 15.00),
        "claude-haiku-4-5": (1.00, 5.00),
        "claude-3-5-haiku": (0.80, 4.00),
    },
    "openai": {
        "gpt-5-nano": (0.05, 0.40),
        "gpt-5-mini": (0.25, 2.00),
        "gpt-5": (1.25, 10.00),
        "gpt-4.1-nano": (0.10, 0.40),
        "gpt-4.1-mini": (0.40, 1.60),
        "gpt-4.1": (2.00, 8.00),
        "gpt-4o-mini": (0.15, 0.60),
        "gpt-4o": (2.50, 10.00),
    },
    "local": {},
}


def price_per_mtok(provider: str, model: str) -> tuple[float, float] | None:
    """The (input, output) price for ``model``; local models are free.

    A dated snapshot (``claude-sonnet-4-5-20250929``, ``gpt-4o-2024-08-06``) or
    ``-latest`` alias is priced as its model; any other unlisted name gives None,
    so ``claude-opus-4-7`` is never priced as ``claude-opus-4``.
    """
    if provider == "local":
        return (0.0, 0.0)
    return PRICES_PER_MTOK.get(provider, {}).get(_SNAPSHOT.sub("", model))


def cost_usd(provider: str, model: str, tokens_in: int, tokens_out: int) -> float | None:
    """What a call cost at list price, or None when the model has no known price."""
    price = price_per_mtok(provider, model)
    if price is None:
        return None
    return (tokens_in * price[0] + tokens_out * price[1]) / 1_000_000
