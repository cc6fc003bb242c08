"""``contextpull scenarios DIR``: play the corpus's multi-section tasks and print pass or fail for each."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..paths import env_store_path
from .common import add_json_option, emit
from .progress import progress_bar

#: an ``eval.scenarios.Outcome``; the CLI loads eval only inside a command (tests/whole/test_layers.py)
Outcome = Any


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "scenarios",
        help="play multi-section tasks over DIR and say which an agent passes",
        description="Ingest DIR, then have each --agent play the scenarios of DIR/.contextpull-scenarios.json "
        "(or --file): a scenario passes when the agent read every section it must and its answer holds "
        "every string it must. The scripted policy needs no model.",
    )
    parser.add_argument("dir", metavar="DIR", type=Path, help="the corpus folder")
    parser.add_argument(
        "--agent",
        action="append",
        metavar="SPEC",
        help="scripted (default; no model), local:MODEL, anthropic:MODEL, openai:MODEL or claude-code[:MODEL];"
        " repeatable",
    )
    parser.add_argument(
        "--file", type=Path, metavar="FILE", help="scenario file (default DIR/.contextpull-scenarios.json)"
    )
    parser.add_argument("--store", type=Path, metavar="PATH", help="store file (default: the folder's own)")
    add_json_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..eval import scenarios
    from ..ingestion.run import IngestOptions, ingest_with

    found = scenarios.load(args.file or args.dir / scenarios.SCENARIO_FILE)
    with progress_bar() as progress:
        report = ingest_with(args.dir, args.store or env_store_path(), IngestOptions(progress=progress))
    agents = args.agent or ["scripted"]
    outcomes = scenarios.play_all(found, agents, Path(report.store))
    passed = {agent: sum(o.passed for o in outcomes if o.agent == agent) for agent in agents}
    data = {
        "store": report.store,
        "outcomes": [outcome.to_dict() for outcome in outcomes],
        "passed": passed,
        "scenarios": len(found),
    }
    emit(args, data, lambda _: render(outcomes, passed, len(found)))
    return 0 if all(o.passed for o in outcomes) else 1


def render(outcomes: list[Outcome], passed: dict[str, int], count: int) -> str:
    header = f"{'scenario':28} {'agent':28} {'result':6} {'reads':>5} {'calls':>5} {'turns':>5} {'tokens':>7} {'s':>7}"
    lines = [header, "-" * len(header)]
    for o in outcomes:
        lines.append(
            f"{o.scenario[:28]:28} {o.agent[:28]:28} {'pass' if o.passed else 'FAIL':6} {o.reads:5} {o.tool_calls:5}"
            f" {o.turns:5} {o.tokens:7,} {o.seconds:7.1f}"
        )
        lines += [f"    {why}" for why in _why(o)]
    lines.append("")
    lines += [f"{agent}: {done} of {count} passed" for agent, done in passed.items()]
    return "\n".join(lines)


def _why(outcome: Outcome) -> list[str]:
    reasons = [f"error: {outcome.error}"] if outcome.error else []
    reasons += [f"not read: {sid}" for sid in outcome.missing_reads]
    reasons += [f"answer lacks: {text!r}" for text in outcome.missing_strings]
    return reasons
