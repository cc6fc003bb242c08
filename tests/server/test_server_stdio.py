"""``contextpull serve FOLDER`` as a real stdio subprocess, driven by the SDK's stdio client."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from contextpull.ingestion.run import default_store_path
from contextpull.store.connection import Store
from server_support import command, copy_corpus

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_stdio_serves_a_folder_it_ingests_first(tmp_path: Path, mode: str) -> None:
    corpus = copy_corpus(tmp_path / "corpus")
    program, *prefix = command()
    params = StdioServerParameters(command=program, args=[*prefix, "serve", str(corpus), "--log"])
    errlog_path = tmp_path / "stderr.txt"
    with errlog_path.open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog), mode=mode) as client:
            with Store.open(default_store_path(corpus)) as store:
                index = store.index_text
            assert index and index in (client.instructions or "")
            found = await client.call_tool("search", {"query": "merchant key"})
            hits = json.loads(found.content[0].text)["hits"]  # type: ignore[union-attr]
            assert hits and not found.is_error
            read = await client.call_tool("read", {"id": hits[0]["id"]})
            section = json.loads(read.content[0].text)  # type: ignore[union-attr]
    assert section["text"] in (corpus / section["doc"]).read_text(encoding="utf-8")
    stderr = errlog_path.read_text()
    # --log goes to stderr (stdout carries only MCP, or the session above would have failed).
    assert "contextpull: search " in stderr and "contextpull: read " in stderr
