"""Hybrid search beside the push rows: recall@5 and MRR@5 per corpus and shape.

    python benchmarks/hybrid_quality.py                       # sample corpus and uv docs (committed sets)
    python benchmarks/hybrid_quality.py --corpora pydantic-docs,semconv-docs --dense static

An interim script of the hybrid work (issue 9) until ``benchmarks/search_quality.py``
carries a hybrid row. Each corpus is ingested with ``--embed static`` into a
temporary store (``--vectors minilm`` for the quality model); the rows are ``contextpull search`` in lexical and in hybrid
mode (the same store) and the push rows bm25, dense and hybrid RRF (dense with
``--dense``: MiniLM by default, as the published tables). Eval sets: the
committed ones for the sample corpus and the uv docs, the computed shapes
(80 questions, seed 0, no model) for the other shared corpora. The harness's
runner scores every row, so the figures are the bench's.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from contextpull.eval.bench import export_chunks
from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from pushpull.evalset import load_evalset
from pushpull.pipeline import Rows, evalset_for, score
from pushpull.questions import COMPUTED_SHAPES
from pushpull.retrievers import build_push_configs
from pushpull.scoring.report import render_table
from pushpull.scoring.runner import RunRow

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "corpora"
RESULTS = ROOT / "benchmarks" / "results"
CORPORA = {
    "sample": (ROOT / "examples" / "corpus", RESULTS / "sample-corpus" / "evalsets" / "evalset-1ac3c36933ed.jsonl"),
    "uv-docs": (SHARED / "uv-docs", RESULTS / "uv-docs" / "evalsets" / "evalset-54f27e615ac8.jsonl"),
    "pydantic-docs": (SHARED / "pydantic-docs", None),
    "semconv-docs": (SHARED / "semconv-docs", None),
    "pnpm-docs": (SHARED / "pnpm-docs", None),
}
#: dense embeddings cached across runs (per text hash), beside the other bench caches
CACHE = ROOT / ".cache" / "hybrid-quality"


class StoreSearch:
    """``contextpull search`` in one mode as a push adapter."""

    concurrency = 1

    def __init__(self, store: Path, mode: str, vectors: str) -> None:
        self.name = f"contextpull search ({mode}{f', {vectors} vectors' if mode == 'hybrid' else ''})"
        self.mode = mode
        self._ops = Ops.open(store, snippet=0)

    def retrieve(self, query: str, k: int) -> list[str]:
        return [hit.id for hit in self._ops.search(query, limit=k, snippet=0, mode=self.mode).hits]

    def close(self) -> None:
        self._ops.close()


def run_corpus(name: str, dense: str, vectors: str, out: Path) -> str:
    folder, evalset_path = CORPORA[name]
    with tempfile.TemporaryDirectory(prefix="hybrid-quality-") as tmp:
        store = Path(tmp) / "store.sqlite"
        ingest(folder, store, embed=vectors)
        chunks = export_chunks(store)
        if evalset_path is not None:
            evalset = load_evalset(evalset_path, chunks)
        else:
            evalset = evalset_for(chunks, CACHE / name, shapes=COMPUTED_SHAPES, provider=None, n=80, seed=0)
        rows = Rows()
        searches = [StoreSearch(store, "lexical", vectors), StoreSearch(store, "hybrid", vectors)]
        rows.rows.extend(RunRow(s.name, s) for s in searches)
        which = ["bm25"] if dense == "none" else ["bm25", "dense", "hybrid"]
        for config in build_push_configs(chunks, cache_dir=CACHE / name / "push", which=which, embedder=dense):
            if config.retriever is None:
                rows.skipped[config.name] = config.skip_reason or "unavailable"
            else:
                rows.rows.append(RunRow(config.name, config.retriever))
        try:
            result, _ = score(chunks, evalset, rows, out / name, k=5, sample=None, seed=0, judge=None)
        finally:
            for search in searches:
                search.close()
    return f"## {name} ({len(evalset.questions)} questions)\n\n{render_table(result)}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", default="sample,uv-docs", help=f"comma list of {', '.join(CORPORA)}")
    parser.add_argument("--dense", default="minilm", help="embedder of the dense push rows: minilm, static or none")
    parser.add_argument("--vectors", default="static", help="embedder of the store's vectors (default static)")
    parser.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "hybrid-quality")
    args = parser.parse_args(argv)
    for name in args.corpora.split(","):
        if not CORPORA[name][0].is_dir():
            print(f"## {name}: corpus not found at {CORPORA[name][0]}, skipped\n")
            continue
        print(run_corpus(name, args.dense, args.vectors, args.out), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
