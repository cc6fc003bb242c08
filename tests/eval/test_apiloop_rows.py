"""The pull rows of the bench: names, shared runs, the no-model baseline, judging, leakage.

Models are the loopback Anthropic stand-in behind the real SDK; the bench
runs in-process on a copy of the bundled example corpus.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from contextpull.eval.bench import BenchOptions, run_bench
from contextpull.eval.pull_rows import BASELINE_ROW, ReadTopHits, leakage_lines, pull_rows, snippet_leakage
from contextpull.ops.operations import Ops
from fakes import AnthropicFake, Request
from fakes import anthropic_server as anth
from pull_support import CORPUS, store  # noqa: F401 (store is a fixture)
from pushpull.models import Ledger, RetryPolicy, get_provider
from pushpull.questions import Question
from pushpull.scoring.metrics import summarize
from pushpull.scoring.runner import run_row

SPEC = "anthropic:claude-fake"
READ, SURFACED, STRICT = (f"pull, {what} ({SPEC})" for what in ("ids read", "ids surfaced", "strict reads"))


def question_of(body: dict[str, Any]) -> str:
    return str(body["messages"][0]["content"][0]["text"])


def agent_and_judge(request: Request) -> dict[str, Any]:
    """A scripted model: as the judge, faithful iff it was shown passages; as the agent, it
    searches, then reads the top hit unless the question asks for snippets only, then answers."""
    body = request.body
    if any(tool["name"] == "json_response" for tool in body.get("tools", [])):
        verdict = "(no passages)" not in question_of(body)
        return anth.tool_reply("json_response", {"verdict": verdict, "reason": "scripted"})
    results = [
        block for message in body["messages"] for block in message["content"] if block.get("type") == "tool_result"
    ]
    question = question_of(body)
    if not results:
        return anth.tool_reply("search", {"query": question.removesuffix(" (snippets only)")})
    if len(results) == 1 and not question.endswith("(snippets only)"):
        return anth.tool_reply("read", {"id": json.loads(results[0]["content"])["hits"][0]["id"]})
    return anth.text_reply("an answer")


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Any:
    with AnthropicFake(script=agent_and_judge) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        yield server


def test_three_named_rows_and_two_runs_per_question(store: Path, fake: AnthropicFake) -> None:
    rows = pull_rows(SPEC, store, k=3)
    assert [row.name for row in rows.rows] == [READ, SURFACED, STRICT]
    assert all(row.sampled for row in rows.rows)
    read, surfaced, strict = (row.adapter for row in rows.rows)
    question = "travel booking"
    assert len(read.retrieve(question, 3)) == 1
    assert surfaced.retrieve(question, 3)[0] == read.retrieve(question, 3)[0]
    assert len(fake.requests) == 3  # read and surfaced counted one run
    strict.retrieve(question, 3)
    assert len(fake.requests) == 6
    assert surfaced.stats()["queries"] == read.stats()["queries"] == 1


def test_a_spec_that_cannot_run_is_skipped_with_the_reason(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    rows = pull_rows(SPEC, store)
    assert rows.rows == [] and set(rows.skipped) == {READ, SURFACED, STRICT}
    assert "ANTHROPIC_API_KEY" in rows.skipped[READ]


def test_the_baseline_reads_the_top_search_hits(store: Path) -> None:
    baseline = ReadTopHits(store)
    with Ops.open(store) as ops:
        expected = [hit.id for hit in ops.search("hotel booking approval", limit=4).hits]
    assert baseline.retrieve("hotel booking approval", 4) == expected
    assert baseline.stats()["reads_per_query"] == len(expected) and baseline.stats()["model"] == "none"
    baseline.close()


def test_faithfulness_is_judged_against_reads_then_against_snippets(store: Path, fake: AnthropicFake) -> None:
    """The harness judges a pull row from the adapter's evidence: reads, else the snippets shown."""
    read_row = pull_rows(SPEC, store).rows[0]
    judge = get_provider(SPEC, ledger=Ledger(), retry=RetryPolicy(attempts=1))
    questions = [
        Question(id="q1", q="travel booking", shape="conceptual", gold_chunk_ids=["x#0"], answer="an answer"),
        Question(
            id="q2", q="error codes (snippets only)", shape="conceptual", gold_chunk_ids=["x#0"], answer="an answer"
        ),
    ]
    summary = summarize(run_row(read_row, questions, 5, judge=judge).results, 5)
    assert summary.n_judged == 1 and summary.unread_answers == 1
    assert summary.faithfulness == 1.0  # the snippets-only answer read nothing: not judged, not counted
    assert summary.faithfulness_to_shown == 1.0  # but it is supported by the snippets it was shown


def test_the_bench_runs_the_pull_rows_and_reports_snippet_leakage(fake: AnthropicFake, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    result = run_bench(BenchOptions(corpus=corpus, push=[], pull=[SPEC], sample=3, n=20))
    names = [row.name for row in result.run.rows]
    assert names[-4:] == [BASELINE_ROW, READ, SURFACED, STRICT]
    by_name = {row.name: row for row in result.run.rows}
    assert len(by_name[READ].results) == 3 and len(by_name[BASELINE_ROW].results) > 3
    assert all(r.error is None for r in by_name[READ].results + by_name[STRICT].results)
    assert by_name[READ].stats["reads_per_query"] == 1.0
    leakage = snippet_leakage(result.run)
    assert set(leakage) == {SPEC}
    assert leakage[SPEC] == pytest.approx(by_name[SURFACED].overall.recall - by_name[READ].overall.recall, abs=1e-3)
    assert leakage_lines(result.run)[0].startswith(f"snippet leakage ({SPEC}): ")
