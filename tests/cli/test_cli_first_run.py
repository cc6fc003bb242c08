"""A new user's first commands, as issue 11 lists what tripped them: each check runs the real CLI.

In-process calls of ``contextpull.cli.main`` are used where many commands are
walked (a traceback there would be an exception escaping ``main``); the rest
run ``python -m contextpull`` in a subprocess, as a user would.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tomllib
from pathlib import Path

import pytest

from cli_support import one_line_error, run
from contextpull import __version__
from contextpull.cli import build_parser
from ops_support import examples_store

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return examples_store(tmp_path_factory.mktemp("first-run"))


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


# --- item 5: arguments that start with '-' -----------------------------------------
def test_text_starting_with_a_dash_works_after_double_dash_and_the_error_says_so(store: Path) -> None:
    hits = run("grep", "--store", str(store), "--json", "--", "--")
    assert hits.returncode == 0, hits.stderr
    for command, text in (("grep", "--filter"), ("search", "--no-cache")):
        refused = run(command, text, "--store", str(store))
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
        assert f"put it after `--`: contextpull {command} -- {text}" in refused.stderr
        assert run(command, "--store", str(store), "--", text).returncode == 0


# --- item 7: the smaller things --------------------------------------------------
def test_version_and_help_on_every_command() -> None:
    assert run("--version").stdout.strip() == f"contextpull {__version__}"
    commands = list(_subparsers(build_parser()).choices)
    assert {"ingest", "search", "grep", "claude-md", "tools-json", "mcp-config"} <= set(commands)
    for command in commands:
        shown = run(command, "--help")
        assert shown.returncode == 0
        description = shown.stdout.split("\n\n")[1]
        assert not description.lstrip().startswith(("positional", "options")), f"{command} has no description"


def test_a_blank_query_says_so(store: Path) -> None:
    line = one_line_error(run("search", "   ", "--store", str(store)), status=2)
    assert "blank" in line and "500" not in line


def test_an_empty_folder_warns(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    done = run("ingest", str(tmp_path / "empty"))
    assert done.returncode == 0 and "warning: no documents found under" in done.stderr


def test_ingest_gives_the_garbage_collector_back_as_it_found_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI ingest raises the young-generation threshold and freezes start-up objects only while it runs."""
    import gc

    from contextpull.cli.ingest import GC_YOUNG_THRESHOLD
    from contextpull.cli.main import main
    from contextpull.ingestion import run as ingestion

    during: list[tuple[tuple[int, ...], int]] = []
    real = ingestion.ingest_with

    def observed(*args: object, **kwargs: object) -> object:
        during.append((gc.get_threshold(), gc.get_freeze_count()))
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ingestion, "ingest_with", observed)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A\n\nText.\n")
    before = gc.get_threshold()
    assert main(["ingest", str(tmp_path / "docs"), "--store", str(tmp_path / "s.sqlite"), "--json"]) == 0
    assert main(["ingest", str(tmp_path / "missing"), "--store", str(tmp_path / "t.sqlite")]) == 1
    assert [threshold[0] for threshold, _ in during] == [GC_YOUNG_THRESHOLD] * 2
    assert all(frozen > 0 for _, frozen in during)
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_mcp_config_without_a_store_says_so(tmp_path: Path) -> None:
    line = one_line_error(run("mcp-config", cwd=tmp_path))
    assert "no store at" in line and "contextpull ingest DIR" in line


def test_export_chunks_reports_what_it_wrote(store: Path, tmp_path: Path) -> None:
    out = tmp_path / "chunks.jsonl"
    done = run("export-chunks", "--store", str(store), "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    written = json.loads(done.stdout)
    assert written["chunks"] == len(out.read_text(encoding="utf-8").splitlines()) > 0
    assert run("export-chunks", "--store", str(store), "--out", str(out)).stdout.startswith("wrote ")


def test_the_licence_is_an_spdx_string() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert isinstance(project["license"], str) and "MIT" in project["license"]


# --- item 6/7: what a person reads ------------------------------------------------
def test_hints_on_the_cli_are_commands_and_in_tool_results_tool_calls(store: Path) -> None:
    from contextpull.ops.operations import Ops
    from contextpull.tools.schemas import call_json

    shown = run("search", "zebra quagga", "--in", "policies", "--store", str(store))
    assert shown.returncode == 0
    assert "contextpull grep" in shown.stdout and "--in" in shown.stdout and "`in`" not in shown.stdout
    with Ops.open(store) as ops:
        payload, is_error = call_json(ops, "search", {"query": "zebra quagga", "in": "policies"})
    assert not is_error and "`in`" in payload["hint"] and "contextpull" not in payload["hint"]


def test_index_prefix_of_a_document_lists_its_sections_with_ids(store: Path) -> None:
    shown = run("index", "--prefix", "reference/error-codes.md", "--store", str(store))
    assert shown.returncode == 0, shown.stderr
    ids = [line.split()[1] for line in shown.stdout.splitlines() if line.startswith("  - ")]
    assert ids == [f"reference/error-codes.md#{n}" for n in range(len(ids))] and len(ids) > 2


def test_grep_shows_every_matching_line_with_its_line_number_in_the_file(store: Path) -> None:
    shown = run("grep", "TX-44", "--store", str(store))
    assert shown.returncode == 0, shown.stderr
    located = [line.strip().split(": ", 1) for line in shown.stdout.splitlines() if line.startswith("  ")]
    corpus = ROOT / "examples" / "corpus"
    for where, text in located:
        path, number = where.rsplit(":", 1)
        line = (corpus / path).read_text(encoding="utf-8").splitlines()[int(number) - 1].strip()
        assert text.strip("…") in line  # long lines are cut around the match
    expected = sum(line.count("TX-44") > 0 for line in (corpus / "reference/error-codes.md").read_text().splitlines())
    assert sum(where.startswith("reference/error-codes.md:") for where, _ in located) == expected


# --- item 4: the demo's table, pull rows included, with no model installed ---------------
@pytest.mark.parametrize("run_name", ["sample-corpus", "uv-docs"])
def test_a_published_run_is_rescored_exactly_without_a_model(run_name: str, tmp_path: Path) -> None:
    folder = ROOT / "benchmarks" / "results" / run_name
    shown = run("results", str(folder), "--explain", "--full", env={"XDG_CACHE_HOME": str(tmp_path)})
    assert shown.returncode == 0, shown.stderr
    committed = (folder / "table.txt").read_text(encoding="utf-8").split("\n\nspend:", 1)[0]
    # The run's figures, pull rows included, come back from its per-question records alone.
    assert committed.strip() in shown.stdout
    assert "reproduces the run's own table.txt exactly" in shown.stdout
    assert "pull, ids read" in shown.stdout and "pull, strict reads" in shown.stdout
    recorded = json.loads((folder / "results.json").read_text(encoding="utf-8"))["provenance"]
    assert "no model was called" in shown.stdout and f"Made at commit {recorded['commit'][:10]}" in shown.stdout
    assert "What the rows mean" in shown.stdout
    brief = run("results", str(folder), "--explain").stdout
    assert "verdict per shape" in brief and "--full" in brief and "  conceptual  " not in brief
    assert len(brief.splitlines()) <= 60
    data = json.loads(run("results", str(folder), "--json").stdout)
    assert data["model_calls"] == 0 and any(row["name"].startswith("pull, ids read") for row in data["rows"])


def test_results_of_a_folder_that_is_not_a_run_is_one_line(tmp_path: Path) -> None:
    line = one_line_error(run("results", str(tmp_path)))
    assert "not a complete bench output folder" in line


def test_headings_and_titles_show_entities_decoded_and_merged_headings(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "a.md").write_text(
        '---\ntitle: "Tom &amp; Jerry"\n---\n\n## --filter &lt;package_name>\n\nFilter text here.\n', encoding="utf-8"
    )
    assert run("ingest", str(corpus), cwd=tmp_path).returncode == 0
    shown = run("index", "--prefix", "a.md", cwd=tmp_path).stdout
    assert "Tom & Jerry" in shown and "--filter <package_name>" in shown and "&amp;" not in shown


def test_snippet_marks_only_content_words_and_never_inside_urls_or_code(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "cache.md").write_text(
        "# Cache\n\nThe cache lives at https://example.com/cache and `uv cache clean` empties the cache.\n",
        encoding="utf-8",
    )
    assert run("ingest", str(corpus), cwd=tmp_path).returncode == 0
    snippet = json.loads(run("search", "what is the cache", "--json", cwd=tmp_path).stdout)["hits"][0]["snippet"]
    assert snippet.count("**cache**") == 2 and "**the**" not in snippet and "**is**" not in snippet
    assert "https://example.com/cache " in snippet and "`uv cache clean`" in snippet


def test_each_command_loads_only_the_module_that_registers_it() -> None:
    from contextpull.cli.main import COMMAND_HOMES

    assert set(_subparsers(build_parser()).choices) == set(COMMAND_HOMES)
    for command, home in COMMAND_HOMES.items():
        assert command in _subparsers(build_parser((home,))).choices


def test_index_json_lists_the_documents_with_titles_and_section_counts(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    shutil.copytree(ROOT / "examples" / "corpus", corpus)
    assert run("ingest", str(corpus), cwd=tmp_path).returncode == 0
    data = json.loads(run("index", "--prefix", "reference", "--json", cwd=tmp_path).stdout)
    assert [d["path"] for d in data["documents"]] == [
        "reference/error-codes.md",
        "reference/fees.csv",
        "reference/spec-sheet.md",
    ]
    assert all(d["title"] and d["section_count"] > 0 for d in data["documents"]) and data["text"]


def test_stores_count_one_section_in_the_singular_and_vectors_alone_are_reported(tmp_path: Path) -> None:
    corpus = tmp_path / "one"
    corpus.mkdir()
    (corpus / "a.md").write_text("# Only\n\nOne section here.\n", encoding="utf-8")
    env = {"XDG_DATA_HOME": str(tmp_path / "data")}
    assert run("ingest", str(corpus), cwd=tmp_path, env=env).returncode == 0
    assert "(1 section, " in run("stores", cwd=tmp_path, env=env).stdout
    embedded = run("ingest", str(corpus), "--embed", "static", cwd=tmp_path, env=env).stdout
    assert "(documents unchanged; vectors embedded)" in embedded and "0 sections and 1 vectors written" in embedded
