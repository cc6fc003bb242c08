"""Side by side with the previous implementation of this design (``contextpull==0.2.1`` on PyPI).

    python benchmarks/vs_previous.py                      # 100k synthetic sections + the shared corpora
    python benchmarks/vs_previous.py --sections 20000     # quicker
    python benchmarks/vs_previous.py --json

The previous implementation is a different project that happens to share our
name, so it cannot live in our venv: it is installed once into its own venv
under ``--cache`` (default ``~/.cache/contextpull-vs-previous``) and every
measurement runs in a child process of either interpreter, alternating the
two, so both see the same machine load. The synthetic corpus comes from
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
IDENTIFIERS = ["UV_CACHE_DIR", "--no-cache", "tool.uv.sources", "http.request.method", "TX-4419"]
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
        ops = Ops.open(args["store"])
        search = lambda q: [h.id for h in ops.search(q, limit=10).hits]
    else:
        from contextpull.ops import Ops
        from contextpull.store import Store
        ops = Ops(Store.open(args["store"]))
        search = lambda q: [h.id for h in ops.search(q, limit=10).hits]
    queries, rounds = args["queries"], args["rounds"]
    ids = []
    for q in queries:
        ids += search(q)
    search_ms, read_ms = [], []
    for _ in range(rounds):
        for q in queries:
            t = time.perf_counter(); search(q); search_ms.append((time.perf_counter() - t) * 1e3)
        for i in ids:
            t = time.perf_counter(); ops.read(i); read_ms.append((time.perf_counter() - t) * 1e3)
    q95 = lambda xs: statistics.quantiles(xs, n=20)[18]
    before = rss_mb()
    for n in range(args["rss_searches"]):
        search(queries[n % len(queries)] + ("" if n % 2 else " cache"))
    print(json.dumps({
        "search_p50_ms": statistics.median(search_ms), "search_p95_ms": q95(search_ms),
        "read_p50_ms": statistics.median(read_ms) if read_ms else None,
        "rss_before_mb": before, "rss_after_mb": rss_mb(),
    }))
"""


def _ensure_previous(cache: Path) -> Path:
    """The previous implementation's interpreter, installing it into ``cache`` on first use."""
    venv = cache / "prev-0.2.1"
    python = venv / "bin" / "python"
    if not (venv / ".installed").exists():
        print(f"installing {PREVIOUS} into {venv}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", PREVIOUS], check=True)
        (venv / ".installed").touch()
    return python


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
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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


def _best_wall(cmd: list[str], repeat: int) -> float:
    return min(_run(cmd)[1] for _ in range(repeat))


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
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args(argv)
    previous = _ensure_previous(args.cache)
    ours = Path(sys.executable)
    pythons = {"ours": ours, "previous": previous}
    clis = {name: [str(py.parent / "contextpull")] for name, py in pythons.items()}
    rows: list[tuple[str, float | None, float | None, bool, str]] = []
    with tempfile.TemporaryDirectory(prefix="contextpull-vs-previous-") as tmp:
        work = Path(tmp)
        corpus = work / "corpus"
        build_corpus(corpus, args.sections)
        figures: dict[str, dict[str, Any]] = {}
        # Alternate: ours default, previous, ours one process.
        for name, impl, workers in (("ours", "ours", 0), ("previous", "previous", 0), ("ours_1", "ours", 1)):
            store = work / f"{name}.sqlite"
            result, peak = _driver(pythons[impl], impl, "ingest", corpus=str(corpus), store=str(store), workers=workers)
            figures[name] = {**result, "peak_mb": peak, "store": store}
            print(f"ingest {name}: {result['sections'] / result['seconds']:,.0f} sections/s", file=sys.stderr)
        rate = {k: v["sections"] / v["seconds"] for k, v in figures.items()}
        n = args.sections
        rows.append((f"cold ingest at {n:,}, default (sections/s)", rate["ours"], rate["previous"], True, ""))
        rows.append((f"cold ingest at {n:,}, one process (sections/s)", rate["ours_1"], rate["previous"], True, ""))
        rows.append(
            (
                "peak memory of the whole ingest (MB)",
                figures["ours"]["peak_mb"],
                figures["previous"]["peak_mb"],
                False,
                "default settings; all processes",
            )
        )
        for folder in sorted(p for p in args.corpora.glob("*") if p.is_dir()) if args.corpora.is_dir() else []:
            walls: dict[str, list[float]] = {"ours": [], "previous": []}
            for i in range(args.repeat):
                for impl in ("ours", "previous"):
                    store = work / f"{folder.name}-{impl}-{i}.sqlite"
                    walls[impl].append(_run([*clis[impl], "ingest", str(folder), "--store", str(store)])[1])
            rows.append((f"CLI ingest of {folder.name} (s)", min(walls["ours"]), min(walls["previous"]), False, ""))
        imports = {
            impl: _best_wall([str(py), "-c", "import contextpull"], args.repeat)
            - _best_wall([str(py), "-c", "pass"], args.repeat)
            for impl, py in pythons.items()
        }
        rows.append(
            (
                "import contextpull (ms)",
                imports["ours"] * 1e3,
                imports["previous"] * 1e3,
                False,
                "minus bare interpreter start",
            )
        )
        index = {
            impl: _best_wall([*clis[impl], "index", "--store", str(figures[impl]["store"])], args.repeat)
            for impl in pythons
        }
        rows.append(("contextpull index on the store (s)", index["ours"], index["previous"], False, ""))
        ops: dict[str, dict[str, Any]] = {}
        for impl, py in pythons.items():
            ops[impl], _ = _driver(
                py,
                impl,
                "ops",
                store=str(figures[impl]["store"]),
                queries=IDENTIFIERS,
                rounds=args.rounds,
                rss_searches=args.rss_searches,
            )
        rows.append(
            (
                f"frequent-identifier search p50 at {n:,} (ms)",
                ops["ours"]["search_p50_ms"],
                ops["previous"]["search_p50_ms"],
                False,
                "",
            )
        )
        rows.append(
            (
                f"frequent-identifier search p95 at {n:,} (ms)",
                ops["ours"]["search_p95_ms"],
                ops["previous"]["search_p95_ms"],
                False,
                "",
            )
        )
        rows.append(("read p50 (ms)", ops["ours"]["read_p50_ms"], ops["previous"]["read_p50_ms"], False, ""))
        rows.append(
            (
                f"RSS after {args.rss_searches:,} more searches (MB)",
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
        ratio = "n/a" if growth_row(metric) else _ratio(mine or 0.0, prev or 0.0, higher)
        cell = lambda v: "n/a" if v is None else (f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}")
        print(f"| {metric}{' — ' + note if note else ''} | {cell(mine)} | {cell(prev)} | {ratio} |")
    return 0


def growth_row(metric: str) -> bool:
    """Growth can be zero or negative, so a ratio means nothing there."""
    return metric.startswith("RSS growth")


if __name__ == "__main__":
    sys.exit(main())
