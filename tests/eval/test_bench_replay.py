"""``contextpull bench --replay``: a recorded run's table again, byte for byte, with no model.

The run is made against the loopback Anthropic stand-in (real SDK, real
sockets); the replay runs with no key and no server, so any model call would
fail. A run dir whose recorded fingerprint differs is refused, naming what changed.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from test_apiloop_rows import SPEC, agent_and_judge, question_of

from contextpull.eval.bench import BenchError, BenchOptions, run_bench
from contextpull.eval.replay import ReplayRefused, outcome
from fakes import AnthropicFake
from pull_support import CORPUS


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, int]:
    """A bench run with pull rows, made against the fake; returns (corpus, run dir, requests made)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    with AnthropicFake(script=agent_and_judge) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        run_bench(BenchOptions(corpus=corpus, push=["bm25"], pull=[SPEC], sample=3, n=20, out=tmp_path / "run"))
        made = len(server.requests)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    return corpus, tmp_path / "run", made


def _edit_results(run_dir: Path, edit: Any) -> None:
    path = run_dir / "results.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_a_replay_reproduces_the_table_byte_for_byte_without_a_model(
    recorded: tuple[Path, Path, int], tmp_path: Path
) -> None:
    corpus, run_dir, made = recorded
    assert made > 0
    data = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    assert data["behaviour"]["files"]["contextpull/ops/ranking.py"] and data["models"][SPEC]["base_url"]
    assert data["options"]["pull"] == [SPEC] and data["options"]["sample"] == 3
    replayed = run_bench(BenchOptions(corpus=corpus, replay=run_dir, out=tmp_path / "replayed"))
    assert (tmp_path / "replayed" / "table.txt").read_bytes() == (run_dir / "table.txt").read_bytes()
    assert any(row.name.startswith("pull, ids read") for row in replayed.run.rows)


def test_a_replay_of_a_run_made_by_other_code_is_refused_naming_the_change(
    recorded: tuple[Path, Path, int], tmp_path: Path
) -> None:
    corpus, run_dir, _ = recorded

    def older_ranking(data: dict[str, Any]) -> None:
        data["behaviour"]["files"]["contextpull/ops/ranking.py"] = "0" * 16

    _edit_results(run_dir, older_ranking)
    with pytest.raises(ReplayRefused, match=r"contextpull/ops/ranking\.py changed.*--allow-stale"):
        run_bench(BenchOptions(corpus=corpus, replay=run_dir, out=tmp_path / "refused"))
    stale = run_bench(BenchOptions(corpus=corpus, replay=run_dir, out=tmp_path / "stale", allow_stale=True))
    table = (tmp_path / "stale" / "table.txt").read_text(encoding="utf-8")
    assert "STALE REPLAY (--allow-stale)" in table and "contextpull/ops/ranking.py changed" in table
    assert all(r.error is None for row in stale.run.rows for r in row.results)  # the old runs were replayed


def test_a_run_dir_without_a_fingerprint_is_refused(recorded: tuple[Path, Path, int], tmp_path: Path) -> None:
    corpus, run_dir, _ = recorded
    _edit_results(run_dir, lambda data: data.pop("behaviour"))
    with pytest.raises(ReplayRefused, match="no behaviour fingerprint"):
        run_bench(BenchOptions(corpus=corpus, replay=run_dir, out=tmp_path / "x", allow_stale=True))


def test_a_pull_row_reports_the_agents_time_even_when_its_run_comes_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    options = BenchOptions(corpus=corpus, push=["bm25"], pull=[SPEC], sample=3, n=20, out=tmp_path / "run")
    with AnthropicFake(script=agent_and_judge) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        first = run_bench(options)
        made = len(server.requests)
        again = run_bench(options)
        assert len(server.requests) == made  # the second bench called no model: every run came from the caches

    def pull_ms(result: Any) -> dict[str, list[float]]:
        return {row.name: [q.ms for q in row.results] for row in result.run.rows if row.name.startswith("pull,")}

    assert pull_ms(again) == pull_ms(first)
    read, surfaced = (
        next(ms for name, ms in pull_ms(first).items() if name.startswith(kind))
        for kind in ("pull, ids read", "pull, ids surfaced")
    )
    assert read == surfaced and all(ms > 0 for ms in read)  # one run, one time, for both rows


def _older_code(run_dir: Path) -> None:
    """Make ``run_dir`` look recorded by other code: a plain replay of it now refuses."""

    def older_ranking(data: dict[str, Any]) -> None:
        data["behaviour"]["files"]["contextpull/ops/ranking.py"] = "0" * 16

    _edit_results(run_dir, older_ranking)


def _pull_ms(result: Any) -> dict[str, list[float]]:
    return {row.name: [q.ms for q in row.results] for row in result.run.rows if row.name.startswith("pull,")}


def test_a_re_execution_runs_today_s_code_on_the_recorded_answers_and_replays_as_its_own_run(
    recorded: tuple[Path, Path, int], tmp_path: Path
) -> None:
    corpus, run_dir, _ = recorded  # no model reachable from here on: every answer must come from the record
    before = run_bench(BenchOptions(corpus=corpus, replay=run_dir, out=tmp_path / "before"))
    _older_code(run_dir)
    with pytest.raises(ReplayRefused, match="changed since"):
        run_bench(BenchOptions(corpus=corpus, replay=run_dir, out=tmp_path / "refused"))
    again = run_bench(BenchOptions(corpus=corpus, replay=run_dir, re_execute=True, out=tmp_path / "again"))
    executed = again.run.meta["re_executed"]
    assert executed["run_again"] == [] and len(executed["reproduced"]) == 3
    assert executed["changes"] == ["contextpull/ops/ranking.py changed"]
    assert executed["made_at"] == json.loads((run_dir / "results.json").read_text())["provenance"]["commit"]
    table = (tmp_path / "again" / "table.txt").read_text(encoding="utf-8")
    assert (
        "re-executed by this code from a run made at" in table and "6 pull runs reproduced" in table
    )  # ids read and strict
    assert outcome(again.run.meta, tmp_path / "again" / "table.txt", run_dir).endswith("but for its note")
    assert _pull_ms(again) == _pull_ms(before)  # the recorded times, not the time the recorded answers took
    assert list((tmp_path / "again" / "pull" / "pull_runs").glob("*.json"))  # the runs were made again
    # the re-executed folder is a run of today's code: a plain replay reproduces it, its note included
    replayed = run_bench(BenchOptions(corpus=corpus, replay=tmp_path / "again", out=tmp_path / "replayed"))
    assert (tmp_path / "replayed" / "table.txt").read_bytes() == (tmp_path / "again" / "table.txt").read_bytes()
    assert replayed.run.notes[-2:] == executed["lines"][-2:]


def _forget_one_answer(run_dir: Path) -> None:
    """Drop one recorded agent answer, as if today's code asked the model something the run never did.

    The answer dropped is to a question's opening request (the scripted agent's ``search``), which
    today's code is sure to ask again. A later turn's request may not be: it carries the tool-use ids
    of earlier answers, and a question run again live gets new ids, so the folder it was re-executed
    into still holds the old turns, which nothing asks for any more.
    """
    with sqlite3.connect(run_dir / "pull" / "completions.sqlite3") as db:
        keys = [key for key, value in db.execute("SELECT key, value FROM completions ORDER BY key") if _opens(value)]
        db.execute("DELETE FROM completions WHERE key = ?", (keys[0],))


def _opens(value: str) -> bool:
    """Whether a recorded answer is the agent's first move (a ``search``), not a later turn or the judge."""
    return [call["name"] for call in json.loads(value).get("tool_calls", [])] == ["search"]


def test_a_question_whose_request_was_never_recorded_is_run_again_by_the_model_or_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    options = BenchOptions(corpus=corpus, push=["bm25"], pull=[SPEC], sample=3, n=20, out=tmp_path / "run")
    with AnthropicFake(script=agent_and_judge) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        run_bench(options)
        _older_code(tmp_path / "run")
        _forget_one_answer(tmp_path / "run")
        made = len(server.requests)
        again = run_bench(BenchOptions(corpus=corpus, replay=tmp_path / "run", re_execute=True, out=tmp_path / "a"))
        asked = server.requests[made:]
    executed = again.run.meta["re_executed"]
    assert len(executed["run_again"]) == 1 and len(executed["reproduced"]) == 3  # strict reproduced it
    assert asked and all(question_of(r.body) == executed["run_again"][0] for r in asked if r.body.get("messages"))
    assert all(result.error is None for row in again.run.rows for result in row.results)
    # no model here: the question cannot be run again, and the re-execution says so instead of inventing it
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    _forget_one_answer(tmp_path / "a")
    with pytest.raises(ReplayRefused, match="re-execution incomplete: today's code asks the model something new"):
        run_bench(BenchOptions(corpus=corpus, replay=tmp_path / "a", re_execute=True, out=tmp_path / "b"))


def test_re_execute_needs_a_replay(tmp_path: Path) -> None:
    with pytest.raises(BenchError, match="--re-execute goes with --replay"):
        run_bench(BenchOptions(corpus=CORPUS, re_execute=True, out=tmp_path / "x"))
