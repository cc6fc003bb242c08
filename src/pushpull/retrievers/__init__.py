"""The push configurations: what a RAG pipeline would hand the model.

``build_push_configs`` turns a chunk list into the rows of the report's push
half. Each row is built only when asked for, and the dense model is loaded
only by rows that need it, so ``which=["bm25"]`` never imports onnxruntime. A
row that cannot run here (no reranker configured, embedder unavailable) comes
back with a ``skip_reason`` instead of failing the whole report.
"""

from __future__ import annotations

from contextpull_vec import Embedder, get_embedder, reciprocal_rank_fusion

from .bm25 import BM25Retriever
from .configs import CONFIG_KEYS, PushConfig, build_push_configs, push_row_name, reranker_label
from .dense import DenseRetriever
from .hybrid import HybridRRF
from .rerank import CrossEncoderFolder, LLMListwiseReranker, RerankedRetriever, Reranker

# Model runtimes (onnxruntime, tokenizers, openai) are imported only when an
# embedder or reranker is constructed, so importing this package stays cheap.
__all__ = [
    "CONFIG_KEYS",
    "BM25Retriever",
    "CrossEncoderFolder",
    "DenseRetriever",
    "Embedder",
    "HybridRRF",
    "LLMListwiseReranker",
    "PushConfig",
    "RerankedRetriever",
    "Reranker",
    "build_push_configs",
    "get_embedder",
    "push_row_name",
    "reciprocal_rank_fusion",
    "reranker_label",
]
