"""A stand-in for the ``claude`` CLI in headless mode, for tests of the Claude Code adapter.

It accepts the flags the adapter passes, really starts the MCP server named
``contextpull`` in the ``--mcp-config`` file, drives it through the MCP Python
client (list tools, then tool calls on the real store) and prints the run as
Claude Code's ``--output-format stream-json`` does: a ``system``/``init``
line, ``assistant`` lines with ``tool_use`` blocks named
``mcp__contextpull__<tool>``, ``user`` lines with ``tool_result`` blocks, and a
final ``result`` line with ``total_cost_usd``, ``usage`` and ``num_turns``.

What the "model" does is chosen by ``FAKE_CLAUDE_SCRIPT``:

- ``search-read`` (default): search for the prompt, read the top hit, answer citing it;
- ``bad-read``: read an id that does not exist first, then as ``search-read``;
- ``no-tools``: answer at once without any tool;
- ``loop``: search until ``--max-turns`` runs out;
- ``deferred``: load the tools with Claude Code's ``ToolSearch`` first, then as ``search-read``.

Each invocation appends its argv as one JSON line to ``FAKE_CLAUDE_LOG`` when set.
``FAKE_CLAUDE_WITHOUT`` (comma-separated flags) plays an older Claude Code that
lacks them: it refuses them as the real one's option parser does.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

NUMBER = "2.0.0"
VERSION = f"{NUMBER} (Claude Code, fake)"
SERVER = "contextpull"
PRICE_PER_TOKEN = 0.000003


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="claude")
    parser.add_argument("prompt", nargs="?")
    parser.add_argument("-p", "--print", action="store_true")
    parser.add_argument("--version", action="store_true")
    parser.add_argument("--mcp-config")
    parser.add_argument("--strict-mcp-config", action="store_true")
    parser.add_argument("--output-format", default="text", choices=("text", "json", "stream-json"))
    parser.add_argument("--verbose", action="store_true")
    parser.add_argument("--append-system-prompt", default="")
    parser.add_argument("--allowedTools", default="")
    parser.add_argument("--disallowedTools", default="")
    parser.add_argument("--tools", default="default")
    parser.add_argument("--no-session-persistence", action="store_true")
    parser.add_argument("--max-turns", type=int, default=100)
    parser.add_argument("--model", default="claude-sonnet-4-5")
    return parser.parse_args(argv)


class Transcript:
    """Prints stream-json lines and keeps the running totals for the result line."""

    def __init__(self, model: str) -> None:
        self.session = str(uuid.uuid4())
        self.model = model
        self.turns = 0
        self.tokens_in = 0
        self.tokens_out = 0

    def emit(self, event: dict[str, Any]) -> None:
        event.setdefault("session_id", self.session)
        event.setdefault("uuid", str(uuid.uuid4()))
        print(json.dumps(event), flush=True)

    def assistant(self, content: list[dict[str, Any]]) -> None:
        self.turns += 1
        usage = {
            "input_tokens": 900,
            "cache_creation_input_tokens": 100,
            "cache_read_input_tokens": 0,
            "output_tokens": 40,
            "service_tier": "standard",
        }
        self.tokens_in += 1000
        self.tokens_out += 40
        self.emit(
            {
                "type": "assistant",
                "message": {
                    "id": f"msg_{uuid.uuid4().hex[:24]}",
                    "type": "message",
                    "role": "assistant",
                    "model": self.model,
                    "content": content,
                    "stop_reason": None,
                    "stop_sequence": None,
                    "usage": usage,
                },
                "parent_tool_use_id": None,
            }
        )

    def tool_result(self, tool_use_id: str, text: str, is_error: bool) -> None:
        content: Any = text if is_error else [{"type": "text", "text": text}]
        self.emit(
            {
                "type": "user",
                "message": {
                    "role": "user",
                    "content": [
                        {"tool_use_id": tool_use_id, "type": "tool_result", "content": content, "is_error": is_error}
                    ],
                },
                "parent_tool_use_id": None,
            }
        )

    def result(self, text: str, subtype: str = "success") -> None:
        event: dict[str, Any] = {
            "type": "result",
            "subtype": subtype,
            "is_error": subtype != "success",
            "duration_ms": 1200,
            "duration_api_ms": 1100,
            "num_turns": self.turns,
            "total_cost_usd": round((self.tokens_in + self.tokens_out) * PRICE_PER_TOKEN, 6),
            "usage": {
                "input_tokens": self.tokens_in - 100 * self.turns,
                "cache_creation_input_tokens": 100 * self.turns,
                "cache_read_input_tokens": 0,
                "output_tokens": self.tokens_out,
                "server_tool_use": {"web_search_requests": 0},
                "service_tier": "standard",
            },
            "permission_denials": [],
        }
        if subtype == "success":
            event["result"] = text
        self.emit(event)


async def drive(args: argparse.Namespace, out: Transcript) -> None:
    servers = json.loads(Path(args.mcp_config).read_text(encoding="utf-8"))["mcpServers"] if args.mcp_config else {}
    entry = servers.get(SERVER)
    allowed = set(filter(None, args.allowedTools.replace(" ", ",").split(",")))
    if entry is None:
        out.emit({"type": "system", "subtype": "init", "tools": [], "mcp_servers": [], "model": args.model})
        out.assistant([{"type": "text", "text": "I have no tools."}])
        out.result("I have no tools.")
        return
    params = StdioServerParameters(command=entry["command"], args=entry.get("args", []), env=entry.get("env"))
    try:
        async with Client(stdio_client(params, errlog=sys.stderr), mode="legacy") as client:
            tools = [tool.name for tool in (await client.list_tools()).tools]
            out.emit(
                {
                    "type": "system",
                    "subtype": "init",
                    "cwd": os.getcwd(),
                    "model": args.model,
                    "claude_code_version": NUMBER,
                    "tools": [f"mcp__{SERVER}__{name}" for name in tools],
                    "mcp_servers": [{"name": SERVER, "status": "connected"}],
                    "permissionMode": "default",
                    "apiKeySource": "none",
                }
            )
            await converse(client, args, out, allowed)
    except OSError:
        out.emit(
            {
                "type": "system",
                "subtype": "init",
                "tools": [],
                "model": args.model,
                "mcp_servers": [{"name": SERVER, "status": "failed"}],
            }
        )
        out.assistant([{"type": "text", "text": "The tools are unavailable."}])
        out.result("The tools are unavailable.")


async def converse(client: Client, args: argparse.Namespace, out: Transcript, allowed: set[str]) -> None:
    script = os.environ.get("FAKE_CLAUDE_SCRIPT", "search-read")

    async def call(name: str, arguments: dict[str, Any]) -> tuple[Any, bool]:
        tool_id = f"toolu_{uuid.uuid4().hex[:24]}"
        full = f"mcp__{SERVER}__{name}"
        out.assistant([{"type": "tool_use", "id": tool_id, "name": full, "input": arguments}])
        if full not in allowed:
            out.tool_result(
                tool_id, f"Claude requested permissions to use {full}, but you haven't granted it yet.", True
            )
            return None, True
        result = await client.call_tool(name, arguments)
        text = "".join(block.text for block in result.content if getattr(block, "type", "") == "text")
        out.tool_result(tool_id, text, bool(result.is_error))
        return (None if result.is_error else json.loads(text)), bool(result.is_error)

    if script == "no-tools":
        out.assistant([{"type": "text", "text": "From memory: it depends."}])
        out.result("From memory: it depends.")
        return
    if script == "loop":
        while out.turns < args.max_turns:
            await call("search", {"query": args.prompt})
        out.result("", subtype="error_max_turns")
        return
    if script == "deferred":
        loader = f"toolu_{uuid.uuid4().hex[:24]}"
        names = [f"mcp__{SERVER}__{name}" for name in ("search", "read")]
        out.assistant(
            [
                {
                    "type": "tool_use",
                    "id": loader,
                    "name": "ToolSearch",
                    "input": {"query": "select:" + ",".join(names), "max_results": 5},
                }
            ]
        )
        references = [{"type": "tool_reference", "tool_name": name} for name in names]
        out.emit(
            {
                "type": "user",
                "parent_tool_use_id": None,
                "message": {
                    "role": "user",
                    "content": [{"type": "tool_result", "tool_use_id": loader, "content": references}],
                },
            }
        )
    if script == "bad-read":
        await call("read", {"id": "no/such.md#9"})
    found, _ = await call("search", {"query": args.prompt})
    hits = (found or {}).get("hits", [])
    if not hits:
        out.assistant([{"type": "text", "text": "The documents do not say."}])
        out.result("The documents do not say.")
        return
    section, _ = await call("read", {"id": hits[0]["id"]})
    first_line = ((section or {}).get("text") or "").strip().splitlines()[:1] or [""]
    answer = f"{first_line[0]} [{hits[0]['id']}]"
    out.assistant([{"type": "text", "text": answer}])
    out.result(answer)


def main(argv: list[str]) -> int:
    log = os.environ.get("FAKE_CLAUDE_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(argv) + "\n")
    lacking = set(filter(None, os.environ.get("FAKE_CLAUDE_WITHOUT", "").split(",")))
    for word in argv:
        if word in lacking:
            print(f"error: unknown option '{word}'", file=sys.stderr)
            return 1
    args = parse(argv)
    if args.version:
        print(VERSION)
        return 0
    if not args.print or not args.prompt:
        print("Error: this fake only runs headless: claude -p PROMPT", file=sys.stderr)
        return 1
    if args.output_format == "stream-json" and not args.verbose:
        print("Error: When using --print, --output-format=stream-json requires --verbose", file=sys.stderr)
        return 1
    anyio.run(drive, args, Transcript(args.model))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
