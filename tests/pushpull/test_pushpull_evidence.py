"""Judging answers against an adapter's ``evidence``: the sections it read, else the snippets shown.

The adapter is duck-typed (pushpull imports nothing from contextpull); the
judge is the scripted model behind the loopback Anthropic stand-in, whose
verdict is "the prompt mentions Tokyo", so which passages reach the judge
decides every verdict.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pushpull.evalset import build_evalset
from pushpull.models import Ledger, RetryPolicy, get_provider
from pushpull.scoring.judge import judge_faithfulness, judge_faithfulness_to_texts
from pushpull.scoring.report import render_table, write_outputs
from pushpull.scoring.runner import RunRow, run
from pushpull_support import CHUNKS, AnthropicFake, scripted_model

EVALSET = build_evalset(CHUNKS, shapes=["table", "aggregation"], n=20)
READ_TEXT = "[faq.md#0]\nThe Tokyo daily cap is 250 per traveller."
SNIPPET = "[faq.md#0] …The Tokyo daily cap is 250…"


class Reader:
    """Retrieves the gold ids; reads the FAQ section for the Fees questions only and is shown its snippet always."""

    def __init__(self) -> None:
        self.gold = {q.q: q.gold_chunk_ids for q in EVALSET.questions}

    def retrieve(self, query: str, k: int) -> list[str]:
        return list(self.gold[query])[:k]

    def generate(self, query: str, ids: list[str] | None = None) -> str:
        return "It is in the table."

    def evidence(self, query: str) -> dict[str, list[str]]:
        return {"read": [READ_TEXT] if "Fees" in query else [], "snippets": [SNIPPET]}


class NoEvidence(Reader):
    def evidence(self, query: str) -> dict[str, list[str]]:
        raise RuntimeError("the run was lost")


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Any:
    with AnthropicFake(scripted_model) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
        yield get_provider("anthropic:claude-fake", ledger=Ledger(), retry=RetryPolicy(attempts=1)), fake


def _judge_prompts(fake: AnthropicFake) -> list[str]:
    bodies = [request.body for request in fake.requests]
    return [
        body["messages"][-1]["content"][0]["text"]
        for body in bodies
        if "supported by the passages" in str(body.get("system", ""))
    ]


def test_pull_answers_are_judged_against_reads_then_snippets(judge: Any, tmp_path: Path) -> None:
    provider, fake = judge
    result = run([RunRow("reader", Reader())], EVALSET, CHUNKS, k=5, judge=provider)
    (row,) = result.rows
    by_q = {q.id: q.q for q in EVALSET.questions}
    for r in row.results:
        question = by_q[r.qid]
        if "Fees" in question:  # read the FAQ: judged on it, not on the fee chunks retrieved
            assert (r.sections_read, r.faithful, r.faithful_to_shown) == (1, True, True), question
        else:  # read nothing: faithfulness to what was read is undefined, so not judged; the snippet supports it
            assert (r.sections_read, r.faithful, r.faithful_to_shown) == (0, None, True), question
    unread = [r for r in row.results if r.sections_read == 0]
    assert row.overall.unread_answers == len(unread) == 4
    assert row.overall.faithfulness == 1.0 and row.overall.n_judged == 4  # the four answers that read
    assert row.overall.faithfulness_to_shown == 1.0
    assert row.overall.correctness is not None
    prompts = _judge_prompts(fake)
    assert not any("(no passages)" in p for p in prompts)  # the judge is never asked about no evidence
    assert sum(SNIPPET in p for p in prompts) == 4  # the second judgement, for unread answers only
    assert not any("| Starter | $10" in p for p in prompts)  # the retrieved fee chunks never reach this judge

    table = render_table(result)
    header, _, reader_line = table.splitlines()[:3]
    assert header.split()[6:9] == ["faith", "judged", "correct"]
    assert reader_line.split()[6:8] == ["1.00*", "4"]
    assert (
        "* reader: 4 of 8 answers read no section and are not judged (faithfulness to what was read is undefined); "
        "faithful to what was shown (the sections read, else the snippets) 1.00"
    ) in table

    data = json.loads(write_outputs(result, CHUNKS, tmp_path)["results"].read_text())
    overall = data["rows"][0]["overall"]
    assert overall["faithfulness_to_shown"] == 1.0 and overall["unread_answers"] == 4
    assert {q["qid"]: q["faithful_to_shown"] for q in data["rows"][0]["questions"]} == {
        r.qid: True for r in row.results
    }


def test_an_adapter_whose_evidence_fails_leaves_the_answer_unjudged(judge: Any) -> None:
    provider, _ = judge
    (row,) = run([RunRow("lost", NoEvidence())], EVALSET, CHUNKS, k=5, judge=provider).rows
    assert all(r.faithful is None and r.faithful_to_shown is None and r.error is None for r in row.results)
    assert row.overall.faithfulness is None and row.overall.unread_answers == 0
    assert row.overall.recall == 1.0  # retrieval still counts


def test_rows_without_evidence_have_no_second_figure(judge: Any) -> None:
    provider, _ = judge

    class Plain(Reader):
        evidence = None  # type: ignore[assignment]

    result = run([RunRow("plain", Plain())], EVALSET, CHUNKS, k=5, judge=provider)
    (row,) = result.rows
    assert all(r.faithful is not None and r.faithful_to_shown is None and r.sections_read is None for r in row.results)
    assert row.overall.faithfulness_to_shown is None and row.overall.unread_answers == 0
    assert "*" not in render_table(result).splitlines()[2]


def test_an_answer_with_no_evidence_is_never_judged_faithful(judge: Any) -> None:
    """The scripted judge passes any prompt naming Tokyo; with no passages it must not be asked at all."""
    provider, fake = judge
    answer = "The Tokyo daily cap is 250 per traveller."
    assert judge_faithfulness_to_texts(provider, "What is the Tokyo cap?", [], answer) is None
    assert judge_faithfulness_to_texts(provider, "What is the Tokyo cap?", ["  ", ""], answer) is None
    assert judge_faithfulness(provider, "What is the Tokyo cap?", [], answer) is None
    assert _judge_prompts(fake) == []
    assert judge_faithfulness_to_texts(provider, "What is the Tokyo cap?", [READ_TEXT], answer) is True
    assert judge_faithfulness_to_texts(provider, "What is the cap?", ["[x.md#0]\nThe cap is 250."], "250") is False
