"""The one table's layout: names are never cut, and answer correctness sits beside faithfulness."""

from __future__ import annotations

from pathlib import Path

import ir_measures
import pytest

from pushpull.evalset import build_evalset
from pushpull.scoring.metrics import summarize
from pushpull.scoring.report import NOTHING_RETRIEVED, render_table, slug, trec_run_lines, write_outputs
from pushpull.scoring.runner import RunRow, run
from pushpull.scoring.verdict import verdict_json, verdicts
from pushpull_support import CHUNKS

EVALSET = build_evalset(CHUNKS, shapes=["table", "aggregation"], n=20)
LONG = "pull, strict reads (local:qwen2.5-coder-1.5b)"
SHORT = "bm25"


class Gold:
    def retrieve(self, query: str, k: int) -> list[str]:
        return next(q.gold_chunk_ids for q in EVALSET.questions if q.q == query)[:k]


def test_the_name_column_fits_the_longest_name() -> None:
    table = render_table(
        run([RunRow(SHORT, Gold()), RunRow(LONG, Gold(), sampled=True)], EVALSET, CHUNKS, k=5, sample=3)
    )
    lines = table.splitlines()
    header, rule = lines[0], lines[1]
    long_line = next(line for line in lines if line.startswith(LONG))
    assert long_line.startswith(f"{LONG} (sample 3)  ")  # whole, with the sample note, then a gap
    numbers = [
        line
        for line in lines[2:]
        if line and not line.startswith(("eval set", "rec≡", "err", "faith", "like with like"))
    ]
    assert {len(line) for line in numbers} == {len(header)} == {len(rule)}  # every column lines up
    short_line = next(line for line in lines if line.startswith(f"{SHORT} "))
    recall_end = header.index("recall@5") + len("recall@5")
    assert long_line.index("1.000") + 5 == short_line.index("1.000") + 5 == recall_end  # figures under their heading


def test_faith_and_correct_columns_side_by_side() -> None:
    table = render_table(run([RunRow(SHORT, Gold())], EVALSET, CHUNKS, k=5))
    header, _, row = table.splitlines()[:3]
    columns = header.split()
    assert columns[columns.index("faith") + 1 : columns.index("faith") + 3] == ["judged", "correct"]
    cells = row.split()
    assert cells[columns.index("faith")] == cells[columns.index("judged")] == cells[columns.index("correct")] == "—"
    assert header.startswith("config ")
    assert "correct = answers stating the reference answer's facts" in table


class EveryOtherQuestion:
    """Gold for every other question, nothing (or an error) for the rest."""

    def __init__(self) -> None:
        self.asked = 0

    def retrieve(self, query: str, k: int) -> list[str]:
        self.asked += 1
        if self.asked % 4 == 0:
            raise RuntimeError("offline")
        return Gold().retrieve(query, k) if self.asked % 2 else []


def test_trec_files_reproduce_the_table_with_ir_measures(tmp_path: Path) -> None:
    """Questions with nothing retrieved keep a sentinel line; the sample ids travel beside the run files."""
    result = run(
        [RunRow(SHORT, Gold()), RunRow(LONG, EveryOtherQuestion(), sampled=True)], EVALSET, CHUNKS, k=5, sample=6
    )
    write_outputs(result, CHUNKS, tmp_path)
    sample_ids = (tmp_path / "runs" / "sample-ids.txt").read_text(encoding="utf-8").split()
    assert sample_ids == result.sample_ids and len(sample_ids) == 6
    qrels = list(ir_measures.read_trec_qrels(str(tmp_path / "qrels.txt")))
    for row in result.rows:
        lines = trec_run_lines(row)
        assert {line.split()[0] for line in lines} == {r.qid for r in row.results}
        assert row.name != LONG or NOTHING_RETRIEVED in "\n".join(lines)
        trec = list(ir_measures.read_trec_run(str(tmp_path / "runs" / f"{slug(row.name)}.trec")))
        scored = [q for q in qrels if q.query_id in {r.qid for r in row.results}]
        figures = ir_measures.calc_aggregate([ir_measures.R @ 5, ir_measures.RR @ 5], scored, trec)
        assert figures[ir_measures.R @ 5] == pytest.approx(row.overall.recall)
        assert figures[ir_measures.RR @ 5] == pytest.approx(row.overall.mrr)


def test_a_table_mixing_sampled_and_full_rows_puts_every_row_on_the_sample() -> None:
    result = run(
        [RunRow(SHORT, EveryOtherQuestion()), RunRow(LONG, Gold(), sampled=True)], EVALSET, CHUNKS, k=5, sample=4
    )
    lines = render_table(result).splitlines()
    start = lines.index("like with like: every row on the same 4 sampled questions")
    full, sampled = lines[start + 3], lines[start + 4]
    assert full.startswith(f"{SHORT} ") and sampled.startswith(f"{LONG} (sample 4) ")
    on_sample = summarize([r for r in result.rows[0].results if r.qid in set(result.sample_ids)], 5)
    assert full.split()[1] == f"{on_sample.recall:.3f}" and full.split()[9] == "4"  # recall, n over the sample only
    assert len(result.rows[0].results) > 4
    unsampled = render_table(run([RunRow(SHORT, Gold()), RunRow(LONG, Gold())], EVALSET, CHUNKS, k=5, sample=4))
    assert "like with like" not in unsampled


class FirstGoldOnly:
    """Only the first gold chunk of each question: recall below 1 wherever a question has two."""

    def retrieve(self, query: str, k: int) -> list[str]:
        return Gold().retrieve(query, k)[:1]


def test_the_verdict_names_the_best_push_row_per_shape_and_every_other_rows_margin() -> None:
    rows = [
        RunRow("weak push", FirstGoldOnly(), push=True),
        RunRow("strong push", Gold(), push=True),
        RunRow("search", FirstGoldOnly()),
    ]
    result = run(rows, EVALSET, CHUNKS, k=5)
    found = {v.shape: v for v in verdicts(result)}
    assert set(found) == {"overall", *{q.shape for q in EVALSET.questions}}
    for verdict in found.values():
        assert verdict.best_push == "strong push" and verdict.best_recall == 1.0
        assert set(verdict.others) == {"search"}
        assert verdict.margin("search") == pytest.approx(verdict.others["search"] - 1.0)
    table = render_table(result)
    assert "verdict per shape, recall@5: the best push row on each shape's questions" in table
    overall = next(line for line in table.splitlines() if line.startswith("overall "))
    assert "strong push 1.000" in overall and f"{found['overall'].others['search']:.3f}" in overall
    assert "[A] search" in table
    recorded = verdict_json(result)["all"]
    assert recorded[0]["shape"] == "overall" and recorded[0]["best_push"] == "strong push"


def test_reworded_aggregation_questions_are_a_block_of_their_own_in_rows_and_verdict() -> None:
    from dataclasses import replace

    from pushpull.evalset import EvalSet

    computed = [q for q in EVALSET.questions if q.shape == "aggregation"]
    twins = [
        replace(q, id=f"r{i}", q=f"Which codes of family {i} exist?", phrasing="model") for i, q in enumerate(computed)
    ]
    evalset = EvalSet([*EVALSET.questions, *twins], EVALSET.fingerprint, EVALSET.shapes, EVALSET.n, 0, "fake")
    notation_only = {q.q for q in computed}

    class ParsesNotation:  # finds a family only when it is written in notation
        def __init__(self, always: bool = False) -> None:
            self.always = always

        def retrieve(self, query: str, k: int) -> list[str]:
            question = next(q for q in evalset.questions if q.q == query)
            found = self.always or query in notation_only or question.shape != "aggregation"
            return question.gold_chunk_ids[:k] if found else []

    rows = [RunRow("push", ParsesNotation(always=True), push=True), RunRow("search", ParsesNotation())]
    result = run(rows, evalset, CHUNKS, k=5)
    search = next(row for row in result.rows if row.name == "search")
    assert search.by_shape["aggregation"].recall == 1.0 and search.by_shape["aggregation, phrased"].recall == 0.0
    assert search.by_shape["aggregation, phrased"].n == len(twins)
    lines = render_table(result).splitlines()
    assert sum(line.startswith("  aggregation, phrased ") for line in lines) == 2  # one per row
    assert any(line.startswith("aggregation, phrased ") and "-1.000" in line for line in lines)  # its verdict


def test_a_tie_goes_to_the_earlier_push_row_and_no_push_row_means_no_verdict() -> None:
    tied = run(
        [RunRow("first", Gold(), push=True), RunRow("second", Gold(), push=True), RunRow("s", Gold())],
        EVALSET,
        CHUNKS,
        k=5,
    )
    assert {v.best_push for v in verdicts(tied)} == {"first"}
    assert all(v.margin("s") == 0 for v in verdicts(tied))
    assert verdicts(run([RunRow("s", Gold())], EVALSET, CHUNKS, k=5)) == []
    assert "verdict per shape" not in render_table(run([RunRow("s", Gold())], EVALSET, CHUNKS, k=5))


def test_sampled_rows_are_judged_against_the_push_rows_on_the_same_sample() -> None:
    rows = [RunRow("push", EveryOtherQuestion(), push=True), RunRow("pull", Gold(), sampled=True)]
    result = run(rows, EVALSET, CHUNKS, k=5, sample=4)
    assert verdicts(result) == []  # the full block has no row but push
    on_sample = {v.shape: v for v in verdicts(result, sampled=True)}
    push_on_sample = summarize([r for r in result.rows[0].results if r.qid in set(result.sample_ids)], 5)
    assert on_sample["overall"].n == 4 and on_sample["overall"].best_recall == pytest.approx(push_on_sample.recall)
    assert "the same on the 4 sampled questions, every row" in render_table(result)
