"""``contextpull ingest URL`` for git repositories: real git, local repositories, no network."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cli_support import one_line_error, run

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t"}
    env["GIT_COMMITTER_EMAIL"] = "t@e"
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def commit(work: Path, files: dict[str, str], message: str) -> None:
    for rel, text in files.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-qm", message)


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, str]:
    """A working repository with a tag v1 and a branch main, pushed to a bare repository served as file://."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    commit(
        work,
        {
            "README.md": "# Project\n\nNot part of the docs folder.\n",
            "docs/install.md": "# Install\n\nRun the installer with the flag --quiet-mode.\n",
            "docs/cache.md": "# Cache\n\nThe cache lives in the folder named kestrelcache.\n",
        },
        "v1",
    )
    git(work, "tag", "v1")
    bare = tmp_path / "repo.git"
    git(tmp_path, "clone", "-q", "--bare", str(work), str(bare))
    git(work, "remote", "add", "origin", str(bare))
    return work, f"file://{bare}"


def ingest(*args: str, cwd: Path) -> dict:
    proc = run("ingest", *args, "--json", cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_a_tag_and_a_subdir_are_ingested_and_searchable_from_where_ingest_ran(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    _, url = repo
    report = ingest(url, "--ref", "v1", "--subdir", "docs", cwd=tmp_path)
    assert (report["documents"], report["added"]) == (2, 2)  # README.md is outside docs/
    assert report["source"]["url"] == url and len(report["source"]["commit"]) == 40
    assert Path(report["source"]["folder"]).name == "docs"
    found = run("search", "kestrelcache", "--json", cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert [hit["id"] for hit in json.loads(found.stdout)["hits"]][:1] == ["cache.md#0"]


def test_re_ingest_fetches_the_branch_again_and_re_reads_only_what_changed(
    repo: tuple[Path, str], tmp_path: Path
) -> None:
    work, url = repo
    first = ingest(url, "--ref", "main", cwd=tmp_path)
    assert first["documents"] == 3
    commit(work, {"docs/cache.md": "# Cache\n\nThe cache moved to the folder named osprey.\n"}, "move cache")
    commit(work, {"docs/upgrade.md": "# Upgrade\n\nUpgrade in place.\n"}, "upgrade page")
    git(work, "push", "-q", "origin", "main")
    again = ingest(url, "--ref", "main", cwd=tmp_path)
    assert (again["added"], again["changed"], again["unchanged"], again["deleted"]) == (1, 1, 2, 0)
    assert again["source"]["commit"] == git(work, "rev-parse", "HEAD").strip()
    unchanged = ingest(url, "--ref", "main", cwd=tmp_path)
    assert (unchanged["added"], unchanged["changed"], unchanged["unchanged"]) == (0, 0, 4)


def test_an_unknown_ref_is_one_line_and_leaves_no_half_made_checkout(repo: tuple[Path, str], tmp_path: Path) -> None:
    _, url = repo
    line = one_line_error(run("ingest", url, "--ref", "no-such-branch", cwd=tmp_path))
    assert "git fetch failed" in line and "no-such-branch" in line
    sources = Path(os.environ["XDG_DATA_HOME"]) / "contextpull" / "sources"
    assert not [p.name for p in sources.glob("*") if "partial" in p.name]  # glob of a missing folder: []


def test_a_missing_subdir_is_one_line(repo: tuple[Path, str], tmp_path: Path) -> None:
    _, url = repo
    line = one_line_error(run("ingest", url, "--subdir", "manual", cwd=tmp_path))
    assert "has no folder 'manual'" in line


def test_an_unreachable_remote_keeps_the_last_checkout_and_its_store(repo: tuple[Path, str], tmp_path: Path) -> None:
    _, url = repo
    ingest(url, "--ref", "v1", cwd=tmp_path)
    bare = Path(url.removeprefix("file://"))
    bare.rename(bare.with_name("gone.git"))
    line = one_line_error(run("ingest", url, "--ref", "v1", cwd=tmp_path))
    assert "git fetch failed" in line
    found = run("search", "kestrelcache", "--json", cwd=tmp_path)
    assert found.returncode == 0 and json.loads(found.stdout)["hits"], found.stderr


def test_ref_and_subdir_need_a_git_url(tmp_path: Path) -> None:
    proc = run("ingest", str(tmp_path), "--ref", "v1", cwd=tmp_path)
    assert proc.returncode == 2 and "--ref and --subdir go with a git URL" in proc.stderr


def test_a_subdir_that_climbs_out_is_refused(repo: tuple[Path, str], tmp_path: Path) -> None:
    _, url = repo
    assert "not a folder inside the repository" in one_line_error(run("ingest", url, "--subdir", "../x", cwd=tmp_path))
