"""Claude Code headless as a pull adapter, against a fake ``claude`` on PATH.

The fake (tests/fakes/fake_claude.py) takes the same flags, starts the MCP
server command written in the adapter's ``--mcp-config`` file, drives it with
the MCP client over the real store, and prints Claude Code's stream-json.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path
from typing import Any

import pytest

from contextpull.eval.claudecode import TESTED_VERSION, TOOL_PREFIX, ClaudeCodeRetriever, parse_stream
from contextpull.eval.pull_record import PullRunFailed
from contextpull.eval.pull_rows import pull_rows
from pull_support import hits, store  # noqa: F401 (store is a fixture)

FAKE = Path(__file__).resolve().parents[1] / "fakes" / "fake_claude.py"
QUESTION = "travel booking deadline"


@pytest.fixture
def claude_log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Put an executable ``claude`` running the fake first on PATH; return the file its argv go to."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "claude"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKE}" "$@"\n', encoding="utf-8")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    log = tmp_path / "claude-argv.jsonl"
    monkeypatch.setenv("FAKE_CLAUDE_LOG", str(log))
    return log


def invocations(log: Path) -> list[list[str]]:
    lines = log.read_text(encoding="utf-8").splitlines() if log.exists() else []
    return [argv for argv in map(json.loads, lines) if argv != ["--version"]]


def test_a_headless_run_through_the_real_server(store: Path, claude_log: Path, tmp_path: Path) -> None:
    top = hits(store, QUESTION)[0]
    pull = ClaudeCodeRetriever(store, model="claude-sonnet-4-5", cache_dir=tmp_path / "cache")
    assert pull.retrieve(QUESTION, 5) == [top]
    assert pull.counting("surfaced").retrieve(QUESTION, 3)[0] == top
    answer = pull.generate(QUESTION)
    assert answer.endswith(f"[{top}]")
    assert pull.evidence(QUESTION)["read"][0].startswith(f"[{top}]\n")

    (argv,) = invocations(claude_log)
    assert argv[:2] == ["-p", QUESTION]
    assert "--strict-mcp-config" in argv and "--verbose" in argv
    assert argv[argv.index("--output-format") + 1] == "stream-json"
    assert argv[argv.index("--model") + 1] == "claude-sonnet-4-5"
    assert argv[argv.index("--max-turns") + 1] == "8"
    assert argv[argv.index("--tools") + 1] == "" and "--disallowedTools" not in argv
    allowed = argv[argv.index("--allowedTools") + 1].split(",")
    assert allowed == [TOOL_PREFIX + name for name in ("index", "search", "read", "grep", "neighbours")]
    assert "[section-id]" in argv[argv.index("--append-system-prompt") + 1]

    stats = pull.stats()
    assert stats["by_tool"] == {"read": 1, "search": 1}
    assert stats["turns"] == 3 and stats["tokens_in"] == 3000 and stats["tokens_out"] == 120
    assert stats["usd"] == pytest.approx(3120 * 0.000003)
    assert stats["model"] == "claude-code 2.0.0:claude-sonnet-4-5"
    assert stats["claude_version"] == "2.0.0" and stats["loader_calls"] == 0
    assert pull.run(QUESTION).agent_version == "2.0.0"

    replay = ClaudeCodeRetriever(store, model="claude-sonnet-4-5", cache_dir=tmp_path / "cache")
    assert replay.retrieve(QUESTION, 5) == [top] and replay.generate(QUESTION) == answer
    assert len(invocations(claude_log)) == 1  # the replay ran no claude session


def test_tool_errors_are_recorded_and_do_not_count_as_reads(
    store: Path, claude_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", "bad-read")
    pull = ClaudeCodeRetriever(store)
    assert pull.retrieve(QUESTION, 5) == [hits(store, QUESTION)[0]]
    run = pull.run(QUESTION)
    assert [(call.name, call.is_error) for call in run.tool_calls] == [
        ("read", True),
        ("search", False),
        ("read", False),
    ]
    assert pull.stats()["refused_calls"] == 1
    assert pull.stats()["reads_per_query"] == 1 and pull.stats()["refused_reads_per_query"] == 1
    assert "--model" not in invocations(claude_log)[0]


def test_a_run_without_contextpull_tool_calls_is_a_recorded_error(
    store: Path, claude_log: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", "no-tools")
    pull = ClaudeCodeRetriever(store, cache_dir=tmp_path / "cache")
    with pytest.raises(PullRunFailed, match="without calling any ContextPull tool"):
        pull.retrieve(QUESTION, 5)
    with pytest.raises(PullRunFailed, match="without calling any ContextPull tool"):
        pull.generate(QUESTION)  # never judged
    with pytest.raises(PullRunFailed):  # the recorded run replays; claude is not asked again
        ClaudeCodeRetriever(store, cache_dir=tmp_path / "cache").retrieve(QUESTION, 5)
    assert len(invocations(claude_log)) == 1
    assert pull.stats()["no_tool_call"] == 1 and pull.stats()["run_errors"] == 1


def test_running_out_of_turns_is_an_error(store: Path, claude_log: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", "loop")
    pull = ClaudeCodeRetriever(store, max_turns=3)
    with pytest.raises(PullRunFailed, match="turn limit"):
        pull.retrieve(QUESTION, 5)
    assert pull.stats()["max_turns_hit"] == 1 and pull.stats()["by_tool"] == {"search": 3}
    assert pull.stats()["run_errors"] == 1


def test_a_server_that_cannot_start_fails_before_any_claude_run(store: Path, claude_log: Path, tmp_path: Path) -> None:
    moved = tmp_path / "store.sqlite"
    moved.write_bytes(store.read_bytes())
    pull = ClaudeCodeRetriever(moved)
    moved.unlink()
    with pytest.raises(PullRunFailed, match="did not start.*no such folder or store file"):
        pull.retrieve(QUESTION, 5)
    assert invocations(claude_log) == []


def test_a_missing_claude_executable_is_a_clear_error(store: Path) -> None:
    with pytest.raises(PullRunFailed, match="cannot run"):
        ClaudeCodeRetriever(store, claude="/nonexistent/claude")


def test_a_claude_code_without_a_needed_flag_is_named_in_one_line(
    store: Path, claude_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_WITHOUT", "--tools")
    pull = ClaudeCodeRetriever(store)
    with pytest.raises(PullRunFailed, match=r"^Claude Code 2\.0\.0 does not accept --tools") as err:
        pull.retrieve(QUESTION, 5)
    assert "\n" not in str(err.value) and f"@{TESTED_VERSION}" in err.value.suggestion


def test_tool_search_loads_are_counted_apart_from_contextpull_calls(
    store: Path, claude_log: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", "deferred")
    pull = ClaudeCodeRetriever(store)
    assert pull.retrieve(QUESTION, 5) == [hits(store, QUESTION)[0]]
    stats = pull.stats()
    assert stats["loader_calls"] == 1 and stats["by_tool"] == {"read": 1, "search": 1}


def _line(event: dict[str, Any]) -> str:
    return json.dumps(event)


def test_a_server_claude_could_not_connect_is_reported() -> None:
    lines = [_line({"type": "system", "subtype": "init", "mcp_servers": [{"name": "contextpull", "status": "failed"}]})]
    with pytest.raises(PullRunFailed, match="could not connect"):
        parse_stream(lines, question="q", model="m")


def test_an_api_error_result_is_an_error() -> None:
    lines = ["not json", _line({"type": "result", "subtype": "success", "is_error": True, "result": "API Error: 401"})]
    with pytest.raises(PullRunFailed, match="401"):
        parse_stream(lines, question="q", model="m")


def test_the_rows_name_the_claude_code_version(store: Path, claude_log: Path) -> None:
    rows = pull_rows("claude-code:claude-sonnet-4-5", store)
    assert [row.name for row in rows.rows] == [
        "pull, ids read (claude-code 2.0.0:claude-sonnet-4-5)",
        "pull, ids surfaced (claude-code 2.0.0:claude-sonnet-4-5)",
    ]


def test_a_claude_that_does_not_run_skips_its_rows_with_the_reason(
    store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "broken"
    bin_dir.mkdir()
    broken = bin_dir / "claude"
    broken.write_text("#!/bin/sh\necho 'claude: cannot find its native binary' >&2\nexit 1\n", encoding="utf-8")
    broken.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    rows = pull_rows("claude-code", store)
    assert rows.rows == []
    assert len(rows.skipped) == 2
    for reason in rows.skipped.values():
        assert reason.startswith("claude --version failed: claude: cannot find its native binary")
