"""The Claude Code pull row against the real Claude Code, whose model is a scripted loopback Anthropic API.

``ClaudeCodeRetriever`` starts the pinned ``claude`` (tests/js), which starts
``contextpull serve`` over stdio and streams its conversation from the fake
Messages API (tests/fakes/anthropic_server.py, server-sent events as the API
sends them). The fake plays the model: list, search, read, answer; or it loops
until the turn limit, answers from memory, or reads an id that does not exist.
The tests check what the driver parsed from Claude Code's stream-json against
what the fake and the store know, and what Claude Code offered the model.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from claudecode_support import (
    API_KEY,
    PINNED,
    ScriptedModel,
    Turn,
    contextpull_tool,
    require_claude,
    seal_environment,
)
from contextpull.eval.claudecode import CITATION_PROMPT, LOADER_TOOL, TOOL_NAMES, ClaudeCodeRetriever, parse_stream
from contextpull.eval.pull_record import PullRun, PullRunFailed
from contextpull.ops.operations import Ops
from contextpull.tools.schemas import call_json
from fakes import AnthropicFake
from fakes.anthropic_server import error_reply, text_reply, tool_reply
from pull_support import hits, store  # noqa: F401 (store is a fixture)
from server_support import command, copy_corpus, http_server

QUESTION = "How do I rotate the merchant key?"
SEARCH = "merchant key"
FIVE = sorted(contextpull_tool(name) for name in TOOL_NAMES)


@pytest.fixture
def claude() -> Path:
    return require_claude()


@contextmanager
def driving(
    model: ScriptedModel, store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, claude: Path, **options: int
) -> Iterator[ClaudeCodeRetriever]:
    """A retriever on ``store`` driving the real ``claude``, with ``model`` behind the fake API while it lasts."""
    with AnthropicFake(script=model, api_key=API_KEY) as fake:
        seal_environment(monkeypatch, tmp_path / "home", fake.base_url)
        yield ClaudeCodeRetriever(store, claude=str(claude), cache_dir=tmp_path / "cache", **options)


def search_then_read(turn: Turn) -> dict[str, object]:
    return tool_reply(contextpull_tool("read"), {"id": turn.result()["hits"][0]["id"]})


def cite_what_was_read(turn: Turn) -> dict[str, object]:
    section = turn.result()
    return text_reply(f"{section['text'].splitlines()[-1]} [{section['id']}]", tokens_in=40, tokens_out=30)


def calls(run: PullRun) -> list[tuple[str, bool]]:
    return [(call.name, call.is_error) for call in run.tool_calls]


READ_THE_TOP_HIT = (search_then_read, cite_what_was_read)


def test_list_search_read_answer(store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedModel(
        [
            lambda turn: tool_reply(contextpull_tool("index"), {}, tokens_in=100, tokens_out=7),
            lambda turn: tool_reply(
                contextpull_tool("search"), {"query": SEARCH}, text="Looking it up.", tokens_in=300, tokens_out=11
            ),
            *READ_THE_TOP_HIT,
        ]
    )
    top = hits(store, SEARCH)[0]
    with driving(model, store, tmp_path, monkeypatch, claude) as pull:
        assert pull.retrieve(QUESTION, 5) == [top]
        run = pull.run(QUESTION)

    # what the driver parsed from the stream-json
    assert calls(run) == [("index", False), ("search", False), ("read", False)]
    assert run.tool_calls[1].arguments == {"query": SEARCH}
    assert run.read_ids == [top] and run.seen_ids[0] == top
    with Ops.open(store) as ops:
        section, _ = call_json(ops, "read", {"id": top})
    assert run.read_sections == [(top, section["text"])]
    assert run.answer == f"{section['text'].splitlines()[-1]} [{top}]"
    assert run.loader_calls == 0 and not run.max_turns_hit
    assert run.agent_version == PINNED
    sent = model.replies
    assert run.tokens_in == sum(reply["usage"]["input_tokens"] for reply in sent) == 100 + 300 + 10 + 40
    assert run.tokens_out == sum(reply["usage"]["output_tokens"] for reply in sent) == 7 + 11 + 5 + 30
    assert run.turns >= 4

    # what Claude Code offered and sent the model
    assert model.side == [], "Claude Code made side requests to the model"
    assert len(model.conversation) == 4
    assert model.offered() == [FIVE] * 4
    assert all(not tool.get("defer_loading") for request in model.conversation for tool in request.body["tools"])
    first = model.conversation[0]
    assert first.headers["x-api-key"] == API_KEY and first.body["stream"] is True
    assert CITATION_PROMPT in " ".join(block["text"] for block in first.body["system"])
    context = json.dumps(first.body["messages"])
    assert "MCP Server Instructions" in context and "guides/install.md" in context  # the server's discipline and index
    assert QUESTION in json.dumps(first.body["messages"][0])

    # the version travels in the row's name and stats
    assert pull.claude_version == PINNED
    assert PINNED in pull.model
    assert pull.stats()["claude_version"] == PINNED

    # the replay runs no Claude Code
    replay = ClaudeCodeRetriever(store, claude=str(claude), cache_dir=tmp_path / "cache")
    assert replay.retrieve(QUESTION, 5) == [top] and replay.generate(QUESTION) == run.answer


def test_the_turn_limit_is_an_error(store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    model = ScriptedModel([lambda turn: tool_reply(contextpull_tool("search"), {"query": SEARCH})] * 10)
    with driving(model, store, tmp_path, monkeypatch, claude, max_turns=3) as pull:
        with pytest.raises(PullRunFailed, match="turn limit"):
            pull.retrieve(QUESTION, 5)
        with pytest.raises(PullRunFailed, match="turn limit"):  # the same run: an error in both rows
            pull.counting("surfaced").retrieve(QUESTION, 3)
    stats = pull.stats()
    assert stats["max_turns_hit"] == 1 and stats["run_errors"] == 1 and stats["by_tool"] == {"search": 3}
    assert len(model.conversation) == 3


def test_an_answer_without_tools_is_a_failed_run(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel([lambda turn: text_reply("From memory: rotate it yearly.")])
    with (
        driving(model, store, tmp_path, monkeypatch, claude) as pull,
        pytest.raises(PullRunFailed, match="without calling any ContextPull tool"),
    ):
        pull.retrieve(QUESTION, 5)
    assert pull.stats()["no_tool_call"] == pull.stats()["run_errors"] == 1 and len(model.conversation) == 1
    assert model.offered() == [FIVE]


def test_a_tool_error_is_recorded_and_not_read(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel(
        [
            lambda turn: tool_reply(contextpull_tool("read"), {"id": "no/such.md#9"}),
            lambda turn: tool_reply(contextpull_tool("search"), {"query": SEARCH}),
            *READ_THE_TOP_HIT,
        ]
    )
    top = hits(store, SEARCH)[0]
    with driving(model, store, tmp_path, monkeypatch, claude) as pull:
        assert pull.retrieve(QUESTION, 5) == [top]
    assert calls(pull.run(QUESTION)) == [("read", True), ("search", False), ("read", False)]
    assert pull.stats()["refused_calls"] == 1
    assert pull.stats()["reads_per_query"] == pull.stats()["refused_reads_per_query"] == 1
    refused = model.conversation[1].body["messages"][-1]["content"][0]
    assert refused["type"] == "tool_result" and refused["is_error"] is True
    assert "unknown_id" in str(refused["content"])


def test_an_api_error_fails_the_run_with_the_message(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = ScriptedModel([lambda turn: error_reply(400, "the fake refuses this request")] * 5)
    with (
        driving(model, store, tmp_path, monkeypatch, claude) as pull,
        pytest.raises(PullRunFailed, match="the fake refuses this request"),
    ):
        pull.retrieve(QUESTION, 5)


def test_a_tool_search_loader_is_counted_apart(
    store: Path, claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With its built-in tools on, this Claude Code defers MCP tools behind ToolSearch; the parser counts the loader apart.

    The driver avoids the deferral (``--tools ""`` and ENABLE_TOOL_SEARCH=false);
    this runs the real binary without ``--tools ""`` to pin what a deferred run looks like.
    """
    names = [contextpull_tool(name) for name in ("search", "read")]
    model = ScriptedModel(
        [
            lambda turn: tool_reply(LOADER_TOOL, {"query": "select:" + ",".join(names), "max_results": 5}),
            lambda turn: tool_reply(contextpull_tool("search"), {"query": SEARCH}),
            *READ_THE_TOP_HIT,
        ]
    )
    with driving(model, store, tmp_path, monkeypatch, claude) as pull:
        config = tmp_path / "mcp.json"
        config.write_text(json.dumps(pull.mcp_config()), encoding="utf-8")
        argv = pull.command(QUESTION, config)
        del argv[argv.index("--tools") : argv.index("--tools") + 2]
        done = subprocess.run(argv, check=False, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, second = model.conversation[:2]
    assert LOADER_TOOL in [tool["name"] for tool in first.body["tools"]]
    assert not set(FIVE) & {tool["name"] for tool in first.body["tools"]}  # deferred: named in the prompt only
    assert {tool["name"] for tool in second.body["tools"] if tool.get("defer_loading")} >= set(names)
    run = parse_stream(done.stdout.splitlines(), question=QUESTION, model=pull.model)
    assert run.loader_calls == 1
    assert [call.name for call in run.tool_calls] == ["search", "read"]
    assert run.read_ids == [hits(store, SEARCH)[0]]


def _paste(line: str, claude: Path, project: Path) -> subprocess.CompletedProcess[str]:
    """Run a printed ``claude ...`` line in a shell, as a user pasting it would, with the pinned binary."""
    assert line.startswith("claude "), line
    pasted = f"{shlex.quote(str(claude))} {line.removeprefix('claude ')}"
    return subprocess.run(["bash", "-c", pasted], check=False, cwd=project, capture_output=True, text=True, timeout=60)


def _printed_line(*argv: str) -> str:
    printed = subprocess.run([*command(), "mcp-config", *argv], capture_output=True, text=True, check=True)
    return printed.stdout.split("Or, for Claude Code:", 1)[1].strip()


def _listed(claude: Path, project: Path) -> str:
    listed = _paste("claude mcp list", claude, project)
    assert listed.returncode == 0, listed.stderr
    (entry,) = [row for row in listed.stdout.splitlines() if row.startswith("contextpull:")]
    return entry


def test_the_printed_claude_mcp_add_line_connects(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The README's Claude Code set-up, as `contextpull mcp-config` prints it, against the real binary."""
    seal_environment(monkeypatch, tmp_path / "home", "http://127.0.0.1:9")  # no model call is made
    corpus = copy_corpus(tmp_path / "corpus")
    project = tmp_path / "project"
    project.mkdir()
    line = _printed_line(str(corpus))
    assert shlex.split(line)[:4] == ["claude", "mcp", "add", "contextpull"]
    added = _paste(line, claude, project)
    assert added.returncode == 0, added.stderr
    entry = _listed(claude, project)
    assert "Connected" in entry and str(corpus) in entry


def test_the_printed_http_line_connects_with_the_token(
    claude: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seal_environment(monkeypatch, tmp_path / "home", "http://127.0.0.1:9")
    corpus = copy_corpus(tmp_path / "corpus")
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.setenv("CONTEXTPULL_TOKEN", "loopback-secret")
    with http_server(corpus, "--token", "loopback-secret") as server:
        port = server.url.rsplit(":", 1)[1].split("/")[0]
        line = _printed_line(str(corpus), "--transport", "http", "--port", port, "--with-token")
        added = _paste(line, claude, project)
        assert added.returncode == 0, added.stderr
        entry = _listed(claude, project)
    assert "Connected" in entry and server.url in entry
