"""Odd, unwritable, read-only and damaged stores: one line and an exit status, never a traceback."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from contextpull.cli import main
from contextpull.errors import StoreCorrupt
from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.tools.schemas import call_json

CORPUS = {
    "a.md": "# Alpha\n\n" + "Alpha hotel allowance text. " * 30 + "\n\n## Beta\n\n" + "Beta words here. " * 30 + "\n",
    "b.md": "# Bravo\n\nBravo hotel body.\n",
    **{f"more/{n}.md": f"# Doc {n}\n\n" + f"Filler {n} for pages of the sections table. " * 80 for n in range(60)},
}
NOBODY = 65534


def damage(path: Path) -> None:
    """Overwrite the sections table's root page (an interior page here), as a bad disk block would."""
    with sqlite3.connect(path) as conn:
        root = conn.execute("SELECT rootpage FROM sqlite_master WHERE name = 'sections'").fetchone()[0]
        size = conn.execute("PRAGMA page_size").fetchone()[0]
    conn.close()
    with open(path, "r+b") as handle:
        handle.seek((root - 1) * size + 8)
        handle.write(b"\xde\xad\xbe\xef" * 64)


@pytest.fixture
def damaged(make_corpus, tmp_path):
    root = make_corpus(CORPUS)
    store = tmp_path / "store.sqlite"
    ingest(root, store)
    damage(store)
    return root, store


def test_a_damaged_store_is_one_line_and_exit_1(damaged, capsys):
    _, store = damaged
    assert main(["search", "hotel", "--store", str(store)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is damaged" in err and "Traceback" not in err
    assert "allowance" not in err  # SQLite's message, never section text


def test_a_damaged_store_is_a_tool_error_with_a_code(damaged):
    _, store = damaged
    with Ops.open(store) as ops:
        payload, is_error = call_json(ops, "search", {"query": "hotel"})
    assert is_error and payload["error"] == StoreCorrupt.code


def test_ingest_rebuilds_a_damaged_store_and_keeps_the_old_file(damaged):
    root, store = damaged
    report = ingest(root, store)
    kept = Path(report.set_aside)
    assert report.wrote and report.documents == len(CORPUS) and kept.exists() and kept.parent == store.parent
    with Ops.open(store) as ops:
        assert ops.search("hotel").hits
    assert ingest(root, store).set_aside == ""  # the rebuilt one is sound


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("where", ["/dev/full/x.sqlite", "{tmp}", "{tmp}/file/store.sqlite"])
def test_an_impossible_store_path_is_one_line(make_corpus, tmp_path, capsys, where):
    root = make_corpus(CORPUS)
    (tmp_path / "file").write_text("a file, not a folder")
    assert main(["ingest", str(root), "--store", where.format(tmp=tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("contextpull: error: ") and err.count("\n") == 1


def _run_as_someone_else(args: list[str]) -> subprocess.CompletedProcess[str]:
    """The CLI as an unprivileged user (root may write into any folder)."""
    command = [sys.executable, "-m", "contextpull", *args]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv to drop the user")
        command = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


@pytest.fixture
def shared_tmp():
    """A folder everyone may enter (pytest's tmp_path is private to its owner)."""
    folder = Path(tempfile.mkdtemp(prefix="contextpull-ro-"))
    folder.chmod(0o755)
    yield folder
    for path in [folder, *folder.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    shutil.rmtree(folder)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_a_store_in_a_read_only_folder_can_be_read(shared_tmp):
    corpus, folder = shared_tmp / "corpus", shared_tmp / "stores"
    corpus.mkdir()
    (corpus / "a.md").write_text(CORPUS["a.md"])
    ingest(corpus, folder / "store.sqlite")
    for path in folder.iterdir():
        path.chmod(0o444)
    folder.chmod(0o555)
    found = _run_as_someone_else(["search", "allowance", "--store", str(folder / "store.sqlite"), "--json"])
    assert found.returncode == 0, found.stderr
    assert '"a.md#0"' in found.stdout
    assert _run_as_someone_else(["ingest", str(corpus), "--store", str(folder / "store.sqlite")]).returncode == 0
    (corpus / "b.md").write_text(CORPUS["b.md"])  # now the store must change, and cannot
    refused = _run_as_someone_else(["ingest", str(corpus), "--store", str(folder / "store.sqlite")])
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    assert "cannot write the store" in refused.stderr
