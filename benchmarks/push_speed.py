"""Speed and memory of the push retrievers (bm25, dense), with ragbisect's bm25 beside ours.

Run:  .venv/bin/python benchmarks/push_speed.py [--chunks uv.jsonl] [--queries 1000] [--python312 PATH]

Chunks come from ``--chunks`` (a JSONL export, e.g. ``contextpull export-chunks``)
or, by default, from the uv docs split on Markdown headings right here (a
different chunking from the export: the script prints the count it used).
ragbisect needs Python 3.12, so its bm25 runs in a venv this script creates
(``pushpull.ragbisect_env``: ``--python312``, ``$RAGBISECT_PYTHON``, python3.12
on PATH, pyenv, or ``uv python install 3.12``), timed there on the same chunks
and queries; when no 3.12 can be found the comparison is skipped with the reason. Queries
are seeded word windows cut from chunk texts, so every run asks the same
questions. Dense memory is measured at 100,000 chunks in a fresh process with
synthetic unit vectors standing in for passage embeddings (embedding 100k real
passages at ~20/s would take over an hour) and the real model for the queries.
Figures go to stdout; progress to stderr.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from contextpull_vec.minilm import MiniLMOnnxEmbedder
from pushpull.chunks import Chunk, read_chunks, write_chunks
from pushpull.ragbisect_env import Unavailable, ragbisect_venv
from pushpull.retrievers.bm25 import BM25Retriever
from pushpull.retrievers.dense import DenseRetriever

REPO = Path(__file__).resolve().parents[1]
UV_DOCS = REPO.parent / "shared" / "corpora" / "uv-docs" / "docs"
_HEADING = re.compile(r"^#{1,6}\s")
_FENCE = re.compile(r"^\s*(```|~~~)")


def heading_chunks(root: Path) -> list[Chunk]:
    """Each Markdown file split before every heading outside code fences."""
    chunks: list[Chunk] = []
    for path in sorted(root.rglob("*.md")):
        source = path.relative_to(root).as_posix()
        sections: list[list[str]] = [[]]
        fenced = False
        for line in path.read_text(encoding="utf-8").splitlines():
            fenced ^= bool(_FENCE.match(line))
            if not fenced and _HEADING.match(line) and any(s.strip() for s in sections[-1]):
                sections.append([])
            sections[-1].append(line)
        texts = ["\n".join(lines).strip() for lines in sections]
        chunks += [Chunk(f"{source}#{n}", text, source) for n, text in enumerate(filter(None, texts), start=1)]
    return chunks


def sample_queries(chunks: Sequence[Chunk], n: int, seed: int) -> list[str]:
    """``n`` windows of 3-8 consecutive words, each from a seeded random chunk."""
    rng = random.Random(seed)
    words = [c.text.split() for c in chunks if len(c.text.split()) >= 3]
    queries = []
    for _ in range(n):
        text = rng.choice(words)
        size = rng.randint(3, min(8, len(text)))
        start = rng.randrange(len(text) - size + 1)
        queries.append(" ".join(text[start : start + size]))
    return queries


def timed_queries(
    retrieve: Callable[[str, int], list[str]], queries: Sequence[str], k: int
) -> tuple[np.ndarray, list[list[str]]]:
    """Per-query latency in ms and the rankings."""
    latencies, rankings = [], []
    for query in queries:
        started = time.perf_counter()
        rankings.append(retrieve(query, k))
        latencies.append((time.perf_counter() - started) * 1000)
    return np.array(latencies), rankings


def report(label: str, build_s: float, latencies: np.ndarray) -> float:
    qps = len(latencies) / (latencies.sum() / 1000)
    print(
        f"{label:<28} build {build_s:7.2f} s   p50 {np.percentile(latencies, 50):7.3f} ms   "
        f"p95 {np.percentile(latencies, 95):7.3f} ms   {qps:9.0f} queries/s"
    )
    return qps


#: runs inside the ragbisect venv: build its bm25 over the chunks, time every query, print JSON
RAGBISECT_TIMER = """
import json, sys, time
import ragbisect
from ragbisect.corpus import read_chunks_jsonl
from ragbisect.retrievers import BM25Retriever
from pathlib import Path
chunks = read_chunks_jsonl(Path(sys.argv[1]))
queries = json.loads(Path(sys.argv[2]).read_text())
k = int(sys.argv[3])
started = time.perf_counter()
bm25 = BM25Retriever(chunks)
build = time.perf_counter() - started
latencies, rankings = [], []
for query in queries:
    started = time.perf_counter()
    rankings.append(bm25.retrieve(query, k))
    latencies.append((time.perf_counter() - started) * 1000)
print(json.dumps({"version": ragbisect.__version__, "build_s": build, "ms": latencies, "rankings": rankings}))
"""


def time_ragbisect_bm25(
    chunks: Sequence[Chunk], queries: Sequence[str], k: int, python312: str | None
) -> dict[str, Any]:
    """ragbisect's bm25 timed in its own 3.12 venv on the same chunks and queries; raises Unavailable."""
    interpreter = ragbisect_venv(python=python312)
    with tempfile.TemporaryDirectory(prefix="push-speed-") as scratch:
        chunk_file, query_file = Path(scratch) / "chunks.jsonl", Path(scratch) / "queries.json"
        write_chunks(list(chunks), chunk_file)
        query_file.write_text(json.dumps(list(queries)), encoding="utf-8")
        done = subprocess.run(
            [str(interpreter), "-c", RAGBISECT_TIMER, str(chunk_file), str(query_file), str(k)],
            capture_output=True,
            text=True,
            check=False,
        )
    if done.returncode != 0:
        raise Unavailable(f"ragbisect's bm25 failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    return dict(json.loads(done.stdout))


def bench_bm25(chunks: Sequence[Chunk], queries: Sequence[str], k: int, python312: str | None) -> None:
    started = time.perf_counter()
    ours = BM25Retriever(chunks)
    ours_build = time.perf_counter() - started
    ours_lat, ours_rank = timed_queries(ours.retrieve, queries, k)
    ours_qps = report("bm25 (pushpull, bm25s)", ours_build, ours_lat)

    try:
        theirs = time_ragbisect_bm25(chunks, queries, k, python312)
    except Unavailable as err:
        print(f"ragbisect bm25: skipped ({err})")
        return
    theirs_qps = report(f"bm25 (ragbisect {theirs['version']})", theirs["build_s"], np.array(theirs["ms"]))
    top1 = np.mean([bool(a) and bool(b) and a[0] == b[0] for a, b in zip(ours_rank, theirs["rankings"])])
    print(
        f"bm25 speed-up vs ragbisect: {ours_qps / theirs_qps:.1f}x queries/s (target >= 10x); "
        f"top-1 agreement {top1:.0%} (tokenizers differ: ours adds identifier pieces); "
        f"both timed in this run, ragbisect in its Python 3.12 venv"
    )


def bench_dense(chunks: Sequence[Chunk], queries: Sequence[str], k: int, cache_dir: Path) -> None:
    started = time.perf_counter()
    embedder = MiniLMOnnxEmbedder()
    print(f"minilm model load            {time.perf_counter() - started:.2f} s")
    for attempt in ("first build", "cached build"):
        started = time.perf_counter()
        dense = DenseRetriever(chunks, embedder=embedder, cache_dir=cache_dir)
        elapsed = time.perf_counter() - started
        rate = f", {dense.embedded / elapsed:.1f} passages/s" if dense.embedded else ""
        print(f"dense {attempt:<22} {elapsed:7.2f} s  ({dense.embedded} chunks embedded{rate})")
    latencies, _ = timed_queries(dense.retrieve, queries, k)
    report(f"dense (minilm), {len(chunks)} chunks", elapsed, latencies)


class SyntheticPassages(MiniLMOnnxEmbedder):
    """Seeded random unit vectors for passages; the real model for queries."""

    def __init__(self, marker: str) -> None:
        super().__init__()
        self.marker = marker
        self.rng = np.random.default_rng(0)

    def embed(self, texts: list[str]) -> np.ndarray:
        if texts and texts[0].startswith(self.marker):
            vectors = self.rng.standard_normal((len(texts), self.dim), dtype=np.float32)
            return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
        return super().embed(texts)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def dense_memory_child(n: int, queries: Sequence[str], k: int) -> None:
    """Runs in a fresh process so ru_maxrss is this measurement's peak alone."""
    embedder = SyntheticPassages("synthetic ")
    embedder.embed(["warm up the model"])
    base = rss_mb()
    chunks = [Chunk(f"s#{i}", f"synthetic passage {i}", "synthetic") for i in range(n)]
    started = time.perf_counter()
    dense = DenseRetriever(chunks, embedder=embedder, cache_dir=None, progress=False)
    build = time.perf_counter() - started
    latencies, _ = timed_queries(dense.retrieve, queries, k)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    matrix_mb = dense.matrix.nbytes / 2**20
    print(
        f"dense at {n:,} chunks: matrix {matrix_mb:.0f} MB; RSS after model load {base:.0f} MB, "
        f"peak {peak:.0f} MB (+{peak - base:.0f} MB); build {build:.1f} s"
    )
    report(f"dense (minilm), {n:,} synth.", build, latencies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--chunks", type=Path, help="JSONL chunk file (default: uv docs split on headings)")
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "pushpull-bench")
    parser.add_argument("--skip-dense", action="store_true")
    parser.add_argument("--python312", help="a Python 3.12 for ragbisect's venv (default: found or installed)")
    parser.add_argument("--memory-chunks", type=int, default=100_000)
    parser.add_argument("--memory-queries", type=int, default=200)
    parser.add_argument("--dense-memory-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.chunks:
        chunks, origin = read_chunks(args.chunks), str(args.chunks)
    elif UV_DOCS.is_dir():
        chunks, origin = heading_chunks(UV_DOCS), f"{UV_DOCS} split on headings by this script"
    else:
        sys.exit(f"no chunks: pass --chunks or provide {UV_DOCS}")

    if args.dense_memory_child:
        dense_memory_child(args.memory_chunks, sample_queries(chunks, args.memory_queries, args.seed), args.k)
        return

    queries = sample_queries(chunks, args.queries, args.seed)
    print(f"chunks: {len(chunks)} from {origin}; {len(queries)} queries (seed {args.seed}), k={args.k}")
    print(
        f"machine: {len(__import__('os').sched_getaffinity(0))} cores, load average at start "
        f"{Path('/proc/loadavg').read_text().split()[0]}"
    )
    bench_bm25(chunks, queries, args.k, args.python312)
    if args.skip_dense:
        return
    bench_dense(chunks, queries, args.k, args.cache_dir)
    child = [
        sys.executable,
        __file__,
        "--dense-memory-child",
        "--memory-chunks",
        str(args.memory_chunks),
        "--memory-queries",
        str(args.memory_queries),
        "--seed",
        str(args.seed),
        "--k",
        str(args.k),
    ]
    if args.chunks:
        child += ["--chunks", str(args.chunks)]
    subprocess.run(child, check=True)


if __name__ == "__main__":
    main()
