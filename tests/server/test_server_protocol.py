"""The MCP server over the real protocol, in process: the SDK's client against our server.

``mode="legacy"`` runs the initialize handshake over JSON-RPC memory streams;
``mode="auto"`` is the SDK's default (server/discover first). Both must see the
same index, tools and errors.
"""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.shared.exceptions import MCPError

from contextpull.ingestion.run import default_store_path, ingest
from contextpull.server.app import INDEX_URI, CallLog, build_server
from contextpull.store.connection import Store
from contextpull.tools.instructions import server_instructions
from contextpull.tools.schemas import TOOLS
from server_support import copy_corpus

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = copy_corpus(tmp_path / "corpus")
    ingest(root)
    return root


@pytest.fixture
def store(corpus: Path) -> Path:
    return default_store_path(corpus)


@pytest.fixture(params=["legacy", "auto"])
def mode(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def index_text(store: Path) -> str:
    with Store.open(store) as opened:
        return opened.index_text


def payload(result: Any) -> dict[str, Any]:
    assert len(result.content) == 1 and result.content[0].type == "text"
    data = json.loads(result.content[0].text)
    assert result.structured_content == data
    return data


async def test_instructions_are_the_shared_instructions_with_the_index(store: Path, mode: str) -> None:
    text = index_text(store)
    assert "guides/install.md" in text
    async with Client(build_server(store), mode=mode) as client:
        assert client.instructions == server_instructions(text)


async def test_tools_are_the_five_tool_schemas_marked_read_only(store: Path, mode: str) -> None:
    async with Client(build_server(store), mode=mode) as client:
        listed = (await client.list_tools()).tools
    assert [tool.name for tool in listed] == [tool["name"] for tool in TOOLS]
    for tool, spec in zip(listed, TOOLS, strict=True):
        assert tool.description == spec["description"]
        assert tool.input_schema == spec["input_schema"]
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is True
        assert tool.annotations.open_world_hint is False


async def test_index_tool_and_resource_give_the_stored_index(store: Path, mode: str) -> None:
    text = index_text(store)
    async with Client(build_server(store), mode=mode) as client:
        assert payload(await client.call_tool("index", {}))["text"] == text
        resources = (await client.list_resources()).resources
        assert [str(resource.uri) for resource in resources] == [INDEX_URI]
        contents = (await client.read_resource(INDEX_URI)).contents
        assert [content.text for content in contents] == [text]  # type: ignore[union-attr]
        with pytest.raises(MCPError, match="unknown resource"):
            await client.read_resource("contextpull://nothing")


async def test_search_points_and_read_returns_the_section_verbatim(corpus: Path, store: Path, mode: str) -> None:
    async with Client(build_server(store), mode=mode) as client:
        found = payload(await client.call_tool("search", {"query": "merchant key"}))
        assert found["hits"], found
        assert all("text" not in hit for hit in found["hits"])
        first = found["hits"][0]
        section = payload(await client.call_tool("read", {"id": first["id"]}))
    assert section["id"] == first["id"]
    source = (corpus / section["doc"]).read_text(encoding="utf-8")
    assert section["text"] in source


async def test_grep_and_neighbours(store: Path, mode: str) -> None:
    async with Client(build_server(store), mode=mode) as client:
        grep = payload(await client.call_tool("grep", {"pattern": "LEDGERLINE_HOME"}))
        assert "guides/install.md" in {match["doc"] for match in grep["matches"]}
        sid = grep["matches"][0]["id"]
        around = payload(await client.call_tool("neighbours", {"id": sid, "before": 1, "after": 1}))
    assert around["id"] == sid
    assert around["before"] or around["after"]


ERROR_CASES = [
    ("read", {"id": "guides/install.md#999"}, "unknown_id"),
    ("read", {"id": "no/such/doc.md#0"}, "unknown_id"),
    ("search", {"query": "agent", "in": "nowhere/**"}, "bad_filter"),
    ("grep", {"pattern": "(unclosed", "regex": True}, "bad_pattern"),
    ("search", {"query": "agent", "limit": "ten"}, "wrong_type"),
    ("search", {"query": "agent", "limit": 9999}, "out_of_range"),
    ("read", {}, "missing_argument"),
    ("read", {"id": "guides/install.md#0", "colour": "red"}, "unknown_argument"),
    ("write", {"id": "guides/install.md#0"}, "unknown_tool"),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "code"), ERROR_CASES, ids=[case[2] + "-" + case[0] for case in ERROR_CASES]
)
async def test_failures_are_tool_errors_and_the_server_keeps_serving(
    store: Path, tool: str, arguments: dict[str, Any], code: str
) -> None:
    async with Client(build_server(store), mode="legacy") as client:
        result = await client.call_tool(tool, arguments)
        assert result.is_error is True
        error = payload(result)
        assert error["error"] == code
        assert error["message"] and error["suggestion"]
        after = await client.call_tool("search", {"query": "agent"})
        assert not after.is_error and payload(after)["hits"]


async def test_reingest_reaches_new_sessions_and_running_tools(corpus: Path, store: Path, mode: str) -> None:
    server = build_server(store)
    async with Client(server, mode=mode) as before:
        assert "zeppelin" not in (before.instructions or "")
        (corpus / "guides" / "airships.md").write_text(
            "# Zeppelin docking\n\nMoor the zeppelin to the mast before unloading cargo.\n", encoding="utf-8"
        )
        assert ingest(corpus).wrote
        # The session that was already open sees the new sections in its tools ...
        found = payload(await before.call_tool("search", {"query": "zeppelin mast"}))
        assert [hit["doc"] for hit in found["hits"]][:1] == ["guides/airships.md"]
        assert "guides/airships.md" in payload(await before.call_tool("index", {}))["text"]
    # ... and a new session gets the new index in its instructions, no restart.
    async with Client(server, mode=mode) as after:
        assert after.instructions == server_instructions(index_text(store))
        assert "guides/airships.md" in (after.instructions or "")


async def test_a_store_rebuilt_and_renamed_into_place_is_reopened(corpus: Path, store: Path) -> None:
    server = build_server(store)
    async with Client(server, mode="legacy") as client:
        assert payload(await client.call_tool("search", {"query": "merchant key"}))["hits"]
        (corpus / "guides" / "install.md").unlink()
        shutil.rmtree(store.parent)
        assert ingest(corpus).wrote  # a fresh store file, built aside and renamed to the same path
        result = await client.call_tool("read", {"id": "guides/install.md#0"})
        assert result.is_error and payload(result)["error"] == "unknown_id"


async def test_log_writes_one_line_per_call(store: Path) -> None:
    stream = io.StringIO()
    async with Client(build_server(store, log=CallLog(stream)), mode="legacy") as client:
        await client.call_tool("search", {"query": "merchant key", "limit": 3})
        await client.call_tool("read", {"id": "no/such.md#0"})
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert lines[0].startswith('contextpull: search {"limit": 3, "query": "merchant key"} -> ')
    assert " bytes " in lines[0] and lines[0].endswith(" ms")
    assert lines[1].startswith("contextpull: read ") and lines[1].endswith(" error")


async def test_calls_during_reingests_never_see_a_mix_of_two_ingests(corpus: Path, store: Path) -> None:
    page = corpus / "guides" / "versions.md"

    def write(version: int) -> None:
        filler = "Each part is long enough to stay a section of its own. " * 6
        page.write_text(
            "".join(f"# Part {n}\n\n{filler}\n\nThis part belongs to edition {version}.\n\n" for n in range(3)),
            encoding="utf-8",
        )

    write(0)
    ingest(corpus)
    editions: set[frozenset[str]] = set()
    done = anyio.Event()

    async def reader(client: Client) -> None:
        while not done.is_set():
            seen = payload(await client.call_tool("read", {"id": "guides/versions.md#1", "context": 1}))
            texts = [view["text"] for view in [*seen["before"], seen, *seen["after"]]]
            editions.add(frozenset(text.split("edition ")[1].strip() for text in texts))

    async def reingest() -> None:
        for version in range(1, 9):
            write(version)
            await anyio.to_thread.run_sync(ingest, corpus)
        done.set()

    async with Client(build_server(store), mode="legacy") as client, anyio.create_task_group() as group:
        group.start_soon(reader, client)
        group.start_soon(reader, client)
        group.start_soon(reingest)
    # Every call saw one edition in all three sections, and the calls saw several editions.
    assert all(len(edition) == 1 for edition in editions), editions
    assert len(editions) >= 2, editions
