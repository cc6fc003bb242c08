"""build_push_configs: row names and order, selection, and rows that skip instead of failing."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from embeddings_endpoint import serve_embeddings
from pushpull.chunks import Chunk
from pushpull.errors import UsageError
from pushpull.retrievers import PushConfig, build_push_configs, push_row_name
from pushpull.retrievers.tantivy_bm25 import TantivyBM25

CHUNKS = [
    Chunk("install#1", "Install uv with the standalone installer or pip install uv.", "install.md"),
    Chunk("cache#1", "Run uv cache clean to delete the cache, or pass --no-cache.", "cache.md"),
    Chunk("python#1", "uv python install 3.12 downloads a managed interpreter.", "python.md"),
]


def test_default_rows_in_report_order(tmp_path: Path) -> None:
    configs = build_push_configs(CHUNKS, cache_dir=tmp_path)
    assert [c.name for c in configs] == [
        "bm25 floor (bare terms)",
        "bm25s (snowball english, stopwords)",
        "tantivy bm25 (english, title^2)",
        "dense (minilm)",
        "hybrid rrf (tantivy bm25+dense)",
        "hybrid rrf + rerank (none)",
    ]
    ready = {c.name: c.retriever for c in configs if c.retriever is not None}
    assert len(ready) == 5 and configs[5].retriever is None and configs[5].skip_reason
    for name, retriever in ready.items():
        assert retriever.name == name
        assert retriever.retrieve("--no-cache", 1) == ["cache#1"]


def test_rows_can_be_chosen_by_key_or_name(tmp_path: Path) -> None:
    configs = build_push_configs(CHUNKS, cache_dir=tmp_path, which=["hybrid rrf (tantivy bm25+dense)", "bm25"])
    assert [c.name for c in configs] == ["bm25 floor (bare terms)", "hybrid rrf (tantivy bm25+dense)"]
    assert build_push_configs(CHUNKS, cache_dir=tmp_path, which=["tantivy"])[0].name == TantivyBM25.name
    assert build_push_configs(CHUNKS, cache_dir=tmp_path, which=["dense"])[0].name == "dense (minilm)"


def test_another_embedder_is_named_by_every_row_it_serves(tmp_path: Path) -> None:
    configs = build_push_configs(CHUNKS, cache_dir=tmp_path, which=["dense", "hybrid"], embedder="static")
    assert [c.name for c in configs] == ["dense (static)", "hybrid rrf (tantivy bm25+dense static)"]
    # the reranked row reorders that fusion, so it names the embedder too
    assert push_row_name("rerank", embedder="static", reranker="onnx:/models/ms-marco") == (
        "hybrid rrf (tantivy bm25+dense static) + rerank (onnx:ms-marco)"
    )
    assert push_row_name("rerank", reranker="onnx:/models/ms-marco") == "hybrid rrf + rerank (onnx:ms-marco)"
    assert all(c.retriever is not None and c.retriever.retrieve("--no-cache", 1) == ["cache#1"] for c in configs)


def test_unknown_row_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="unknown push config 'splade'"):
        build_push_configs(CHUNKS, cache_dir=None, which=["splade"])


@pytest.fixture()
def refusing_endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    with serve_embeddings() as url:  # answers 401 "invalid api key" for locked-model, as OpenAI does
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        yield


def test_unusable_embedder_skips_dense_rows_but_keeps_bm25(refusing_endpoint: None) -> None:
    configs = build_push_configs(CHUNKS, cache_dir=None, embedder="openai:locked-model")
    by_name = {c.name: c for c in configs}
    assert by_name["bm25 floor (bare terms)"].retriever is not None
    for name in ("dense (openai:locked-model)", "hybrid rrf (tantivy bm25+dense openai:locked-model)"):
        assert by_name[name] == PushConfig(name, None, by_name[name].skip_reason)
        assert "invalid api key" in (by_name[name].skip_reason or "")
