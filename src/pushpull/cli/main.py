"""The ``pushpull`` command: build an eval set, score adapters and push configs, print one table.

    pushpull build-evalset --chunks chunks.jsonl [--shapes ...] [--model spec|none] [--n N] [--seed S] [--out DIR]
    pushpull run --chunks chunks.jsonl [--questions q.jsonl] --adapter file.py:Name ... [--push all|none|bm25,...]

Tables and JSON go to stdout, progress bars to stderr. Errors are one line on
stderr and exit status 1 (bad input, stale eval set, model failure) or 2
(usage: bad adapter spec, unknown shape or config).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import contextpull_vec

from ..adapters import load_adapter
from ..chunks import read_chunks
from ..errors import EVAL_EXTRA_HINT, HarnessError, is_missing_library
from ..evalset import EvalSet, load_evalset
from ..models.base import ModelError
from ..pipeline import Rows, evalset_for, push_rows, require_model, require_push_libraries, score, spend
from ..questions import parse_shapes
from ..scoring.report import render_table, results_json
from ..scoring.runner import RunRow
from .options import add_evalset_options, add_scoring_options, parse_push

DEFAULT_OUT = Path(".pushpull")


def _add_evalset_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--chunks", type=Path, required=True, help="JSON lines of {id, text, source}")
    add_evalset_options(parser)
    parser.add_argument(
        "--out", type=Path, default=DEFAULT_OUT, help=f"output and cache folder (default: {DEFAULT_OUT})"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pushpull", description="Score push (RAG) and pull (agentic) retrieval on one self-built eval set."
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    build = sub.add_parser("build-evalset", help="build (or reuse) the eval set for a chunk file")
    _add_evalset_options(build)
    build.set_defaults(handler=cmd_build_evalset)

    run = sub.add_parser("run", help="score adapters and push configs; print the one table")
    _add_evalset_options(run)
    run.add_argument("--questions", type=Path, help="score this questions file instead of the built eval set")
    run.add_argument(
        "--adapter",
        action="append",
        default=[],
        metavar="FILE.py:NAME",
        help="an adapter (repeatable), ragbisect's rules",
    )
    add_scoring_options(run)
    run.set_defaults(handler=cmd_run)

    from ..models.commands import register as register_models

    register_models(sub)
    return parser


def _evalset_summary(evalset: EvalSet) -> dict[str, Any]:
    return {**evalset.info(), "path": str(evalset.path) if evalset.path else None, "cached": evalset.cached}


def _render_evalset(evalset: EvalSet) -> str:
    counts = ", ".join(f"{s} {c}" for s, c in evalset.counts.items()) or "no questions"
    state = "reused cached" if evalset.cached else "built"
    lines = [
        f"{state} eval set: {len(evalset.questions)} questions ({counts})",
        f"file: {evalset.path or '(not cached)'}",
    ]
    lines += evalset.template_lines()
    lines += [f"skipped shape {shape}: {why}" for shape, why in evalset.skipped.items()]
    return "\n".join(lines)


def cmd_build_evalset(args: argparse.Namespace) -> int:
    chunks = read_chunks(args.chunks)
    provider = require_model(args.model, args.out)
    evalset = evalset_for(
        chunks, args.out, shapes=parse_shapes(args.shapes), provider=provider, n=args.n, seed=args.seed
    )
    _print(args, _evalset_summary(evalset), _render_evalset(evalset))
    print(spend()[0], file=sys.stderr)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    push = parse_push(args.push)
    if push != []:
        require_push_libraries()
    chunks = read_chunks(args.chunks)
    provider = require_model(args.model, args.out)
    if args.questions:
        evalset = load_evalset(args.questions, chunks)
    else:
        evalset = evalset_for(
            chunks, args.out, shapes=parse_shapes(args.shapes), provider=provider, n=args.n, seed=args.seed
        )
    if not evalset.questions:
        raise HarnessError(
            "the eval set has no questions", "see the skipped-shape reasons: pushpull build-evalset --chunks ..."
        )
    rows = Rows([RunRow(spec, load_adapter(spec, chunks), sampled=True) for spec in args.adapter])
    rows.extend(push_rows(chunks, push, args.out, embedder=args.embedder, reranker=args.reranker))
    if not rows.rows:
        raise HarnessError("nothing to run", "pass --adapter FILE.py:NAME or --push all")
    result, paths = score(chunks, evalset, rows, args.out, k=args.k, sample=args.sample, seed=args.seed, judge=provider)
    line, figures = spend()
    _print(args, results_json(result, figures), render_table(result) + f"\n\n{line}\nresults: {paths['results']}")
    return 0


def _print(args: argparse.Namespace, data: Any, text: str) -> None:
    if args.json:
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(text + "\n")
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.handler(args) or 0)
    except HarnessError as err:
        print(f"pushpull: error: {err}", file=sys.stderr)
        return err.exit_code
    except (ModelError, contextpull_vec.EmbedderError) as err:
        print(f"pushpull: error: {err}", file=sys.stderr)
        return 1
    except ModuleNotFoundError as err:
        # The net under the checks above: a library no command declared still fails in one line.
        if not is_missing_library(err):
            raise
        print(f"pushpull: error: {err.name} is not installed ({EVAL_EXTRA_HINT})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("pushpull: interrupted", file=sys.stderr)
        return 130
