"""``contextpull bench DIR``: score push configs and ContextPull on the folder's own eval set.

The harness (``pushpull``) and the bench (``contextpull.eval``) load only when
this command runs: the options they share with ``pushpull run`` are added to
the parser when it parses (:func:`.common.defer_options`), so every other
command starts without them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .common import add_json_option, defer_options, emit

_PULL_HELP = (
    "add the pull rows of an agent: provider:model (API tool loop), claude-code[:model], or scripted"
    " (the no-model scripted policy); repeatable"
)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    bench = subparsers.add_parser(
        "bench",
        help="evaluate push retrieval and ContextPull on an eval set built from DIR",
        description="Ingest DIR, build (or reuse) an eval set from its sections, run every configuration "
        "and print one table. Results go to DIR/.contextpull/bench/ unless --out is given.",
    )
    bench.add_argument("corpus", type=Path, metavar="DIR", help="the folder of documents")
    bench.add_argument("--judge", help="provider:model that judges answers, or none (default: the --model)")
    bench.add_argument("--out", type=Path, help="output folder (default: DIR/.contextpull/bench)")
    bench.add_argument("--store", type=Path, help="store file (default: DIR/.contextpull/store.sqlite)")
    bench.add_argument("--pull", action="append", default=[], metavar="SPEC", help=_PULL_HELP)
    bench.add_argument(
        "--replay",
        type=Path,
        metavar="RUN_DIR",
        help="reproduce the table of a recorded run (its --out folder) with its options and no model; "
        "refuses when the code or store changed since, naming what changed",
    )
    bench.add_argument(
        "--allow-stale",
        action="store_true",
        help="with --replay: replay pull runs recorded by other code anyway (the table says so)",
    )
    bench.add_argument(
        "--re-execute",
        action="store_true",
        help="with --replay: compute every row again with this code, answering each model call as the run did"
        " (a request it never made runs that question again with the model, when it is installed); ms/query"
        " stays the recorded one except for questions run again. For code changes since the run was made",
    )
    bench.add_argument(
        "--view",
        choices=("full", "summary", "none"),
        default="full",
        help="what to print: the whole table (default), one screen (the rows overall and the verdict per "
        "shape), or only where the results went; table.txt always holds the whole table",
    )
    add_json_option(bench)
    defer_options(bench, _add_harness_options)
    bench.set_defaults(func=run)


def _add_harness_options(parser: argparse.ArgumentParser) -> None:
    from pushpull.cli.options import add_evalset_options, add_scoring_options

    add_evalset_options(parser)
    add_scoring_options(parser)


def run(args: argparse.Namespace) -> int:
    from pushpull.cli.options import parse_push
    from pushpull.questions import parse_shapes
    from pushpull.scoring.report import render_summary, render_table

    from ..eval.bench import BenchOptions, harness_errors, run_bench

    with harness_errors():
        shapes = parse_shapes(args.shapes)
    options = BenchOptions(
        corpus=args.corpus,
        k=args.k,
        shapes=shapes,
        model=args.model,
        judge=args.judge,
        sample=args.sample,
        out=args.out,
        store=args.store,
        push=parse_push(args.push),
        n=args.n,
        seed=args.seed,
        reranker=args.reranker,
        embedder=args.embedder,
        pull=args.pull,
        replay=args.replay,
        allow_stale=args.allow_stale,
        re_execute=args.re_execute,
    )
    result = run_bench(options)
    replayed = ""
    if args.replay:
        from ..eval.replay import outcome

        replayed = f"\nreplay of {args.replay}: " + outcome(result.run.meta, result.paths["table"], args.replay)
    views = {"full": render_table, "summary": render_summary, "none": lambda _: ""}
    shown = views[args.view](result.run)
    emit(
        args,
        result.to_dict(),
        lambda _: (
            (shown + "\n\n" if shown else "") + f"{result.spend_line}\nresults: {result.paths['results']}{replayed}"
        ),
    )
    if args.json:
        print(result.spend_line, file=sys.stderr)
    return 0
