"""``contextpull mcp-config`` and ``contextpull serve``'s failures, through the real CLI."""

from __future__ import annotations

import json
import socket
import subprocess
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from contextpull.cli import main
from contextpull.tools.schemas import TOOLS
from server_support import command, copy_corpus


def config_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["mcp-config", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_stdio_config_names_this_install_and_an_absolute_path(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    entry = config_json(capsys, "docs", "--name", "handbook")["mcpServers"]["handbook"]
    assert entry["type"] == "stdio"
    assert Path(entry["command"]).is_absolute() and Path(entry["command"]).is_file()
    assert entry["args"][-2:] == ["serve", str(tmp_path / "docs")]


def test_text_output_has_the_json_and_the_claude_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp-config", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert '"mcpServers"' in out
    line = next(line.strip() for line in out.splitlines() if line.strip().startswith("claude mcp add"))
    assert line.startswith("claude mcp add contextpull -- /")
    assert line.endswith(f"serve {tmp_path}")


def test_http_config_with_a_token_header(capsys: pytest.CaptureFixture[str]) -> None:
    entry = config_json(capsys, "--transport", "http", "--port", "9000", "--with-token")["mcpServers"]["contextpull"]
    assert entry == {
        "type": "http",
        "url": "http://127.0.0.1:9000/mcp",
        "headers": {"Authorization": "Bearer ${CONTEXTPULL_TOKEN}"},
    }
    assert main(["mcp-config", "--transport", "http", "--port", "9000", "--with-token"]) == 0
    assert (
        'claude mcp add --transport http contextpull http://127.0.0.1:9000/mcp --header "Authorization: Bearer $CONTEXTPULL_TOKEN"'
        in capsys.readouterr().out
    )


def test_with_token_is_refused_for_stdio(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp-config", "--with-token"]) == 2
    assert "--with-token applies to --transport http only" in capsys.readouterr().err


@pytest.mark.anyio
async def test_the_printed_stdio_config_starts_a_working_server(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = copy_corpus(tmp_path / "corpus")
    entry = config_json(capsys, str(corpus))["mcpServers"]["contextpull"]
    params = StdioServerParameters(command=entry["command"], args=entry["args"])
    async with Client(params, mode="legacy") as client:
        assert [tool.name for tool in (await client.list_tools()).tools] == [tool["name"] for tool in TOOLS]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_serve_a_missing_store_is_one_line_and_exit_1(tmp_path: Path, transport: str) -> None:
    done = subprocess.run(
        [*command(), "serve", str(tmp_path / "nothing.sqlite"), "--transport", transport, "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("contextpull: error: no such folder or store file: ") and done.stderr.count("\n") == 1


def test_serve_a_file_that_is_not_a_store(tmp_path: Path) -> None:
    bogus = tmp_path / "notes.sqlite"
    bogus.write_text("not a database\n", encoding="utf-8")
    done = subprocess.run(
        [*command(), "serve", str(bogus)], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
    )
    assert done.returncode == 1
    assert "is not a ContextPull store" in done.stderr and "Traceback" not in done.stderr


def test_a_port_in_use_is_one_line_and_exit_1(tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path / "corpus")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*command(), "serve", str(corpus), "--transport", "http", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"contextpull: error: cannot listen on 127.0.0.1:{port}" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_token_for_stdio_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", str(tmp_path), "--token", "x"]) == 2
    assert "--token applies to --transport http only" in capsys.readouterr().err
