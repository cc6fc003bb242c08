"""A path filter costs the same order as the unfiltered query (a ratio, measured in one run)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops

WORDS = "cache index resolver wheel package lockfile environment request header token budget store".split()


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("filters") / "corpus"
    for number in range(200):
        folder = root / f"area{number % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        sections = []
        for part in range(20):
            words = " ".join(WORDS[(number + part + k) % len(WORDS)] for k in range(40))
            sections.append(f"## Part {part} {WORDS[part % len(WORDS)]}\n\n{words}. {words}.\n")
        (folder / f"doc{number:03d}.md").write_text(f"# Doc {number}\n\n" + "\n".join(sections))
    store = root.parent / "store.sqlite"
    ingest(root, store)
    return store


def _best_of(ops: Ops, query: str, in_: str | None) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        assert ops.search(query, in_=in_, limit=10).hits
        best = min(best, time.perf_counter() - started)
    return best


@pytest.mark.parametrize("in_", ["*", "area*", "area1/*"])
@pytest.mark.parametrize("query", ["cache", "request header"])
def test_a_broad_filter_costs_about_what_no_filter_costs(store: Path, query: str, in_: str) -> None:
    with Ops.open(store) as ops:
        plain = _best_of(ops, query, None)
        filtered = _best_of(ops, query, in_)
    assert filtered / max(plain, 0.005) < 10, f"{plain * 1000:.1f} ms -> {filtered * 1000:.1f} ms"
