"""The behaviour fingerprint: pull-run keys change whenever the code or the store behind a tool result does."""

from __future__ import annotations

import json
import re
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from contextpull.analysis.terms import ANALYSIS_VERSION
from contextpull.eval import fingerprint, replay
from contextpull.eval.apiloop import ApiLoopRetriever
from contextpull.eval.fingerprint import Fingerprint
from contextpull.eval.replay import ReplayRefused
from pull_support import store  # noqa: F401 (store is a fixture)
from pushpull.models import Ledger, RetryPolicy
from pushpull.models.local_model import recorded_sha256

QUESTION = "How many days before departure must travel be booked?"


def test_the_fingerprint_covers_everything_that_shapes_a_tool_result_or_a_prompt() -> None:
    files = fingerprint.file_hashes()
    for name in (
        "contextpull/analysis/terms.py",
        "contextpull/ops/ranking.py",
        "contextpull/ops/snippets.py",
        "contextpull/ops/results.py",
        "contextpull/tools/schemas.py",
        "contextpull/tools/instructions.py",
        "contextpull/contents/index.py",
        "contextpull/errors.py",
        "contextpull/eval/apiloop.py",
        "pushpull/models/local_provider.py",
        # missed by the hand list this walk replaced: every hint in a tool result, the index header
        "contextpull/syntax.py",
        "contextpull/contents/summaries.py",
        "pushpull/scoring/judge.py",
        "contextpull_vec/data/minilm-static-256.npz",
    ):
        assert name in files, name
    assert "contextpull/eval/bench.py" not in files  # scoring code does not change what a run saw
    assert not any(name.startswith("contextpull/cli/") for name in files)


def test_every_parser_is_fingerprinted() -> None:
    """Every module of ``parse/`` makes sections a run searches; once, three were loaded by a computed
    name that the import walk could not follow (the PDF, Word and PowerPoint parsers)."""
    files = fingerprint.file_hashes()
    parsers = sorted(
        f"contextpull/parse/{path.name}" for path in (fingerprint.source_root() / "contextpull" / "parse").glob("*.py")
    )
    assert len(parsers) > 10
    assert [name for name in parsers if name not in files] == []


def _copy_sources(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    for package in fingerprint.PACKAGES:
        shutil.copytree(
            fingerprint.source_root() / package, root / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    return root


def _recorded_run(tmp_path: Path, behaviour: Fingerprint, shown: dict[str, str] | None = None) -> Path:
    run_dir = tmp_path / "run"
    run_dir.mkdir(exist_ok=True)
    record = {"behaviour": behaviour.to_dict(), "options": {}, "shown": shown or {}}
    (run_dir / "results.json").write_text(json.dumps(record), encoding="utf-8")
    return run_dir


def test_a_replay_refuses_after_an_edit_to_any_model_facing_file(tmp_path: Path) -> None:
    root = _copy_sources(tmp_path)
    recorded = Fingerprint("1", "a", fingerprint.file_hashes(root))
    run_dir = _recorded_run(tmp_path, recorded)
    assert replay.load(run_dir, recorded, allow_stale=False).changes == []
    for name in recorded.files:
        path = root / name
        original = path.read_bytes()
        path.write_bytes(original + b"\n# edited\n")
        edited = Fingerprint("1", "a", fingerprint.file_hashes(root))
        with pytest.raises(ReplayRefused, match=re.escape(f"{name} changed")):
            replay.load(run_dir, edited, allow_stale=False)
        path.write_bytes(original)


def test_a_module_imported_anywhere_in_a_fingerprinted_file_joins_the_fingerprint(tmp_path: Path) -> None:
    root = _copy_sources(tmp_path)
    (root / "contextpull" / "hint_texts.py").write_text('HINT = "try grep"\n', encoding="utf-8")
    assert "contextpull/hint_texts.py" not in fingerprint.file_hashes(root)
    snippets = root / "contextpull" / "ops" / "snippets.py"
    snippets.write_text(
        snippets.read_text(encoding="utf-8") + "\n\ndef _late() -> str:\n    from ..hint_texts import HINT\n\n"
        "    return HINT\n",
        encoding="utf-8",
    )
    assert "contextpull/hint_texts.py" in fingerprint.file_hashes(root)


def test_a_replay_refuses_when_the_index_text_or_tool_schemas_shown_differ(store: Path, tmp_path: Path) -> None:
    now, shown = fingerprint.of_store(store)
    assert set(shown) == {"index", "instructions", "tools"}
    run_dir = _recorded_run(tmp_path, now, {**shown, "index": "0" * 16, "tools": "1" * 16})
    with pytest.raises(ReplayRefused, match="the index text shown to the model, the tool schemas shown"):
        replay.load(run_dir, now, allow_stale=False, shown=shown)
    assert replay.load(_recorded_run(tmp_path, now, shown), now, allow_stale=False, shown=shown).changes == []


def test_changes_are_named_file_by_file() -> None:
    now = fingerprint.current("2")
    older = replace(now, analysis_version="1", files={**now.files, "contextpull/ops/ranking.py": "0" * 16})
    del older.files["contextpull/ops/snippets.py"]
    assert now.changes_since(now) == []
    assert now.changes_since(older) == [
        "store analysis version 1 → 2",
        "contextpull/ops/ranking.py changed",
        "contextpull/ops/snippets.py added",
    ]
    assert Fingerprint.from_dict(now.to_dict()) == now and now.key != older.key


def _loop(store_path: Path, monkeypatch: pytest.MonkeyPatch, base_url: str = "http://127.0.0.1:9") -> ApiLoopRetriever:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", base_url)
    return ApiLoopRetriever(store_path, "anthropic:claude-fake", ledger=Ledger(), retry=RetryPolicy(attempts=1))


def test_a_pull_run_key_changes_with_ranking_source_analysis_version_and_endpoint(
    store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = _loop(store, monkeypatch)
    key = loop.run_key(QUESTION)
    assert _loop(store, monkeypatch).run_key(QUESTION) == key  # stable
    edited = {**loop.behaviour.files, "contextpull/ops/ranking.py": "f" * 16}
    loop.behaviour = replace(loop.behaviour, files=edited)
    assert loop.run_key(QUESTION) != key
    assert _loop(store, monkeypatch, "http://127.0.0.1:10").run_key(QUESTION) != key
    fresh = _loop(store, monkeypatch)
    assert fresh.behaviour.analysis_version == ANALYSIS_VERSION  # read from the store's meta
    fresh.behaviour = replace(fresh.behaviour, analysis_version="older")
    assert fresh.run_key(QUESTION) != key


def test_a_model_file_hash_is_remembered_beside_it_until_the_file_changes(tmp_path: Path) -> None:
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF" + bytes(100))
    first = recorded_sha256(model)
    assert (tmp_path / "tiny.gguf.sha256").exists() and recorded_sha256(model) == first
    model.write_bytes(b"GGUF" + bytes(101))
    assert recorded_sha256(model) != first
