"""Two collections behind one ``contextpull serve``, through the official MCP SDK's stdio client."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

from cli_support import run
from ops_support import write_corpus
from server_support import command, copy_corpus

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def ingest(corpus: Path, *args: str, env: dict[str, str]) -> dict:
    proc = run("ingest", str(corpus), *args, "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


async def test_one_server_serves_two_collections_searched_apart_and_together(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    ingest(
        copy_corpus(tmp_path / "ledger"), "--collection", "ledger@3.4", "--base-url", "https://l.example/docs", env=env
    )
    notes = write_corpus(
        tmp_path / "notes", {"ops/merchant.md": "# Merchant notes\n\nRotate the merchant key yearly.\n"}
    )
    ingest(notes, "--collection", "notes", env=env)
    listed = run("collections", "--json", env=env)
    assert [row["key"] for row in json.loads(listed.stdout)["collections"]] == ["ledger@3.4", "notes"]

    program, *prefix = command()
    argv = [*prefix, "serve", "--collection", "ledger@3.4", "--collection", "notes"]
    params = StdioServerParameters(command=program, args=argv, env={**os.environ, **env})
    with (tmp_path / "stderr.txt").open("w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as client:
            assert "2 collections: ledger@3.4, notes" in (client.instructions or "")
            assert "## Collection notes" in (client.instructions or "")
            tools = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert tools["search"].input_schema["properties"]["collection"]["enum"] == ["ledger@3.4", "notes"]

            async def call(name: str, arguments: dict) -> dict:
                result = await client.call_tool(name, arguments)
                assert not result.is_error, result.content
                return json.loads(result.content[0].text)  # type: ignore[union-attr]

            together = await call("search", {"query": "merchant key", "limit": 6})
            owners = {hit["id"].split(":", 1)[0] for hit in together["hits"]}
            assert owners == {"ledger@3.4", "notes"}
            apart = await call("search", {"query": "merchant key", "collection": "notes"})
            assert [hit["id"] for hit in apart["hits"]] == ["notes:ops/merchant.md#0"]
            assert "url" not in apart["hits"][0]
            ledger = await call("search", {"query": "merchant key", "collection": "ledger@3.4"})
            first = ledger["hits"][0]
            assert first["url"].startswith("https://l.example/docs/" + first["doc"].split(":", 1)[1] + "#")
            section = await call("read", {"id": first["id"]})
            assert section["id"] == first["id"] and section["url"] == first["url"]
            refused = await client.call_tool("read", {"id": "nobody:guides/install.md#0"})
            assert refused.is_error
