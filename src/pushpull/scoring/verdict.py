"""The verdict per shape: the strongest push row on each shape's questions, and every other row against it.

The fairness rule of the evaluation is that pull is compared with the best
push configuration, not the weakest. Which push row is best differs by
shape (a dense row may win conceptual questions, a lexical one exact
lookups), so the comparison is made shape by shape: on each shape the push
row with the highest recall@k (then MRR@k, then report order) is the
reference, and every search and pull row is shown with its margin over it.
Rows scored on a sample are compared on that sample only, against the push
rows re-scored on the same questions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..questions import BLOCKS
from .metrics import Summary, summarize, summarize_by_shape
from .runner import RowResult, RunResult

#: the verdict's first line: every question of the set
OVERALL = "overall"


@dataclass(frozen=True)
class ShapeVerdict:
    """One shape: its best push row and each other row's recall@k on the same questions."""

    shape: str
    n: int
    best_push: str
    best_recall: float
    best_mrr: float
    others: dict[str, float] = field(default_factory=dict)

    def margin(self, row: str) -> float:
        """``row``'s recall minus the best push row's."""
        return self.others[row] - self.best_recall


def _summaries(rows: Sequence[RowResult], ids: set[str] | None, k: int) -> dict[str, dict[str, Summary]]:
    """row → shape (and ``overall``) → summary, on the questions in ``ids`` (all when None)."""
    out: dict[str, dict[str, Summary]] = {}
    for row in rows:
        results = [r for r in row.results if ids is None or r.qid in ids]
        if not results:
            continue
        out[row.name] = {OVERALL: summarize(results, k), **summarize_by_shape(results, k)}
    return out


def verdicts(run: RunResult, *, sampled: bool = False) -> list[ShapeVerdict]:
    """The verdict over every question (full rows), or over the sampled questions (``sampled``: every row).

    Empty when the run has no push row or no row to compare with it.
    """
    ids = sample_ids(run) if sampled else None
    rows = [row for row in run.rows if sampled or not row.sampled]
    push = [row.name for row in rows if row.push]
    others = [row.name for row in rows if not row.push]
    if not push or not others:
        return []
    summaries = _summaries(rows, ids, run.k)
    out = []
    for shape in (OVERALL, *BLOCKS):
        found = best_push_row([(name, summaries[name][shape]) for name in push if shape in summaries.get(name, {})])
        if found is None:
            continue
        best, top = found
        out.append(
            ShapeVerdict(
                shape,
                top.n,
                best,
                top.recall,
                top.mrr,
                {name: summaries[name][shape].recall for name in others if shape in summaries.get(name, {})},
            )
        )
    return out


def best_push_row(scored: Sequence[tuple[str, Summary]]) -> tuple[str, Summary] | None:
    """The strongest of ``(name, summary)`` push rows in report order: recall@k, then MRR@k, then the earlier row."""
    if not scored:
        return None
    return max(scored, key=lambda item: (item[1].recall, item[1].mrr, -scored.index(item)))


def sample_ids(run: RunResult) -> set[str]:
    """The sampled questions: as recorded, or (runs recorded before ids were kept) those the sampled rows scored."""
    return set(run.sample_ids) or {r.qid for row in run.rows if row.sampled for r in row.results}


def has_sampled_block(run: RunResult) -> bool:
    """Whether the run needs a second verdict on the sample: some rows were sampled and some were not."""
    flags = {row.sampled for row in run.rows}
    return bool(run.sample) and flags == {True, False}


def _letters(count: int) -> list[str]:
    return [f"[{chr(ord('A') + i)}]" for i in range(count)]


def render_verdict(found: Sequence[ShapeVerdict], k: int, title: str) -> list[str]:
    """The verdict as table lines: shape, best push row and its recall, each other row's recall and margin."""
    if not found:
        return []
    names = list(dict.fromkeys(name for v in found for name in v.others))
    letters = _letters(len(names))
    best_width = max(len(f"{v.best_push} {v.best_recall:.3f}") for v in found) + 2
    shape_width = max(14, *(len(v.shape) + 2 for v in found))
    header = f"{'shape':<{shape_width}}{'n':>4}  {'best push row, recall@' + str(k):<{best_width}}" + "".join(
        f"{letter:>16}" for letter in letters
    )
    lines = [title, header, "-" * len(header)]
    for v in found:
        best = f"{v.best_push} {v.best_recall:.3f}"
        cells = []
        for name in names:
            if name not in v.others:
                cells.append(f"{'—':>16}")
                continue
            margin = v.margin(name)
            mark = "=" if abs(margin) < 0.0005 else f"{margin:+.3f}"
            cells.append(f"{v.others[name]:.3f} {mark:>6}".rjust(16))
        lines.append(f"{v.shape:<{shape_width}}{v.n:>4}  {best:<{best_width}}" + "".join(cells))
    lines.append("  ".join(f"{letter} {name}" for letter, name in zip(letters, names)))
    return lines


def verdict_json(run: RunResult) -> dict[str, list[dict[str, object]]]:
    """The verdicts for results.json: ``all`` (every question) and, where rows were sampled, ``sample``."""
    blocks = {"all": verdicts(run)}
    if has_sampled_block(run):
        blocks["sample"] = verdicts(run, sampled=True)
    return {
        name: [
            {
                "shape": v.shape,
                "n": v.n,
                "best_push": v.best_push,
                "best_push_recall": v.best_recall,
                "best_push_mrr": v.best_mrr,
                "recall": v.others,
            }
            for v in found
        ]
        for name, found in blocks.items()
    }


def recorded_verdict(results: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """A results.json's verdict per shape (:func:`verdict_json`), and whether it is the sampled block.

    The sampled block where the run sampled rows (there every row answered
    the same questions), else the block over all questions; nothing for a
    run recorded before verdicts were.
    """
    blocks = results.get("verdict") or {}
    if blocks.get("sample"):
        return list(blocks["sample"]), True
    return list(blocks.get("all") or []), False
