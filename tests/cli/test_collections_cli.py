"""``ingest --collection``, ``contextpull collections`` and ``--collection`` on the other commands."""

from __future__ import annotations

import json
from pathlib import Path

from cli_support import one_line_error, run
from contextpull.sources.git import Fetched
from ops_support import write_corpus


def test_a_collection_is_made_listed_used_and_removed(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    corpus = write_corpus(tmp_path / "docs", {"guide/start.md": "# Getting started\n\nRun the quokka setup.\n"})
    made = run("ingest", str(corpus), "--collection", "demo@2", "--base-url", "https://d.example/", "--json", env=env)
    assert made.returncode == 0, made.stderr
    report = json.loads(made.stdout)
    assert report["collection"] == "demo@2" and "/collections/demo@2/" in report["store"]
    (row,) = json.loads(run("collections", "--json", env=env).stdout)["collections"]
    assert (row["name"], row["version"], row["sections"], row["base_url"]) == ("demo", "2", 1, "https://d.example/")
    assert "demo@2  (1 sections in 1 documents)" in run("collections", env=env).stdout
    found = run("search", "quokka", "--collection", "demo@2", "--json", cwd=tmp_path, env=env)
    (hit,) = json.loads(found.stdout)["hits"]
    assert hit["url"] == "https://d.example/guide/start.md#getting-started"
    removed = run("collections", "--remove", "demo@2", env=env)
    assert removed.returncode == 0 and "removed collection demo@2" in removed.stdout
    assert json.loads(run("collections", "--json", env=env).stdout) == {"collections": []}


def test_bad_names_and_conflicting_options_are_one_line_errors(tmp_path: Path) -> None:
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    corpus = write_corpus(tmp_path / "docs", {"a.md": "# A\n\ntext\n"})
    assert "not a collection name" in one_line_error(run("ingest", str(corpus), "--collection", "a:b", env=env), 2)
    both = run("ingest", str(corpus), "--collection", "a", "--store", str(tmp_path / "s.sqlite"), env=env)
    assert "drop --store" in one_line_error(both, 2)
    assert "not an absolute http(s) URL" in one_line_error(
        run("ingest", str(corpus), "--base-url", "x.org", env=env), 2
    )
    missing = run("search", "text", "--collection", "nope", env=env)
    assert "there is no collection 'nope'" in one_line_error(missing, 2)
    assert "no collection" in one_line_error(run("collections", "--remove", "nope", env=env), 2)
    assert "there are no collections yet" in one_line_error(run("serve", "--collections", env=env), 2)
    mixed = run("serve", str(corpus), "--collection", "a", "--collection", "b", env=env)
    assert "served on their own" in one_line_error(mixed, 2)


def test_a_repository_on_github_or_gitlab_is_cited_at_its_commit() -> None:
    commit = "0123456789abcdef0123456789abcdef01234567"
    github = Fetched("https://github.com/astral-sh/uv.git", "main", "docs", commit, "/tmp/x")
    assert github.web_base() == f"https://github.com/astral-sh/uv/blob/{commit}/docs/"
    gitlab = Fetched("https://gitlab.com/group/project", None, None, commit, "/tmp/x")
    assert gitlab.web_base() == f"https://gitlab.com/group/project/-/blob/{commit}/"
    assert Fetched("file:///srv/repo.git", None, None, commit, "/tmp/x").web_base() == ""
    assert Fetched("git@github.com:o/r.git", None, None, commit, "/tmp/x").web_base() == ""
