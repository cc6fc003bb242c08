"""The eval-set builders on a small handmade corpus: computed shapes, model-phrased shapes, cache."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from pushpull_support import CHUNKS, AnthropicFake, scripted_model

from pushpull.chunks import Chunk
from pushpull.errors import FingerprintMismatch
from pushpull.evalset import build_evalset, build_or_load, info_path, load_evalset, save_evalset
from pushpull.evalset.aggregation import family_keys, find_families
from pushpull.evalset.identifiers import find_identifiers, is_rare
from pushpull.evalset.near_dupes import near_duplicate_pairs
from pushpull.evalset.phrased import dedupe
from pushpull.evalset.table import table_rows
from pushpull.models import Ledger, RetryPolicy, get_provider
from pushpull.questions import Question, read_questions


def by_shape(questions: list[Question], shape: str) -> list[Question]:
    return [q for q in questions if q.shape == shape]


def test_identifiers_and_rarity() -> None:
    text = "Set UV_CACHE_DIR or pass --no-cache; TX-4419 and payment_declined; tool.uv.sources; 0.4.1"
    assert set(find_identifiers(text)) >= {"UV_CACHE_DIR", "--no-cache", "TX-4419", "payment_declined", "tool.uv.sources", "0.4.1"}
    assert not is_rare("ab", 1, 100)
    assert is_rare("abc", 5, 100) and not is_rare("abc", 6, 100)
    assert is_rare("abc", 1, 3)  # one holder is always rare, however small the corpus


def test_aggregation_finds_numbered_and_snake_case_families() -> None:
    assert family_keys("TX-4419") == ["TX-44xx"]
    assert family_keys("payment_declined") == ["payment_*", "*_declined"]
    families = find_families(CHUNKS, max_gold=5)
    assert families["TX-44xx"] == (["TX-4401", "TX-4419", "TX-4420"], ["errors.md#0", "errors.md#1", "codes.md#0"])
    assert families["payment_*"] == (["payment_declined", "payment_expired"], ["errors.md#1", "codes.md#0"])
    assert "TX-44xx" not in find_families(CHUNKS, max_gold=2)  # three chunks exceed the cap


def test_aggregation_question_has_every_member_chunk_as_gold() -> None:
    questions = by_shape(build_evalset(CHUNKS, shapes=["aggregation"], n=10).questions, "aggregation")
    tx = next(q for q in questions if q.identifier == "TX-44xx")
    assert tx.q == "Which identifiers of the form TX-44xx are documented?"
    assert tx.answer == "TX-4401, TX-4419, TX-4420"
    assert tx.gold_chunk_ids == ["errors.md#0", "errors.md#1", "codes.md#0"]
    assert tx.equivalent_gold == tx.gold_chunk_ids


def test_table_rows_follow_split_tables_in_both_layouts() -> None:
    rows = {row.key: row for row in table_rows(CHUNKS)}
    assert rows["Enterprise"].header == ("Plan", "Monthly fee", "Seats")
    assert (rows["Enterprise"].chunk_id, rows["Enterprise"].header_chunk_id) == ("fees.md#1", "fees.md#0")
    assert rows["Enterprise"].context == "Fees"
    assert (rows["Lisbon"].chunk_id, rows["Lisbon"].header_chunk_id) == ("limits.md#1", "limits.md#1")
    assert "Region" not in rows  # a repeated header is a header, not a data row


def test_table_questions_ask_one_cell_with_gold_and_equivalent_gold() -> None:
    questions = {q.identifier: q for q in by_shape(build_evalset(CHUNKS, shapes=["table"], n=50).questions, "table")}
    assert set(questions) == {"Starter", "Team", "Enterprise", "Nonprofit", "Tokyo", "Lisbon"}
    enterprise = questions["Enterprise"]
    assert enterprise.gold_chunk_ids == ["fees.md#1", "fees.md#0"]
    assert enterprise.answer in {"$900", "500"}
    assert enterprise.q in {"What is the Monthly fee of Enterprise in Fees?", "What is the Seats of Enterprise in Fees?"}
    tokyo = questions["Tokyo"]
    assert tokyo.q == "What is the Daily cap of Tokyo in Limits?" and tokyo.answer == "250"
    assert tokyo.gold_chunk_ids == ["limits.md#0"]
    assert tokyo.equivalent_gold == ["limits.md#0", "faq.md#0"]  # the FAQ states the same fact


def test_a_row_key_heading_rows_in_two_chunks_is_not_asked() -> None:
    twin = Chunk("fees-old.md#0", "| Plan | Monthly fee |\n|---|---|\n| Starter | $8 |\n", "fees-old.md")
    keys = {q.identifier for q in build_evalset([*CHUNKS, twin], shapes=["table"], n=50).questions}
    assert "Starter" not in keys and "Team" in keys


def test_unsupported_shapes_are_skipped_with_reasons() -> None:
    prose = [Chunk(f"p.md#{i}", f"Plain prose number {i} without anything special.", "p.md") for i in range(3)]
    evalset = build_evalset(prose, n=10)
    assert evalset.questions == []
    assert "no identifier family" in evalset.skipped["aggregation"]
    assert evalset.skipped["table"] == "no GFM pipe tables in the corpus"
    for shape in ("conceptual", "exact_lookup", "comparison"):
        assert "no model configured" in evalset.skipped[shape]


def test_question_ids_are_stable_and_n_caps_each_shape() -> None:
    first = build_evalset(CHUNKS, shapes=["table", "aggregation"], n=4, seed=3)
    again = build_evalset(CHUNKS, shapes=["table", "aggregation"], n=4, seed=3)
    assert [q.to_dict() for q in first.questions] == [q.to_dict() for q in again.questions]
    assert first.counts == {"aggregation": 2, "table": 2}
    assert [q.id for q in first.questions] == ["q0001", "q0002", "q0003", "q0004"]


def test_near_duplicates_pair_versions_across_documents() -> None:
    pairs = near_duplicate_pairs(CHUNKS)
    assert [(p.a.id, p.b.id) for p in pairs] == [("policy-2024.md#0", "policy-2025.md#0")]
    assert 0.5 <= pairs[0].jaccard <= 0.9


def test_dedupe_drops_repeated_identifiers_and_near_identical_questions() -> None:
    qs = [
        Question("", "What does MAX_RETRY_BUDGET control?", "exact_lookup", ["a"], identifier="MAX_RETRY_BUDGET"),
        Question("", "What is MAX_RETRY_BUDGET for in the config?", "exact_lookup", ["b"], identifier="MAX_RETRY_BUDGET"),
        Question("", "How do refunds work for annual plans?", "conceptual", ["c"]),
        Question("", "How do refunds work for annual plans ?", "conceptual", ["d"]),
    ]
    assert [q.gold_chunk_ids for q in dedupe(qs)] == [["a"], ["c"]]


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    with AnthropicFake(scripted_model) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
        ledger = Ledger()
        yield fake, get_provider("anthropic:claude-fake", cache_dir=tmp_path / "models", ledger=ledger, retry=RetryPolicy(attempts=1)), ledger


def test_model_phrased_shapes_through_the_model_layer(model) -> None:  # type: ignore[no-untyped-def]
    fake, provider, ledger = model
    evalset = build_evalset(CHUNKS, shapes=["conceptual", "exact_lookup", "comparison"], provider=provider, n=30)
    lookups = by_shape(evalset.questions, "exact_lookup")
    assert [(q.identifier, q.gold_chunk_ids, q.q) for q in lookups] == [("MAX_RETRY_BUDGET", ["other.md#0"], "What does MAX_RETRY_BUDGET control?")]
    conceptual = by_shape(evalset.questions, "conceptual")
    assert conceptual and all(len(q.gold_chunk_ids) == 1 and q.q.startswith("How does") for q in conceptual)
    (comparison,) = by_shape(evalset.questions, "comparison")
    assert sorted(comparison.gold_chunk_ids) == ["policy-2024.md#0", "policy-2025.md#0"]
    assert evalset.model == "anthropic:claude-fake" and evalset.model_errors == 0
    assert ledger.total()["calls"] == len(fake.requests) == evalset.model_calls


def test_every_failed_model_call_is_a_reason_and_the_set_is_not_cached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fakes.anthropic_server import error_reply

    with AnthropicFake(lambda request: error_reply(400, "bad request")) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
        provider = get_provider("anthropic:claude-fake", ledger=Ledger(), retry=RetryPolicy(attempts=1))
        evalset = build_or_load(CHUNKS, tmp_path, shapes=["conceptual"], provider=provider, n=4)
    assert evalset.questions == [] and "every model call failed" in evalset.skipped["conceptual"]
    assert not list(tmp_path.glob("evalset-*.jsonl"))


def test_cache_reuses_the_set_until_the_corpus_changes(tmp_path: Path) -> None:
    first = build_or_load(CHUNKS, tmp_path, shapes=["table", "aggregation"], n=20)
    assert not first.cached and first.path is not None and info_path(first.path).exists()
    second = build_or_load(CHUNKS, tmp_path, shapes=["table", "aggregation"], n=20)
    assert second.cached and second.path == first.path
    assert [q.to_dict() for q in second.questions] == [q.to_dict() for q in first.questions]
    changed = [replace(CHUNKS[0], text=CHUNKS[0].text + " Updated."), *CHUNKS[1:]]
    third = build_or_load(changed, tmp_path, shapes=["table", "aggregation"], n=20)
    assert not third.cached and third.path != first.path


def test_loading_a_set_for_another_corpus_is_refused(tmp_path: Path) -> None:
    evalset = build_evalset(CHUNKS, shapes=["table"], n=10)
    path = tmp_path / "q.jsonl"
    save_evalset(evalset, path)
    assert load_evalset(path, CHUNKS).fingerprint == evalset.fingerprint
    changed = [replace(CHUNKS[0], text="different"), *CHUNKS[1:]]
    with pytest.raises(FingerprintMismatch, match="built from corpus"):
        load_evalset(path, changed)
    info_path(path).unlink()  # a bare file (as ragbisect writes) is checked by its gold ids
    with pytest.raises(FingerprintMismatch, match="not in this corpus"):
        load_evalset(path, CHUNKS[:3])


def test_questions_file_is_ragbisect_shaped(tmp_path: Path) -> None:
    evalset = build_evalset(CHUNKS, shapes=["table"], n=3)
    path = tmp_path / "q.jsonl"
    save_evalset(evalset, path)
    assert not path.with_suffix(".meta.json").exists()  # ragbisect would parse that name as its own report
    assert read_questions(path) == evalset.questions
    first = path.read_text().splitlines()[0]
    for field in ('"id"', '"q"', '"shape"', '"gold_chunk_ids"', '"answer"', '"source"', '"identifier"', '"equivalent_gold"'):
        assert field in first
