"""Where stores live (contextpull.paths): one rule, tried as a user would, through the real CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contextpull.paths import known_stores, remember, user_store_path
from mount_support import read_only_view

CLI = [sys.executable, "-m", "contextpull"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "CONTEXTPULL_STORE"} | (env or {})
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=cwd, env=environment, timeout=120)


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    """A user data folder of this test's own."""
    return {"XDG_DATA_HOME": str(tmp_path / "data")}


def corpus_copy(where: Path) -> Path:
    shutil.copytree(EXAMPLES, where, ignore=shutil.ignore_patterns(".contextpull"))
    return where


def found_by_search(cwd: Path, env: dict[str, str]) -> bool:
    done = run("search", "hotel allowance", "--json", cwd=cwd, env=env)
    assert "Traceback" not in done.stderr
    return done.returncode == 0 and bool(json.loads(done.stdout)["hits"])


def test_after_ingest_the_folder_it_ran_in_and_the_corpus_find_the_store(tmp_path: Path, home: dict) -> None:
    corpus = corpus_copy(tmp_path / "docs")
    work = tmp_path / "work"
    work.mkdir()
    assert run("ingest", str(corpus), cwd=work, env=home).returncode == 0
    assert (corpus / ".contextpull" / "store.sqlite").is_file()
    for cwd in (work, corpus, corpus / "policies"):
        assert found_by_search(cwd, home), cwd
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    assert run("search", "hotel", cwd=elsewhere, env=home).returncode == 1


def test_a_read_only_corpus_is_ingested_into_the_user_data_folder(tmp_path: Path, home: dict) -> None:
    source = corpus_copy(tmp_path / "source")
    with read_only_view(source, tmp_path / "mounted") as corpus:
        work = tmp_path / "work"
        work.mkdir()
        done = run("ingest", str(corpus), cwd=work, env=home)
        assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
        assert not (corpus / ".contextpull").exists()
        expected = user_store_path(corpus).relative_to(user_store_path(corpus).parents[2])
        store = Path(home["XDG_DATA_HOME"]) / "contextpull" / expected
        assert store.is_file()
        for cwd in (work, corpus, corpus / "reference"):
            assert found_by_search(cwd, home), cwd
        listed = json.loads(run("stores", "--json", cwd=work, env=home).stdout)["stores"]
        assert [(row["corpus"], row["store"]) for row in listed] == [(str(corpus.resolve()), str(store))]
        assert listed[0]["sections"] > 0 and listed[0]["bytes"] > 0 and listed[0]["ingested_at"] > 0
        assert str(corpus.resolve()) in run("stores", cwd=work, env=home).stdout


def test_a_store_remembers_its_corpus_and_refuses_another_without_replace(tmp_path: Path, home: dict) -> None:
    first, second = corpus_copy(tmp_path / "first"), corpus_copy(tmp_path / "second")
    env = {**home, "CONTEXTPULL_STORE": str(tmp_path / "shared.sqlite")}
    assert run("ingest", str(first), cwd=tmp_path, env=env).returncode == 0
    refused = run("ingest", str(second), cwd=tmp_path, env=env)
    assert refused.returncode == 1 and "Traceback" not in refused.stderr
    (line,) = refused.stderr.strip().splitlines()
    assert str(first.resolve()) in line and "--replace" in line
    assert "deleted" not in refused.stdout
    replaced = run("ingest", str(second), "--replace", "--json", cwd=tmp_path, env=env)
    assert replaced.returncode == 0 and json.loads(replaced.stdout)["documents"] > 0


def test_a_folder_copied_with_its_store_keeps_using_it(tmp_path: Path, home: dict) -> None:
    first = corpus_copy(tmp_path / "first")
    assert run("ingest", str(first), cwd=tmp_path, env=home).returncode == 0
    copied = shutil.copytree(first, tmp_path / "copied")
    again = run("ingest", str(copied), "--json", cwd=tmp_path, env=home)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["store"] == str(copied / ".contextpull" / "store.sqlite")


def test_remember_keeps_one_entry_per_store_and_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    store, corpus, other = tmp_path / "s.sqlite", tmp_path / "docs", tmp_path / "other"
    known = tmp_path / "data" / "contextpull" / "known"
    known.mkdir(parents=True)
    (known / "broken.json").write_text("{not json")  # another entry that cannot be read changes nothing
    remember(store, corpus, tmp_path / "a")
    remember(store, corpus, tmp_path / "b")
    remember(tmp_path / "t.sqlite", other, tmp_path / "a")
    entries = {entry.store: entry for entry in known_stores()}
    assert entries[str(store)].ingested_from == (str(tmp_path / "a"), str(tmp_path / "b"))
    assert entries[str(tmp_path / "t.sqlite")].corpus == str(other)
    remember(store, other, tmp_path / "c")  # another corpus in the same store: the old folders are forgotten
    assert next(e for e in known_stores() if e.store == str(store)).ingested_from == (str(tmp_path / "c"),)
    assert len(known_stores()) == 2
    assert sorted(p.name for p in known.iterdir() if not p.name.endswith(".json")) == []
