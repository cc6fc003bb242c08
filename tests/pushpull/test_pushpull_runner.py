"""The runner and the report: errors as counted misses, concurrency, refusals, output files."""

from __future__ import annotations

import json
import threading
import time
from dataclasses import replace
from pathlib import Path

import ir_measures
import pytest

from pushpull.errors import FingerprintMismatch, UsageError
from pushpull.evalset import build_evalset
from pushpull.models import Ledger, RetryPolicy, get_provider
from pushpull.scoring.report import render_table, write_outputs
from pushpull.scoring.runner import RunRow, run, sample_questions
from pushpull_support import CHUNKS, AnthropicFake, scripted_model

EVALSET = build_evalset(CHUNKS, shapes=["table", "aggregation"], n=20)


class Oracle:
    """Returns the gold ids (and a decoy first for tables), so the expected scores are known."""

    def __init__(self) -> None:
        self.gold = {q.q: q.gold_chunk_ids for q in EVALSET.questions}

    def retrieve(self, query: str, k: int) -> list[str]:
        return (["other.md#0"] + self.gold[query])[:k]


class Flaky(Oracle):
    def retrieve(self, query: str, k: int) -> list[str]:
        if "Tokyo" in query or "TX-44xx" in query:
            raise RuntimeError("index offline")
        return super().retrieve(query, k)


class Parallel(Oracle):
    concurrency = 4

    def __init__(self) -> None:
        super().__init__()
        self.active = 0
        self.peak = 0
        self.threads: set[int] = set()
        self._lock = threading.Lock()

    def retrieve(self, query: str, k: int) -> list[str]:
        with self._lock:
            self.active += 1
            self.peak = max(self.peak, self.active)
            self.threads.add(threading.get_ident())
        time.sleep(0.02)
        with self._lock:
            self.active -= 1
        return super().retrieve(query, k)

    def stats(self) -> dict[str, int]:
        return {"tokens_in": 300, "tokens_out": 100, "tool_calls": 8, "queries": 4}


def test_adapter_exceptions_are_counted_misses_not_dropped() -> None:
    result = run([RunRow("flaky", Flaky())], EVALSET, CHUNKS, k=5)
    (row,) = result.rows
    failed = [r for r in row.results if r.error]
    assert len(row.results) == len(EVALSET.questions)
    assert {r.error for r in failed} == {"RuntimeError: index offline"} and len(failed) == 2
    assert row.overall.errors == 2 and row.overall.n == len(EVALSET.questions)
    assert row.overall.hit_rate == pytest.approx((len(EVALSET.questions) - 2) / len(EVALSET.questions))


def test_concurrency_is_used_and_order_is_kept() -> None:
    adapter = Parallel()
    result = run([RunRow("parallel", adapter), RunRow("oracle", Oracle())], EVALSET, CHUNKS, k=5)
    assert adapter.peak > 1 and len(adapter.threads) > 1
    parallel, oracle = result.rows
    assert [r.qid for r in parallel.results] == [q.id for q in EVALSET.questions]
    assert [r.retrieved for r in parallel.results] == [r.retrieved for r in oracle.results]
    assert parallel.per_query("tokens") == 100 and parallel.per_query("tool_calls") == 2
    assert oracle.per_query("tokens") is None


def test_single_threaded_adapters_run_in_the_callers_thread() -> None:
    caller = threading.get_ident()

    class SameThread(Oracle):
        def retrieve(self, query: str, k: int) -> list[str]:
            assert threading.get_ident() == caller
            return super().retrieve(query, k)

    (row,) = run([RunRow("same", SameThread())], EVALSET, CHUNKS, k=5).rows
    assert row.overall.errors == 0


def test_an_evalset_from_other_chunks_is_refused() -> None:
    changed = [replace(CHUNKS[0], text="changed"), *CHUNKS[1:]]
    with pytest.raises(FingerprintMismatch):
        run([RunRow("oracle", Oracle())], EVALSET, changed, k=5)
    with pytest.raises(UsageError):
        run([RunRow("oracle", Oracle())], EVALSET, CHUNKS, k=0)


def test_sampled_rows_see_a_seeded_subset() -> None:
    result = run(
        [RunRow("all", Oracle()), RunRow("some", Oracle(), sampled=True)], EVALSET, CHUNKS, k=5, sample=3, seed=7
    )
    assert result.rows[0].overall.n == len(EVALSET.questions) and result.rows[1].overall.n == 3
    assert [q.id for q in sample_questions(EVALSET.questions, 3, 7)] == [r.qid for r in result.rows[1].results]
    assert "some (sample 3)" in render_table(result)


def test_outputs_json_trec_and_misses(tmp_path: Path) -> None:
    result = run([RunRow("oracle one", Oracle()), RunRow("flaky", Flaky())], EVALSET, CHUNKS, k=2)
    paths = write_outputs(result, CHUNKS, tmp_path)
    data = json.loads(paths["results"].read_text())
    assert [row["name"] for row in data["rows"]] == ["oracle one", "flaky"]
    assert data["fingerprint"] == EVALSET.fingerprint and data["k"] == 2
    assert data["rows"][1]["overall"]["errors"] == 2
    assert set(data["rows"][0]["by_shape"]) == {"aggregation", "table"}
    run_path = tmp_path / "runs" / "oracle-one.trec"
    lines = run_path.read_text().splitlines()
    assert lines[0] == f"{EVALSET.questions[0].id} Q0 other.md#0 1 2 oracle-one"
    # the TREC files score the same under ir-measures as in the table
    qrels = list(ir_measures.read_trec_qrels(str(paths["qrels"])))
    trec = list(ir_measures.read_trec_run(str(run_path)))
    measured = ir_measures.calc_aggregate([ir_measures.R @ 2], qrels, trec)[ir_measures.R @ 2]
    assert 0 < measured == pytest.approx(result.rows[0].overall.recall)
    misses = [json.loads(line) for line in paths["misses"].read_text().splitlines()]
    flaky = [m for m in misses if m["config"] == "flaky" and m["error"]]
    assert len(flaky) == 2 and all(m["retrieved"] == [] and m["missing_text"][0] for m in flaky)
    assert all(set(m["missing"]) <= set(m["gold"]) for m in misses)
    table = paths["table"].read_text()
    assert table.splitlines()[0].split()[:3] == ["config", "recall@2", "rec≡@2"]
    assert "  table" in table and "  aggregation" in table and "skipped shape" not in table


class Answering(Oracle):
    """An adapter that also writes answers, so the judge has something to grade."""

    def generate(self, query: str, ids: list[str]) -> str:
        return f"The answer to {query!r} is in {ids[0] if ids else 'nothing'}."


def test_answers_are_judged_through_the_model_layer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with AnthropicFake(scripted_model) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
        judge = get_provider("anthropic:claude-fake", ledger=Ledger(), retry=RetryPolicy(attempts=1))
        result = run([RunRow("answering", Answering()), RunRow("silent", Oracle())], EVALSET, CHUNKS, k=5, judge=judge)
    answering, silent = result.rows
    tokyo = next(r for r in answering.results if "Tokyo" in EVALSET.questions[int(r.qid[1:]) - 1].q)
    assert tokyo.faithful is True and tokyo.answer
    assert answering.overall.n_judged == len(EVALSET.questions)
    assert 0 < answering.overall.faithfulness < 1  # the scripted judge accepts only the Tokyo answers
    assert silent.overall.faithfulness is None
    assert result.judge_model == "anthropic:claude-fake"
