"""``ingest --watch`` and ``serve DIR --watch``: re-ingest on change, debounced, and the live server answers from it."""

from __future__ import annotations

import json
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from mcp import Client

from cli_support import run
from contextpull.cli.watch import snapshot, watch
from server_support import command, copy_corpus, http_server

DEADLINE_S = 90.0  # generous: CI runs on a busy 2-core machine; the loop ends as soon as the change is seen


def eventually(check: Callable[[], bool]) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.2)
    raise AssertionError("the change was not picked up")


def found(word: str, store: Path) -> list[str]:
    proc = run("search", word, "--store", str(store), "--json")
    return [hit["id"] for hit in json.loads(proc.stdout)["hits"]] if proc.returncode == 0 else []


def test_ingest_watch_re_ingests_edits_additions_and_deletions_and_stops_cleanly(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\nThe first page.\n", encoding="utf-8")
    store = tmp_path / "s.sqlite"
    proc = subprocess.Popen(
        [*command(), "ingest", str(corpus), "--store", str(store), "--watch", "--watch-poll", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stderr is not None
        assert "watching" in proc.stderr.readline()
        (corpus / "a.md").write_text("# A\n\nNow the page names the marmotword.\n", encoding="utf-8")
        eventually(lambda: found("marmotword", store)[:1] == ["a.md#0"])
        (corpus / "b.md").write_text("# B\n\nA new page about the lynxword.\n", encoding="utf-8")
        eventually(lambda: found("lynxword", store)[:1] == ["b.md#0"])
        (corpus / "b.md").unlink()
        eventually(lambda: found("lynxword", store) == [])
    finally:
        proc.send_signal(signal.SIGTERM)  # SIGINT too; SIGTERM because a background shell may ignore SIGINT
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert "Traceback" not in err
    assert "watch:" in err and "changed 1" in err and "deleted 1" in err


def test_a_burst_of_writes_is_one_re_ingest(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n", encoding="utf-8")
    calls: list[dict[str, tuple[int, int]]] = []
    stop = threading.Event()
    watcher = threading.Thread(
        target=watch,
        args=(corpus, lambda: calls.append(snapshot(corpus))),
        kwargs={"poll_s": 0.05, "quiet_s": 0.5, "stop": stop},
    )
    watcher.start()
    try:
        time.sleep(0.3)  # the watcher has its first snapshot
        for i in range(5):
            (corpus / f"page{i}.md").write_text(f"# Page {i}\n", encoding="utf-8")
        eventually(lambda: len(calls) >= 1)
        time.sleep(1.0)
    finally:
        stop.set()
        watcher.join(timeout=10)
    assert len(calls) == 1 and len(calls[0]) == 6  # every file of the burst, in one call


def test_a_change_made_while_the_last_ingest_ran_is_not_missed(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n", encoding="utf-8")
    before = snapshot(corpus)  # what the ingest started to read
    (corpus / "a.md").write_text("# A, edited while the ingest ran\n", encoding="utf-8")
    calls: list[int] = []
    stop = threading.Event()

    def changed() -> None:
        calls.append(1)
        stop.set()

    timer = threading.Timer(DEADLINE_S, stop.set)  # a missed change ends the watch here instead of hanging
    timer.start()
    watch(corpus, changed, poll_s=0.05, quiet_s=0.05, stop=stop, since=before)
    timer.cancel()
    assert calls == [1]


def test_the_snapshot_sees_what_ingest_reads_and_ignore_files(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    (corpus / ".contextpull").mkdir(parents=True)
    (corpus / ".contextpull" / "store.sqlite").write_text("not a page", encoding="utf-8")
    (corpus / "a.md").write_text("# A\n", encoding="utf-8")
    (corpus / "image.png").write_bytes(b"PNG")
    assert set(snapshot(corpus)) == {"a.md"}  # the store and unsupported files do not wake the watcher
    (corpus / ".contextpullignore").write_text("a.md\n", encoding="utf-8")
    assert set(snapshot(corpus)) == {".contextpullignore"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_serve_watch_answers_from_the_edited_folder(tmp_path: Path) -> None:
    corpus = copy_corpus(tmp_path / "corpus")
    with http_server(corpus, "--watch", "--watch-poll", "0.2") as server:
        async with Client(server.url, mode="legacy") as client:
            (corpus / "guides" / "watched.md").write_text(
                "# Watched\n\nThe page names the ocelotword.\n", encoding="utf-8"
            )
            deadline = time.monotonic() + DEADLINE_S
            hits: list[str] = []
            while time.monotonic() < deadline and not hits:
                result = await client.call_tool("search", {"query": "ocelotword"})
                hits = [hit["id"] for hit in json.loads(result.content[0].text)["hits"]]  # type: ignore[union-attr]
                if not hits:
                    await anyio.sleep(0.3)
            assert hits[:1] == ["guides/watched.md#0"]
    assert any("watching" in line for line in server.announced + server.stderr)
