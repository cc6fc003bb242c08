"""The eval-set builders on a small handmade corpus: computed shapes, model-phrased shapes, cache."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fakes import Request
from fakes.anthropic_server import tool_reply
from pushpull.chunks import Chunk
from pushpull.errors import FingerprintMismatch
from pushpull.evalset import build_evalset, build_or_load, info_path, load_evalset, save_evalset
from pushpull.evalset.aggregation import everyday_stems, family_keys, find_families
from pushpull.evalset.exact_lookup import choose_identifier, template_question
from pushpull.evalset.identifiers import find_identifiers, is_rare
from pushpull.evalset.near_dupes import near_duplicate_pairs
from pushpull.evalset.phrased import dedupe
from pushpull.evalset.reworded import family_notation
from pushpull.evalset.table import table_rows
from pushpull.models import Ledger, RetryPolicy, get_provider
from pushpull.models.anthropic_provider import JSON_TOOL
from pushpull.questions import Question, read_questions
from pushpull_support import CHUNKS, NEVER_QUOTED, QUOTED_ON_RETRY, AnthropicFake, filler, scripted_model


def by_shape(questions: list[Question], shape: str) -> list[Question]:
    return [q for q in questions if q.shape == shape]


def test_identifiers_and_rarity() -> None:
    text = "Set UV_CACHE_DIR or pass --no-cache; TX-4419 and payment_declined; tool.uv.sources; 0.4.1"
    assert set(find_identifiers(text)) >= {
        "UV_CACHE_DIR",
        "--no-cache",
        "TX-4419",
        "payment_declined",
        "tool.uv.sources",
        "0.4.1",
    }
    assert not is_rare("ab", 1, 100)
    assert is_rare("abc", 5, 100) and not is_rare("abc", 6, 100)
    assert is_rare("abc", 1, 3)  # one holder is always rare, however small the corpus


def test_aggregation_finds_numbered_and_snake_case_families() -> None:
    assert family_keys("TX-4419") == ["TX-44xx"]
    assert family_keys("payment_declined") == ["payment_*"]  # a shared last word (*_declined, *_URL) is no namespace
    assert family_keys("PIP_INDEX_URL") == ["PIP_*"]
    assert family_keys("my_app") == family_keys("ab_cd") == family_keys("IO_X") == []  # short stems
    families = find_families(CHUNKS, max_gold=5)
    assert families["TX-44xx"][:2] == (["TX-4401", "TX-4419", "TX-4420"], ["errors.md#0", "errors.md#1", "codes.md#0"])
    assert families["payment_*"][:2] == (["payment_declined", "payment_expired"], ["errors.md#1", "codes.md#0"])
    assert "TX-44xx" not in find_families(CHUNKS, max_gold=2)  # three chunks exceed the cap


def test_a_stem_that_is_an_everyday_word_of_the_corpus_heads_no_family() -> None:
    # the same two identifiers; only how often their stem stands alone in prose differs
    members = [
        Chunk("a.md#0", "## example_alpha\n\nSets alpha.", "a.md"),
        Chunk("b.md#0", "## example_beta\n\nSets beta.", "b.md"),
    ]
    prose = [Chunk(f"p.md#{i}", f"Prose number {i} about levels.", "p.md") for i in range(4)]
    assert "example_*" in find_families(members + prose, max_gold=5)
    everyday = [Chunk(c.id, c.text + " For example, see the guide.", c.source) for c in prose]
    assert len(everyday) / len(members + everyday) > 1 / 3  # "example" stands alone in 4 of 6 chunks
    assert "example_*" not in find_families(members + everyday, max_gold=5)
    assert everyday_stems(members + everyday, {"example", "levels"}) == {"example", "levels"}
    assert everyday_stems(members + prose, {"example", "levels"}) == {"levels"}


def test_aggregation_gold_is_where_members_are_documented_and_families_are_complete() -> None:
    defined = [
        Chunk("a.md#0", "## ZED_ALPHA\n\nZED_ALPHA sets the alpha level.", "a.md"),
        Chunk("b.md#0", "- `ZED_BETA`: sets the beta level.", "b.md"),
        Chunk("c.md#0", "Most people combine ZED_ALPHA with ZED_BETA in production.", "c.md"),
    ]
    names, gold, mentions, restated_by = find_families(defined, max_gold=5)["ZED_*"]
    assert (names, gold, mentions) == (["ZED_ALPHA", "ZED_BETA"], ["a.md#0", "b.md#0"], ["a.md#0", "b.md#0", "c.md#0"])
    # c.md mentions both members, so it restates what each gold chunk documents
    assert restated_by == {"a.md#0": ["c.md#0"], "b.md#0": ["c.md#0"]}
    (question,) = build_evalset(defined, shapes=["aggregation"], n=5).questions
    assert question.gold_chunk_ids == ["a.md#0", "b.md#0"] and question.equivalent_gold == [
        "a.md#0",
        "b.md#0",
        "c.md#0",
    ]
    assert question.equivalent_of == {"a.md#0": ["c.md#0"], "b.md#0": ["c.md#0"]}
    # a member mentioned (never defined) in many chunks would make the answer incomplete or the gold huge: not asked
    crowded = [*defined, *(Chunk(f"n{i}.md#0", f"Note {i}: ZED_GAMMA appears here too.", f"n{i}.md") for i in range(6))]
    assert "ZED_*" not in find_families(crowded, max_gold=5)


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
    assert enterprise.q in {
        "What is the Monthly fee of Enterprise in Fees?",
        "What is the Seats of Enterprise in Fees?",
    }
    tokyo = questions["Tokyo"]
    assert tokyo.q == "What is the Daily cap of Tokyo in Limits?" and tokyo.answer == "250"
    assert tokyo.gold_chunk_ids == ["limits.md#0"]
    assert tokyo.equivalent_gold == ["limits.md#0", "faq.md#0"]  # the FAQ states the same fact
    assert tokyo.equivalent_of == {"limits.md#0": ["faq.md#0"]}
    assert enterprise.equivalent_of.keys() <= {"fees.md#1"}  # nothing restates the header chunk


def test_table_cells_lose_only_real_markup() -> None:
    text = (
        "## Configuration\n\n"
        "| Variable | Default | Meaning |\n|---|---|---|\n"
        "| `LEDGERLINE_LOG_LEVEL` | `info` | log **verbosity**, one of *debug* or _info_ |\n"
        "| LEDGERLINE_HOME | `~/.ledgerline` | state directory |\n"
        "| `__init__` | 2 * 3 * 4 | a \\| b<br>c<br/>d |\n"
        "| [`onc_rpc.version`](/docs/rpc.md) | ![Stable](https://img/x.svg) | - |\n"
        "| snake_case_key | - | — |\n"
    )
    rows = {row.key: row for row in table_rows([Chunk("cfg.md#0", text, "cfg.md")])}
    assert set(rows) == {"LEDGERLINE_LOG_LEVEL", "LEDGERLINE_HOME", "__init__", "onc_rpc.version", "snake_case_key"}
    assert rows["LEDGERLINE_LOG_LEVEL"].cells == ("LEDGERLINE_LOG_LEVEL", "info", "log verbosity, one of debug or info")
    assert rows["__init__"].cells == ("__init__", "2 * 3 * 4", "a | b; c; d")
    assert rows["onc_rpc.version"].cells[1] == "Stable"
    questions = build_evalset([Chunk("cfg.md#0", text, "cfg.md")], shapes=["table"], n=50, seed=1).questions
    asked = {q.identifier: q for q in questions}
    assert "snake_case_key" not in asked  # its only cells are "-" and "—": nothing to ask
    assert all(q.answer not in {"", "-", "—"} for q in questions)
    onc = asked["onc_rpc.version"]
    assert onc.q == "What is the Default of onc_rpc.version in Configuration?" and onc.answer == "Stable"
    level = asked["LEDGERLINE_LOG_LEVEL"]
    assert level.q.startswith("What is the ") and level.q.endswith(" of LEDGERLINE_LOG_LEVEL in Configuration?")
    assert level.answer in {"info", "log verbosity, one of debug or info"}
    assert level.equivalent_gold == ["cfg.md#0"]


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
        Question(
            "", "What is MAX_RETRY_BUDGET for in the config?", "exact_lookup", ["b"], identifier="MAX_RETRY_BUDGET"
        ),
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
        yield (
            fake,
            get_provider(
                "anthropic:claude-fake", cache_dir=tmp_path / "models", ledger=ledger, retry=RetryPolicy(attempts=1)
            ),
            ledger,
        )


def test_model_phrased_shapes_through_the_model_layer(model, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    fake, provider, ledger = model
    evalset = build_evalset(CHUNKS, shapes=["conceptual", "exact_lookup", "comparison"], provider=provider, n=30)
    lookups = {q.identifier: q for q in by_shape(evalset.questions, "exact_lookup")}
    # identifiers are chosen by the builder (one per chunk, rare, documented there), not by the model
    assert set(lookups) == {"TX-4401", "TX-4419", "TX-4420", "MAX_RETRY_BUDGET"}
    assert lookups["MAX_RETRY_BUDGET"].gold_chunk_ids == ["other.md#0"]
    assert all(ident in q.q for ident, q in lookups.items())
    assert (lookups[QUOTED_ON_RETRY].q, lookups[QUOTED_ON_RETRY].phrasing) == ("What does TX-4419 control?", "model")
    never = lookups[NEVER_QUOTED]
    assert (never.q, never.phrasing, never.answer) == ("What is TX-4420?", "template", "TX-4420 signals a timeout.")
    assert evalset.template_fallbacks == {"exact_lookup": 1} and evalset.info()["template_fallbacks"] == {
        "exact_lookup": 1
    }
    assert evalset.template_lines() == [
        "template-worded questions (the model's wording failed the checks): exact_lookup 1 of 4"
    ]
    conceptual = by_shape(evalset.questions, "conceptual")
    assert conceptual and all(
        len(q.gold_chunk_ids) == 1 and q.q.startswith("How does") and q.phrasing == "model" for q in conceptual
    )
    (comparison,) = by_shape(evalset.questions, "comparison")
    assert sorted(comparison.gold_chunk_ids) == ["policy-2024.md#0", "policy-2025.md#0"]
    assert (comparison.phrasing, comparison.answer) == ("model", "150 to 180")
    assert evalset.model == "anthropic:claude-fake" and evalset.model_errors == 0
    assert ledger.total()["calls"] == len(fake.requests) == evalset.model_calls == 4 + 4 + 2 + 1  # two retries
    exact_prompts = [
        r.body["messages"][-1]["content"][0]["text"] for r in fake.requests if "one identifier" in str(r.body["system"])
    ]
    assert any(p.startswith("Identifier: MAX_RETRY_BUDGET\n") for p in exact_prompts)
    path = tmp_path / "q.jsonl"
    save_evalset(evalset, path)
    assert load_evalset(path, CHUNKS).template_fallbacks == {"exact_lookup": 1}  # phrasing survives the file


def test_aggregation_questions_get_a_twin_worded_as_a_person_asks(model) -> None:  # type: ignore[no-untyped-def]
    fake, provider, _ = model
    evalset = build_evalset(CHUNKS, shapes=["aggregation"], provider=provider, n=10)
    computed = [q for q in evalset.questions if q.phrasing == ""]
    (twin,) = [q for q in evalset.questions if q.phrasing == "model"]
    assert sorted(q.identifier for q in computed) == ["TX-44xx", "payment_*"]
    original = next(q for q in computed if q.identifier == "TX-44xx")
    assert twin.q == "Which error codes can a declined or failed card payment return?"
    assert (twin.gold_chunk_ids, twin.answer, twin.shape) == (original.gold_chunk_ids, original.answer, "aggregation")
    assert (original.block, twin.block) == ("aggregation", "aggregation, phrased")
    assert evalset.questions.index(twin) > max(evalset.questions.index(q) for q in computed)
    assert evalset.model_calls == len(fake.requests) == 2  # one wording per family; payment_'s kept its notation
    prompts = [r.body["messages"][-1]["content"][0]["text"] for r in fake.requests]
    assert any(p.startswith("Names: TX-4401, TX-4419, TX-4420\n") and "<passage>" in p for p in prompts)


@pytest.mark.parametrize(
    ("question", "notation"),
    [
        ("Which identifiers of the form PIP_* are documented?", True),
        ("Which PIP_ variables are there?", True),
        ("Which error codes in the TX-44xx range exist?", True),
        ("Which TX- codes mean a declined card?", True),
        ("Which codes besides TX-4401 exist?", True),
        ("What does PIP_INDEX_URL do, among the pip settings?", True),
        ("Which environment variables configure pip?", False),
        ("Which error codes can a card payment return?", False),
    ],
)
def test_a_reworded_question_may_not_write_the_family_or_name_a_member(question: str, notation: bool) -> None:
    label = "TX-44xx" if "TX" in question or "error codes" in question else "PIP_*"
    names = ["TX-4401", "TX-4419"] if label == "TX-44xx" else ["PIP_INDEX_URL", "PIP_NO_INPUT"]
    assert family_notation(question, label, names) is notation


def test_exact_lookup_prefers_the_identifier_a_chunk_defines() -> None:
    chunk = Chunk(
        "cfg.md#2",
        "## FLUX_TIMEOUT\n\nUnlike FLUX_RETRIES (see [limits](https://x.io/flux_backoff_ms)), this caps a call.",
        "cfg.md",
    )
    other = Chunk("cfg.md#3", "FLUX_RETRIES is the retry count.", "cfg.md")
    lookup = choose_identifier(chunk, [chunk, other], set())
    assert lookup is not None and lookup.identifier == "FLUX_TIMEOUT" and lookup.holders == ["cfg.md#2"]
    assert (
        choose_identifier(chunk, [chunk, other], {"flux_timeout"}) is None
    )  # FLUX_RETRIES: in 2 of 2 chunks, not rare
    corpus = [chunk, other, *(Chunk(f"f{i}.md#0", filler(f"f{i}x", 5), f"f{i}.md") for i in range(40))]
    fallback = choose_identifier(chunk, corpus, {"flux_timeout"})  # 2 of 42 chunks is rare (<= 5%)
    assert (
        fallback is not None and fallback.identifier == "FLUX_RETRIES" and fallback.holders == ["cfg.md#2", "cfg.md#3"]
    )
    only_in_link = Chunk("l.md#0", "See [docs](https://x.io/flux_backoff_ms) for details.", "l.md")
    assert choose_identifier(only_in_link, [only_in_link], set()) is None
    assert template_question("--no-cache") == "What does the --no-cache option do?"
    assert template_question("3.4.0") == "What changed in version 3.4.0?"
    assert template_question("FLUX_TIMEOUT") == "What is FLUX_TIMEOUT?"


def _vague_model(request: Request) -> dict[str, Any]:
    """A small model's habits: pair questions that name no variant, a title question for a title page."""
    system = (
        " ".join(block["text"] for block in request.body["system"])
        if isinstance(request.body["system"], list)
        else request.body["system"]
    )
    if "two documents" in system:
        return tool_reply(JSON_TOOL, {"q": "What changed in the policy?", "a": "some numbers"})
    return tool_reply(JSON_TOOL, {"q": "What is the title of the handbook?", "a": "Ledgerline handbook"})


def test_unusable_phrasings_fall_back_to_templates_or_are_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = [
        Chunk("README.md#0", "# Ledgerline handbook\n\n" + filler("readme", 40), "README.md"),
        *(c for c in CHUNKS if c.source.startswith("policy-")),
        *(Chunk(f"notes{i}.md#0", f"# Notes {i}\n\n" + filler(f"n{i}w", 40), f"notes{i}.md") for i in range(40)),
    ]
    with AnthropicFake(_vague_model) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)
        provider = get_provider("anthropic:claude-fake", ledger=Ledger(), retry=RetryPolicy(attempts=1))
        evalset = build_evalset(pages, shapes=["conceptual", "comparison"], provider=provider, n=10)
    assert not by_shape(evalset.questions, "conceptual")  # answerable from the index: rejected
    assert "conceptual" in evalset.skipped
    (comparison,) = by_shape(evalset.questions, "comparison")
    assert comparison.phrasing == "template" and comparison.q == "What differs between Travel 2024 and Travel 2025?"
    assert "14" in comparison.answer and "21" in comparison.answer and "Travel 2024:" in comparison.answer
    assert evalset.template_fallbacks == {"comparison": 1}
    assert (
        evalset.model_calls == len(fake.requests) == 4 * 5 + 1
    )  # rejected phrasings stop at 4 jobs per wanted question


def test_near_duplicates_with_only_numbers_changed_are_paired_even_when_almost_identical() -> None:
    text = (
        "## Booking travel\n\nFlights are booked at least {d} days before departure through the travel desk; economy class applies to flights shorter than {h} hours, and later bookings need approval. "
        + filler("rule", 20)
    )
    a = Chunk("p24.md#1", text.format(d=14, h=6), "p24.md")
    b = Chunk("p25.md#1", text.format(d=21, h=8), "p25.md")
    same = Chunk("copy.md#1", text.format(d=14, h=6), "copy.md")  # identical to a: nothing to compare
    (pair,) = near_duplicate_pairs([a, b, same])
    assert {pair.a.id, pair.b.id} in ({"p24.md#1", "p25.md#1"}, {"copy.md#1", "p25.md#1"}) and pair.jaccard > 0.9


def test_every_failed_model_call_is_a_reason_and_the_set_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
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
    for field in (
        '"id"',
        '"q"',
        '"shape"',
        '"gold_chunk_ids"',
        '"answer"',
        '"source"',
        '"identifier"',
        '"equivalent_gold"',
    ):
        assert field in first
