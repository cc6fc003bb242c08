"""The one table, and the files a run leaves behind.

``render_table`` is what a person reads: one line per configuration with its
per-shape lines beneath, and under it the eval set, the models used and what
was skipped and why. ``write_outputs`` puts the same numbers in
``results.json``, one TREC run file per configuration (plus ``qrels.txt``),
and ``misses.jsonl`` with the text of every gold chunk a configuration left out of its top k.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from ..chunks import Chunk
from ..questions import BLOCKS
from .html_report import render_report
from .metrics import Summary, summarize, top_k
from .runner import RowResult, RunResult
from .verdict import has_sampled_block, render_verdict, sample_ids, verdict_json, verdicts

#: the narrowest the name column gets, so a short run still has a readable header
_MIN_LABEL_WIDTH = 12
#: marks a ``faith`` figure of a row that gave answers without reading any section (those are not judged)
_UNREAD_MARK = "*"


def _f(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def _columns(k: int, label_width: int) -> list[tuple[str, int]]:
    return [
        ("config", label_width),
        (f"recall@{k}", 9),
        (f"rec≡@{k}", 8),
        (f"MRR@{k}", 7),
        (f"NDCG@{k}|hit", 12),
        ("hit", 6),
        ("faith", 7),
        ("judged", 7),
        ("correct", 8),
        ("n", 5),
        ("err", 4),
        ("ms/query", 9),
        ("tok/query", 10),
        ("calls/query", 12),
    ]


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    first, *rest = cells
    return f"{first:<{widths[0]}}" + "".join(f"{c:>{w}}" for c, w in zip(rest, widths[1:]))


def _summary_cells(label: str, s: Summary, cost: tuple[str, str]) -> list[str]:
    faith = _f(s.faithfulness, 2) + (_UNREAD_MARK if s.unread_answers else "")
    judged = str(s.n_judged) if s.n_judged or s.unread_answers else "—"
    return [
        label,
        _f(s.recall),
        _f(s.recall_equivalent),
        _f(s.mrr),
        _f(s.ndcg_given_hit),
        _f(s.hit_rate),
        faith,
        judged,
        _f(s.correctness, 2),
        str(s.n),
        str(s.errors),
        _f(s.ms_per_query, 1),
        *cost,
    ]


def _cost(row: RowResult) -> tuple[str, str]:
    tokens, calls = row.per_query("tokens"), row.per_query("tool_calls")
    return ("—" if tokens is None else f"{tokens:,.0f}", _f(calls, 1))


def _body(run: RunResult) -> list[tuple[str, Summary, tuple[str, str]]]:
    """(label, summary, cost cells) for every table line: each row, then its shapes."""
    body = []
    for row in run.rows:
        label = row.name + (f" (sample {row.overall.n})" if row.sampled and run.sample else "")
        body.append((label, row.overall, _cost(row)))
        body += [(f"  {block}", row.by_shape[block], ("", "")) for block in BLOCKS if block in row.by_shape]
    return body


def _like_with_like(run: RunResult) -> list[tuple[str, Summary, tuple[str, str]]]:
    """Every row on the sampled questions only, when the table mixes sampled and full rows.

    A row scored on 23 questions and another on a sample of 10 are not
    comparable; this block puts the full rows (push, search, baseline) on
    the same sampled questions as the sampled ones. Empty when there is
    nothing to reconcile.
    """
    sampled = [row.sampled for row in run.rows]
    ids = sample_ids(run)
    if not run.sample or all(sampled) or not any(sampled):
        return []
    if all(len(row.results) == len(ids) for row in run.rows):
        return []
    return [
        (
            row.name + (f" (sample {row.overall.n})" if row.sampled else ""),
            row.overall if row.sampled else summarize([r for r in row.results if r.qid in ids], run.k),
            _cost(row),
        )
        for row in run.rows
    ]


def _unread_lines(run: RunResult) -> list[str]:
    """A note per row whose ``faith`` counts answers given without reading a section."""
    return [
        f"{_UNREAD_MARK} {row.name}: {s.unread_answers} of {s.n} answers read no section and are not judged "
        f"(faithfulness to what was read is undefined); faithful to what was shown (the sections read, "
        f"else the snippets) {_f(s.faithfulness_to_shown, 2)}"
        for row in run.rows
        if (s := row.overall).unread_answers
    ]


def _verdict_lines(run: RunResult) -> list[str]:
    """The verdict per shape under the table: over every question, then over the sample if rows were sampled."""
    title = (
        f"verdict per shape, recall@{run.k}: the best push row on each shape's questions, "
        "and every other row's recall with its margin over it (= a tie)"
    )
    lines = render_verdict(verdicts(run), run.k, title)
    if has_sampled_block(run):
        sample_title = f"the same on the {len(sample_ids(run))} sampled questions, every row"
        lines += [""] * bool(lines) + render_verdict(verdicts(run, sampled=True), run.k, sample_title)
    return [""] + lines if lines else []


def render_table(run: RunResult) -> str:
    """The one table: configurations, per-shape rows beneath, then provenance and skips.

    The name column is as wide as the longest name, so names are never cut.
    """
    body = _body(run)
    same = _like_with_like(run)
    label_width = max([_MIN_LABEL_WIDTH, *(len(label) + 2 for label, _, _ in body + same)])
    columns = _columns(run.k, label_width)
    widths = [w for _, w in columns]
    header = _line([name for name, _ in columns], widths)
    lines = [header, "-" * len(header)]
    lines += [_line(_summary_cells(label, summary, cost), widths) for label, summary, cost in body]
    if same:
        lines += ["", f"like with like: every row on the same {len(sample_ids(run))} sampled questions", header]
        lines += ["-" * len(header)]
        lines += [_line(_summary_cells(label, summary, cost), widths) for label, summary, cost in same]
    lines += _verdict_lines(run)
    es = run.evalset
    counts = ", ".join(f"{shape} {count}" for shape, count in es.counts.items()) or "none"
    lines += [
        "",
        (
            f"eval set: {len(es.questions)} questions ({counts}); corpus {run.fingerprint}; "
            f"question model {es.model}; judge model {run.judge_model}; k={run.k}"
        ),
        (
            "rec≡ = recall where a gold fact may be found through a chunk restating it (each fact once); "
            "NDCG|hit = mean over questions with a hit"
        ),
        (
            "err = adapter exceptions and pull runs that failed, hit the turn limit or called no tool: "
            "scored as misses, never judged"
        ),
        (
            "faith = answers supported by the passages retrieved (pull rows: by the sections read; "
            "an answer that read nothing is not judged); judged = answers judged; "
            "correct = answers stating the reference answer's facts"
        ),
    ]
    lines += _unread_lines(run)
    lines += [f"skipped shape {shape}: {why}" for shape, why in es.skipped.items()]
    lines += es.template_lines()
    lines += [f"skipped row {name}: {why}" for name, why in run.skipped_rows.items()]
    lines += run.notes
    return "\n".join(lines)


#: the columns of the one-screen summary: what a reader decides on
_SUMMARY_COLUMNS = ("config", "recall@k", "MRR@k", "faith", "n", "ms/query", "tok/query", "calls/query")


def render_summary(run: RunResult) -> str:
    """The run on one screen: each row overall (no per-shape lines), then the verdict per shape.

    The full table (:func:`render_table`, what ``table.txt`` holds) adds the
    per-shape lines of every row, the like-with-like block and the rest of
    the columns.
    """
    rows = [
        (row.name + (f" (sample {row.overall.n})" if row.sampled and run.sample else ""), row.overall, _cost(row))
        for row in run.rows
    ]
    width = max([_MIN_LABEL_WIDTH, *(len(label) + 2 for label, _, _ in rows)])
    widths = [width, 9, 7, 7, 5, 9, 10, 12]
    names = [name.replace("@k", f"@{run.k}") for name in _SUMMARY_COLUMNS]
    header = _line(names, widths)
    lines = [header, "-" * len(header)]
    for label, s, (tokens, calls) in rows:
        faith = _f(s.faithfulness, 2) + (_UNREAD_MARK if s.unread_answers else "")
        cells = [label, _f(s.recall), _f(s.mrr), faith, str(s.n), _f(s.ms_per_query, 1), tokens, calls]
        lines.append(_line(cells, widths))
    lines += _verdict_lines(run)
    lines += [f"skipped row {name}: {why}" for name, why in run.skipped_rows.items()]
    lines += _unread_lines(run) + run.notes
    return "\n".join(lines)


def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "config"


#: the document id of a TREC line that stands for "nothing retrieved", so the question is still scored
NOTHING_RETRIEVED = "__nothing_retrieved__"


def trec_run_lines(row: RowResult) -> list[str]:
    """``qid Q0 docid rank score tag``; score falls with rank so any TREC tool keeps our order.

    Every question the row was scored on has at least one line: where
    nothing was retrieved (an error, an empty answer) a single
    :data:`NOTHING_RETRIEVED` line, which matches no qrel, so a TREC tool
    averages over the same questions as the table.
    """
    tag = slug(row.name)
    lines = []
    for r in row.results:
        ranked = top_k(r.retrieved, row.k) or [NOTHING_RETRIEVED]
        lines += [f"{r.qid} Q0 {cid} {rank} {row.k - rank + 1} {tag}" for rank, cid in enumerate(ranked, 1)]
    return lines


def qrels_lines(run: RunResult) -> list[str]:
    return [f"{q.id} 0 {g} 1" for q in run.evalset.questions for g in dict.fromkeys(q.gold_chunk_ids)]


def misses(run: RunResult, chunks: Sequence[Chunk]) -> list[dict[str, Any]]:
    """Every (configuration, question) with a gold id missing from the top k, with the missing gold's text."""
    text = {c.id: c.text for c in chunks}
    questions = {q.id: q for q in run.evalset.questions}
    out = []
    for row in run.rows:
        for r in row.results:
            retrieved = top_k(r.retrieved, run.k)
            missing = [g for g in dict.fromkeys(r.gold) if g not in retrieved]
            if not missing:
                continue
            q = questions[r.qid]
            out.append(
                {
                    "config": row.name,
                    "id": q.id,
                    "q": q.q,
                    "shape": q.shape,
                    "answer": q.answer,
                    "gold": r.gold,
                    "missing": missing,
                    "equivalent_gold": r.equivalent,
                    "retrieved": retrieved,
                    "error": r.error,
                    "missing_text": [text.get(g, "")[:600] for g in missing],
                }
            )
    return out


def _row_json(row: RowResult) -> dict[str, Any]:
    return {
        "name": row.name,
        "sampled": row.sampled,
        "push": row.push,
        "overall": asdict(row.overall),
        "by_shape": {shape: asdict(s) for shape, s in row.by_shape.items()},
        "stats": row.stats,
        "tokens_per_query": row.per_query("tokens"),
        "tool_calls_per_query": row.per_query("tool_calls"),
        "questions": [asdict(r) for r in row.results],
    }


def results_json(run: RunResult, spend: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "k": run.k,
        "fingerprint": run.fingerprint,
        "sample": run.sample,
        "sample_ids": run.sample_ids,
        "judge_model": run.judge_model,
        "evalset": {**run.evalset.info(), "path": str(run.evalset.path) if run.evalset.path else None},
        "rows": [_row_json(row) for row in run.rows],
        "skipped_rows": run.skipped_rows,
        "notes": run.notes,
        "verdict": verdict_json(run),
        "spend": spend or {},
        **run.meta,
    }


def write_outputs(
    run: RunResult, chunks: Sequence[Chunk], out_dir: Path, *, spend: dict[str, Any] | None = None
) -> dict[str, Path]:
    """Write results.json, runs/<config>.trec, runs/sample-ids.txt, qrels.txt, misses.jsonl, table.txt and report.html.

    ``runs/sample-ids.txt`` lists the questions the sampled rows saw, one id
    a line, so their run files can be scored against the same questions
    without results.json. Returns the paths written.
    """
    runs_dir = out_dir / "runs"
    runs_dir.mkdir(parents=True, exist_ok=True)
    paths = {
        "results": out_dir / "results.json",
        "table": out_dir / "table.txt",
        "qrels": out_dir / "qrels.txt",
        "misses": out_dir / "misses.jsonl",
        "sample_ids": runs_dir / "sample-ids.txt",
        "report": out_dir / "report.html",
    }
    paths["results"].write_text(
        json.dumps(results_json(run, spend), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    paths["table"].write_text(render_table(run) + "\n", encoding="utf-8")
    paths["qrels"].write_text("".join(line + "\n" for line in qrels_lines(run)), encoding="utf-8")
    paths["misses"].write_text(
        "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in misses(run, chunks)), encoding="utf-8"
    )
    paths["sample_ids"].write_text("".join(qid + "\n" for qid in run.sample_ids), encoding="utf-8")
    paths["report"].write_text(render_report([out_dir]), encoding="utf-8")
    for row in run.rows:
        path = runs_dir / f"{slug(row.name)}.trec"
        path.write_text("".join(line + "\n" for line in trec_run_lines(row)), encoding="utf-8")
        paths[f"run:{row.name}"] = path
    return paths
