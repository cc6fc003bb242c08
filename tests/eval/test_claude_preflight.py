"""The Claude Code preflight against the real Claude Code: logged in, API reachable, our server connected.

Each case is a set-up that used to cost about three minutes per question
(Claude Code retries ten times) and now stops the rows before the first
question, with one line saying what to fix.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from claudecode_support import API_KEY, ScriptedModel, Turn, require_claude, seal_environment
from contextpull.eval.claude_preflight import PROBE, preflight, probe_problem
from contextpull.eval.claudecode import ClaudeCodeRetriever
from contextpull.eval.pull_record import PullRunFailed
from contextpull.eval.pull_rows import pull_rows
from fakes import AnthropicFake
from fakes.anthropic_server import text_reply
from pull_support import store  # noqa: F401 (store is a fixture)


@pytest.fixture
def claude() -> Path:
    return require_claude()


def _ready(turn: Turn) -> dict[str, object]:
    return text_reply("ready")


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_working_set_up_passes_with_one_short_model_call(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel([_ready])
    with AnthropicFake(script=model, api_key=API_KEY) as fake:
        seal_environment(monkeypatch, tmp_path / "home", fake.base_url)
        preflight(ClaudeCodeRetriever(store, claude=str(claude)))
    (request,) = model.conversation
    assert PROBE in str(request.body["messages"])


def test_a_wrong_key_stops_at_the_first_refusal(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel([_ready])
    with AnthropicFake(script=model, api_key=API_KEY) as fake:
        seal_environment(monkeypatch, tmp_path / "home", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-not-the-key")
        with pytest.raises(PullRunFailed, match=r"refused the credentials \(HTTP 401") as failed:
            preflight(ClaudeCodeRetriever(store, claude=str(claude)))
    assert "/login" in failed.value.suggestion and model.conversation == []


def test_not_logged_in_is_said_in_claude_codes_words(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seal_environment(monkeypatch, tmp_path / "home", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(PullRunFailed, match="Claude Code preflight: Not logged in"):
        preflight(ClaudeCodeRetriever(store, claude=str(claude)))


def test_an_unreachable_api_stops_after_a_few_tries_naming_the_address(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    address = f"http://127.0.0.1:{_closed_port()}"
    seal_environment(monkeypatch, tmp_path / "home", address)
    with pytest.raises(PullRunFailed, match="did not answer after 3 tries") as failed:
        preflight(ClaudeCodeRetriever(store, claude=str(claude)))
    assert address in failed.value.suggestion


def test_the_bench_rows_are_skipped_with_the_preflight_line(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seal_environment(monkeypatch, tmp_path / "home", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("PATH", f"{claude.parent}:{os.environ['PATH']}")
    rows = pull_rows("claude-code", store, cache_dir=tmp_path / "cache")
    assert rows.rows == []
    assert set(rows.skipped) == {f"pull, ids {how} (claude-code)" for how in ("read", "surfaced")}
    assert all(reason.startswith("Claude Code preflight: Not logged in") for reason in rows.skipped.values())


def test_a_server_claude_code_does_not_connect_is_named() -> None:
    init = '{"type": "system", "subtype": "init", "mcp_servers": [{"name": "contextpull", "status": "failed"}]}'
    assert probe_problem([init]) == (
        "Claude Code reports the contextpull MCP server as failed",
        "run `contextpull serve <store>` by hand to see why",
    )


def test_a_tool_call_at_the_one_turn_limit_still_proves_the_api_works() -> None:
    connected = '{"type": "system", "subtype": "init", "mcp_servers": [{"name": "contextpull", "status": "connected"}]}'
    assert probe_problem([connected, '{"type": "result", "subtype": "error_max_turns", "is_error": false}']) is None
