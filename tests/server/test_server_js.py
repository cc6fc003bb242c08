"""A second, independent MCP client: the official TypeScript SDK over stdio (tests/js)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from contextpull.tools.schemas import TOOLS
from server_support import REPO, command, copy_corpus

JS_DIR = REPO / "tests" / "js"
NODE = shutil.which("node")

pytestmark = [
    pytest.mark.skipif(NODE is None, reason="node is not installed"),
    pytest.mark.skipif(
        not (JS_DIR / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir(),
        reason="tests/js/node_modules missing: run `cd tests/js && npm ci` (make install-test does)",
    ),
]


def test_typescript_sdk_lists_tools_searches_and_reads(tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path / "corpus")
    assert NODE is not None
    done = subprocess.run(
        [NODE, str(JS_DIR / "stdio_client.mjs"), "merchant key", *command(), "serve", str(corpus)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=JS_DIR,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert "guides/install.md" in seen["instructions"]
    assert [tool["name"] for tool in seen["tools"]] == [tool["name"] for tool in TOOLS]
    for tool in seen["tools"]:
        assert tool["annotations"]["readOnlyHint"] is True
        assert tool["annotations"]["openWorldHint"] is False
    hits = seen["search"]["payload"]["hits"]
    assert hits and not seen["search"]["isError"]
    assert seen["search"]["structured"] == seen["search"]["payload"]
    section = seen["read"]["payload"]
    assert section["id"] == hits[0]["id"]
    assert section["text"] in (corpus / section["doc"]).read_text(encoding="utf-8")
    assert seen["missing"]["isError"] is True
    assert seen["missing"]["payload"]["error"] == "unknown_id"
