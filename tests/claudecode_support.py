"""What the real-Claude-Code tests share: the pinned binary, a sealed environment and a scripted model.

The binary is ``@anthropic-ai/claude-code`` as pinned in tests/js/package.json
(``make install-test`` runs ``npm ci`` there). Each test runs it with a
temporary HOME and config folder, the loopback fake Anthropic API as its
model, and telemetry, updates and other non-essential traffic off, so nothing
leaves the machine and nothing of the developer's own Claude Code setup leaks in.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from contextpull.eval.claudecode import TOOL_PREFIX
from fakes import Request
from fakes.anthropic_server import error_reply, text_reply
from fakes.scripted import Reply
from server_support import REPO

CLAUDE = REPO / "tests" / "js" / "node_modules" / ".bin" / "claude"
PINNED = json.loads((REPO / "tests" / "js" / "package.json").read_text(encoding="utf-8"))["dependencies"][
    "@anthropic-ai/claude-code"
]
API_KEY = "sk-ant-loopback-test"


def require_claude() -> Path:
    """The pinned binary; skip only where npm is absent, fail where it is present but the install is missing."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed, so the pinned Claude Code cannot be installed")
    if not CLAUDE.exists():
        pytest.fail(f"{CLAUDE} is missing: run `make install-test` (npm ci in tests/js)")
    return CLAUDE


def seal_environment(monkeypatch: pytest.MonkeyPatch, home: Path, base_url: str) -> None:
    """Point Claude Code at ``base_url`` with a dummy key, in a fresh HOME, with background traffic off."""
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "CLAUDE", "AWS_", "GOOGLE_", "VERTEX_")) or name.lower().endswith("_proxy"):
            monkeypatch.delenv(name)
    home.mkdir(parents=True, exist_ok=True)
    settings = {
        "HOME": str(home),
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "ANTHROPIC_BASE_URL": base_url,
        "ANTHROPIC_API_KEY": API_KEY,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "DISABLE_AUTOUPDATER": "1",
        "NO_PROXY": "127.0.0.1,localhost",
    }
    for name, value in settings.items():
        monkeypatch.setenv(name, value)


Step = Callable[["Turn"], dict[str, Any] | Reply]


@dataclass
class Turn:
    """One request of the main conversation, as the scripted model sees it."""

    body: dict[str, Any]

    def result(self) -> Any:
        """The last tool result Claude Code sent back: its JSON payload, or its text when it is not JSON."""
        content = self.body["messages"][-1]["content"]
        blocks = [block for block in content if block.get("type") == "tool_result"] if isinstance(content, list) else []
        assert blocks, f"the last message carries no tool_result: {content!r}"
        text = blocks[-1]["content"]
        if isinstance(text, list):
            text = "".join(part.get("text", "") for part in text)
        try:
            return json.loads(text)
        except ValueError:
            return text


@dataclass
class ScriptedModel:
    """The model behind a real Claude Code run.

    Requests that offer tools are the agent's conversation and get ``steps``
    in order (a step past the end is a 400, so a test fails instead of
    hanging); any other request (a title, a summary, a quota probe) is a side
    request and gets a short text, so a new side call of a later Claude Code
    cannot derail the script.
    """

    steps: Sequence[Step]
    conversation: list[Request] = field(default_factory=list)
    side: list[Request] = field(default_factory=list)
    replies: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, request: Request) -> dict[str, Any] | Reply:
        body = request.body if isinstance(request.body, dict) else {}
        if not body.get("tools"):
            self.side.append(request)
            return text_reply("ContextPull")
        self.conversation.append(request)
        if len(self.conversation) > len(self.steps):
            return error_reply(400, f"scripted model has no step {len(self.conversation)}")
        reply = self.steps[len(self.conversation) - 1](Turn(body))
        if isinstance(reply, dict):
            self.replies.append(reply)
        return reply

    def offered(self) -> list[list[str]]:
        """The tool names each conversation request offered the model (deferred tools excluded)."""
        return [
            sorted(tool["name"] for tool in request.body["tools"] if not tool.get("defer_loading"))
            for request in self.conversation
        ]


def contextpull_tool(name: str) -> str:
    return TOOL_PREFIX + name
