"""The hosted providers through the real SDKs against loopback stand-ins of the real APIs."""

from __future__ import annotations

import json
import socket
import threading
from pathlib import Path
from typing import Any

import pytest

from fakes.anthropic_server import AnthropicFake, error_reply, text_reply, tool_reply
from fakes.openai_server import OpenAIFake, raw_tool_call_reply, tool_calls_reply
from fakes.openai_server import error_reply as openai_error
from fakes.openai_server import text_reply as openai_text
from pushpull.models import Ledger, Message, ModelError, NoModelConfigured, RetryPolicy, ToolCall, get_provider

FAST = RetryPolicy(attempts=3, base_delay=0.001, max_delay=0.01)
SEARCH = {
    "name": "search",
    "description": "Find sections.",
    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
}
HELLO = [Message("user", "hello")]


@pytest.fixture
def anthropic_env(monkeypatch: pytest.MonkeyPatch):
    def start(script: Any) -> AnthropicFake:
        fake = AnthropicFake(script=script)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
        fake.__enter__()
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        started.append(fake)
        return fake

    started: list[AnthropicFake] = []
    yield start
    for fake in started:
        fake.__exit__(None, None, None)


@pytest.fixture
def openai_env(monkeypatch: pytest.MonkeyPatch):
    def start(script: Any) -> OpenAIFake:
        fake = OpenAIFake(script=script)
        monkeypatch.setenv("OPENAI_API_KEY", fake.api_key)
        fake.__enter__()
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        started.append(fake)
        return fake

    started: list[OpenAIFake] = []
    yield start
    for fake in started:
        fake.__exit__(None, None, None)


# -- Anthropic ----------------------------------------------------------------


def test_anthropic_text_completion_is_sent_and_counted(anthropic_env) -> None:
    fake = anthropic_env([text_reply("Paris.", tokens_in=120, tokens_out=4)])
    ledger = Ledger()
    provider = get_provider("anthropic:claude-sonnet-4-6", ledger=ledger, retry=FAST)

    completion = provider.complete([Message("user", "Capital of France?")], system="Be brief.", max_tokens=50)

    assert completion.text == "Paris." and completion.tool_calls == () and not completion.cached
    assert completion.stop_reason == "end_turn"
    assert (completion.usage.tokens_in, completion.usage.tokens_out) == (120, 4)
    assert completion.usage.usd == pytest.approx((120 * 3 + 4 * 15) / 1e6)
    body = fake.bodies[0]
    assert body["model"] == "claude-sonnet-4-6" and body["system"] == "Be brief." and body["max_tokens"] == 50
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "Capital of France?"}]}]
    total = ledger.total()
    assert (total["calls"], total["tokens_in"], total["tokens_out"]) == (1, 120, 4)
    assert total["usd"] == pytest.approx(completion.usage.usd)


def test_anthropic_tool_call_round_trip(anthropic_env) -> None:
    fake = anthropic_env(
        [tool_reply("search", {"query": "install"}, id="toolu_1", text="Let me look."), text_reply("Use uv.")]
    )
    provider = get_provider("anthropic:claude-haiku-4-5", ledger=Ledger(), retry=FAST)

    first = provider.complete(HELLO, tools=[SEARCH])
    assert first.tool_calls == (ToolCall("toolu_1", "search", {"query": "install"}),)
    assert first.text == "Let me look." and first.stop_reason == "tool_use"
    assert fake.bodies[0]["tools"] == [SEARCH]

    turns = HELLO + [
        Message("assistant", first.text, tool_calls=first.tool_calls),
        Message("tool", "guides/install.md#1: run uv", tool_call_id="toolu_1"),
        Message("tool", "no such id", tool_call_id="toolu_1", is_error=True),
    ]
    second = provider.complete(turns, tools=[SEARCH])

    assert second.text == "Use uv."
    sent = fake.bodies[1]["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "search", "input": {"query": "install"}},
        ],
    }
    assert sent[2]["role"] == "user" and len(sent) == 3
    assert sent[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "guides/install.md#1: run uv", "is_error": False},
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "no such id", "is_error": True},
    ]


def test_anthropic_retries_overload_and_server_error_then_succeeds(anthropic_env) -> None:
    fake = anthropic_env([error_reply(529, "Overloaded"), error_reply(500), text_reply("ok")])
    ledger = Ledger()
    completion = get_provider("anthropic:claude-sonnet-4-6", ledger=ledger, retry=FAST).complete(HELLO)
    assert completion.text == "ok"
    assert len(fake.requests) == 3
    assert (ledger.total()["calls"], ledger.total()["failures"]) == (1, 0)


def test_failure_after_retries_is_one_line_and_not_cached(anthropic_env, tmp_path: Path) -> None:
    fake = anthropic_env([error_reply(529, "Overloaded")] * 3 + [text_reply("recovered")])
    ledger = Ledger()
    provider = get_provider("anthropic:claude-sonnet-4-6", cache_dir=tmp_path, ledger=ledger, retry=FAST)

    with pytest.raises(ModelError) as failure:
        provider.complete(HELLO)
    message = str(failure.value)
    assert "\n" not in message
    assert "anthropic:claude-sonnet-4-6" in message and "HTTP 529" in message and "Overloaded" in message
    assert "3 attempts" in message
    assert ledger.total()["failures"] == 1

    assert provider.complete(HELLO).text == "recovered"
    assert len(fake.requests) == 4


def test_non_retryable_status_fails_at_once(anthropic_env) -> None:
    fake = anthropic_env([error_reply(400, "messages: bad role")])
    with pytest.raises(ModelError, match="HTTP 400 invalid_request_error: messages: bad role"):
        get_provider("anthropic:claude-sonnet-4-6", ledger=Ledger(), retry=FAST).complete(HELLO)
    assert len(fake.requests) == 1


def test_wrong_key_is_an_auth_error_not_retried(anthropic_env, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = anthropic_env([text_reply("never")])
    monkeypatch.setenv("ANTHROPIC_API_KEY", "wrong")
    with pytest.raises(ModelError, match="HTTP 401 authentication_error"):
        get_provider("anthropic:claude-sonnet-4-6", ledger=Ledger(), retry=FAST).complete(HELLO)
    assert len(fake.requests) == 1


def test_connection_failures_are_retried_then_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    with pytest.raises(ModelError, match=r"connection failed.*gave up after 3 attempts"):
        get_provider("anthropic:claude-sonnet-4-6", ledger=Ledger(), retry=FAST).complete(HELLO)


def test_cache_hit_makes_no_request_and_costs_nothing(anthropic_env, tmp_path: Path) -> None:
    fake = anthropic_env([text_reply("Paris.", tokens_in=100, tokens_out=10)])
    first = get_provider("anthropic:claude-sonnet-4-6", cache_dir=tmp_path, ledger=Ledger(), retry=FAST).complete(HELLO)

    ledger = Ledger()  # a later run: new process state, same cache folder
    again = get_provider("anthropic:claude-sonnet-4-6", cache_dir=tmp_path, ledger=ledger, retry=FAST).complete(HELLO)

    assert len(fake.requests) == 1
    assert again.cached and not first.cached
    assert (again.text, again.usage) == (first.text, first.usage)
    total = ledger.total()
    assert (total["calls"], total["cached_calls"], total["usd"]) == (0, 1, 0.0)
    assert (total["cached_tokens_in"], total["cached_tokens_out"]) == (100, 10)
    assert "1 cached" in ledger.summary() and "$0.0000" in ledger.summary()


@pytest.mark.parametrize(
    "change",
    [
        {"system": "other"},
        {"messages": [Message("user", "hello!")]},
        {"tools": [SEARCH]},
        {"json_schema": {"type": "object"}},
        {"max_tokens": 99},
        {"temperature": 0.5},
    ],
    ids=lambda change: next(iter(change)),
)
def test_any_changed_parameter_misses_the_cache(anthropic_env, tmp_path: Path, change: dict[str, Any]) -> None:
    reply = tool_reply("json_response", {"a": 1}) if "json_schema" in change else text_reply("x")
    fake = anthropic_env([text_reply("x"), reply])
    provider = get_provider("anthropic:claude-sonnet-4-6", cache_dir=tmp_path, ledger=Ledger(), retry=FAST)
    provider.complete(HELLO)
    call = {"messages": HELLO, **change}
    assert not provider.complete(call.pop("messages"), **call).cached
    assert len(fake.requests) == 2


def test_another_model_misses_the_cache(anthropic_env, tmp_path: Path) -> None:
    fake = anthropic_env([text_reply("a"), text_reply("b")])
    get_provider("anthropic:claude-sonnet-4-6", cache_dir=tmp_path, ledger=Ledger()).complete(HELLO)
    assert get_provider("anthropic:claude-haiku-4-5", cache_dir=tmp_path, ledger=Ledger()).complete(HELLO).text == "b"
    assert len(fake.requests) == 2


def test_anthropic_json_schema_is_a_forced_tool(anthropic_env) -> None:
    schema = {"type": "object", "properties": {"question": {"type": "string"}}, "required": ["question"]}
    fake = anthropic_env([tool_reply("json_response", {"question": "How?"})])
    completion = get_provider("anthropic:claude-sonnet-4-6", ledger=Ledger()).complete(HELLO, json_schema=schema)
    assert json.loads(completion.text) == {"question": "How?"} and completion.tool_calls == ()
    body = fake.bodies[0]
    assert body["tool_choice"] == {"type": "tool", "name": "json_response"}
    assert body["tools"][0]["input_schema"] == schema


def test_anthropic_json_schema_wraps_a_non_object_schema(anthropic_env) -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    fake = anthropic_env([tool_reply("json_response", {"value": ["a", "b"]})])
    completion = get_provider("anthropic:claude-sonnet-4-6", ledger=Ledger()).complete(HELLO, json_schema=schema)
    assert json.loads(completion.text) == ["a", "b"]
    assert fake.bodies[0]["tools"][0]["input_schema"]["properties"]["value"] == schema


def test_anthropic_json_schema_beside_tools_is_structured_output(anthropic_env) -> None:
    schema = {"type": "object", "properties": {"answer": {"type": "string"}}}
    fake = anthropic_env([text_reply('{"answer": "x"}')])
    completion = get_provider("anthropic:claude-sonnet-4-6", ledger=Ledger()).complete(
        HELLO, tools=[SEARCH], json_schema=schema
    )
    assert completion.text == '{"answer": "x"}'
    body = fake.bodies[0]
    assert body["output_config"] == {"format": {"type": "json_schema", "schema": schema}}
    assert body["tools"] == [SEARCH] and "tool_choice" not in body


def test_parallel_calls_through_one_provider_are_all_counted(anthropic_env, tmp_path: Path) -> None:
    def echo(request) -> dict[str, Any]:
        return text_reply(request.body["messages"][0]["content"][0]["text"].upper(), tokens_in=7, tokens_out=3)

    fake = anthropic_env(echo)
    ledger = Ledger()
    provider = get_provider("anthropic:claude-sonnet-4-6", cache_dir=tmp_path, ledger=ledger, retry=FAST)
    prompts = [f"question {n}" for n in range(24)]
    answers: dict[str, str] = {}

    def ask(batch: list[str]) -> None:
        for prompt in batch:
            answers[prompt] = provider.complete([Message("user", prompt)]).text

    def run_all() -> None:
        threads = [threading.Thread(target=ask, args=(prompts[i::6],)) for i in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    run_all()
    assert answers == {prompt: prompt.upper() for prompt in prompts}
    assert len(fake.requests) == 24
    assert (ledger.total()["calls"], ledger.total()["tokens_in"], ledger.total()["tokens_out"]) == (24, 168, 72)

    run_all()
    assert len(fake.requests) == 24
    assert (ledger.total()["calls"], ledger.total()["cached_calls"]) == (24, 24)


# -- OpenAI -------------------------------------------------------------------


def test_openai_text_completion(openai_env) -> None:
    fake = openai_env([openai_text("Paris.", tokens_in=30, tokens_out=2)])
    ledger = Ledger()
    completion = get_provider("openai:gpt-4o-mini", ledger=ledger).complete(
        [Message("user", "Capital?")], system="Brief.", max_tokens=20
    )
    assert completion.text == "Paris." and completion.stop_reason == "stop"
    assert completion.usage.usd == pytest.approx((30 * 0.15 + 2 * 0.60) / 1e6)
    body = fake.bodies[0]
    assert body["messages"] == [{"role": "system", "content": "Brief."}, {"role": "user", "content": "Capital?"}]
    assert body["max_tokens"] == 20 and body["temperature"] == 0.0
    assert fake.requests[0].headers["authorization"] == f"Bearer {fake.api_key}"
    assert ledger.total()["calls"] == 1


def test_openai_tool_call_round_trip(openai_env) -> None:
    fake = openai_env([tool_calls_reply(("search", {"query": "install"}, "call_1")), openai_text("Use uv.")])
    provider = get_provider("openai:gpt-4.1", ledger=Ledger())
    first = provider.complete(HELLO, tools=[SEARCH])
    assert first.tool_calls == (ToolCall("call_1", "search", {"query": "install"}),)
    assert first.stop_reason == "tool_calls"
    assert fake.bodies[0]["tools"] == [
        {
            "type": "function",
            "function": {"name": "search", "description": "Find sections.", "parameters": SEARCH["input_schema"]},
        }
    ]
    turns = HELLO + [
        Message("assistant", "", tool_calls=first.tool_calls),
        Message("tool", "guides/install.md#1", tool_call_id="call_1"),
    ]
    assert provider.complete(turns, tools=[SEARCH]).text == "Use uv."
    sent = fake.bodies[1]["messages"]
    assert sent[1] == {
        "role": "assistant",
        "content": "",
        "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "search", "arguments": '{"query": "install"}'}}
        ],
    }
    assert sent[2] == {"role": "tool", "tool_call_id": "call_1", "content": "guides/install.md#1"}


def test_openai_json_schema_is_a_response_format(openai_env) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    fake = openai_env([openai_text('{"ok": true}')])
    completion = get_provider("openai:gpt-4o", ledger=Ledger()).complete(HELLO, json_schema=schema)
    assert json.loads(completion.text) == {"ok": True}
    assert fake.bodies[0]["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "response", "schema": schema, "strict": False},
    }


def test_openai_retries_rate_limit_then_succeeds(openai_env) -> None:
    fake = openai_env([openai_error(429, "Rate limit"), openai_error(503), openai_text("ok")])
    assert get_provider("openai:gpt-4o", ledger=Ledger(), retry=FAST).complete(HELLO).text == "ok"
    assert len(fake.requests) == 3


def test_openai_malformed_tool_arguments_are_bad_output_and_not_cached(openai_env, tmp_path: Path) -> None:
    fake = openai_env([raw_tool_call_reply("search", "{not json"), openai_text("fine")])
    provider = get_provider("openai:gpt-4o", cache_dir=tmp_path, ledger=Ledger())
    with pytest.raises(ModelError, match="bad output: arguments of search are not JSON"):
        provider.complete(HELLO, tools=[SEARCH])
    assert provider.complete(HELLO, tools=[SEARCH]).text == "fine"
    assert len(fake.requests) == 2


def test_unknown_model_has_no_price(openai_env) -> None:
    openai_env([openai_text("hi")])
    ledger = Ledger()
    completion = get_provider("openai:llama3-on-my-server", ledger=ledger).complete(HELLO)
    assert completion.usage.usd is None
    assert "price unknown for openai:llama3-on-my-server" in ledger.summary()


# -- specs ---------------------------------------------------------------------


def test_none_spec_says_no_model_is_configured() -> None:
    with pytest.raises(NoModelConfigured, match="no model configured"):
        get_provider("none")


@pytest.mark.parametrize("spec", ["anthropic", "gemini:pro", "anthropic:", "claude-sonnet"])
def test_malformed_spec_is_a_model_error(spec: str) -> None:
    with pytest.raises(ModelError, match="bad model spec"):
        get_provider(spec)


@pytest.mark.parametrize(
    ("spec", "variable"), [("anthropic:claude-sonnet-4-6", "ANTHROPIC_API_KEY"), ("openai:gpt-4o", "OPENAI_API_KEY")]
)
def test_missing_key_means_no_usable_model(spec: str, variable: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(variable, raising=False)
    with pytest.raises(NoModelConfigured, match=variable):
        get_provider(spec)
