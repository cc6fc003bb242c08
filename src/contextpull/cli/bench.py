"""``contextpull bench DIR``: score push configs and ContextPull on the folder's own eval set."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pushpull.errors import HarnessError
from pushpull.questions import SHAPES, parse_shapes
from pushpull.scoring.report import render_table

from .common import add_json_option, emit


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    bench = subparsers.add_parser(
        "bench",
        help="evaluate push retrieval and ContextPull on an eval set built from DIR",
        description="Ingest DIR, build (or reuse) an eval set from its sections, run every configuration "
        "and print one table. Results go to DIR/.contextpull/bench/ unless --out is given.",
    )
    bench.add_argument("corpus", type=Path, metavar="DIR", help="the folder of documents")
    bench.add_argument("--k", type=int, default=5, help="cutoff for every metric (default: 5)")
    bench.add_argument("--shapes", default="all", help=f"comma list of {', '.join(SHAPES)} (default: all)")
    bench.add_argument(
        "--model", default="none", help="provider:model for phrased questions and judging (default: none)"
    )
    bench.add_argument("--judge", help="provider:model that judges answers, or none (default: the --model)")
    bench.add_argument(
        "--push", default="all", help="push configs: all, none, or a comma list of bm25,dense,hybrid,rerank"
    )
    bench.add_argument("--reranker", help="reranker for the rerank row: onnx:<folder> or llm:<provider:model>")
    bench.add_argument("--n", type=int, default=200, help="target number of questions (default: 200)")
    bench.add_argument("--seed", type=int, default=0, help="sampling seed (default: 0)")
    bench.add_argument("--sample", type=int, help="score expensive rows on a seeded sample of N questions")
    bench.add_argument("--out", type=Path, help="output folder (default: DIR/.contextpull/bench)")
    bench.add_argument("--store", type=Path, help="store file (default: DIR/.contextpull/store.sqlite)")
    bench.add_argument(
        "--pull",
        action="append",
        default=[],
        metavar="SPEC",
        help="add the pull rows of an agent: provider:model (API tool loop) or claude-code[:model]; repeatable",
    )
    add_json_option(bench)
    bench.set_defaults(func=run)


def _push(spec: str) -> list[str] | None:
    if spec == "all":
        return None
    return [] if spec == "none" else [s.strip() for s in spec.split(",") if s.strip()]


def run(args: argparse.Namespace) -> int:
    from ..eval.bench import BenchError, BenchOptions, run_bench

    try:
        shapes = parse_shapes(args.shapes)
    except HarnessError as err:
        raise BenchError(err.message, err.suggestion, err.exit_code) from err
    options = BenchOptions(
        corpus=args.corpus,
        k=args.k,
        shapes=shapes,
        model=args.model,
        judge=args.judge,
        sample=args.sample,
        out=args.out,
        store=args.store,
        push=_push(args.push),
        n=args.n,
        seed=args.seed,
        reranker=args.reranker,
        pull=args.pull,
    )
    result = run_bench(options)
    from ..eval.pull_rows import leakage_lines

    leakage = "".join(f"\n{line}" for line in leakage_lines(result.run))
    emit(
        args,
        result.to_dict(),
        lambda _: render_table(result.run) + f"{leakage}\n\n{result.spend_line}\nresults: {result.paths['results']}",
    )
    if args.json:
        print(result.spend_line, file=sys.stderr)
    return 0
