"""The snippet-leakage experiment: does a shorter search snippet make a model read instead of guess?

    python benchmarks/snippet_leakage.py                         # the published bundled-corpus run's sample
    python benchmarks/snippet_leakage.py --run benchmarks/results/uv-docs --corpus ../shared/corpora/uv-docs
    python benchmarks/snippet_leakage.py --model anthropic:claude-sonnet-4-5 --sample 20
    python benchmarks/snippet_leakage.py --sample 5 --out benchmarks/results/sample-corpus/leakage
    python benchmarks/snippet_leakage.py --replay benchmarks/results/sample-corpus/leakage   # no model

The design names the remedy for snippet leakage (recall that counts only
because a snippet showed an id the agent never read): "in the tool, not the
prompt: shorter snippets, or snippets that show heading path only". This runs
the same pull agent over the same sampled questions of a published bench run
with the search tool's snippet at full width (160 characters, the default),
short (60) and heading path only (0), and prints per mode: ids-read and
ids-surfaced recall@k, the gap between them, reads, tool calls and turns per
question, tokens per question and seconds per question. Runs are cached under
``--cache`` by the tool loop's own keys, so an interrupted run resumes.

``--out DIR`` writes ``leakage.json`` (the command, commit and machine, the
behaviour fingerprint of the code that ran, and every question's record per
mode) and ``leakage.txt`` (the table). ``--replay DIR`` recomputes the table
from those records with no model, refuses records made by other code (the
behaviour fingerprint differs), and checks the text byte for byte.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from contextpull.analysis.terms import ANALYSIS_VERSION
from contextpull.eval import fingerprint
from contextpull.eval.apiloop import ApiLoopRetriever
from contextpull.ingestion.run import ingest
from pushpull.provenance import provenance

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
    """Every question's record in every mode; one agent run per question and mode."""
    records: dict[str, Any] = {}
    for mode, width in MODES.items():
        agent = ApiLoopRetriever(store, model, k=k, snippet=width, cache_dir=cache / mode.replace(" ", "-"))
        rows = []
        for number, question in enumerate(questions, 1):
            run = agent.run(question["q"])
            rows.append(
                {
                    "id": question["id"],
                    "gold": question["gold_chunk_ids"],
                    "read": run.ranked("read", k),
                    "surfaced": run.ranked("surfaced", k),
                    "reads": len(run.read_ids),
                    "calls": len(run.tool_calls),
                    "turns": run.turns,
                    "tokens": run.tokens_in + run.tokens_out,
                    "seconds": round(run.wall_s, 1),
                    "error": run.error,
                }
            )
            print(f"{mode}: {number}/{len(questions)} ({run.wall_s:.0f} s)", file=sys.stderr, flush=True)
        records[mode] = {"snippet_chars": width, "questions": rows}
    return records


def summarise(records: dict[str, Any], k: int) -> dict[str, Any]:
    """The table's figures per mode, from the questions' records."""
    table: dict[str, Any] = {}
    for mode, entry in records.items():
        rows = entry["questions"]
        read = statistics.mean(_recall(row["read"], row["gold"], k) for row in rows)
        surfaced = statistics.mean(_recall(row["surfaced"], row["gold"], k) for row in rows)
        table[mode] = {
            "snippet_chars": entry["snippet_chars"],
            "ids_read_recall": round(read, 3),
            "ids_surfaced_recall": round(surfaced, 3),
            "gap": round(surfaced - read, 3),
            "reads_per_query": round(statistics.mean(row["reads"] for row in rows), 2),
            "calls_per_query": round(statistics.mean(row["calls"] for row in rows), 2),
            "turns_per_query": round(statistics.mean(row["turns"] for row in rows), 2),
            "tokens_per_query": round(statistics.mean(row["tokens"] for row in rows)),
            "seconds_per_query": round(statistics.mean(row["seconds"] for row in rows), 1),
            "errors": sum(row["error"] is not None for row in rows),
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
    parser.add_argument("--out", type=Path, help="write leakage.json and leakage.txt here")
    parser.add_argument("--replay", type=Path, help="recompute the table of a --out folder, no model")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    questions = _questions(args.run, args.sample)
    started = provenance()
    with tempfile.TemporaryDirectory() as folder:
        store = Path(ingest(args.corpus, Path(folder) / "store.sqlite").store)
        behaviour, _ = fingerprint.of_store(store)
        records = measure(args.model, store, questions, args.k, args.cache)
    table = summarise(records, args.k)
    text = render(table, args.k, len(questions), args.model)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        saved = {
            "provenance": started,
            "model": args.model,
            "k": args.k,
            "run": str(args.run),
            "behaviour": behaviour.to_dict(),
            "table": table,
            "records": records,
        }
        (args.out / "leakage.json").write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
        (args.out / "leakage.txt").write_text(text + "\n", encoding="utf-8")
    print(json.dumps(table, indent=2) if args.json else text)
    return 0


def replay(folder: Path) -> int:
    """Recompute the table of a ``--out`` folder from its records; refuse records from other code."""
    saved = json.loads((folder / "leakage.json").read_text(encoding="utf-8"))
    recorded = fingerprint.Fingerprint.from_dict(saved["behaviour"])
    now = fingerprint.current(ANALYSIS_VERSION)
    changes = now.changes_since(recorded)
    if changes:
        print(f"snippet_leakage: these records were made by other code ({'; '.join(changes[:3])})", file=sys.stderr)
        return 1
    table = summarise(saved["records"], saved["k"])
    questions = len(next(iter(saved["records"].values()))["questions"])
    text = render(table, saved["k"], questions, saved["model"])
    same = (folder / "leakage.txt").read_text(encoding="utf-8") == text + "\n"
    print(text)
    print("leakage.txt reproduced byte for byte" if same else "leakage.txt differs from the recomputed table")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
