"""A path filter costs the same order as the unfiltered query, counted in SQLite's virtual-machine steps.

The work is counted, not timed (a timed ratio fails at random on a busy
machine): SQLite's progress handler is called every :data:`STEP` VM
instructions of the store's connection while the query runs.
"""

from __future__ import annotations

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


#: VM instructions per progress-handler call
STEP = 100


def _steps(ops: Ops, query: str, in_: str | None) -> int:
    """SQLite VM instructions (in units of :data:`STEP`) that one search runs, warm."""
    assert ops.search(query, in_=in_, limit=10).hits  # the first search fills the caches
    count = 0

    def tick() -> int:
        nonlocal count
        count += 1
        return 0

    connection = ops.store._conn
    connection.set_progress_handler(tick, STEP)
    try:
        assert ops.search(query, in_=in_, limit=10).hits
    finally:
        connection.set_progress_handler(None, STEP)
    return count


@pytest.mark.parametrize("in_", ["*", "area*", "area1/*"])
@pytest.mark.parametrize("query", ["cache", "request header"])
def test_a_broad_filter_costs_about_what_no_filter_costs(store: Path, query: str, in_: str) -> None:
    with Ops.open(store) as ops:
        plain = _steps(ops, query, None)
        filtered = _steps(ops, query, in_)
    assert plain > 0
    assert filtered / plain < 10, f"{plain * STEP:,} -> {filtered * STEP:,} VM steps"
