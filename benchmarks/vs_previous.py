"""Side by side with the previous implementation of this design (``contextpull==0.2.1`` on PyPI).

    python benchmarks/vs_previous.py                      # 100k synthetic sections + the shared corpora
    python benchmarks/vs_previous.py --sections 20000     # quicker
    python benchmarks/vs_previous.py --json

The previous implementation is a different project that happens to share our
name, so it cannot live in our venv: it is installed once into its own venv
under ``--cache`` (default ``~/.cache/contextpull-vs-previous``) and every
measurement runs in a child process of either interpreter. Every phase
alternates the two, round after round (ours, previous, ours, previous, …;
``--repeat`` rounds, the best of each side kept), so both see the same
machine load: cold ingest (ours with workers and in one process), the CLI
ingest of each real corpus, import, ``index``, search, read, neighbours and
grep. Frequent-identifier search is reported twice: on our default path
(the candidates of a query whose every term is common are a capped sample,
``ranking.COMMON``) and with full ranking (the cap raised above the corpus
size in the child), since the previous implementation always ranks fully.
A figure below the timer's resolution is printed as such, never as a
negative time. The synthetic corpus comes from
``benchmarks/scale.py``; the real corpora are the folders under
``/work/shared/corpora`` (or ``--corpora``). Each row of the table is printed
as ours, previous and the ratio ours / previous with the direction that is
better. Timings on a shared machine are noisy: the 1-minute load average is
printed with the table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from scale import build_corpus

PREVIOUS = "contextpull==0.2.1"
PREVIOUS_VENV = "prev-0.2.1"
IDENTIFIERS = ["UV_CACHE_DIR", "--no-cache", "tool.uv.sources", "http.request.method", "TX-4419"]
#: sections given one rare identifier each (:func:`add_rare_identifiers`), spread over the corpus
RARE_SECTIONS = 40
#: identifiers that each occur in one section of the corpus, in the four shapes of :data:`IDENTIFIERS`
RARE_IDENTIFIERS = ["RARE_KNOB_007", "--rare-flag-13", "rare.opt21.key", "RQ-1033", "RARE_KNOB_038"]
#: literal grep patterns: one in a fifth of the sections, two in one section each, one in none
GREP_PATTERNS = ["UV_CACHE_DIR", "RARE_KNOB_007", "rare.opt21.key", "no-such-text-anywhere"]
#: a difference of two process start-ups below this is noise, not a measurement (the import row)
RESOLUTION_MS = 2.0
DEFAULT_CORPORA = Path("/work/shared/corpora")

#: Run inside either interpreter: ``ingest`` or ``ops`` figures as one JSON line.
DRIVER = r"""
import json, os, statistics, sys, time
impl, action, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])

def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6

if action == "ingest":
    if impl == "ours":
        from contextpull.ingestion.run import ingest
        run = lambda: ingest(args["corpus"], args["store"], workers=args["workers"])
    else:
        from contextpull.ingest import ingest
        run = lambda: ingest(args["corpus"], args["store"])
    started = time.perf_counter()
    report = run()
    seconds = time.perf_counter() - started
    sections = report.sections if impl == "ours" else report.sections_written
    print(json.dumps({"sections": sections, "seconds": seconds}))
elif action == "ops":
    if impl == "ours":
        from contextpull.ops.operations import Ops
        if args.get("full_ranking"):
            from contextpull.ops import ranking
            ranking.COMMON = 1 << 60  # every term scores: no capped sample
        ops = Ops.open(args["store"])
        search = lambda q: [h.id for h in ops.search(q, limit=10).hits]
    else:
        from contextpull.ops import Ops
        from contextpull.store import Store
        ops = Ops(Store.open(args["store"]))
        search = lambda q: [h.id for h in ops.search(q, limit=10).hits]
    queries, rare, rounds = args["queries"], args["rare"], args["rounds"]
    ids = []
    for q in queries + rare:
        ids += search(q)
    search_ms, rare_ms, read_ms, neighbours_ms, grep_ms = [], [], [], [], []
    for _ in range(rounds):
        for pattern in args["grep"]:
            t = time.perf_counter(); ops.grep(pattern, limit=20); grep_ms.append((time.perf_counter() - t) * 1e3)
        for q in queries:
            t = time.perf_counter(); search(q); search_ms.append((time.perf_counter() - t) * 1e3)
        for q in rare:
            t = time.perf_counter(); search(q); rare_ms.append((time.perf_counter() - t) * 1e3)
        for i in ids:
            t = time.perf_counter(); ops.read(i); read_ms.append((time.perf_counter() - t) * 1e3)
        for i in ids:
            t = time.perf_counter(); ops.neighbours(i); neighbours_ms.append((time.perf_counter() - t) * 1e3)
    q95 = lambda xs: statistics.quantiles(xs, n=20)[18]
    before = rss_mb()
    if args.get("rss_rare"):  # every other query distinct, with a word no section holds
        more = lambda n: rare[n % len(rare)] + ("" if n % 2 else f" zq{n}")
    else:
        more = lambda n: queries[n % len(queries)] + ("" if n % 2 else " cache")
    for n in range(args["rss_searches"]):
        search(more(n))
    print(json.dumps({
        "search_p50_ms": statistics.median(search_ms), "search_p95_ms": q95(search_ms),
        "rare_p50_ms": statistics.median(rare_ms), "rare_p95_ms": q95(rare_ms),
        "read_p50_ms": statistics.median(read_ms) if read_ms else None,
        "neighbours_p50_ms": statistics.median(neighbours_ms) if neighbours_ms else None,
        "grep_p50_ms": statistics.median(grep_ms) if grep_ms else None,
        "rss_before_mb": before, "rss_after_mb": rss_mb(),
    }))
"""


def add_rare_identifiers(corpus: Path, count: int = RARE_SECTIONS) -> None:
    """Append a section naming four identifiers found nowhere else to ``count`` files of ``corpus``.

    The generator's identifiers each sit in about a fifth of the sections;
    these give :data:`RARE_IDENTIFIERS` one section each, so rare lookups
    (the usual case in real documentation) are measured too.
    """
    files = sorted(corpus.rglob("*.md"))
    for i in range(count):
        path = files[(i * 7919) % len(files)]
        note = (
            f"\n## Note {i}\n\nSet `RARE_KNOB_{i:03}` or pass `--rare-flag-{i}`;"
            f" the key `rare.opt{i}.key` was added for ticket RQ-{1020 + i}.\n"
        )
        with path.open("a", encoding="utf-8") as out:
            out.write(note)


def _ensure_previous(cache: Path) -> Path:
    """The previous implementation's interpreter, installing it into ``cache`` on first use."""
    venv = cache / PREVIOUS_VENV
    python = venv / "bin" / "python"
    if not (venv / ".installed").exists():
        print(f"installing {PREVIOUS} into {venv}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PREVIOUS], check=True)
        (venv / ".installed").touch()
    return python


def _compile_ours(python: Path) -> None:
    """Write our package's bytecode, as ``pip install`` did for the previous implementation.

    An editable install under ``PYTHONDONTWRITEBYTECODE`` would otherwise
    compile every module on every start, and the start-up rows would measure
    the compiler rather than the imports.
    """
    find = "import contextpull, os; print(os.path.dirname(contextpull.__file__))"
    package = subprocess.run([str(python), "-c", find], capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([str(python), "-m", "compileall", "-q", package], check=True, stdout=subprocess.DEVNULL)


def _tree_rss_mb(root: int) -> float:
    """Resident memory of ``root`` and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = int(fields[21])
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo += children.get(pid, [])
    return total * os.sysconf("SC_PAGE_SIZE") / 1e6


def _run(cmd: list[str]) -> tuple[str, float, float]:
    """Run ``cmd``; return its stdout, wall seconds and peak memory of its process tree (MB)."""
    # PYTHONPATH may point our side at another checkout (a before/after comparison); never the previous side.
    previous = Path(cmd[0]).parent.parent.name == PREVIOUS_VENV
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} if previous else None
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    peak = 0.0
    while proc.poll() is None:
        peak = max(peak, _tree_rss_mb(proc.pid))
        time.sleep(0.02)
    wall = time.perf_counter() - started
    out, err = proc.communicate()
    if proc.returncode:
        raise SystemExit(f"{cmd[0]} {cmd[-3:-1] if cmd[1] == '-c' else cmd[1:]} failed: {err.strip()[-500:]}")
    return out, wall, peak


def _driver(python: Path, impl: str, action: str, **args: Any) -> tuple[dict[str, Any], float]:
    out, _, peak = _run([str(python), "-c", DRIVER, impl, action, json.dumps(args)])
    return json.loads(out.strip().splitlines()[-1]), peak


def _alternate(repeat: int, measure: Any) -> dict[str, float]:
    """``measure(impl, round)`` for ours then previous, ``repeat`` rounds; the best (least) of each side."""
    best: dict[str, float] = {}
    for round_ in range(repeat):
        for impl in ("ours", "previous"):
            value = measure(impl, round_)
            best[impl] = min(best.get(impl, value), value)
    return best


def _best_of(kept: dict[str, Any] | None, measured: dict[str, Any]) -> dict[str, Any]:
    """Each timing the least of two driver runs; memory figures from the run kept first."""
    if kept is None:
        return measured
    return {
        key: min(value, measured[key]) if key.endswith("_ms") and value is not None else value
        for key, value in kept.items()
    }


def _ratio(ours: float, prev: float, higher_is_better: bool) -> str:
    if not ours or not prev:
        return "n/a"
    r = ours / prev
    better = r >= 1 if higher_is_better else r <= 1
    return f"{r:.2f}x ({'better' if better else 'worse'})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sections", type=int, default=100_000, help="synthetic corpus size (default 100000)")
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA, help="folder of real corpora")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "contextpull-vs-previous")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each short timing; the best is kept")
    parser.add_argument("--rounds", type=int, default=200, help="rounds of the identifier searches and reads")
    parser.add_argument("--rss-searches", type=int, default=1000, help="searches between the two RSS samples")
    parser.add_argument(
        "--rss-rare",
        action="store_true",
        help="between the RSS samples search the rare identifiers, every other one with a distinct absent "
        "word (the frequent ones with 'cache' take the previous implementation ~0.2 s each at 20k)",
    )
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    previous = _ensure_previous(args.cache)
    ours = Path(sys.executable)
    _compile_ours(ours)
    pythons = {"ours": ours, "previous": previous}
    clis = {name: [str(py.parent / "contextpull")] for name, py in pythons.items()}
    rows: list[tuple[str, float | None, float | None, bool, str]] = []
    with tempfile.TemporaryDirectory(prefix="contextpull-vs-previous-") as tmp:
        work = Path(tmp)
        corpus = work / "corpus"
        build_corpus(corpus, args.sections)
        add_rare_identifiers(corpus)
        figures: dict[str, dict[str, Any]] = {}
        # Every phase alternates the two sides, round after round, and keeps each side's best.
        for round_ in range(args.repeat):
            for name, impl, workers in (("ours", "ours", 0), ("previous", "previous", 0), ("ours_1", "ours", 1)):
                store = work / f"{name}-{round_}.sqlite"
                result, peak = _driver(
                    pythons[impl], impl, "ingest", corpus=str(corpus), store=str(store), workers=workers
                )
                rate = result["sections"] / result["seconds"]
                print(f"ingest {name} round {round_ + 1}: {rate:,.0f} sections/s", file=sys.stderr)
                best = figures.get(name)
                if best is None or rate > best["rate"]:
                    figures[name] = {**result, "rate": rate, "peak_mb": peak, "store": store}
        rate = {k: v["rate"] for k, v in figures.items()}
        n = args.sections
        rows.append((f"cold ingest at {n:,}, default (sections/s)", rate["ours"], rate["previous"], True, ""))
        rows.append((f"cold ingest at {n:,}, one process (sections/s)", rate["ours_1"], rate["previous"], True, ""))
        rows.append(
            (
                "peak memory of the whole ingest (MB)",
                figures["ours"]["peak_mb"],
                figures["previous"]["peak_mb"],
                False,
                "default settings; all processes; the fastest round",
            )
        )
        for folder in sorted(p for p in args.corpora.glob("*") if p.is_dir()) if args.corpora.is_dir() else []:
            walls = _alternate(
                args.repeat,
                lambda impl, i, folder=folder: _run(
                    [*clis[impl], "ingest", str(folder), "--store", str(work / f"{folder.name}-{impl}-{i}.sqlite")]
                )[1],
            )
            rows.append((f"CLI ingest of {folder.name} (s)", walls["ours"], walls["previous"], False, ""))
        bare = _alternate(args.repeat, lambda impl, _: _run([str(pythons[impl]), "-c", "pass"])[1])
        loaded = _alternate(args.repeat, lambda impl, _: _run([str(pythons[impl]), "-c", "import contextpull"])[1])
        rows.append(
            (
                "import contextpull (ms)",
                (loaded["ours"] - bare["ours"]) * 1e3,
                (loaded["previous"] - bare["previous"]) * 1e3,
                False,
                "minus bare interpreter start",
            )
        )
        index = _alternate(
            args.repeat, lambda impl, _: _run([*clis[impl], "index", "--store", str(figures[impl]["store"])])[1]
        )
        rows.append(("contextpull index on the store (s)", index["ours"], index["previous"], False, ""))
        ops_args = {
            "queries": IDENTIFIERS,
            "rare": RARE_IDENTIFIERS,
            "grep": GREP_PATTERNS,
            "rounds": args.rounds,
            "rss_searches": args.rss_searches,
            "rss_rare": args.rss_rare,
        }
        ops: dict[str, dict[str, Any]] = {}
        full: dict[str, Any] = {}
        for _ in range(args.repeat):
            for impl, py in pythons.items():
                measured, _ = _driver(py, impl, "ops", store=str(figures[impl]["store"]), **ops_args)
                ops[impl] = _best_of(ops.get(impl), measured)
            measured, _ = _driver(
                ours, "ours", "ops", store=str(figures["ours"]["store"]), full_ranking=True, **ops_args
            )
            full = _best_of(full or None, measured)
        for label in ("p50", "p95"):
            key = f"search_{label}_ms"
            rows.append(
                (
                    f"frequent-identifier search {label} at {n:,} (ms)",
                    ops["ours"][key],
                    ops["previous"][key],
                    False,
                    "ours: capped sample (default)",
                )
            )
            rows.append(
                (
                    f"frequent-identifier search {label} at {n:,}, full ranking (ms)",
                    full[key],
                    ops["previous"][key],
                    False,
                    "ours: every term scored, as the previous implementation does",
                )
            )
        for key, label in (("rare_p50_ms", "p50"), ("rare_p95_ms", "p95")):
            rows.append(
                (f"rare-identifier search {label} at {n:,} (ms)", ops["ours"][key], ops["previous"][key], False, "")
            )
        rows.append(("read p50 (ms)", ops["ours"]["read_p50_ms"], ops["previous"]["read_p50_ms"], False, ""))
        rows.append(
            ("neighbours p50 (ms)", ops["ours"]["neighbours_p50_ms"], ops["previous"]["neighbours_p50_ms"], False, "")
        )
        rows.append(
            (
                f"grep p50 at {n:,} (ms)",
                ops["ours"]["grep_p50_ms"],
                ops["previous"]["grep_p50_ms"],
                False,
                f"literal, limit 20: {', '.join(GREP_PATTERNS)}",
            )
        )
        rows.append(
            (
                f"RSS after {args.rss_searches:,} more {'rare-identifier ' if args.rss_rare else ''}searches (MB)",
                ops["ours"]["rss_after_mb"],
                ops["previous"]["rss_after_mb"],
                False,
                "",
            )
        )
        growth = {impl: ops[impl]["rss_after_mb"] - ops[impl]["rss_before_mb"] for impl in pythons}
        rows.append(
            ("RSS growth over those searches (MB)", growth["ours"], growth["previous"], False, "flat is the target")
        )
    load = os.getloadavg()[0]
    if args.json:
        print(
            json.dumps(
                {"load_average_1m": load, "rows": [dict(zip(("metric", "ours", "previous"), r[:3])) for r in rows]},
                indent=2,
            )
        )
        return 0
    print(f"load average (1 min) at the end: {load:.2f}; {os.cpu_count()} CPUs\n")
    print("| metric | ours | previous | ours / previous |")
    print("|---|---|---|---|")
    for metric, mine, prev, higher, note in rows:
        timed = metric.startswith("import")  # the one figure that is a difference of two wall times
        low = timed and min(mine or 0.0, prev or 0.0) < RESOLUTION_MS
        ratio = "n/a" if growth_row(metric) or low else _ratio(mine or 0.0, prev or 0.0, higher)
        print(f"| {metric}{' — ' + note if note else ''} | {_cell(mine, timed)} | {_cell(prev, timed)} | {ratio} |")
    return 0


def _cell(value: float | None, timed: bool) -> str:
    """A figure; a difference of start-ups under the resolution (or negative) says so instead."""
    if value is None:
        return "n/a"
    if timed and value < RESOLUTION_MS:
        return f"below resolution (< {RESOLUTION_MS} ms)"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def growth_row(metric: str) -> bool:
    """Growth can be zero or negative, so a ratio means nothing there."""
    return metric.startswith("RSS growth")


if __name__ == "__main__":
    sys.exit(main())
