from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from contextpull.analysis.terms import ANALYSIS_VERSION
from contextpull.cli import main
from contextpull.cli.ingest import render
from contextpull.errors import FormatVersionError, StoreLocked, StoreOfAnotherCorpus
from contextpull.ingestion.analyse import EMPTY
from contextpull.ingestion.run import corpus_fingerprint, default_store_path, ingest
from contextpull.settings import SectionSettings
from contextpull.store import Store
from contextpull.store.writer import StoreWriter
from ops_support import write_corpus, written_by_an_older_analysis

FILES = {
    "intro.md": "# Introduction\n\nFolders become tools.\n\n## Why\n\nBecause context is small.\n",
    "guides/install.md": "# Install\n\nRun `pip install contextpull`.\n\n## Offline\n\nUse a wheel.\n",
    "guides/usage.md": "# Usage\n\nCall `contextpull ingest DIR`.\n",
    "notes.txt": "Plain text notes.\n\nA second paragraph.\n",
}


def snapshot(store: Path) -> tuple[bytes, int]:
    return store.read_bytes(), store.stat().st_mtime_ns


def section_rows(store_path: Path) -> list[tuple[str, str]]:
    with Store.open(store_path) as store:
        return list(store._conn.execute("SELECT sid, text FROM sections ORDER BY path, ordinal"))


def test_first_ingest(make_corpus):
    root = make_corpus(FILES)
    report = ingest(root)
    store_path = default_store_path(root)
    assert report.store == str(store_path) and store_path.exists()
    assert (report.documents_seen, report.added, report.unchanged, report.deleted) == (4, 4, 0, 0)
    assert report.wrote and report.documents == 4
    assert report.sections == report.sections_written > 0
    assert report.index_mode == "full" and 0 < report.index_tokens <= 3000
    with Store.open(store_path) as store:
        assert store.fingerprint == report.fingerprint
        assert store.fingerprint == corpus_fingerprint(store.document_hashes())
        assert store.meta("section_count") == str(report.sections)
        for path in FILES:
            assert path in store.index_text
        ordinals: dict[str, list[int]] = {}
        for doc, ordinal, sid in store._conn.execute("SELECT path, ordinal, sid FROM sections"):
            assert sid == f"{doc}#{ordinal}"
            ordinals.setdefault(doc, []).append(ordinal)
        assert all(sorted(o) == list(range(len(o))) for o in ordinals.values())


def test_store_folder_is_not_ingested(make_corpus):
    root = make_corpus(FILES)
    ingest(root)
    report = ingest(root, index_budget=2999)
    assert report.documents == 4 and not any(".contextpull" in p for p, _ in report.skipped)


def test_store_inside_corpus_is_not_ingested(make_corpus):
    root = make_corpus(FILES)
    ingest(root, root / "store.md")
    second = ingest(root, root / "store.md")
    assert not second.wrote and second.documents == 4


def test_unchanged_corpus_writes_nothing(make_corpus):
    root = make_corpus(FILES)
    first = ingest(root)
    store_path = default_store_path(root)
    with Store.open(store_path) as store:
        index_before = store.index_text
    before = snapshot(store_path)
    time.sleep(0.01)
    second = ingest(root)
    assert not second.wrote
    assert snapshot(store_path) == before
    assert (second.unchanged, second.added, second.changed, second.sections_written) == (4, 0, 0, 0)
    assert second.fingerprint == first.fingerprint and second.sections == first.sections
    with Store.open(store_path) as store:
        assert store.index_text == index_before


def test_changed_added_and_deleted_files(make_corpus):
    root = make_corpus(FILES)
    ingest(root)
    store_path = default_store_path(root)
    before = dict(section_rows(store_path))
    (root / "guides/usage.md").write_text("# Usage\n\nNow with a *new* paragraph.\n")
    (root / "notes.txt").unlink()
    (root / "new.md").write_text("# New\n\nFresh.\n")
    report = ingest(root)
    assert (report.added, report.changed, report.unchanged, report.deleted) == (1, 1, 2, 0 + 1)
    after = dict(section_rows(store_path))
    assert not any(sid.startswith("notes.txt#") for sid in after)
    assert "Now with a *new* paragraph." in after["guides/usage.md#0"]
    # Unchanged documents keep their ids and text.
    for sid, text in before.items():
        if sid.startswith(("intro.md#", "guides/install.md#")):
            assert after[sid] == text


def test_changed_settings_resection_everything(make_corpus):
    root = make_corpus(FILES)
    ingest(root)
    report = ingest(root, settings=SectionSettings(max_depth=1))
    assert report.changed == 4 and report.unchanged == 0
    with Store.open(default_store_path(root)) as store:
        assert store.meta("settings") == SectionSettings(max_depth=1).fingerprint()


@pytest.mark.parametrize("older", ["1", None])  # None: written before stores recorded their analysis
def test_a_store_indexed_by_an_older_analysis_is_refused_then_rebuilt(make_corpus, older):
    root = make_corpus(FILES)
    ingest(root)
    store_path = default_store_path(root)
    conn = sqlite3.connect(store_path)
    with conn:
        if older is None:
            conn.execute("DELETE FROM meta WHERE key = 'analysis_version'")
        else:
            conn.execute("UPDATE meta SET value = ? WHERE key = 'analysis_version'", (older,))
    conn.close()
    with pytest.raises(FormatVersionError) as refused:
        Store.open(store_path)
    assert f"term analysis {older or 1}" in refused.value.message and "ingest" in refused.value.suggestion
    report = ingest(root)
    assert report.wrote and report.sections_written == report.sections > 0
    assert report.rebuilt == refused.value.message  # the report says why every file was done again
    assert f"rebuilt from the files: {report.rebuilt}" in render(report)
    with Store.open(store_path) as store:
        assert store.meta("analysis_version") == ANALYSIS_VERSION
    again = ingest(root)
    assert not again.wrote and again.rebuilt == ""  # and now it is current


def test_a_store_of_another_folder_is_refused_even_when_it_needs_a_rebuild(make_corpus, tmp_path):
    """Rebuilding for a new analysis is no back door for putting another folder into a store."""
    store_path = tmp_path / "store.sqlite"
    ingest(make_corpus(FILES), store_path)
    written_by_an_older_analysis(store_path)
    other = write_corpus(tmp_path / "other", {"other.md": "# Other\n\nA page of another folder.\n"})
    with pytest.raises(StoreOfAnotherCorpus, match="holds the corpus of"):
        ingest(other, store_path)
    assert ingest(other, store_path, replace=True).documents == 1


def test_changed_budget_rebuilds_only_the_index(make_corpus):
    root = make_corpus(FILES)
    ingest(root)
    report = ingest(root, index_budget=20)
    assert report.wrote and report.unchanged == 4 and report.sections_written == 0
    assert report.index_tokens <= 20
    with Store.open(default_store_path(root)) as store:
        assert store.meta("index_budget") == "20"


def test_skipped_files_are_remembered(make_corpus):
    root = make_corpus({**FILES, "empty.md": "", "blob.md": b"\x00\x01\x02binary"})
    first = ingest(root)
    reasons = dict(first.skipped)
    assert reasons["empty.md"] == EMPTY and "binary" in reasons["blob.md"]
    second = ingest(root)
    assert not second.wrote and second.skipped == first.skipped


def test_document_turning_binary_is_removed(make_corpus):
    root = make_corpus(FILES)
    ingest(root)
    (root / "intro.md").write_bytes(b"\x00\xff" * 100)
    report = ingest(root)
    assert report.deleted == 1 and dict(report.skipped)["intro.md"].startswith("binary")
    assert not any(sid.startswith("intro.md#") for sid, _ in section_rows(default_store_path(root)))


def test_failure_midway_leaves_previous_store(make_corpus):
    root = make_corpus(FILES)
    first = ingest(root)
    store_path = default_store_path(root)
    rows = section_rows(store_path)
    for path in FILES:
        (root / path).write_text("# Rewritten\n\nEverything changed.\n")

    def explode(done: int, total: int) -> None:
        if done == 2:
            raise RuntimeError("disk on fire")

    with pytest.raises(RuntimeError):
        ingest(root, progress=explode)
    assert section_rows(store_path) == rows
    with Store.open(store_path) as store:
        assert store.fingerprint == first.fingerprint


def test_failed_first_ingest_leaves_no_store(make_corpus):
    root = make_corpus(FILES)

    def explode(done: int, total: int) -> None:
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        ingest(root, progress=explode)
    store_dir = default_store_path(root).parent
    assert not [p for p in store_dir.iterdir() if not p.name.endswith(".lock")]


_KILLABLE = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from contextpull.ingestion.run import ingest

    def pause(done, total):
        if done == 50:
            print("writing", flush=True)
            time.sleep(60)

    ingest(Path(sys.argv[1]), Path(sys.argv[2]), progress=pause)
    """
)


def _kill_mid_ingest(root: Path, store_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _KILLABLE, str(root), str(store_path)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)


@pytest.mark.parametrize("existing", [True, False], ids=["existing-store", "first-ingest"])
def test_killed_ingest_leaves_previous_store_readable(make_corpus, tmp_path, existing):
    root = make_corpus({f"d{i:03}.md": f"# Doc {i}\n\nBody {i}.\n" for i in range(80)})
    store_path = tmp_path / "store.sqlite"
    if existing:
        ingest(root, store_path)
        rows = section_rows(store_path)
        for i in range(80):
            (root / f"d{i:03}.md").write_text(f"# Changed {i}\n\nNew body {i}.\n")
    _kill_mid_ingest(root, store_path)
    if existing:
        assert section_rows(store_path) == rows
    else:
        assert not store_path.exists()
    report = ingest(root, store_path)  # and the next ingest completes
    assert report.documents == 80


def test_concurrent_ingest_is_locked_out(make_corpus):
    root = make_corpus(FILES)
    ingest(root)
    (root / "new.md").write_text("# New\n")
    with StoreWriter(default_store_path(root)), pytest.raises(StoreLocked):
        ingest(root)


def test_cli_json(make_corpus, capsys):
    root = make_corpus(FILES)
    assert main(["ingest", str(root), "--json"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["added"] == 4 and data["index_mode"] == "full"
    assert captured.err == ""


def test_cli_readable_and_store_option(make_corpus, tmp_path, capsys):
    root = make_corpus({**FILES, "LICENSE": "MIT"})
    store_path = tmp_path / "elsewhere.sqlite"
    assert (
        main(
            [
                "ingest",
                str(root),
                "--store",
                str(store_path),
                "--max-chars",
                "500",
                "--min-chars",
                "100",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert str(store_path) in out and "4 documents" in out
    assert "skipped 1 (unsupported file type): LICENSE" in out
    with Store.open(store_path) as store:
        assert store.meta("settings") == SectionSettings(max_chars=500, min_chars=100).fingerprint()


def test_cli_bad_corpus_is_one_line(tmp_path, capsys):
    assert main(["ingest", str(tmp_path / "missing")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("contextpull: error: cannot read corpus folder")


def test_cli_bad_settings_is_usage_error(make_corpus, capsys):
    root = make_corpus(FILES)
    with pytest.raises(SystemExit) as info:
        main(["ingest", str(root), "--max-depth", "9"])
    assert info.value.code == 2


def _store_content(store_path: Path) -> tuple[list[tuple], str]:
    with Store.open(store_path) as store:
        rows = list(store._conn.execute("SELECT * FROM sections ORDER BY id"))
        return rows, store.index_text


def test_parallel_ingest_equals_serial(make_corpus, tmp_path):
    files = {
        f"part{i % 3}/doc{i:03}.md": f"# Doc {i}\n\n## A\n\nAlpha {i}.\n\n## B\n\nBeta `x.{i}`.\n" for i in range(60)
    }
    root = make_corpus({**files, "empty.md": "", "bin.md": b"\x00" * 10})
    serial = ingest(root, tmp_path / "serial.sqlite", workers=1)
    parallel = ingest(root, tmp_path / "parallel.sqlite", workers=2)
    assert _store_content(tmp_path / "serial.sqlite") == _store_content(tmp_path / "parallel.sqlite")
    assert serial.skipped == parallel.skipped and serial.fingerprint == parallel.fingerprint


def test_parallel_failure_midway_leaves_previous_store(make_corpus, tmp_path):
    root = make_corpus({f"d{i:03}.md": f"# Doc {i}\n\nBody.\n" for i in range(100)})
    store_path = tmp_path / "store.sqlite"
    ingest(root, store_path)
    before = _store_content(store_path)
    for i in range(100):
        (root / f"d{i:03}.md").write_text(f"# Changed {i}\n\nNew.\n")

    def explode(done: int, total: int) -> None:
        if done == 30:
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        ingest(root, store_path, progress=explode, workers=2)
    assert _store_content(store_path) == before


def _descendants(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            found |= {int(child)} | _descendants(int(child))
    return found


_KILLABLE_PARALLEL = _KILLABLE.replace("progress=pause)", "progress=pause, workers=2)").replace(
    "ingest(Path", 'if __name__ == "__main__":\n    ingest(Path'
)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_killed_parallel_ingest_leaves_no_workers(make_corpus, tmp_path):
    root = make_corpus({f"d{i:03}.md": f"# Doc {i}\n\nBody {i}.\n" for i in range(200)})
    script = tmp_path / "killable.py"
    script.write_text(_KILLABLE_PARALLEL)
    proc = subprocess.Popen(
        [sys.executable, str(script), str(root), str(tmp_path / "s.sqlite")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "writing"
        helpers = _descendants(proc.pid)
        assert helpers  # forkserver, workers, resource tracker
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline and any(map(_running, helpers)):
        time.sleep(0.2)
    assert not [p for p in helpers if _running(p)]


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for a reaper."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def test_workers_start_only_for_a_megabyte_or_more_and_only_on_idle_cpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from contextpull.ingestion import analyse
    from contextpull.ingestion.discover import discover

    (tmp_path / "small.md").write_text("# Small\n\n" + "word " * 20_000)  # about 100 KB
    small = discover(tmp_path).files
    (tmp_path / "large.md").write_text("# Large\n\n" + "word " * 200_000)  # about 1 MB more
    large = discover(tmp_path).files
    monkeypatch.setattr(analyse, "_usable_cpus", lambda: 4)
    monkeypatch.setattr(analyse, "_load", lambda: 0.5)
    assert (analyse.default_workers(small), analyse.default_workers(large)) == (1, 4)
    monkeypatch.setattr(analyse, "_load", lambda: 4.0)  # every CPU busy: workers would only queue
    assert analyse.default_workers(large) == 1
