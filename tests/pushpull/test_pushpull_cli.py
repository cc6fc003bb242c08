"""``pushpull`` end to end, as a subprocess, on a chunk file and a trivial adapter file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from pushpull_support import chunk_file

ADAPTER = '''
class FirstWords:
    """Ranks chunks by how many query words they contain; built from the chunk list, as ragbisect does."""

    def __init__(self, chunks):
        self.chunks = chunks

    def retrieve(self, query, k):
        words = set(query.lower().replace("?", " ").split())
        scored = sorted(self.chunks, key=lambda c: -len(words & set(c.text.lower().split())))
        return [c.id for c in scored[:k]]


class Broken:
    def retrieve(self, query, k):
        raise ValueError("nope")
'''


def pushpull(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pushpull", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_build_evalset_then_reuse(tmp_path: Path) -> None:
    chunks = chunk_file(tmp_path)
    first = pushpull(
        "build-evalset", "--chunks", chunks, "--shapes", "table,aggregation", "--out", "out", "--json", cwd=tmp_path
    )
    assert first.returncode == 0, first.stderr
    info = json.loads(first.stdout)
    assert info["cached"] is False and info["counts"]["table"] > 0 and info["counts"]["aggregation"] > 0
    second = pushpull(
        "build-evalset", "--chunks", chunks, "--shapes", "table,aggregation", "--out", "out", cwd=tmp_path
    )
    assert second.returncode == 0 and second.stdout.startswith("reused cached eval set")
    assert "spend: no model calls" in second.stderr


def test_run_prints_one_table_and_writes_the_folder(tmp_path: Path) -> None:
    chunks = chunk_file(tmp_path)
    (tmp_path / "adapter.py").write_text(ADAPTER)
    done = pushpull(
        "run",
        "--chunks",
        chunks,
        "--adapter",
        "adapter.py:FirstWords",
        "--adapter",
        "adapter.py:Broken",
        "--push",
        "bm25",
        "--k",
        "3",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].split()[:2] == ["config", "recall@3"]
    names = [line.split("  ")[0] for line in lines[2:] if line and not line.startswith(" ")]
    assert names[:3] == ["adapter.py:FirstWords", "adapter.py:Broken", "bm25 floor (bare terms)"]
    broken = next(line for line in lines if line.startswith("adapter.py:Broken")).split()
    assert broken[1] == "0.000" and int(broken[-4]) == int(broken[-5]) > 0  # every question an error, counted
    assert "skipped shape conceptual: no model configured" in done.stdout
    assert "spend: no model calls" in done.stdout
    out = tmp_path / "out"
    assert (out / "results.json").exists() and (out / "misses.jsonl").exists()
    assert sorted(p.name for p in (out / "runs").iterdir()) == [
        "adapter.py-Broken.trec",
        "adapter.py-FirstWords.trec",
        "bm25-floor-bare-terms.trec",
        "sample-ids.txt",
    ]
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    broken_ids = [q["qid"] for q in data["rows"][1]["questions"]]
    broken_lines = (out / "runs" / "adapter.py-Broken.trec").read_text(encoding="utf-8").splitlines()
    assert [line.split()[:3] for line in broken_lines] == [[qid, "Q0", "__nothing_retrieved__"] for qid in broken_ids]
    assert (out / "runs" / "sample-ids.txt").read_text(encoding="utf-8").split() == broken_ids
    provenance = data["provenance"]
    assert "pushpull run --chunks" in provenance["command"] and "adapter.py:Broken" in provenance["command"]
    assert provenance["commit"] is None or len(provenance["commit"]) == 40
    assert provenance["clean"] in (True, False, None) and provenance["machine"]["cpus"] >= 1


def test_run_json_with_a_questions_file(tmp_path: Path) -> None:
    chunks = chunk_file(tmp_path)
    (tmp_path / "adapter.py").write_text(ADAPTER)
    assert (
        pushpull("build-evalset", "--chunks", chunks, "--shapes", "table", "--out", "out", cwd=tmp_path).returncode == 0
    )
    (questions,) = (tmp_path / "out" / "evalsets").glob("evalset-*.jsonl")
    done = pushpull(
        "run",
        "--chunks",
        chunks,
        "--questions",
        questions,
        "--adapter",
        "adapter.py:FirstWords",
        "--push",
        "none",
        "--json",
        "--out",
        "o2",
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert [row["name"] for row in data["rows"]] == ["adapter.py:FirstWords"]
    assert set(data["rows"][0]["by_shape"]) == {"table"}


def test_errors_are_one_line_with_the_right_status(tmp_path: Path) -> None:
    chunks = chunk_file(tmp_path)
    bad_spec = pushpull("run", "--chunks", chunks, "--adapter", "missing.py:X", "--push", "none", cwd=tmp_path)
    assert bad_spec.returncode == 2 and bad_spec.stderr.startswith("pushpull: error: adapter file not found")
    bad_shape = pushpull("build-evalset", "--chunks", chunks, "--shapes", "tables", cwd=tmp_path)
    assert bad_shape.returncode == 2 and "unknown shape" in bad_shape.stderr
    (tmp_path / "bad.jsonl").write_text("{not json\n")
    bad_file = pushpull("build-evalset", "--chunks", "bad.jsonl", cwd=tmp_path)
    assert bad_file.returncode == 1 and bad_file.stderr.count("\n") == 1 and "bad.jsonl:1" in bad_file.stderr
    stale = tmp_path / "stale.jsonl"
    stale.write_text(json.dumps({"id": "q1", "q": "x?", "shape": "table", "gold_chunk_ids": ["gone.md#9"]}) + "\n")
    refused = pushpull("run", "--chunks", chunks, "--questions", stale, "--push", "bm25", cwd=tmp_path)
    assert refused.returncode == 1 and "not in this corpus" in refused.stderr
    no_key = pushpull("build-evalset", "--chunks", chunks, "--model", "anthropic:claude-x", cwd=tmp_path)
    assert no_key.returncode == 1 and "Traceback" not in no_key.stderr and no_key.stderr.startswith("pushpull: error:")
