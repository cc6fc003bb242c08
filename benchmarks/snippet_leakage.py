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
model's identity, the behaviour fingerprint of the code that ran, and every
question's record per mode), ``leakage.txt`` (the table) and ``answers/``
(the model's answers of the short and heading-only modes; the full mode's are
the run's own). ``--replay DIR`` recomputes the table from those records with
no model, refuses records made by other code (the behaviour fingerprint
differs), and checks the text byte for byte. ``--re-execute DIR`` runs every
question of a ``--out`` folder again with the code running now, each model
call answered as recorded; a question whose requests changed is run again by
the model, when it is installed (``contextpull.eval.reexecute``; seconds stay
the recorded ones but for those).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from contextpull.analysis.terms import ANALYSIS_VERSION
from contextpull.eval import fingerprint
from contextpull.eval.apiloop import ApiLoopRetriever
from contextpull.eval.reexecute import QuestionRerun
from contextpull.ingestion.run import ingest
from pushpull.models.recorded import RecordedFirst, live_provider, recorded_provider
from pushpull.provenance import provenance

REPO = Path(__file__).resolve().parents[1]
MODES = {"full": 160, "short": 60, "heading path only": 0}
#: the modes whose model answers a ``--out`` folder keeps (the full mode's are the bench run's own)
KEPT = ("short", "heading path only")


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


def _folder(mode: str) -> str:
    return mode.replace(" ", "-")


def measure(
    model: str,
    store: Path,
    questions: list[dict[str, Any]],
    k: int,
    cache: Path,
    again: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, QuestionRerun]]:
    """Every question's record in every mode (one agent run per question and mode), the model's identity,
    and under a re-execution what it reproduced and ran again, by mode.

    ``again`` (a re-execution) holds the recorded ``leakage.json``: each mode's
    model calls are answered from ``cache`` as recorded, and only a question
    whose requests changed is run by the model.
    """
    records: dict[str, Any] = {}
    identity: dict[str, Any] = {}
    reruns: dict[str, QuestionRerun] = {}
    for mode, width in MODES.items():
        rerun = None if again is None else _rerun(again, mode, model, cache / _folder(mode))
        # A re-execution answers from the record first, so it needs the model only for what is new:
        # never to build the agent (a machine without the model reproduces what needs none).
        provider = None if rerun is None else RecordedFirst(rerun.recorded, rerun.live, rerun.why_not_live)
        agent = ApiLoopRetriever(store, model, k=k, snippet=width, cache_dir=cache / _folder(mode), provider=provider)
        if rerun is not None:
            agent.rerun = reruns[mode] = rerun
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
        identity = agent.provider.identity()
    return records, identity, reruns


def _rerun(saved: dict[str, Any], mode: str, model: str, cache: Path) -> QuestionRerun:
    """The re-execution of one mode: the recorded answers in ``cache``, the model for what is new."""
    identity = saved["identity"]
    live, why = live_provider(model, cache, identity)
    seconds = {saved["texts"][row["id"]]: row["seconds"] for row in saved["records"][mode]["questions"]}
    return QuestionRerun(recorded_provider(model, identity, cache), live, why, seconds.get)


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
    parser.add_argument("--out", type=Path, help="write leakage.json, leakage.txt and answers/ here")
    parser.add_argument("--replay", type=Path, help="recompute the table of a --out folder, no model")
    parser.add_argument(
        "--re-execute", type=Path, metavar="DIR", help="run a --out folder's questions again with this code"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay)
    again = _recorded_for_again(args) if args.re_execute else None
    questions = _questions(args.run, len(again["texts"]) if again else args.sample)
    if again is not None and [q["id"] for q in questions] != list(again["texts"]):
        print(f"snippet_leakage: {args.run} samples other questions than {args.re_execute}", file=sys.stderr)
        return 1
    started = provenance()
    with tempfile.TemporaryDirectory() as folder:
        store = Path(ingest(args.corpus, Path(folder) / "store.sqlite").store)
        behaviour, _ = fingerprint.of_store(store)
        records, identity, reruns = measure(args.model, store, questions, args.k, args.cache, again)
    table = summarise(records, args.k)
    text = render(table, args.k, len(questions), args.model)
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
        saved = {
            "provenance": started,
            "model": args.model,
            "identity": identity,
            "k": args.k,
            "run": str(args.run),
            "behaviour": behaviour.to_dict(),
            "table": table,
            "records": records,
        }
        if again is not None:
            saved["re_executed"] = {
                "of": str(args.re_execute),
                "made_at": again["made_at"],
                "reproduced": {mode: len(rerun.reproduced) for mode, rerun in reruns.items()},
                "run_again": {mode: len(rerun.run_again) for mode, rerun in reruns.items()},
            }
        (args.out / "leakage.json").write_text(json.dumps(saved, indent=1) + "\n", encoding="utf-8")
        (args.out / "leakage.txt").write_text(text + "\n", encoding="utf-8")
        _keep_answers(args.cache, args.out / "answers")
    print(json.dumps(table, indent=2) if args.json else text)
    if again is not None:
        counts = ", ".join(f"{mode} {len(r.reproduced)}/{len(r.run_again)}" for mode, r in reruns.items())
        print(f"re-executed from the answers recorded at {again['made_at'][:12]}: reproduced/run again {counts}")
    return 0


def _recorded_for_again(args: argparse.Namespace) -> dict[str, Any]:
    """The recorded folder to re-execute, with what the re-execution needs: each question's text by id, the
    model's identity (older folders lack it: the bench run's), its recorded answers in ``--cache``."""
    saved = json.loads((args.re_execute / "leakage.json").read_text(encoding="utf-8"))
    results = json.loads((args.run / "results.json").read_text(encoding="utf-8"))
    saved.setdefault("identity", results["models"][saved["model"]])
    ids = [row["id"] for row in next(iter(saved["records"].values()))["questions"]]
    texts = {q["id"]: q["q"] for q in _questions(args.run, None)}
    saved["texts"] = {qid: texts[qid] for qid in ids}
    saved["made_at"] = (saved.get("re_executed") or {}).get("made_at") or saved["provenance"]["commit"]
    for mode in KEPT:
        kept = args.re_execute / "answers" / _folder(mode) / "completions.sqlite3"
        if kept.is_file():
            _copy_database(kept, args.cache / _folder(mode) / "completions.sqlite3")
    _copy_database(args.run / "pull" / "completions.sqlite3", args.cache / "full" / "completions.sqlite3")
    return saved


def _keep_answers(cache: Path, out: Path) -> None:
    """The short and heading-only modes' model answers, one clean SQLite file each, for a later re-execution."""
    for mode in KEPT:
        found = cache / _folder(mode) / "completions.sqlite3"
        if found.is_file():
            _copy_database(found, out / _folder(mode) / "completions.sqlite3")


def _copy_database(source: Path, target: Path) -> None:
    """Copy a SQLite file whole (its write-ahead log folded in) with SQLite's own backup."""
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()


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
