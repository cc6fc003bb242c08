"""Every failure is one line with what to do, exit status 1, and never a traceback.

The sweep calls ``contextpull.cli.main`` in-process for every command with
bad paths: an exception escaping ``main`` is exactly what would print a
traceback. The conditions a user meets on real disks (read-only, full,
locked) run the CLI as a subprocess and read its stderr.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contextpull.cli import main
from contextpull.store.writer import StoreWriter
from mount_support import read_only_view, small_disk

CLI = [sys.executable, "-m", "contextpull"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "CONTEXTPULL_STORE"}
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=environment, timeout=120)


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 1, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("contextpull: error: ") and " — " in line, line
    return line


@pytest.fixture
def bad_paths(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    text = tmp_path / "notes.txt"
    text.write_text("not a store\n", encoding="utf-8")
    return {
        "missing": tmp_path / "missing.sqlite",
        "folder": folder,
        "not a store": text,
        "under a file": text / "store.sqlite",
        "unreachable": Path("/proc/contextpull/store.sqlite"),
    }


STORE_COMMANDS = [
    ["index"],
    ["index", "--prefix", "guides"],
    ["search", "hotel"],
    ["read", "guides/install.md#0"],
    ["grep", "TX-4419"],
    ["neighbours", "guides/install.md#0"],
    ["export-chunks"],
    ["mcp-config"],
]


def test_every_command_with_a_bad_store_path_says_one_line(
    bad_paths: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    corpus = shutil.copytree(EXAMPLES, tmp_path / "corpus", ignore=shutil.ignore_patterns(".contextpull"))
    commands = [[*argv, "--store", "{store}"] for argv in STORE_COMMANDS]
    commands += [["ingest", str(corpus), "--store", "{store}"]]
    for label, path in bad_paths.items():
        for argv in commands:
            filled = [word.replace("{store}", str(path)) for word in argv]
            status = main(filled)
            err = capsys.readouterr().err
            if argv[0] == "mcp-config" and label in ("not a store", "folder"):
                continue  # mcp-config names a file or a corpus folder to serve; `serve` checks it
            if argv[0] == "ingest" and label == "missing":
                assert status == 0  # a new store
                path.unlink()
                continue
            assert status == 1, (label, filled, err)
            lines = err.strip().splitlines()
            assert len(lines) == 1 and lines[0].startswith("contextpull: error: "), (label, filled, err)


def test_ingest_and_export_to_places_that_cannot_be_written(
    bad_paths: dict[str, Path], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["ingest", str(tmp_path / "no-such-folder")]) == 1
    assert main(["ingest", str(bad_paths["not a store"])]) == 1
    store = tmp_path / "ok.sqlite"
    assert main(["ingest", str(EXAMPLES), "--store", str(store)]) == 0
    capsys.readouterr()
    for out in (bad_paths["folder"], bad_paths["under a file"], Path("/proc/contextpull.jsonl")):
        assert main(["export-chunks", "--store", str(store), "--out", str(out)]) == 1
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert line.startswith("contextpull: error: cannot use ") and " — " in line


def test_a_read_only_store_folder_is_one_line(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    with read_only_view(source, tmp_path / "ro") as ro:
        line = one_line(run("ingest", str(EXAMPLES), "--store", str(ro / "store.sqlite")))
        assert "read-only" in line.lower() and "--store" in line


def test_a_full_disk_is_one_line_and_leaves_no_store_behind(tmp_path: Path) -> None:
    with small_disk(tmp_path / "disk") as disk:
        line = one_line(run("ingest", str(EXAMPLES), "--store", str(disk / "store.sqlite")))
        assert "space" in line or "full" in line
        assert not (disk / "store.sqlite").exists()


def test_a_locked_store_is_one_line(tmp_path: Path) -> None:
    corpus = shutil.copytree(EXAMPLES, tmp_path / "corpus", ignore=shutil.ignore_patterns(".contextpull"))
    store = tmp_path / "store.sqlite"
    assert run("ingest", str(corpus), "--store", str(store)).returncode == 0
    (corpus / "new.md").write_text("# New\n\nA changed corpus needs a write.\n", encoding="utf-8")
    with StoreWriter(store):
        line = one_line(run("ingest", str(corpus), "--store", str(store)))
    assert "lock" in line


def test_a_usage_error_is_one_line_naming_the_help(tmp_path: Path) -> None:
    for argv in (["read"], ["bogus"], ["search", "--limit", "x", "a"]):
        done = subprocess.run(
            [sys.executable, "-m", "contextpull", *argv], capture_output=True, text=True, cwd=tmp_path
        )
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1, done.stderr
        assert "error:" in done.stderr and ("-h`" in done.stderr or "put it after" in done.stderr)


def test_serving_a_missing_folder_says_no_such_folder(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "contextpull", "serve", str(tmp_path / "missing")], capture_output=True, text=True
    )
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert f"no such folder or store file: {tmp_path / 'missing'}" in done.stderr
