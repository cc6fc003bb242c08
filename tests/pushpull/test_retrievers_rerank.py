"""Reranking: a deterministic reranker, the LLM listwise reranker with a stand-in
provider (including bad output), and a tiny ONNX cross-encoder built here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pushpull.chunks import Chunk
from pushpull.errors import InputError, UsageError
from pushpull.models.base import Completion, Message, ModelError, Usage
from pushpull.retrievers import build_push_configs
from pushpull.retrievers.rerank import (
    CrossEncoderFolder,
    LLMListwiseReranker,
    RerankedRetriever,
    parse_ranking,
)

CHUNKS = [
    Chunk("a", "alpha text", "x.md"),
    Chunk("b", "bravo text is longer", "x.md"),
    Chunk("c", "charlie", "x.md"),
    Chunk("d", "delta text that is the longest of them all", "x.md"),
]


class FixedRanking:
    name = "hybrid rrf (bm25+dense)"

    def __init__(self, ranking: list[str]) -> None:
        self.ranking = ranking

    def retrieve(self, query: str, k: int) -> list[str]:
        return self.ranking[:k]


class LongestFirst:
    """A deterministic reranker: longer passages first."""

    name = "longest"

    def __init__(self) -> None:
        self.seen: list[list[tuple[str, str]]] = []

    def rerank(self, query: str, candidates: list[tuple[str, str]], k: int) -> list[str]:
        self.seen.append(candidates)
        return [cid for cid, text in sorted(candidates, key=lambda c: -len(c[1]))][:k]


class ScriptedProvider:
    """A Provider that answers each call with the next scripted reply (or raises it)."""

    spec = "scripted:ranker"

    def __init__(self, replies: list[str | Exception]) -> None:
        self.replies = replies
        self.calls: list[dict[str, Any]] = []

    def complete(
        self,
        messages: list[Message],
        *,
        system: str = "",
        tools: list[dict[str, Any]] | None = None,
        json_schema: dict[str, Any] | None = None,
        max_tokens: int = 1024,
        temperature: float = 0.0,
    ) -> Completion:
        self.calls.append({"messages": messages, "system": system, "json_schema": json_schema})
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return Completion(text=reply, usage=Usage(tokens_in=100, tokens_out=10, usd=0.001))


def test_reranker_reorders_the_base_candidates() -> None:
    reranker = LongestFirst()
    reranked = RerankedRetriever(FixedRanking(["a", "b", "c", "d"]), reranker, chunks=CHUNKS, depth=3)
    assert reranked.retrieve("q", 2) == ["b", "a"]  # only the top 3 (a, b, c) were candidates
    assert reranker.seen[0] == [("a", "alpha text"), ("b", "bravo text is longer"), ("c", "charlie")]
    assert reranked.name == "hybrid rrf + rerank (longest)"
    assert reranked.expensive is False


def test_empty_base_result_skips_the_reranker() -> None:
    reranker = LongestFirst()
    assert RerankedRetriever(FixedRanking([]), reranker, chunks=CHUNKS).retrieve("q", 3) == []
    assert reranker.seen == []


def test_llm_listwise_follows_the_model_order() -> None:
    provider = ScriptedProvider(['{"ranking": [3, 1, 2]}'])
    reranker = LLMListwiseReranker(provider)
    reranked = RerankedRetriever(FixedRanking(["a", "b", "c"]), reranker, chunks=CHUNKS)
    assert reranked.retrieve("which one?", 3) == ["c", "a", "b"]
    assert reranked.expensive is True and reranked.name == "hybrid rrf + rerank (llm:scripted:ranker)"
    prompt = provider.calls[0]["messages"][0].content
    assert "which one?" in prompt and "[1] alpha text" in prompt and "[3] charlie" in prompt
    assert provider.calls[0]["json_schema"]["required"] == ["ranking"]
    stats = reranked.stats()
    assert stats["rerank_calls"] == 1 and stats["rerank_failures"] == 0 and stats["tokens_in"] == 100


def test_llm_partial_ranking_appends_the_rest_in_input_order() -> None:
    reranker = LLMListwiseReranker(ScriptedProvider(['{"ranking": [4, 4, 9, 2]}']))
    candidates = [(c.id, c.text) for c in CHUNKS]
    assert reranker.rerank("q", candidates, 4) == ["d", "b", "a", "c"]
    assert reranker.failures == 0


@pytest.mark.parametrize(
    "reply", ["I think passage two is best.", '{"order": "b"}', "", "[0, 7]", ModelError("timeout")]
)
def test_llm_bad_output_falls_back_to_input_order_and_counts(reply: str | Exception) -> None:
    reranker = LLMListwiseReranker(ScriptedProvider([reply]))
    candidates = [(c.id, c.text) for c in CHUNKS]
    assert reranker.rerank("q", candidates, 3) == ["a", "b", "c"]
    assert reranker.stats()["rerank_failures"] == 1


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"ranking": [2, 1]}', [1, 0]),
        ("[2, 3]", [1, 2]),
        ('```json\n{"ranking": [3, 1]}\n```', [2, 0]),
        ("Ranking: [1, 3, 2] done", [0, 2, 1]),
        ('{"ranking": [true, 2, "3", 2.5]}', [1]),
        ('{"ranking": null}', []),
    ],
)
def test_parse_ranking(text: str, expected: list[int]) -> None:
    assert parse_ranking(text, 3) == expected


# --- a real ONNX cross-encoder, built here ---------------------------------------------------

VOCAB = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "relevant", "noise", "query", "words"]


def build_cross_encoder(folder: Path) -> Path:
    """A tokenizer plus an ONNX graph whose logit counts the token ``relevant`` in the pair."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    from tokenizers import Tokenizer, models, pre_tokenizers, processors

    folder.mkdir()
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(VOCAB)}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    tokenizer.save(str(folder / "tokenizer.json"))

    nodes = [
        helper.make_node("Equal", ["input_ids", "target"], ["hit"]),
        helper.make_node("Cast", ["hit"], ["hit_f"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["attention_mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["hit_f", "mask_f"], ["weighted"]),
        helper.make_node("ReduceSum", ["weighted", "axes"], ["logits"], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes,
        "count_relevant",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch", 1])],
        initializer=[
            helper.make_tensor("target", TensorProto.INT64, [], [VOCAB.index("relevant")]),
            helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    return folder


def test_onnx_cross_encoder_scores_pairs_and_reranks(tmp_path: Path) -> None:
    encoder = CrossEncoderFolder(build_cross_encoder(tmp_path / "tiny-ce"), batch_size=2)
    assert encoder.name == "onnx:tiny-ce" and encoder.expensive is False
    passages = ["noise noise", "relevant", "relevant words relevant", "words", "relevant noise"]
    assert np.array_equal(encoder.scores("query words", passages), [0, 1, 2, 0, 1])
    candidates = [(f"p{i}", text) for i, text in enumerate(passages)]
    assert encoder.rerank("query", candidates, 3) == ["p2", "p1", "p4"]


def test_onnx_cross_encoder_through_build_push_configs(tmp_path: Path) -> None:
    folder = build_cross_encoder(tmp_path / "tiny-ce")
    chunks = [Chunk("x#1", "relevant relevant cache", "x.md"), Chunk("y#1", "cache cache cache noise", "y.md")]
    [config] = build_push_configs(chunks, cache_dir=tmp_path / "cache", which=["rerank"], reranker=f"onnx:{folder}")
    assert config.name == "hybrid rrf + rerank (onnx:tiny-ce)" and config.skip_reason is None
    assert config.retriever is not None and config.retriever.retrieve("cache", 2) == ["x#1", "y#1"]


def test_cross_encoder_folder_without_files_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="lacks model.onnx and tokenizer.json"):
        CrossEncoderFolder(tmp_path)


def test_rerank_row_is_skipped_without_a_reranker() -> None:
    [config] = build_push_configs(CHUNKS, cache_dir=None, which=["rerank"])
    assert config.retriever is None and "no reranker configured" in (config.skip_reason or "")


@pytest.mark.parametrize("spec", ["cohere:x", "onnx:", "llm:"])
def test_unknown_reranker_spec_is_a_usage_error(spec: str) -> None:
    with pytest.raises(UsageError):
        build_push_configs(CHUNKS, cache_dir=None, which=["rerank"], reranker=spec)


def test_llm_reranker_without_a_usable_model_skips_its_row() -> None:
    [config] = build_push_configs(CHUNKS, cache_dir=None, which=["rerank"], reranker="llm:none")
    assert config.name == "hybrid rrf + rerank (llm:none)"
    assert config.retriever is None and "no model configured" in (config.skip_reason or "")


def test_malformed_llm_spec_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="bad model spec"):
        build_push_configs(CHUNKS, cache_dir=None, which=["rerank"], reranker="llm:bogus")


def test_missing_cross_encoder_fails_before_any_row_is_built() -> None:
    with pytest.raises(InputError, match="lacks model.onnx"):
        build_push_configs(CHUNKS, cache_dir=None, reranker="onnx:/nowhere/at/all")
