"""The scripted pull policy: the five tools driven with no model, as a careful agent would."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from contextpull.eval.scripted import (
    ROW_NAME,
    ScriptedPull,
    by_listing_document,
    family_patterns,
    index_entries,
    named_documents,
)
from pull_support import store  # noqa: F401 (store is a fixture)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"
POLICIES = [
    ("policies/travel-policy-2024.md", "Travel and expense policy (2024)"),
    ("policies/travel-policy-2025.md", "Travel and expense policy (2025)"),
    ("policies/data-retention.md", "Data retention policy"),
    ("guides/install.md", "Installing the Ledgerline agent"),
]
POLICIES_2 = ["policies/travel-policy-2024.md", "policies/travel-policy-2025.md"]


def test_family_tokens_become_member_patterns() -> None:
    assert family_patterns("Which identifiers of the form TX-44xx are documented?") == [r"\bTX\-44\d\d\b"]
    assert family_patterns("List every LEDGERLINE_* and build_* variable") == [r"\bLEDGERLINE_\w+\b", r"\bbuild_\w+\b"]
    assert family_patterns("What does the proxy do?") == []
    assert family_patterns("an x or a *") == []


def test_two_variants_are_named_only_by_words_that_tell_them_apart() -> None:
    assert named_documents("What is the meal allowance in 2025 compared to 2024?", POLICIES) == POLICIES_2
    # "policy" is shared by both variants and names neither; one variant alone is no comparison
    assert named_documents("What does the 2025 policy say about hotels?", POLICIES) == []
    assert named_documents("How do I install the agent?", POLICIES) == []


GUIDES = [
    ("docs/index.md", "uv"),
    ("docs/pip/index.md", "The pip interface"),
    ("docs/guides/integration/dependabot.md", "Using uv with Dependabot"),
    ("docs/guides/integration/renovate.md", "Using uv with Renovate"),
    ("docs/guides/integration/index.md", "Integration guides"),
    ("docs/concepts/projects/run.md", "Running commands in projects"),
    ("docs/guides/tools.md", "Using tools"),
]


def test_documents_are_named_by_a_quoted_title_or_a_file_name_no_other_document_has() -> None:
    assert named_documents("What cooldown do Dependabot and Renovate use?", GUIDES) == [
        "docs/guides/integration/dependabot.md",
        "docs/guides/integration/renovate.md",
    ]
    assert named_documents("How do Running commands in projects and Using tools differ on Windows?", GUIDES) == [
        "docs/concepts/projects/run.md",
        "docs/guides/tools.md",
    ]
    # "index" is the file name of three documents, so it names none; one named document is no comparison
    assert named_documents("How do uv and pip index packages?", GUIDES) == []
    assert named_documents("What is the purpose of using uv with Renovate?", GUIDES) == []


def test_documents_that_differ_by_more_than_the_question_says_are_not_variants() -> None:
    # the two index pages differ by "pip" (asked) but also by their titles' other words (not asked)
    assert named_documents("Does pip read an index differently from uv?", GUIDES[:2]) == []


def test_index_lines_give_path_and_title() -> None:
    text = "Corpus index: 2 documents\n- a/b.md — Alpha: first line. (3 sections)\n- c.txt — GAMMA: x (1 section)\n"
    assert index_entries(text) == [("a/b.md", "Alpha"), ("c.txt", "GAMMA")]


def test_a_compact_index_gives_paths_without_titles_and_a_collapsed_folder_names_no_document() -> None:
    text = (
        "Corpus index: 306 documents\n- docs/README.md (2)\n- docs/registry/attributes/ — 86 documents, 328 sections\n"
    )
    assert index_entries(text) == [("docs/README.md", "")]


def test_paths_written_in_full_name_their_documents_and_no_others() -> None:
    listed = [("docs/a/k8s.md", ""), ("docs/b/k8s.md", ""), ("docs/a/kestrel.md", "Kestrel metrics")]
    question = "What differs between docs/a/k8s.md and docs/b/k8s.md?"
    assert named_documents(question, listed) == ["docs/a/k8s.md", "docs/b/k8s.md"]
    assert named_documents("What differs between docs/c/x.md and docs/d/y.md?", []) == ["docs/c/x.md", "docs/d/y.md"]
    # path-only entries take no part in the variant rule: their folder words would pair any two versions
    versions = [("v/version-10.x/install.md", ""), ("v/version-7.x/install.md", "")]
    assert named_documents("Is version 10 faster than 7?", versions) == []


def test_with_a_compact_index_the_policy_lists_the_folders_of_its_best_hits_for_their_titles(tmp_path: Path) -> None:
    from contextpull.ingestion.run import IngestOptions, ingest_with

    store = Path(ingest_with(EXAMPLES, tmp_path / "store.sqlite", IngestOptions(index_budget=40)).store)
    run = ScriptedPull(store).run("What differs between Travel and expense policy (2024) and (2025)?", 5)
    listed = [call.arguments.get("prefix") for call in run.tool_calls if call.name == "index"]
    assert listed[0] is None and "policies/" in listed[1:]
    assert {sid.split("#")[0] for sid in run.read_ids[:2]} == set(POLICIES_2)  # named from the folder's titles


def test_grep_matches_of_the_listing_document_come_first() -> None:
    matches = [{"id": "a.md#0", "doc": "a.md"}, {"id": "b.md#1", "doc": "b.md"}, {"id": "b.md#2", "doc": "b.md"}]
    assert by_listing_document(matches) == ["b.md#1", "b.md#2", "a.md#0"]


def test_a_comparison_reads_both_sides_first(store: Path) -> None:
    policy = ScriptedPull(store)
    run = policy.run("What is the daily meal allowance in 2025 compared to 2024?", 5)
    first_two = run.read_ids[:2]
    assert sorted(sid.split("#")[0] for sid in first_two) == POLICIES_2
    assert [call.name for call in run.tool_calls][:2] == ["search", "index"]
    assert all(call.name in {"index", "search", "read", "grep", "neighbours"} for call in run.tool_calls)


def test_a_family_is_grepped_and_its_listing_read_first(store: Path) -> None:
    run = ScriptedPull(store).run("Which identifiers of the form TX-44xx are documented?", 5)
    assert run.tool_calls[0].name == "grep" and run.tool_calls[0].arguments["regex"] is True
    assert all(sid.startswith("reference/error-codes.md#") for sid in run.ranked("read", 4))


def test_a_continued_table_part_is_followed_by_its_header(store: Path) -> None:
    run = ScriptedPull(store).run("What is the Weight of LT-1200 in Models?", 5)
    assert "neighbours" in [call.name for call in run.tool_calls]
    assert run.read_ids[0].startswith("reference/spec-sheet.md#")


def test_stats_have_the_pull_columns_and_no_tokens(store: Path) -> None:
    policy = ScriptedPull(store)
    assert policy.retrieve("How do I upgrade ledgerctl?", 5)
    stats = policy.stats()
    assert stats["queries"] == 1 and stats["tokens_in"] == 0 and stats["tool_calls"] >= 3
    assert stats["reads_per_query"] >= 1
    policy.close()


def test_bench_pull_scripted_adds_the_reference_row_without_a_model(tmp_path: Path) -> None:
    corpus = Path(shutil.copytree(EXAMPLES, tmp_path / "corpus", ignore=shutil.ignore_patterns(".contextpull")))
    done = subprocess.run(
        [sys.executable, "-m", "contextpull", "bench", str(corpus), "--push", "bm25", "--pull", "scripted"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads((corpus / ".contextpull" / "bench" / "results.json").read_text())
    names = [row["name"] for row in data["rows"]]
    assert names[-2:] == ["pull baseline: read top search hits", ROW_NAME]
    row = data["rows"][-1]
    assert row["overall"]["n"] == sum(data["evalset"]["counts"].values()) and not row["push"]
    assert ROW_NAME in done.stdout and "spend: no model calls" in done.stdout
