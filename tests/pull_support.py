"""What the pull tests share: a store of the bundled example corpus and its search hits."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.tools.schemas import call_json

CORPUS = Path(__file__).resolve().parents[1] / "examples" / "corpus"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real store ingested from ``examples/corpus``, shared by a module's tests (read-only)."""
    path = tmp_path_factory.mktemp("store") / "store.sqlite"
    ingest(CORPUS, path)
    return path


def hits(store: Path, query: str) -> list[str]:
    """The ids ``search`` returns for ``query``, as a model calling the tool would see them."""
    with Ops.open(store) as ops:
        payload, is_error = call_json(ops, "search", {"query": query})
    assert not is_error
    return [hit["id"] for hit in payload["hits"]]
