"""The snippet-leakage experiment: does a shorter search snippet make a model read instead of guess?

    python benchmarks/snippet_leakage.py                         # the published bundled-corpus run's sample
    python benchmarks/snippet_leakage.py --run benchmarks/results/uv-docs --corpus ../shared/corpora/uv-docs
    python benchmarks/snippet_leakage.py --model anthropic:claude-sonnet-4-5 --sample 20

The design names the remedy for snippet leakage (recall that counts only
because a snippet showed an id the agent never read): "in the tool, not the
prompt: shorter snippets, or snippets that show heading path only". This runs
the same pull agent over the same sampled questions of a published bench run
with the search tool's snippet at full width (160 characters, the default),
short (60) and heading path only (0), and prints per mode: ids-read and
ids-surfaced recall@k, the gap between them, reads, tool calls and turns per
question, tokens per question and seconds per question. Runs are cached under
``--cache`` by the tool loop's own keys, so an interrupted run resumes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from contextpull.eval.apiloop import ApiLoopRetriever
from contextpull.ingestion.run import ingest

REPO = Path(__file__).resolve().parents[1]
MODES = {"full": 160, "short": 60, "heading path only": 0}


def _questions(run_dir: Path, sample: int | None) -> list[dict[str, Any]]:
    """The run's sampled questions (its ``sample_ids``), with their gold ids, in eval-set order."""
    results = json.loads((run_dir / "results.json").read_text(encoding="utf-8"))
    wanted = results.get("sample_ids") or []
    (evalset,) = sorted((run_dir / "evalsets").glob("*.jsonl"))
    rows = [json.loads(line) for line in evalset.read_text(encoding="utf-8").splitlines() if line.strip()]
    chosen = [row for row in rows if not wanted or row["id"] in wanted]
    return chosen[:sample] if sample else chosen


def _recall(ranked: list[str], gold: list[str], k: int) -> float:
    return len(set(ranked[:k]) & set(gold)) / len(set(gold)) if gold else 0.0


def measure(model: str, store: Path, questions: list[dict[str, Any]], k: int, cache: Path) -> dict[str, Any]:
    """Every mode over every question; one agent run per question and mode."""
    table: dict[str, Any] = {}
    for mode, width in MODES.items():
        agent = ApiLoopRetriever(store, model, k=k, snippet=width, cache_dir=cache / mode.replace(" ", "-"))
        read, surfaced, reads, calls, turns, tokens, seconds = [], [], [], [], [], [], []
        for number, question in enumerate(questions, 1):
            run = agent.run(question["q"])
            read.append(_recall(run.ranked("read", k), question["gold_chunk_ids"], k))
            surfaced.append(_recall(run.ranked("surfaced", k), question["gold_chunk_ids"], k))
            reads.append(len(run.read_ids))
            calls.append(len(run.tool_calls))
            turns.append(run.turns)
            tokens.append(run.tokens_in + run.tokens_out)
            seconds.append(run.wall_s)
            print(f"{mode}: {number}/{len(questions)} ({run.wall_s:.0f} s)", file=sys.stderr, flush=True)
        table[mode] = {
            "snippet_chars": width,
            "ids_read_recall": round(statistics.mean(read), 3),
            "ids_surfaced_recall": round(statistics.mean(surfaced), 3),
            "gap": round(statistics.mean(surfaced) - statistics.mean(read), 3),
            "reads_per_query": round(statistics.mean(reads), 2),
            "calls_per_query": round(statistics.mean(calls), 2),
            "turns_per_query": round(statistics.mean(turns), 2),
            "tokens_per_query": round(statistics.mean(tokens)),
            "seconds_per_query": round(statistics.mean(seconds), 1),
            "errors": sum(agent.run(q["q"]).error is not None for q in questions),
        }
    return table


def render(table: dict[str, Any], k: int, n: int, model: str) -> str:
    head = f"{'snippet':18} {'chars':>5} {'read@' + str(k):>7} {'surf@' + str(k):>7} {'gap':>6} {'reads':>5}"
    head += f" {'calls':>5} {'turns':>5} {'tok/q':>7} {'s/q':>6} {'err':>3}"
    lines = [f"snippet leakage, {model}, {n} questions, k={k}", head, "-" * len(head)]
    for mode, row in table.items():
        lines.append(
            f"{mode:18} {row['snippet_chars']:5} {row['ids_read_recall']:7.3f} {row['ids_surfaced_recall']:7.3f}"
            f" {row['gap']:+6.3f} {row['reads_per_query']:5.2f} {row['calls_per_query']:5.2f}"
            f" {row['turns_per_query']:5.2f} {row['tokens_per_query']:7,} {row['seconds_per_query']:6.1f} {row['errors']:3}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, default=REPO / "benchmarks" / "results" / "sample-corpus")
    parser.add_argument("--corpus", type=Path, default=REPO / "examples" / "corpus")
    parser.add_argument("--model", default="local:qwen2.5-coder-1.5b")
    parser.add_argument("--sample", type=int, help="at most this many of the run's sampled questions")
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "contextpull-snippet-leakage")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    questions = _questions(args.run, args.sample)
    with tempfile.TemporaryDirectory() as folder:
        store = Path(ingest(args.corpus, Path(folder) / "store.sqlite").store)
        table = measure(args.model, store, questions, args.k, args.cache)
    print(json.dumps(table, indent=2) if args.json else render(table, args.k, len(questions), args.model))
    return 0


if __name__ == "__main__":
    sys.exit(main())
