"""benchmarks/latency.py draws its calls from the sections a store holds, whatever ids they have."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

from contextpull.ingestion.run import ingest
from script_support import load_script


def load_latency():
    return load_script("benchmarks/latency.py", "latency_bench")


def test_a_store_ingested_twice_still_gives_a_workload(tmp_path: Path) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    for name in ("alpha", "beta", "gamma"):
        (corpus / f"{name}.md").write_text(
            f"# {name.title()} guide\n\nConfigure the {name}_cache_dir setting before deploying workers.\n",
            encoding="utf-8",
        )
    store = tmp_path / "store.sqlite"
    ingest(corpus, store, workers=0)
    (corpus / "alpha.md").write_text("# Alpha guide\n\nRestart the workers after a release.\n", encoding="utf-8")
    ingest(corpus, store, workers=0)  # alpha's sections are written again, under new ids
    with sqlite3.connect(store) as conn:
        ids = [rowid for (rowid,) in conn.execute("SELECT id FROM sections ORDER BY id")]
        sids = [sid for (sid,) in conn.execute("SELECT sid FROM sections")]
    assert ids != list(range(1, len(ids) + 1))  # a gap, as a store ingested more than once has

    workload = load_latency()._workload(store, random.Random(0))

    assert sorted(workload["read"]) == sorted(sids)  # fewer sections than the sample: every one drawn
    assert workload["search_two_common_words"] and workload["search_ten_word_question"]
