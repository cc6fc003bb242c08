"""Regenerate the published push-vs-pull tables in README.md and benchmarks/RESULTS.md from results.json.

Run:  .venv/bin/python benchmarks/results_tables.py [--check]

Each table sits between ``<!-- results:NAME -->`` and ``<!-- /results:NAME -->``
in the two files. Three are built from every ``benchmarks/results/*/results.json``:
``summary`` (every run on its sampled questions), ``summary-all`` (every run
on all its questions, the rows that answered all) and ``pooled`` (every run's
questions pooled per shape). Any other NAME is rebuilt from
``benchmarks/results/NAME/results.json`` alone: every row on all its
questions and, like with like, every row on the questions the pull rows were
sampled on, the search row included, under a line saying which commit and
command produced it. ``--check`` exits 1 when a file is not what the results
say (for CI or review), writing nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from pushpull.scoring.metrics import QuestionResult, summarize
from pushpull.scoring.verdict import recorded_verdict

REPO = Path(__file__).resolve().parents[1]
RESULTS = REPO / "benchmarks" / "results"
TARGETS = (REPO / "README.md", REPO / "benchmarks" / "RESULTS.md")
MARKER = re.compile(r"(<!-- results:(?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /results:(?P=name) -->)", re.DOTALL)


def _results(row: dict[str, Any]) -> list[QuestionResult]:
    fields = ("qid", "shape", "gold", "equivalent", "retrieved", "ms", "error")
    return [QuestionResult(**{name: q.get(name) for name in fields}) for q in row["questions"]]


def sample_ids(data: dict[str, Any]) -> list[str]:
    """The sampled questions: recorded since results.json lists them, else those of a sampled row."""
    if data.get("sample_ids"):
        return list(data["sample_ids"])
    sampled = [row for row in data["rows"] if row.get("sampled")]
    return [q["qid"] for q in sampled[0]["questions"]] if sampled else []


def _provenance(data: dict[str, Any]) -> str:
    made = data.get("provenance")
    if not made:
        return (
            "results.json records no provenance (made before runs recorded their commit); "
            "see benchmarks/results/README.md for the commit and command"
        )
    tree = {True: "clean tree", False: "MODIFIED tree", None: "tree state unknown"}[made.get("clean")]
    fingerprint = (data.get("behaviour") or {}).get("key", "none")
    executed = data.get("re_executed")
    how = (
        f"re-executed at commit {str(made.get('commit'))[:10]} ({tree}), {made.get('started', '')}, from the model"
        f" answers recorded at {str(executed.get('made_at'))[:10]} ({len(executed.get('reproduced', []))} questions"
        f" reproduced, {len(executed.get('run_again', []))} run again by the model)"
        if executed
        else f"made at commit {str(made.get('commit'))[:10]} ({tree}), {made.get('started', '')}"
    )
    return f"{how}; `{made.get('command', '')}`; behaviour fingerprint {fingerprint}"


def _f(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def table(name: str) -> str:
    """The markdown block for run ``name``: its rows on all questions and on the sample."""
    data = json.loads((RESULTS / name / "results.json").read_text(encoding="utf-8"))
    k = data["k"]
    ids = set(sample_ids(data))
    lines = [
        (
            f"| row | n | recall@{k} | MRR@{k} | recall@{k}, sampled {len(ids)} | MRR@{k}, sampled {len(ids)} "
            "| err | tokens/query |"
        ),
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in data["rows"]:
        results = _results(row)
        everything, on_sample = summarize(results, k), summarize([r for r in results if r.qid in ids], k)
        tokens = row.get("tokens_per_query")
        lines.append(
            f"| {row['name']} | {everything.n} | {_f(everything.recall)} | {_f(everything.mrr)} "
            f"| {_f(on_sample.recall)} | {_f(on_sample.mrr)} | {everything.errors} "
            f"| {'—' if tokens is None else f'{tokens:,.0f}'} |"
        )
    total = max(len(row["questions"]) for row in data["rows"])
    sampled_note = (
        f"Pull rows ran on a seeded sample of {len(ids)} of the {total} questions; compare rows in the "
        "sampled columns, where every row answers the same questions."
    )
    return "\n".join([f"_{_provenance(data)}._", "", *lines, "", sampled_note, "", *verdict_table(data), ""])


def verdict_table(data: dict[str, Any]) -> list[str]:
    """The run's verdict per shape (:func:`recorded_verdict`) as markdown: the best push row on each shape and
    every other row against it."""
    found, sampled = recorded_verdict(data)
    if not found:
        return []
    names = list(dict.fromkeys(name for v in found for name in v["recall"]))
    where = "the sampled questions" if sampled else "every question"
    lines = [
        (
            f"Verdict per shape, recall@{data['k']} on {where}: the best push row on that shape's questions, "
            "and each other row with its margin over it (= a tie)."
        ),
        "",
        "| shape | n | best push row | recall | " + " | ".join(names) + " |",
        "|---|---|---|---|" + "---|" * len(names),
    ]
    for v in found:
        cells = []
        for name in names:
            recall = v["recall"].get(name)
            if recall is None:
                cells.append("—")
                continue
            margin = recall - v["best_push_recall"]
            cells.append(f"{recall:.3f} ({'=' if abs(margin) < 0.0005 else f'{margin:+.3f}'})")
        lines.append(
            f"| {v['shape']} | {v['n']} | {v['best_push']} | {v['best_push_recall']:.3f} | " + " | ".join(cells) + " |"
        )
    return lines


#: the summary's columns after the best push row: (heading, the start of the row's name in the run)
SUMMARY_COLUMNS = (
    ("search", "contextpull search"),
    ("scripted pull (no model)", "pull reference: scripted"),
    ("local model, ids read", "pull, ids read ("),
    ("local model, strict reads", "pull, strict reads ("),
)
#: the columns of the summary over every question: the rows that answered every question
ALL_QUESTIONS_COLUMNS = SUMMARY_COLUMNS[:2]


#: the run every summary starts with: the corpus in this repository, which `make demo` replays
BUNDLED = "sample-corpus"


def recall_of(verdict: dict[str, Any], prefix: str) -> float | None:
    """The recall, in one shape's recorded verdict, of the row whose name starts with ``prefix``."""
    return next((recall for name, recall in verdict["recall"].items() if name.startswith(prefix)), None)


def every_question_verdict(data: dict[str, Any]) -> list[dict[str, Any]]:
    """A run's verdict per shape over all its questions (the rows that answered every one)."""
    return list((data.get("verdict") or {}).get("all") or [])


def published_runs() -> list[Path]:
    """Every ``results.json`` under :data:`RESULTS`: the bundled corpus's first, then by corpus name."""
    return sorted(RESULTS.glob("*/results.json"), key=lambda path: (path.parent.name != BUNDLED, path.parent.name))


def summary_table(*, every_question: bool = False) -> str:
    """One table over every published run: per corpus and shape, the best push row against search and pull.

    Recall@k from each run's recorded verdict: by default on the sampled
    questions (:func:`recorded_verdict`: where every row, the local model's
    included, answered the same ones); with ``every_question``, on all of a
    run's questions, for the rows that answered all of them (search and the
    scripted policy). A run without a verdict is left out.
    """
    columns = ALL_QUESTIONS_COLUMNS if every_question else SUMMARY_COLUMNS
    lines = [
        "| corpus | shape | n | best push row | recall | " + " | ".join(h for h, _ in columns) + " |",
        "|---|---|---|---|---|" + "---|" * len(columns),
    ]
    made = []
    for path in published_runs():
        data = json.loads(path.read_text(encoding="utf-8"))
        commit = str((data.get("provenance") or {}).get("commit", "?"))[:7]
        fingerprint = (data.get("behaviour") or {}).get("key", "none")
        made.append(f"{path.parent.name} at commit {commit} (behaviour fingerprint {fingerprint})")
        found = every_question_verdict(data) if every_question else recorded_verdict(data)[0]
        for v in found:
            cells = []
            for _, prefix in columns:
                recall = recall_of(v, prefix)
                cells.append("—" if recall is None else f"{recall:.3f}")
            lines.append(
                f"| {path.parent.name} | {v['shape']} | {v['n']} | {v['best_push']} | {v['best_push_recall']:.3f} | "
                + " | ".join(cells)
                + " |"
            )
    return "\n".join([*lines, "", f"_Runs: {'; '.join(made)}._", ""])


def pooled_table() -> str:
    """Every published run's questions pooled, per shape: the best push row of each corpus, search, scripted pull.

    Each run's verdict over all its questions (:func:`summary_table` with
    ``every_question``), weighted by its number of questions: the push
    figure is each corpus's own strongest push row on that shape, so the
    pooled push side is never weaker than any one configuration.
    """
    totals: dict[str, dict[str, float]] = {}
    for path in published_runs():
        data = json.loads(path.read_text(encoding="utf-8"))
        for v in every_question_verdict(data):
            shape = totals.setdefault(v["shape"], {"n": 0, "push": 0.0, "corpora": 0})
            shape["n"] += v["n"]
            shape["push"] += v["n"] * v["best_push_recall"]
            shape["corpora"] += 1
            for heading, prefix in ALL_QUESTIONS_COLUMNS:
                recall = recall_of(v, prefix)
                if recall is not None:
                    shape[heading] = shape.get(heading, 0.0) + v["n"] * recall
    lines = [
        "| shape | corpora | questions | best push row of each corpus | "
        + " | ".join(h for h, _ in ALL_QUESTIONS_COLUMNS)
        + " |",
        "|---|---|---|---|" + "---|" * len(ALL_QUESTIONS_COLUMNS),
    ]
    for name, shape in totals.items():
        n = shape["n"]
        cells = [_f(shape[h] / n) if h in shape else "—" for h, _ in ALL_QUESTIONS_COLUMNS]
        lines.append(
            f"| {name} | {shape['corpora']:.0f} | {n:.0f} | {shape['push'] / n:.3f} | " + " | ".join(cells) + " |"
        )
    return "\n".join([*lines, ""])


def regenerate(text: str) -> str:
    def block(m: re.Match[str]) -> str:
        name = m.group("name")
        if name == "pooled":
            return m.group(1) + pooled_table() + m.group(4)
        if name.startswith("summary"):
            return m.group(1) + summary_table(every_question=name == "summary-all") + m.group(4)
        return m.group(1) + table(name) + m.group(4)

    return MARKER.sub(block, text)


def stale() -> dict[Path, str]:
    """Each of :data:`TARGETS` whose tables differ from what the results say, with its regenerated text."""
    changed = {}
    for path in TARGETS:
        old = path.read_text(encoding="utf-8")
        new = regenerate(old)
        if new != old:
            changed[path] = new
    return changed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a file differs from its results; write nothing")
    args = parser.parse_args()
    changed = stale()
    if not args.check:
        for path, new in changed.items():
            path.write_text(new, encoding="utf-8")
    verb = "differ from their results" if args.check else "regenerated"
    print(f"{verb}: {', '.join(str(p.relative_to(REPO)) for p in changed) or 'nothing'}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
