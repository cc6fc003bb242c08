"""Every published run under ``benchmarks/results`` replays byte for byte on this code, without a model.

The published tables are only worth citing while the code that made them is
the code in the repository: a change to anything that shapes a tool result or
a prompt makes a replay refuse, and this test fails until the run is re-made
(``make remake-results``) or re-executed on its recorded model answers
(``make reexecute-results``). Each replay re-scores the push and search rows now
and answers every model call from the run's committed caches; a few seconds
a corpus.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_support import run

REPO = Path(__file__).resolve().parents[2]
RUNS = sorted(path.parent for path in (REPO / "benchmarks" / "results").glob("*/results.json"))
LEAKAGE = sorted(path.parent for path in (REPO / "benchmarks" / "results").glob("*/leakage/leakage.json"))


def corpus_of(run_dir: Path, corpora: Path) -> Path:
    """The folder a run was made over: the bundled corpus, else the shared corpus of the run's name."""
    return REPO / "examples" / "corpus" if run_dir.name == "sample-corpus" else corpora / run_dir.name


#: the runs the README's summary table stands on
PUBLISHED = {"sample-corpus", "uv-docs", "pydantic-docs", "semconv-docs", "pnpm-docs"}


def test_the_bundled_corpus_and_four_shared_corpora_are_published() -> None:
    assert {run_dir.name for run_dir in RUNS} == PUBLISHED


@pytest.mark.parametrize("run_dir", RUNS, ids=lambda path: path.name)
def test_a_published_run_replays_byte_for_byte_without_a_model(run_dir: Path, corpora: Path, tmp_path: Path) -> None:
    corpus = corpus_of(run_dir, corpora)
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is not on this machine")
    proc = run(
        "bench", str(corpus), "--store", str(tmp_path / "store.sqlite"), "--replay", str(run_dir),
        "--out", str(tmp_path / "replay"), "--view", "none",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert f"replay of {run_dir}: table.txt reproduced byte for byte" in proc.stdout, proc.stdout[-2000:]


@pytest.mark.parametrize("folder", LEAKAGE, ids=lambda path: path.parent.name)
def test_a_published_snippet_leakage_experiment_replays_on_this_code(folder: Path) -> None:
    script = REPO / "benchmarks" / "snippet_leakage.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--replay", str(folder)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout[-1000:]
    assert "leakage.txt reproduced byte for byte" in proc.stdout


@pytest.mark.parametrize("folder", LEAKAGE, ids=lambda path: path.parent.name)
def test_a_published_snippet_leakage_experiment_re_executes_with_no_model_installed(
    folder: Path, corpora: Path, tmp_path: Path
) -> None:
    """Today's code asks the model what the experiment recorded: every question is reproduced from its
    answers, on a machine where no model is installed (``make reexecute-results`` needs none then)."""
    run_dir = folder.parent
    corpus = corpus_of(run_dir, corpora)
    if not corpus.is_dir():
        pytest.skip(f"{corpus} is not on this machine")
    shutil.copytree(run_dir / "pull" / "pull_runs", tmp_path / "cache" / "full" / "pull_runs")
    script = REPO / "benchmarks" / "snippet_leakage.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--run", str(run_dir), "--corpus", str(corpus), "--re-execute", str(folder),
         "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out")],
        capture_output=True, text=True, check=False,
        env={**os.environ, "XDG_CACHE_HOME": str(tmp_path / "no-models")},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    counts = re.search(r"reproduced/run again (.*)$", proc.stdout, re.MULTILINE)
    assert counts is not None, proc.stdout[-1000:]
    assert all(again == "0" for again in re.findall(r"\d+/(\d+)", counts.group(1))), counts.group(0)
    # the same table: the figures come from today's code and the recorded answers, the seconds as recorded
    assert (tmp_path / "out" / "leakage.txt").read_bytes() == (folder / "leakage.txt").read_bytes()
