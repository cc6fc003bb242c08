"""Claude Code headless as a pull adapter: the real agent, driving the real MCP server.

Each question is one ``claude -p`` run with only the ContextPull server
attached (``--strict-mcp-config``), every built-in tool removed (``--tools
""``), the five ContextPull tools pre-approved and offered up front rather than
deferred behind Claude Code's ``ToolSearch`` loader (``ENABLE_TOOL_SEARCH=false``),
and an empty scratch folder as the working directory, so whatever Claude Code
learns about the corpus it learns through ContextPull. The run's
``stream-json`` transcript is parsed into a
:class:`~contextpull.eval.pull_record.PullRun`.

Claude Code changes its flags and defaults often, so the command is checked
against the release that ``tests/js`` pins (:data:`TESTED_VERSION`), the
version that ran is recorded in every run, in the cache key and in the row's
name, and a Claude Code that refuses one of the flags fails with one line
naming its version and the flag. Should a later release defer the tools again,
its loader calls are counted apart (``loader_calls``), never as ContextPull calls.

Guarantees: before the first run the server command is started and its
tools listed through the MCP client, so a broken install fails in seconds
with a clear error instead of after a paid run that measured nothing; a run
that made no ContextPull tool call, ended in an error or hit the turn limit
is recorded, and the rows score it as an error
(:attr:`~contextpull.eval.pull_record.PullRun.error`), as in the API loop.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import anyio

from ..server.launch import serve_argv, stdio_entry
from ..store import Store
from . import fingerprint
from .pull_record import TOOL_NAMES, CountMode, PullRun, PullRunFailed, cache_key, observe, text_hash
from .pull_retriever import PullRetriever

SERVER = "contextpull"
TOOL_PREFIX = f"mcp__{SERVER}__"
#: the Claude Code release this command was checked against; tests/js/package.json pins the same
TESTED_VERSION = "2.1.332"
#: Claude Code's tool that loads deferred tools; a call to it is bookkeeping, not retrieval
LOADER_TOOL = "ToolSearch"
#: offer the MCP tools in the first request instead of naming them for ToolSearch to load
CLAUDE_ENV = {"ENABLE_TOOL_SEARCH": "false"}
CITATION_PROMPT = (
    "Answer only from the documents behind the contextpull tools. Use search or grep to find"
    " sections, then read each section you rely on. Cite every section you used as [section-id]"
    " right after the statement it supports. If the documents do not say, answer that they do not."
)
PREFLIGHT_TIMEOUT_S = 60.0
_UNKNOWN_OPTION = re.compile(r"unknown option '([^']+)'")


class ClaudeCodeRetriever(PullRetriever):
    """Pull retrieval by ``claude -p`` with ``contextpull serve <store>`` attached over stdio."""

    def __init__(
        self,
        store_path: str | Path,
        *,
        claude: str = "claude",
        model: str | None = None,
        k: int = 5,
        mode: CountMode = "read",
        max_turns: int = 8,
        cache_dir: str | Path | None = None,
        concurrency: int = 1,
        timeout_s: float = 600.0,
    ) -> None:
        super().__init__(k=k, mode=mode, cache_dir=cache_dir, concurrency=concurrency)
        self.store_path = Path(store_path).absolute()
        with Store.open(self.store_path) as store:
            self.fingerprint = store.fingerprint
            self.index_hash = text_hash(store.index_text)
            self.behaviour = fingerprint.current(store.meta(fingerprint.ANALYSIS_META_KEY))
        self.claude = claude
        self.claude_version = claude_version(claude)
        #: a line for the notes when this Claude Code is older than the release the driver was checked against
        self.warning = older_warning(self.claude_version)
        self.model = f"claude-code {self.claude_version}:{model or 'default'}"
        self.claude_model = model
        self.max_turns = max_turns
        self.timeout_s = timeout_s
        self.server = serve_argv(self.store_path)
        self._checked = threading.Lock()
        self._server_ok = False

    # --- the driver ---------------------------------------------------------
    def run_key(self, question: str) -> str:
        return cache_key(
            driver="claude-code",
            claude_version=self.claude_version,
            model=self.claude_model,
            behaviour=self.behaviour.key,
            max_turns=self.max_turns,
            fingerprint=self.fingerprint,
            index=self.index_hash,
            question=question,
        )

    def execute(self, question: str) -> PullRun:
        self.preflight()
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="contextpull-claude-") as scratch:
            config = Path(scratch) / "mcp.json"
            config.write_text(json.dumps(self.mcp_config()), encoding="utf-8")
            work = Path(scratch) / "work"
            work.mkdir()
            try:
                done = subprocess.run(
                    self.command(question, config),
                    check=False,
                    cwd=work,
                    env={**os.environ, **CLAUDE_ENV},
                    capture_output=True,
                    text=True,
                    timeout=self.timeout_s,
                )
            except (OSError, subprocess.TimeoutExpired) as err:
                raise PullRunFailed(f"claude did not finish: {err}", "check the claude executable") from err
        self._check_flags(done)
        run = parse_stream(done.stdout.splitlines(), question=question, model=self.model)
        run.wall_s = time.perf_counter() - started
        run.agent_version = run.agent_version or self.claude_version
        if done.returncode != 0 and not run.answer and not run.max_turns_hit:
            tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
            raise PullRunFailed(f"claude exited with status {done.returncode}: {tail[0]}", "run the command by hand")
        return run

    def _check_flags(self, done: subprocess.CompletedProcess[str]) -> None:
        """Turn an option this Claude Code does not know into one line naming its version and the flag."""
        refused = _UNKNOWN_OPTION.search(done.stderr or "") if done.returncode != 0 else None
        if refused:
            raise PullRunFailed(
                f"Claude Code {self.claude_version} does not accept {refused.group(1)}, which the Claude Code"
                f" pull driver needs (it was checked against {TESTED_VERSION})",
                f"install a compatible Claude Code: npm install -g @anthropic-ai/claude-code@{TESTED_VERSION}",
            )

    def stats(self) -> dict[str, Any]:
        runs, _ = self._runs.snapshot()
        return {
            **super().stats(),
            "claude_version": self.claude_version,
            "loader_calls": sum(run.loader_calls for run in runs),
        }

    # --- what one run is made of ---------------------------------------------
    def mcp_config(self) -> dict[str, Any]:
        return {"mcpServers": {SERVER: stdio_entry(self.store_path)}}

    def command(self, question: str, config: Path) -> list[str]:
        argv = [
            self.claude,
            "-p",
            question,
            "--mcp-config",
            str(config),
            "--strict-mcp-config",
            "--output-format",
            "stream-json",
            "--verbose",
            "--append-system-prompt",
            CITATION_PROMPT,
            "--tools",
            "",
            "--allowedTools",
            ",".join(TOOL_PREFIX + name for name in TOOL_NAMES),
            "--max-turns",
            str(self.max_turns),
            "--no-session-persistence",
        ]
        if self.claude_model:
            argv += ["--model", self.claude_model]
        return argv

    def preflight(self) -> None:
        """Check once, before the first paid run, that the server starts and serves the five tools."""
        with self._checked:
            if not self._server_ok:
                check_server(self.server)
                self._server_ok = True


def claude_version(claude: str) -> str:
    """The release number ``claude --version`` reports (``2.1.332`` from ``2.1.332 (Claude Code)``)."""
    try:
        done = subprocess.run([claude, "--version"], check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise PullRunFailed(f"cannot run {claude!r}: {err}", "install Claude Code or pass its path") from err
    said = done.stdout.strip()
    if done.returncode != 0 or not said:
        raise PullRunFailed(f"{claude} --version failed: {done.stderr.strip()}", "check the Claude Code install")
    return said.split()[0]


def older_warning(version: str) -> str:
    """A warning when ``version`` is older than :data:`TESTED_VERSION`; ``""`` otherwise (or if unreadable)."""

    def numbers(text: str) -> tuple[int, ...] | None:
        parts = text.split(".")
        return tuple(int(part) for part in parts) if all(part.isdigit() for part in parts) else None

    have, tested = numbers(version), numbers(TESTED_VERSION)
    if have is None or tested is None or have >= tested:
        return ""
    return (
        f"Claude Code {version} is older than {TESTED_VERSION}, the release this driver was checked against;"
        f" if its runs fail, npm install -g @anthropic-ai/claude-code@{TESTED_VERSION}"
    )


def check_server(command: list[str]) -> None:
    """Start the MCP server command and list its tools; raise PullRunFailed unless all five are served.

    A missing extra or a bad store path shows up here as a server that dies
    on start, in seconds, rather than as a Claude Code run with no tools; the
    server's last line on stderr goes into the error.
    """
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    with tempfile.TemporaryFile(mode="w+", encoding="utf-8") as errlog:

        async def probe() -> set[str]:
            with anyio.fail_after(PREFLIGHT_TIMEOUT_S):
                params = StdioServerParameters(command=command[0], args=command[1:])
                async with Client(stdio_client(params, errlog=errlog), mode="legacy") as client:
                    return {tool.name for tool in (await client.list_tools()).tools}

        try:
            served = anyio.run(probe)
        except Exception as err:  # a dead server surfaces as several SDK exception types
            errlog.seek(0)
            said = errlog.read().strip().splitlines()[-1:] or [str(err) or type(err).__name__]
            raise PullRunFailed(
                f"the ContextPull MCP server did not start ({' '.join(command)}): {said[0]}",
                "run that command by hand to see why",
            ) from err
    missing = sorted(set(TOOL_NAMES) - served)
    if missing:
        raise PullRunFailed(f"the MCP server lacks tools: {', '.join(missing)}", "reinstall contextpull")


# --- the stream-json transcript -------------------------------------------------
def stream_events(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """The JSON objects of a stream-json transcript, in order; a line that is not one (a stray log line) is skipped."""
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


def parse_stream(lines: Iterable[str], *, question: str, model: str) -> PullRun:
    """A Claude Code ``--output-format stream-json`` transcript as a PullRun.

    Tool uses of ContextPull (``mcp__contextpull__<tool>``) are matched to
    their ``tool_result`` by id and observed like the API loop observes its own
    calls; a ``ToolSearch`` call that loads deferred tools is counted in
    ``loader_calls`` only; any other tool use is recorded under its full name.
    The ``init`` message gives the Claude Code version; the final ``result``
    message supplies the answer, turns, tokens and cost. Lines that are not
    JSON (a stray log line) are skipped.
    """
    run = PullRun(question=question, model=model)
    pending: dict[str, tuple[str, dict[str, Any]]] = {}
    for event in stream_events(lines):
        kind = event.get("type")
        if kind == "system" and event.get("subtype") == "init":
            _check_connected(event)
            run.agent_version = str(event.get("claude_code_version") or "")
        elif kind == "assistant":
            for block in _content(event):
                if block.get("type") == "tool_use":
                    name = str(block.get("name", ""))
                    if name == LOADER_TOOL:
                        run.loader_calls += 1
                        continue
                    short = name.removeprefix(TOOL_PREFIX) if name.startswith(TOOL_PREFIX) else name
                    pending[str(block.get("id"))] = (short, dict(block.get("input") or {}))
        elif kind == "user":
            for block in _content(event):
                if block.get("type") == "tool_result" and str(block.get("tool_use_id")) in pending:
                    name, arguments = pending.pop(str(block.get("tool_use_id")))
                    is_error = bool(block.get("is_error"))
                    observe(run, name, arguments, _payload(block.get("content")), is_error)
        elif kind == "result":
            _finish(run, event)
    return run


def _check_connected(event: dict[str, Any]) -> None:
    for server in event.get("mcp_servers") or []:
        if server.get("name") == SERVER and server.get("status") != "connected":
            raise PullRunFailed(
                f"Claude Code could not connect the {SERVER} MCP server (status {server.get('status')!r})",
                "run `contextpull serve <store>` by hand to see why",
            )


def _content(event: dict[str, Any]) -> list[dict[str, Any]]:
    content = (event.get("message") or {}).get("content")
    return [block for block in content if isinstance(block, dict)] if isinstance(content, list) else []


def _payload(content: Any) -> Any:
    """The JSON object a ContextPull tool returned, from a tool_result's content."""
    if isinstance(content, list):
        content = "".join(block.get("text", "") for block in content if isinstance(block, dict))
    try:
        return json.loads(content) if isinstance(content, str) else None
    except ValueError:
        return None


def _finish(run: PullRun, event: dict[str, Any]) -> None:
    subtype = str(event.get("subtype", ""))
    if subtype == "error_max_turns":
        run.max_turns_hit = True
    elif event.get("is_error") or subtype != "success":
        raise PullRunFailed(
            f"claude reported an error ({subtype}): {str(event.get('result') or '')[:200]}",
            "check the API key and the model name",
        )
    run.answer = str(event.get("result") or "")
    run.turns = int(event.get("num_turns") or 0)
    usage = event.get("usage") or {}
    run.tokens_in = sum(
        int(usage.get(name) or 0) for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
    )
    run.tokens_out = int(usage.get("output_tokens") or 0)
    cost = event.get("total_cost_usd")
    run.usd = float(cost) if cost is not None else None
