"""A published bench run, re-scored from what it recorded: no model, no store, no adapter.

A ``contextpull bench`` output folder keeps every row's per-question record
(``results.json``: ids returned, answers, judge verdicts, timings) and the
eval set it asked (``evalsets/``). Every figure of the table is a function of
those records, so the table can be computed again from them alone, exactly,
on a machine with no model installed. That is what :func:`load_recorded_run`
does; :func:`recorded_provenance` says which code and model made the records,
because a re-scored table shows what that code did, not what today's does.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pushpull.evalset import EvalSet
from pushpull.questions import read_questions
from pushpull.scoring.metrics import QuestionResult
from pushpull.scoring.runner import RowResult, RunResult

from .bench import BenchError


def load_recorded_run(folder: Path) -> RunResult:
    """The :class:`RunResult` recorded in a bench output ``folder`` (raises :class:`BenchError`)."""
    results = folder / "results.json"
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
        questions_path = Path(str(data["evalset"].get("path") or ""))
        local = folder / "evalsets" / questions_path.name
        info = json.loads(local.with_name(local.stem + ".info.json").read_text(encoding="utf-8"))
        questions = read_questions(local)
    except (OSError, ValueError, KeyError) as err:
        raise BenchError(
            f"{folder} is not a complete bench output folder ({err})",
            "pass a folder written by `contextpull bench --out`, such as benchmarks/results/sample-corpus",
        ) from None
    evalset = EvalSet(
        questions,
        str(info["fingerprint"]),
        tuple(info.get("shapes", ())),
        int(info.get("n", len(questions))),
        int(info.get("seed", 0)),
        str(info.get("model", "unknown")),
        int(info.get("max_gold", 5)),
        counts={shape: sum(q.shape == shape for q in questions) for shape in dict.fromkeys(q.shape for q in questions)},
        skipped=dict(info.get("skipped", {})),
        path=local,
    )
    rows = [_row(row, int(data["k"])) for row in data["rows"]]
    return RunResult(
        rows,
        int(data["k"]),
        str(data["fingerprint"]),
        evalset,
        judge_model=str(data.get("judge_model", "none")),
        skipped_rows=dict(data.get("skipped_rows", {})),
        sample=data.get("sample"),
    )


def _row(row: dict[str, Any], k: int) -> RowResult:
    results = [QuestionResult(**question) for question in row["questions"]]
    return RowResult(
        str(row["name"]), results, dict(row.get("stats", {})), bool(row.get("sampled")), k, bool(row.get("push"))
    )


def recorded_provenance(folder: Path) -> str:
    """Which code made the records, from the run's own ``provenance``; "" for a run made before runs recorded it."""
    try:
        recorded = json.loads((folder / "results.json").read_text(encoding="utf-8")).get("provenance") or {}
    except (OSError, ValueError):
        return ""
    if not recorded.get("commit"):
        return ""
    clean = recorded.get("clean")
    tree = "tree state unknown" if clean is None else "clean tree" if clean else "MODIFIED tree"
    return f"Made at commit {str(recorded['commit'])[:10]} ({tree}), {recorded.get('started', '')}: {recorded.get('command', '')}"
