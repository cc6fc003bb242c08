"""The independent harness ragbisect 0.2.0 scores our files and our adapter exactly as pushpull does.

ragbisect needs Python 3.12, so it lives in its own venv (cached in
``~/.cache/contextpull-tests/rb312``), which :mod:`pushpull.ragbisect_env`
creates with whatever 3.12 it finds or installs (``$RAGBISECT_PYTHON`` names
one); without one the test skips and says why. It reads our exported chunks and our
computed-shape questions file and runs an adapter file that wraps ContextPull
``search`` (through our CLI, since ContextPull is installed in the 3.11 venv
only); pushpull runs the same adapter file on the same files. The printed
recall@5, MRR@5 and NDCG@5|hit must agree. ``run`` with ``--questions`` and
``--no-baselines`` makes no model call (ragbisect only builds its client), so no
API key is needed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from contextpull.eval.bench import export_chunks
from contextpull.ingestion.run import ingest
from pushpull.chunks import write_chunks
from pushpull.evalset import build_evalset, save_evalset
from pushpull.ragbisect_env import DEFAULT_VENV, Unavailable, ragbisect_venv

VENV = DEFAULT_VENV
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"

ADAPTER = '''
import json, os, subprocess

class ContextPullSearchCLI:
    """ContextPull search, top k, via the contextpull CLI of the project's own venv."""

    def retrieve(self, query, k):
        done = subprocess.run(
            [os.environ["CONTEXTPULL_PYTHON"], "-m", "contextpull", "search", query,
             "--limit", str(k), "--snippet", "0", "--json", "--store", os.environ["CONTEXTPULL_STORE"]],
            capture_output=True, text=True, check=True,
        )
        return [hit["id"] for hit in json.loads(done.stdout)["hits"]]
'''


def ragbisect() -> Path:
    """ragbisect's executable in its 3.12 venv, set up on first use; skips with the reason when it cannot be."""
    try:
        return ragbisect_venv(VENV).parent / "ragbisect"
    except Unavailable as err:
        pytest.skip(str(err))


#: below the gold count of the aggregation questions, so search cannot score a trivial 1.0 on every metric
K = "2"


def _adapter_row(table: str) -> list[str]:
    line = next(line for line in table.splitlines() if line.startswith("your adapter"))
    return line[len("your adapter") :].split()


def test_ragbisect_reports_the_same_recall_and_mrr(tmp_path: Path) -> None:
    exe = ragbisect()
    if not EXAMPLES.is_dir():
        pytest.skip("examples/corpus is not present")
    store = tmp_path / "store.sqlite"
    ingest(EXAMPLES, store)
    chunks = export_chunks(store)
    chunk_path = tmp_path / "chunks.jsonl"
    write_chunks(chunks, chunk_path)
    evalset = build_evalset(chunks, shapes=["table", "aggregation"], n=24, seed=1)
    assert evalset.counts.get("table") and evalset.counts.get("aggregation")
    questions = tmp_path / "questions.jsonl"
    save_evalset(evalset, questions)
    (tmp_path / "cpsearch.py").write_text(ADAPTER)
    env = {**os.environ, "CONTEXTPULL_PYTHON": sys.executable, "CONTEXTPULL_STORE": str(store)}
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(key, None)

    theirs = subprocess.run(
        [
            str(exe),
            "run",
            "--corpus",
            str(chunk_path),
            "--questions",
            str(questions),
            "--adapter",
            "cpsearch.py:ContextPullSearchCLI",
            "--no-baselines",
            "--k",
            K,
            "--workdir",
            str(tmp_path / "rb"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert theirs.returncode == 0, theirs.stderr
    assert "adapter raised" not in theirs.stderr
    recall, mrr, ndcg_hit = _adapter_row(theirs.stdout)[:3]

    ours = subprocess.run(
        [
            sys.executable,
            "-m",
            "pushpull",
            "run",
            "--chunks",
            str(chunk_path),
            "--questions",
            str(questions),
            "--adapter",
            "cpsearch.py:ContextPullSearchCLI",
            "--push",
            "none",
            "--k",
            K,
            "--json",
            "--out",
            str(tmp_path / "pp"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ours.returncode == 0, ours.stderr
    overall = json.loads(ours.stdout)["rows"][0]["overall"]
    assert overall["errors"] == 0 and overall["n"] == len(evalset.questions)
    assert recall == f"{overall['recall']:.3f}"
    assert mrr == f"{overall['mrr']:.3f}"
    assert ndcg_hit == f"{overall['ndcg_given_hit']:.3f}"
    print(
        f"ragbisect: recall@5 {recall}, MRR@5 {mrr}, NDCG@5|hit {ndcg_hit}; pushpull: {overall['recall']:.3f} {overall['mrr']:.3f} {overall['ndcg_given_hit']:.3f}"
    )
    assert (
        0 < overall["recall"] < 1
    )  # a comparison that could not tell a broken scorer from a working one proves nothing
