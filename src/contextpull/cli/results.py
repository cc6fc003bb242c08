"""``contextpull results FOLDER``: the table of a recorded bench run, re-scored with no model.

Every figure is computed again from the per-question records the run kept
(:mod:`contextpull.eval.recorded`), so a published table, pull rows included,
can be checked on a machine without the model. No model is called, and the
output says so and names the code that made the records.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import add_json_option, emit

#: what each kind of row measures, printed by --explain above the table
EXPLANATION = """\
What the rows mean (k = 5 sections per question):
  push rows           a retriever returns 5 sections, pushed into the model's context whole:
                      bm25 floor (bare terms), bm25s and tantivy (English analyzers, as deployed),
                      dense MiniLM, their hybrid, and the hybrid reranked by the local model.
  contextpull search  ContextPull's own search, used one-shot the same way (no model).
  pull baseline       a scripted agent that searches once and reads the top hits: the floor.
  pull, ids read      a 1.5B local model with the five tools; only the sections it read count.
                      It often answers from snippets without reading: 0.000 means that, not a bug.
  pull, ids surfaced  the same runs, counting every id search or grep showed it (the gap to
                      'ids read' is snippet leakage); strict reads: forced to read before answering.
  verdict per shape   each row against the strongest push row on that shape's questions.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "results",
        help="print a recorded bench run's table, re-scored from its records (no model needed)",
        description="Re-score the bench run recorded in FOLDER (an --out folder of `contextpull bench`, "
        "such as benchmarks/results/sample-corpus) from its per-question records and print its table, "
        "pull rows included. No model is called and none needs to be installed.",
    )
    parser.add_argument("folder", type=Path, metavar="FOLDER", help="a bench output folder")
    parser.add_argument("--explain", action="store_true", help="say what each row means above the table")
    parser.add_argument(
        "--full",
        action="store_true",
        help="the whole table, every row's per-shape lines and all columns (default: one screen, the rows "
        "overall and the verdict per shape)",
    )
    add_json_option(parser)
    parser.set_defaults(func=run)

    report = subparsers.add_parser(
        "report",
        help="write one static HTML page over recorded bench runs (charts per shape, costs, misses)",
        description="Write one HTML file (styles and SVG charts inline: it opens from disk, offline) over the "
        "bench runs in RUN_DIR...: recall per shape with the best push row marked, recall against tokens "
        "and ms per query, reads per query, the snippet-leakage gap, and the questions rows missed.",
    )
    report.add_argument("runs", type=Path, nargs="+", metavar="RUN_DIR", help="bench output folders")
    report.add_argument("--out", type=Path, default=Path("report.html"), metavar="FILE", help="default: report.html")
    add_json_option(report, "print what was written as JSON")
    report.set_defaults(func=run_report)


def run_report(args: argparse.Namespace) -> int:
    from pushpull.scoring.html_report import render_report

    from ..errors import BadArgument

    missing = [str(folder) for folder in args.runs if not (folder / "results.json").is_file()]
    if missing:
        raise BadArgument(
            f"not a bench output folder (no results.json): {', '.join(missing)}",
            "name folders that `contextpull bench --out` wrote, such as benchmarks/results/sample-corpus",
        )
    page = render_report(args.runs)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(page, encoding="utf-8")
    data = {"out": str(args.out), "runs": [str(folder) for folder in args.runs], "bytes": len(page.encode())}
    emit(
        args,
        data,
        lambda d: f"wrote {d['out']} ({len(d['runs'])} run{'' if len(d['runs']) == 1 else 's'}, {d['bytes']:,} bytes)",
    )
    return 0


def run(args: argparse.Namespace) -> int:
    from pushpull.scoring.report import render_summary, render_table, results_json

    from ..eval.pull_rows import leakage_lines
    from ..eval.recorded import load_recorded_run, recorded_provenance

    recorded = load_recorded_run(args.folder)
    provenance = recorded_provenance(args.folder) or "the code that wrote it is not recorded beside it"

    notes = [*leakage_lines(recorded), *_re_executed_lines(args.folder)]
    table = "\n".join([render_table(recorded), *notes])
    shown = table if args.full else "\n".join([render_summary(recorded), *notes])

    def render(_: Any) -> str:
        lines = [EXPLANATION] if args.explain else []
        lines += [
            f"Recorded run {args.folder}: re-scored from its per-question records; no model was called.",
            f"The rows show what the code and model of that run did. {provenance}",
            _against_committed(args.folder / "table.txt", table),
            "",
            shown,
        ]
        if not args.full:
            lines.append(f"per-shape lines of every row: contextpull results {args.folder} --full")
        return "\n".join(lines)

    emit(args, {**results_json(recorded), "provenance": provenance, "model_calls": 0}, render)
    return 0


def _re_executed_lines(folder: Path) -> list[str]:
    """The lines a re-execution (ADR 023) wrote under the table; ``results.json`` keeps them."""
    import json

    from ..eval.replay import REEXECUTED_KEY

    try:
        data = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [str(line) for line in (data.get(REEXECUTED_KEY) or {}).get("lines") or []]


def _against_committed(path: Path, table: str) -> str:
    """Say whether today's scoring reproduces the table the run itself printed, so a difference is never silent."""
    if not path.is_file():
        return "The run kept no table.txt to compare with."
    committed = path.read_text(encoding="utf-8").split("\n\nspend:", 1)[0]
    if committed.strip() in table:
        return "Today's scoring reproduces the run's own table.txt exactly."
    return (
        "Today's scoring differs from the run's own table.txt (the scoring code changed since the run: "
        "see the rec≡ and like-with-like notes below); the per-question retrievals and answers are the run's own."
    )
