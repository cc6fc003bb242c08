"""Ingest at scale: sections per second, store bytes per section, no-op re-ingest time.

    python benchmarks/scale.py 100000            # synthetic corpus of ~100k sections
    python benchmarks/scale.py --corpus DIR      # a real folder
    python benchmarks/scale.py 20000 --profile   # where the ingest time goes
    python benchmarks/scale.py 20000 --latency   # add benchmarks/latency.py's figures
    python benchmarks/scale.py 100000 --embed static --latency
        # also ingest with section vectors: sections/s and store bytes per section against
        # the lexical-only ingest of the same corpus in the same run, and hybrid_latency.py's figures

Targets (docs/adr/002-store-format.md): >= 10,000 sections/s ingest,
<= 3 KB of store per section, no-op re-ingest of 100k sections <= 2 s.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import json
import os
import pstats
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from contextpull.ingestion.run import ingest

SECTIONS_PER_FILE = 20
_WORDS = (
    "cache index resolver wheel package lockfile environment interpreter request "
    "response header token budget section document folder store query snippet "
    "install configure deploy network proxy credential mirror version release "
    "the a of to and in is that for with as on by this be are from or at"
).split()
_IDENTIFIERS = ["UV_CACHE_DIR", "--no-cache", "tool.uv.sources", "http.request.method", "TX-4419"]


def _paragraph(rng: random.Random, words: int) -> str:
    out = [rng.choice(_WORDS) for _ in range(words)]
    out[rng.randrange(words)] = f"`{rng.choice(_IDENTIFIERS)}`"
    sentences, start = [], 0
    while start < words:
        end = min(words, start + rng.randint(8, 20))
        sentence = " ".join(out[start:end])
        sentences.append(sentence[0].upper() + sentence[1:] + ".")
        start = end
    return " ".join(sentences)


def _table(rng: random.Random, rows: int) -> str:
    lines = ["| name | value | notes |", "|---|---|---|"]
    lines += [f"| key{i} | {rng.randint(0, 999)} | {_paragraph(rng, 6)} |" for i in range(rows)]
    return "\n".join(lines)


def _document(rng: random.Random, number: int) -> str:
    parts = [f"# Topic {number}\n\n{_paragraph(rng, 40)}\n"]
    for s in range(1, SECTIONS_PER_FILE):
        level = "##" if s % 4 == 1 else "###"
        body = _paragraph(rng, rng.randint(90, 160))
        if s % 7 == 3:
            body += "\n\n" + _table(rng, rng.randint(4, 12))
        elif s % 5 == 2:
            body += "\n\n```python\n" + "\n".join(f"value_{i} = {i}" for i in range(8)) + "\n```"
        parts.append(f"{level} Part {number}.{s}\n\n{body}\n")
    return "\n".join(parts)


def build_corpus(root: Path, sections: int, *, seed: int = 7) -> int:
    """Write a synthetic Markdown corpus of about ``sections`` sections; return file count."""
    rng = random.Random(seed)
    files = max(1, round(sections / SECTIONS_PER_FILE))
    for number in range(files):
        folder = root / f"area{number % 17:02}" / f"topic{number % 211:03}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page{number:06}.md").write_text(_document(rng, number), encoding="utf-8")
    return files


def measure(
    corpus: Path, store: Path, *, workers: int = 0, profile: bool = False, embed: str | None = None
) -> dict[str, Any]:
    """Ingest ``corpus`` into a new ``store``, then re-ingest it unchanged.

    CPU time is reported for serial runs only (``workers=1``): worker
    processes' CPU is not visible from here.
    """
    profiler = cProfile.Profile() if profile else None
    started, cpu_started = time.perf_counter(), time.process_time()
    if profiler:
        profiler.enable()
    first = ingest(corpus, store, workers=workers, embed=embed)
    if profiler:
        profiler.disable()
    ingest_s = time.perf_counter() - started
    # CPU time too: on a shared machine wall time includes other people's work.
    ingest_cpu_s = time.process_time() - cpu_started
    started = time.perf_counter()
    second = ingest(corpus, store)
    noop_s = time.perf_counter() - started
    if second.wrote:
        raise SystemExit("the unchanged re-ingest wrote to the store: incremental ingest is broken")
    if profiler:
        pstats.Stats(profiler, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
    size = store.stat().st_size
    figures: dict[str, Any] = {
        "corpus": str(corpus),
        "workers": workers or "auto",
        "load_average_1m": round(os.getloadavg()[0], 1),
        "documents": first.documents,
        "sections": first.sections,
        "skipped": len(first.skipped),
        "ingest_s": round(ingest_s, 2),
        "sections_per_s": round(first.sections / ingest_s),
        "store_bytes": size,
        "store_bytes_per_section": round(size / max(1, first.sections)),
        "noop_reingest_s": round(noop_s, 3),
        "index_mode": first.index_mode,
        "index_tokens": first.index_tokens,
    }
    if embed:
        figures["embed_model"] = first.embed_model
        figures["vectors"] = first.vectors
    if workers == 1:
        figures["ingest_cpu_s"] = round(ingest_cpu_s, 2)
        figures["sections_per_cpu_s"] = round(first.sections / ingest_cpu_s)
    return figures


def latency(store: Path) -> dict[str, Any]:
    """Operation latencies from ``benchmarks/latency.py`` (``run(store_path) -> dict``)."""
    sys.path.insert(0, str(Path(__file__).parent))
    return importlib.import_module("latency").run(store)


def _with_vectors(corpus: Path, store: Path, lexical: dict[str, Any], args: argparse.Namespace) -> dict[str, Any]:
    """The same corpus ingested with ``--embed``: figures, and the cost against ``lexical`` in this run."""
    figures = measure(corpus, store, workers=args.workers, embed=args.embed)
    sections = max(1, figures["sections"])
    figures["ingest_s_added_by_vectors"] = round(figures["ingest_s"] - lexical["ingest_s"], 2)
    figures["store_bytes_added_per_section"] = round((figures["store_bytes"] - lexical["store_bytes"]) / sections)
    if args.latency:
        sys.path.insert(0, str(Path(__file__).parent))
        figures["hybrid_latency"] = importlib.import_module("hybrid_latency").run(store)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "sections",
        nargs="?",
        type=int,
        default=100_000,
        help="synthetic corpus size in sections (default 100000)",
    )
    parser.add_argument("--corpus", type=Path, help="ingest this folder instead of a synthetic one")
    parser.add_argument("--workers", type=int, default=0, help="parser processes (default 0: automatic, as the CLI)")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="cProfile the first ingest (stderr; use with --workers 1)",
    )
    parser.add_argument("--latency", action="store_true", help="also run benchmarks/latency.py")
    parser.add_argument(
        "--embed",
        metavar="SPEC",
        help="also ingest with section vectors (static, minilm, openai:<model>) and compare with lexical only",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="contextpull-scale-") as tmp:
        work = Path(tmp)
        corpus = args.corpus
        if corpus is None:
            corpus = work / "corpus"
            started = time.perf_counter()
            files = build_corpus(corpus, args.sections)
            print(f"built {files:,} files in {time.perf_counter() - started:.1f}s", file=sys.stderr)
        store = work / "store.sqlite"
        figures = measure(corpus, store, workers=args.workers, profile=args.profile)
        if args.latency:
            figures["latency"] = latency(store)
        if args.embed:
            figures["with_vectors"] = _with_vectors(corpus, work / "vectors.sqlite", figures, args)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:>24}: {value:,}" if isinstance(value, int) else f"{key:>24}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
