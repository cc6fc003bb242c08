"""Prices, the ledger's spend line and the disk cache on their own."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from pushpull.models import Completion, Ledger, Message, ToolCall, Usage
from pushpull.models.cache import CompletionCache, request_key
from pushpull.models.pricing import cost_usd, price_per_mtok

BASE = {"system": "s", "tools": None, "json_schema": None, "max_tokens": 10, "temperature": 0.0}


@pytest.mark.parametrize(
    ("provider", "model", "price"),
    [
        ("anthropic", "claude-sonnet-4-5-20250929", (3.0, 15.0)),
        ("anthropic", "claude-haiku-4-5", (1.0, 5.0)),
        ("openai", "gpt-4o-mini", (0.15, 0.60)),
        ("openai", "gpt-4o-2024-08-06", (2.50, 10.0)),
        ("openai", "gpt-5-mini", (0.25, 2.0)),
        ("local", "anything.gguf", (0.0, 0.0)),
        ("anthropic", "claude-opus-4-20250514", (15.0, 75.0)),
        ("anthropic", "claude-opus-4-7", None),
        ("openai", "gpt-4o-latest", (2.50, 10.0)),
        ("openai", "gpt-4oops", None),
        ("anthropic", "claude-unknown", None),
    ],
)
def test_prices_match_the_model_or_its_dated_snapshot(
    provider: str, model: str, price: tuple[float, float] | None
) -> None:
    assert price_per_mtok(provider, model) == price


def test_cost_is_per_million_tokens() -> None:
    assert cost_usd("anthropic", "claude-sonnet-4-5", 1_000_000, 1_000_000) == pytest.approx(18.0)
    assert cost_usd("openai", "my-own-model", 10, 10) is None


def test_spend_line_separates_billed_cached_failed_and_unpriced() -> None:
    ledger = Ledger()
    assert ledger.summary() == "spend: no model calls"
    ledger.record("anthropic:claude-sonnet-4-5", Usage(1000, 200, 0.006), cached=False)
    ledger.record("anthropic:claude-sonnet-4-5", Usage(1000, 200, 0.006), cached=True)
    ledger.record("openai:mystery", Usage(50, 5, None), cached=False)
    ledger.record_failure("openai:mystery")
    line = ledger.summary()
    assert line.startswith("spend: 2 calls, 1 cached, 1 failed, 1,050 tokens in, 205 out, $0.0060")
    assert "price unknown for openai:mystery" in line and "cache saved $0.0060" in line
    data = ledger.to_dict()
    assert data["by_spec"]["openai:mystery"]["unpriced_calls"] == 1
    assert data["total"]["cached_tokens_in"] == 1000


def test_ledger_counts_exactly_under_threads() -> None:
    ledger = Ledger()

    def work() -> None:
        for _ in range(500):
            ledger.record("local:m", Usage(3, 1, 0.0), cached=False)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (ledger.total()["calls"], ledger.total()["tokens_in"]) == (4000, 12000)


def test_key_depends_on_the_provider_identity_and_not_on_dict_order() -> None:
    messages = [Message("user", "hi")]
    key = request_key({"provider": "openai", "model": "a"}, messages, **BASE)
    assert key == request_key({"model": "a", "provider": "openai"}, messages, **BASE)
    assert key != request_key({"provider": "openai", "model": "b"}, messages, **BASE)
    assert key != request_key({"provider": "openai", "model": "a"}, [Message("user", "hi", is_error=True)], **BASE)


def test_cache_round_trips_a_completion_across_instances(tmp_path: Path) -> None:
    completion = Completion("t", (ToolCall("c1", "read", {"id": "a#1"}),), Usage(5, 2, 0.001), "tool_use")
    CompletionCache(tmp_path).put("k", "openai:gpt-4o", completion)
    hit = CompletionCache(tmp_path).get("k")
    assert hit == Completion("t", completion.tool_calls, completion.usage, "tool_use", cached=True)
    assert CompletionCache(tmp_path).get("other") is None
    with sqlite3.connect(tmp_path / "completions.sqlite3") as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_cache_serves_many_threads(tmp_path: Path) -> None:
    cache = CompletionCache(tmp_path)
    errors: list[BaseException] = []

    def work(n: int) -> None:
        try:
            for i in range(50):
                cache.put(f"{n}-{i}", "local:m", Completion(f"{n}-{i}"))
                assert cache.get(f"{n}-{i}").text == f"{n}-{i}"  # type: ignore[union-attr]
        except BaseException as error:  # noqa: BLE001 (reported below)
            errors.append(error)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(cache) == 300
