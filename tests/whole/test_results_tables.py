"""The published tables in README.md and benchmarks/RESULTS.md are what the committed results.json files say."""

from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

import results_tables


def test_every_published_table_is_regenerated_from_its_results() -> None:
    changed = [path.name for path in results_tables.stale()]
    assert not changed, f"run `python benchmarks/results_tables.py`: {', '.join(changed)} differ from their results"


def test_the_summary_has_a_line_per_corpus_and_shape_with_the_best_push_row() -> None:
    text = results_tables.summary_table()
    lines = [line for line in text.splitlines() if line.startswith("|")]
    assert lines[0].startswith("| corpus | shape | n | best push row | recall | search |")
    corpora = {line.split(" | ")[0].strip("| ") for line in lines[2:]}
    assert {"sample-corpus", "uv-docs"} <= corpora
    assert all(line.count("|") == lines[0].count("|") for line in lines[2:])
    assert all(f"{corpus} at commit " in text for corpus in corpora)  # each run says which code made it


def test_the_summary_over_every_question_has_only_the_rows_that_answered_every_question() -> None:
    lines = [line for line in results_tables.summary_table(every_question=True).splitlines() if line.startswith("|")]
    assert lines[0] == "| corpus | shape | n | best push row | recall | search | scripted pull (no model) |"
    assert len(lines) > len([line for line in results_tables.summary_table().splitlines() if line.startswith("|")])


def test_the_pooled_table_weights_each_corpus_by_its_questions() -> None:
    lines = [line.split(" | ") for line in results_tables.pooled_table().splitlines() if line.startswith("| overall")]
    runs = [json.loads(path.read_text(encoding="utf-8")) for path in results_tables.published_runs()]
    overall = [next(v for v in run["verdict"]["all"] if v["shape"] == "overall") for run in runs]
    n = sum(v["n"] for v in overall)
    assert lines[0][1:4] == [str(len(runs)), str(n), f"{sum(v['n'] * v['best_push_recall'] for v in overall) / n:.3f}"]
