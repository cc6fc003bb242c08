"""The shared real corpora ingest with no unexplained skips (skipped when absent)."""

from __future__ import annotations

import pytest

from contextpull.analysis.tokens import estimate_tokens
from contextpull.ingestion.discover import UNSUPPORTED
from contextpull.ingestion.run import ingest
from contextpull.parse.formats import format_for
from contextpull.store import Store

#: the large ones take several seconds each on a loaded 2-core machine
SLOW = {"semconv-docs", "pnpm-docs"}
CORPUS_NAMES = ["uv-docs", "pydantic-docs", "semconv-docs", "pnpm-docs"]


@pytest.mark.parametrize(
    "name",
    [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in CORPUS_NAMES],
)
def test_corpus_ingests_cleanly(name, corpora, tmp_path):
    root = corpora / name
    if not root.is_dir():
        pytest.skip(f"corpus {name} not present at {root}")
    store_path = tmp_path / "store.sqlite"
    report = ingest(root, store_path)
    # The only expected skips are files no parser reads, such as LICENSE.
    assert {reason for _, reason in report.skipped} <= {UNSUPPORTED}
    assert all(format_for(path) is None for path, _ in report.skipped)
    supported = [p for p in root.rglob("*") if p.is_file() and format_for(p.name) is not None]
    assert report.documents == len(supported) == report.added
    assert report.sections > report.documents
    with Store.open(store_path) as store:
        assert estimate_tokens(store.index_text) <= 3000
        assert not ingest(root, store_path).wrote
