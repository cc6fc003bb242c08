"""The operation commands end to end, as a user runs them: a subprocess per call."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from contextpull.ingestion.run import ingest
from contextpull.tools.schemas import TOOLS
from ops_support import ONE_SECTION_PER_HEADING, examples_store, write_corpus

CLI = [sys.executable, "-m", "contextpull"]


def run(*args: str, store: Path | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [*CLI, *args] + (["--store", str(store)] if store else [])
    environment = {k: v for k, v in os.environ.items() if k != "CONTEXTPULL_STORE"} | (env or {})
    return subprocess.run(command, capture_output=True, text=True, env=environment, timeout=60)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return examples_store(tmp_path_factory.mktemp("cli"))


def json_of(proc: subprocess.CompletedProcess[str]) -> dict:
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_index(store: Path) -> None:
    assert json_of(run("index", "--json", store=store))["text"].startswith("Corpus index")
    part = run("index", "--prefix", "policies", store=store)
    assert part.returncode == 0 and "policies/travel-policy-2025.md" in part.stdout and "guides/" not in part.stdout


def test_search_json_and_text(store: Path) -> None:
    data = json_of(
        run("search", "TX-4419", "--in", "reference/*", "--in", "guides", "--limit", "2", "--json", store=store)
    )
    assert data["hits"][0]["id"] == "reference/error-codes.md#2" and len(data["hits"]) <= 2
    assert all(
        "snippet" not in hit
        for hit in json_of(run("search", "terminal", "--snippet", "0", "--json", store=store))["hits"]
    )
    text = run("search", "travel allowance", store=store)
    assert text.returncode == 0 and text.stdout.startswith("[policies/travel-policy-")


def test_a_hint_under_real_hits_is_not_called_no_hits(tmp_path: Path) -> None:
    """A common word is ranked over a bounded pool: its hint is shown, not as "(no hits: …)"."""
    docs = {
        f"d{n:03}.md": "# Doc\n\n" + "".join(f"## Part {p}\n\nplain widgets text\n\n" for p in range(20))
        for n in range(110)
    }
    store = tmp_path / "common.sqlite"
    ingest(write_corpus(tmp_path / "corpus", docs), store, ONE_SECTION_PER_HEADING)
    found = run("search", "widgets", "--limit", "2", store=store)
    assert found.returncode == 0, found.stderr
    assert found.stdout.count("[d") == 2 and "distinctive" in found.stdout and "no hits" not in found.stdout
    missing = run("search", "quokka", store=store)
    assert missing.returncode == 0 and "(no hits: " in missing.stdout


def test_read_neighbours_grep(store: Path) -> None:
    read = json_of(run("read", "reference/spec-sheet.md#2", "--context", "1", "--json", store=store))
    assert read["table_header_added"] is True and read["before"][0]["id"] == "reference/spec-sheet.md#1"
    assert "[table header added]" in run("read", "reference/spec-sheet.md#2", store=store).stdout
    near = json_of(
        run("neighbours", "reference/spec-sheet.md#2", "--before", "0", "--after", "1", "--json", store=store)
    )
    assert near["table_header_section"]["id"] == "reference/spec-sheet.md#1" and near["before"] == []
    grep = json_of(run("grep", "tx-44", "--limit", "1", "--json", store=store))
    assert grep["truncated"] is True and len(grep["matches"]) == 1
    regex = run("grep", r"TX-44\d\d", "--regex", "--in", "reference", store=store)
    assert regex.returncode == 0 and regex.stdout.startswith("[reference/error-codes.md#")


def test_store_from_environment(store: Path) -> None:
    proc = run("search", "terminal", "--json", env={"CONTEXTPULL_STORE": str(store)})
    assert json_of(proc)["hits"]


def test_export_chunks(store: Path, tmp_path: Path) -> None:
    lines = run("export-chunks", store=store).stdout.splitlines()
    chunks = [json.loads(line) for line in lines]
    assert all(set(chunk) == {"id", "text", "source"} for chunk in chunks)
    assert chunks[0]["id"] == "README.md#0"
    out = tmp_path / "chunks.jsonl"
    assert run("export-chunks", "--out", str(out), store=store).returncode == 0
    assert out.read_text(encoding="utf-8").splitlines() == lines


def test_tools_json_and_claude_md() -> None:
    assert json.loads(run("tools-json").stdout) == TOOLS
    assert json.loads(run("tools-json", "--format", "openai").stdout)[0]["type"] == "function"
    assert "contextpull search" in run("claude-md").stdout


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["read", "nope"], "unknown_id"),
        (["search", "..."], "bad_argument"),
        (["search", "x", "--limit", "0"], "out_of_range"),
        (["search", "x", "--in", "nowhere"], "bad_filter"),
        (["grep", "(a)\\1", "--regex"], "bad_pattern"),
        (["neighbours", "README.md#0", "--after", "9"], "out_of_range"),
    ],
)
def test_tool_errors_exit_2_with_one_line_or_the_error_object(store: Path, args: list[str], code: str) -> None:
    plain = run(*args, store=store)
    assert plain.returncode == 2 and plain.stdout == ""
    assert len(plain.stderr.strip().splitlines()) == 1 and plain.stderr.startswith("contextpull: error:")
    as_json = run(*args, "--json", store=store)
    assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"] == code


def test_store_problems_exit_1_with_one_line(store: Path, tmp_path: Path) -> None:
    missing = run("search", "x", store=tmp_path / "missing.sqlite")
    not_a_store = tmp_path / "junk.sqlite"
    not_a_store.write_text("not sqlite at all", encoding="utf-8")
    junk = run("read", "a.md#0", store=not_a_store)
    future = tmp_path / "future.sqlite"
    shutil.copy(store, future)
    with sqlite3.connect(future) as conn:
        conn.execute("UPDATE meta SET value = '9.0' WHERE key = 'format_version'")
    conn.close()
    other = run("index", store=future)
    for proc, words in ((missing, "no store"), (junk, "not a ContextPull store"), (other, "format 9.0")):
        assert proc.returncode == 1, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and words in proc.stderr
        assert "Traceback" not in proc.stderr
    assert json.loads(run("index", "--json", store=future).stdout)["error"] == "store_from_newer_version"


def test_usage_errors_exit_2() -> None:
    assert run("search").returncode == 2
    assert run("read", "x", "--context", "many").returncode == 2


def test_a_closed_pipe_is_not_a_traceback(store: Path, tmp_path: Path) -> None:
    big = tmp_path / "big.sqlite"
    docs = {f"d{n:03}.md": f"# Doc {n}\n\n" + "filler words here " * 400 + "\n" for n in range(60)}
    ingest(write_corpus(tmp_path / "big", docs), big)
    for command in (
        f"search terminal --store {store}",
        f"export-chunks --store {big}",
        f"grep filler --limit 100 --store {big}",
    ):
        proc = subprocess.run(
            f"{sys.executable} -m contextpull {command} | head -1",
            shell=True,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.stdout.strip() and "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
