"""``contextpull scenarios``: multi-section tasks, their pass criteria, and who plays them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from contextpull.cli import main
from contextpull.eval.pull_record import PullRun, ToolUse
from contextpull.eval.scenarios import Scenario, ScenarioError, judge, load
from fakes import AnthropicFake
from fakes import anthropic_server as anth

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return Path(shutil.copytree(EXAMPLES, tmp_path / "corpus", ignore=shutil.ignore_patterns(".contextpull")))


def test_the_scripted_policy_passes_the_bundled_scenarios(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scenarios", str(corpus), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["scenarios"] == 6 and data["passed"] == {"scripted": 6}
    names = [outcome["scenario"] for outcome in data["outcomes"]]
    assert names == [
        "version comparison",
        "identifier-family count",
        "cell behind a split table",
        "next step of a procedure",
        "spreadsheet lookup",
        "multi-hop",
    ]
    assert all(outcome["reads"] >= 1 and outcome["tokens"] == 0 for outcome in data["outcomes"])


def test_a_failed_scenario_says_what_was_missing_and_exits_1(corpus: Path, capsys: pytest.CaptureFixture[str]) -> None:
    task = {"name": "impossible", "task": "What is the meal allowance?", "must_read": ["README.md#9"]}
    (corpus / "mine.json").write_text(json.dumps({"scenarios": [task]}))
    assert main(["scenarios", str(corpus), "--file", str(corpus / "mine.json")]) == 1
    out = capsys.readouterr().out
    assert "impossible" in out and "FAIL" in out and "not read: README.md#9" in out
    assert "scripted: 0 of 1 passed" in out


def test_criteria_take_alternatives_and_ignore_case() -> None:
    scenario = Scenario("s", "t", (("a.md#0", "a.md#1"), ("b.md#2",)), ("Twenty",))
    calls = [ToolUse("read", {"id": "a.md#1"}), ToolUse("read", {"id": "b.md#2"})]
    run = PullRun(question="t", model="m", answer="twenty days", read_ids=["a.md#1", "b.md#2"], tool_calls=calls)
    assert judge(scenario, run, "m", writes_answers=True).passed
    scripted = judge(scenario, run, "m", writes_answers=False)  # no answer of its own: the strings in what it read
    assert scripted.missing_strings == ["Twenty"] and not scripted.passed
    run.read_sections = [("b.md#2", "It takes TWENTY days.")]
    assert judge(scenario, run, "m", writes_answers=False).passed
    run.read_ids = ["a.md#1"]
    assert judge(scenario, run, "m", writes_answers=True).missing_reads == ["b.md#2"]


def test_a_run_that_called_no_tool_fails_with_its_error() -> None:
    scenario = Scenario("s", "t", (), ("days",))
    outcome = judge(scenario, PullRun(question="t", model="m", answer="days"), "m", writes_answers=True)
    assert not outcome.passed and outcome.error.startswith("answered without calling any ContextPull tool")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, "cannot read scenarios"),
        ("{not json", "is not valid JSON"),
        ('{"scenarios": []}', "has no scenarios list"),
        ('{"scenarios": [{"task": "x"}]}', "needs a name and a task"),
        ('{"scenarios": [{"name": "n", "task": "x"}]}', "needs must_read and/or answer_contains"),
    ],
)
def test_a_bad_scenario_file_is_one_line(tmp_path: Path, content: str | None, words: str) -> None:
    path = tmp_path / "scenarios.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(ScenarioError, match=words):
        load(path)


def test_a_model_plays_through_the_real_sdk(corpus: Path, monkeypatch: pytest.MonkeyPatch, capsys: Any) -> None:
    task = {
        "name": "spreadsheet",
        "task": "What chargeback fee applies to American Express in the UK?",
        "must_read": ["reference/fees.csv#0"],
        "answer_contains": ["20.00"],
    }
    (corpus / "one.json").write_text(json.dumps({"scenarios": [task]}))
    script = [
        anth.tool_reply("search", {"query": "American Express UK chargeback fee"}),
        anth.tool_reply("read", {"id": "reference/fees.csv#0"}),
        anth.text_reply("20.00 GBP [reference/fees.csv#0]"),
    ]
    with AnthropicFake(script=script) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
        code = main(["scenarios", str(corpus), "--file", str(corpus / "one.json"), "--agent", "anthropic:claude-fake"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "anthropic:claude-fake: 1 of 1 passed" in out
