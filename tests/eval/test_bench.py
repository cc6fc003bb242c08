"""``contextpull bench DIR`` end to end on a copy of the bundled sample corpus (push row bm25 only, for speed)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from contextpull.eval.bench import BenchOptions, export_chunks, run_bench
from contextpull.eval.search_adapter import ContextPullSearch
from contextpull.ingestion.run import ingest
from pushpull.chunks import fingerprint

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"
TABLE_DOC = """# Regions

| Region | Daily cap | Currency |
|---|---|---|
| Tokyo | 250 | JPY |
| Lisbon | 180 | EUR |

Error codes TX-4401 and TX-4419 are explained in [codes](codes.md).
"""
CODES_DOC = "# Codes\n\nTX-4401 means declined.\n\n## Timeouts\n\nTX-4419 means the bank timed out.\n"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    if EXAMPLES.is_dir():
        return Path(shutil.copytree(EXAMPLES, tmp_path / "corpus", ignore=shutil.ignore_patterns(".contextpull")))
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "regions.md").write_text(TABLE_DOC)
    (root / "codes.md").write_text(CODES_DOC)
    return root


def bench(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "contextpull", "bench", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def test_bench_prints_one_table_and_writes_results(corpus: Path) -> None:
    done = bench(corpus, "--push", "bm25")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["config", "recall@5"]
    rows = [line.split("  ")[0] for line in lines[2:] if line and not line.startswith(" ")]
    assert rows[:2] == ["bm25 floor (bare terms)", "contextpull search"]
    assert "verdict per shape, recall@5" in done.stdout and "best push row" in done.stdout
    assert "skipped shape conceptual: no model configured" in done.stdout
    assert "spend: no model calls" in done.stdout
    out = corpus / ".contextpull" / "bench"
    data = json.loads((out / "results.json").read_text())
    assert [row["name"] for row in data["rows"]] == ["bm25 floor (bare terms)", "contextpull search"]
    assert [row["push"] for row in data["rows"]] == [True, False]
    assert data["verdict"]["all"][0]["best_push"] == "bm25 floor (bare terms)"
    assert set(data["shown"]) == {"index", "instructions", "tools"}
    search = data["rows"][1]
    assert search["overall"]["n"] == sum(data["evalset"]["counts"].values()) > 0
    assert search["overall"]["recall"] > 0 and search["overall"]["errors"] == 0
    assert (out / "runs" / "contextpull-search.trec").exists()


def test_bench_dense_rows_take_the_embedder_asked_for_and_record_it(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench-out"
    done = bench(corpus, "--push", "dense,hybrid", "--embedder", "static", "--out", out, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "results.json").read_text())
    assert [row["name"] for row in data["rows"]][:2] == ["dense (static)", "hybrid rrf (tantivy bm25+dense static)"]
    assert data["options"]["embedder"] == "static"
    unknown = bench(corpus, "--push", "dense", "--embedder", "sbert:x", "--out", tmp_path / "x")
    assert (
        unknown.returncode == 2 and unknown.stderr.count("\n") == 1 and "unknown embedder 'sbert:x'" in unknown.stderr
    )


def test_bench_reuses_the_eval_set_until_the_corpus_changes(corpus: Path, tmp_path: Path) -> None:
    out = tmp_path / "bench-out"
    first = run_bench(BenchOptions(corpus, push=["bm25"], out=out))
    again = run_bench(BenchOptions(corpus, push=["bm25"], out=out))
    assert not first.evalset.cached and again.evalset.cached
    assert again.run.fingerprint == first.run.fingerprint
    (corpus / "extra.md").write_text(TABLE_DOC.replace("Tokyo", "Osaka").replace("Lisbon", "Porto"))
    changed = run_bench(BenchOptions(corpus, push=["bm25"], out=out))
    assert not changed.evalset.cached and changed.run.fingerprint != first.run.fingerprint


def test_bench_can_keep_its_store_outside_a_read_only_corpus(corpus: Path, tmp_path: Path) -> None:
    store, out = tmp_path / "elsewhere" / "store.sqlite", tmp_path / "bench-out"
    result = run_bench(BenchOptions(corpus, push=["bm25"], out=out, store=store))
    assert store.is_file() and not (corpus / ".contextpull").exists()
    assert result.run.rows and (out / "results.json").is_file()


def test_search_adapter_returns_what_search_returns(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    ingest(corpus, store)
    chunks = export_chunks(store)
    assert chunks and fingerprint(chunks) == fingerprint(export_chunks(store))
    adapter = ContextPullSearch(store)
    word = chunks[0].text.split()[1].strip("#*`|")
    ids = adapter.retrieve(word, 3)
    assert 0 < len(ids) <= 3 and set(ids) <= {c.id for c in chunks}
    adapter.close()


def test_bench_errors_are_one_line(tmp_path: Path, corpus: Path) -> None:
    missing = bench(tmp_path / "nope")
    assert (
        missing.returncode == 1
        and "Traceback" not in missing.stderr
        and missing.stderr.startswith("contextpull: error:")
    )
    bad_shape = bench(corpus, "--shapes", "tabel")
    assert bad_shape.returncode == 2 and "unknown shape" in bad_shape.stderr


def test_a_judge_that_cannot_run_is_refused_before_any_work(corpus: Path) -> None:
    env_free = {k: v for k, v in __import__("os").environ.items() if not k.endswith("_API_KEY")}
    done = subprocess.run(
        [sys.executable, "-m", "contextpull", "bench", str(corpus), "--push", "bm25", "--judge", "anthropic:claude-x"],
        capture_output=True,
        text=True,
        timeout=300,
        env=env_free,
    )
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "anthropic:claude-x" in done.stderr and "ANTHROPIC_API_KEY" in done.stderr
