"""The computed shapes on real documentation (uv, semconv): every question must be answerable from its gold.

Skips a corpus that is not beside the repository.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contextpull.eval.bench import export_chunks
from contextpull.ingestion.run import ingest
from contextpull_mdinline import plain_text
from pushpull.chunks import Chunk
from pushpull.evalset import build_evalset


def _chunks(corpora: Path, name: str, tmp_path: Path) -> list[Chunk]:
    root = corpora / name
    if not root.is_dir():
        pytest.skip(f"corpus {name} is not at {root}")
    store = tmp_path / f"{name}.sqlite"
    ingest(root, store)
    return export_chunks(store)


@pytest.mark.parametrize("name", ["uv-docs", "semconv-docs"])
def test_computed_questions_are_answerable_from_their_gold(name: str, corpora: Path, tmp_path: Path) -> None:
    chunks = _chunks(corpora, name, tmp_path)
    text = {c.id: c.text for c in chunks}
    evalset = build_evalset(chunks, shapes=["aggregation", "table"], n=80)
    assert evalset.counts.get("aggregation") and evalset.counts.get("table")
    for question in evalset.questions:
        gold_text = "\n".join(text[g] for g in question.gold_chunk_ids)
        if question.shape == "table":
            rows = [
                plain_text(ln) for ln in text[question.gold_chunk_ids[0]].splitlines() if ln.lstrip().startswith("|")
            ]
            assert question.identifier in question.q, question
            assert any(question.identifier in row and question.answer in row for row in rows), question
            assert (
                any(ch.isalnum() for ch in question.answer)
                and question.answer.casefold() != question.identifier.casefold()
            )
        else:
            members = question.answer.split(", ")
            assert len(members) >= 2 and not question.identifier.startswith("*")
            assert all(m in gold_text for m in members), question
