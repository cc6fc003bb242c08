"""The eval package's public names, and how the Claude Code transcript counts reads."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from contextpull.eval.claudecode import TOOL_PREFIX, parse_stream


def test_the_adapters_import_from_the_package_and_the_import_stays_light() -> None:
    code = (
        "import sys, contextpull.eval as e\n"
        "heavy = sorted(m for m in ('anthropic', 'openai', 'numpy', 'pushpull', 'mcp') if m in sys.modules)\n"
        "from contextpull.eval import ApiLoopRetriever, ClaudeCodeRetriever, ContextPullSearch\n"
        "print(heavy, ApiLoopRetriever.__name__, ClaudeCodeRetriever.__name__, ContextPullSearch.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["[]", "ApiLoopRetriever", "ClaudeCodeRetriever", "ContextPullSearch"]


def _events(result_content: Any, *, is_error: bool = False) -> list[str]:
    use = {"type": "tool_use", "id": "t1", "name": TOOL_PREFIX + "read", "input": {"id": "guide.md#2"}}
    result = {"type": "tool_result", "tool_use_id": "t1", "content": result_content, "is_error": is_error}
    return [
        json.dumps({"type": "assistant", "message": {"content": [use]}}),
        json.dumps({"type": "user", "message": {"content": [result]}}),
        json.dumps({"type": "result", "subtype": "success", "result": "done [guide.md#2]", "num_turns": 2}),
    ]


def test_a_read_counts_from_the_call_even_when_its_result_does_not_parse() -> None:
    truncated = [{"type": "text", "text": '{"id": "guide.md#2", "text": "a very long sect'}]
    run = parse_stream(_events(truncated), question="q", model="m")
    assert run.read_ids == ["guide.md#2"]
    redirected = "Output too large; saved to /tmp/result.txt"
    assert parse_stream(_events(redirected), question="q", model="m").read_ids == ["guide.md#2"]


def test_a_read_that_failed_does_not_count() -> None:
    error = [{"type": "text", "text": "unknown section id guide.md#2"}]
    run = parse_stream(_events(error, is_error=True), question="q", model="m")
    assert run.read_ids == [] and len(run.tool_calls) == 1
