"""Which push rows to build from a chunk list, each at most once, with a skip reason where one cannot run."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import contextpull_vec
from contextpull_vec import get_embedder

from ..errors import UsageError
from ..models import get_provider
from ..models.base import ModelError, NoModelConfigured, Provider
from ..protocol import Retriever
from .base import ChunkLike
from .bm25 import BM25Retriever, snowball_english
from .dense import DenseRetriever
from .hybrid import HybridRRF
from .rerank import CrossEncoderFolder, LLMListwiseReranker, RerankedRetriever, Reranker
from .tantivy_bm25 import TantivyBM25

#: the push rows, in report order: the floor, the two lexical rows a practitioner would deploy,
#: dense, their hybrid and its reranking (docs/adr/020-push-rows.md)
CONFIG_KEYS = ("bm25", "bm25s", "tantivy", "dense", "hybrid", "rerank")
_KEY_BY_FAMILY = {
    "bm25": "bm25",
    "bm25 floor": "bm25",
    "bm25s": "bm25s",
    "tantivy bm25": "tantivy",
    "dense": "dense",
    "hybrid rrf": "hybrid",
    "hybrid rrf + rerank": "rerank",
}
#: the lexical row fused with dense in the hybrid rows: the stronger of the two deployed lexical rows
#: on the suite's question sets (benchmarks/results/search-quality.txt)
HYBRID_LEXICAL = "tantivy"
#: the dense rows' embedder unless one is chosen (``--embedder``): the one every published run used
DEFAULT_EMBEDDER = "minilm"
_NAMES = {
    "bm25": "bm25 floor (bare terms)",
    "bm25s": "bm25s (snowball english, stopwords)",
    "tantivy": TantivyBM25.name,
}


@dataclass(frozen=True)
class PushConfig:
    """One push row: a ready retriever, or ``None`` with the reason it was skipped."""

    name: str
    retriever: Retriever | None
    skip_reason: str | None = None


def build_push_configs(
    chunks: Sequence[ChunkLike],
    *,
    cache_dir: Path | None,
    which: list[str] | None = None,
    embedder: str | None = None,
    reranker: str | None = None,
    reranker_provider: Provider | None = None,
) -> list[PushConfig]:
    """The requested push configs (all six by default), in report order.

    ``which`` holds keys (``bm25``, ``bm25s``, ``tantivy``, ``dense``, ``hybrid``, ``rerank``) or row
    names. ``embedder`` is the dense rows' spec (``contextpull_vec``; :data:`DEFAULT_EMBEDDER` when
    ``None``). ``reranker`` is ``onnx:<folder>`` or ``llm:<provider spec>``; ``reranker_provider``, when
    given, answers an ``llm:`` reranker's calls instead of a provider opened from the spec (a replay's
    recorded provider, which answers from the run's cache with no model installed).
    Raises ``UsageError`` for an unknown row, embedder or reranker spec and
    ``InputError`` for a cross-encoder folder without its files.
    """
    wanted = set(CONFIG_KEYS) if which is None else {_key(entry) for entry in which}
    builder = _Builder(
        chunks, cache_dir=cache_dir, embedder=embedder, reranker=reranker, reranker_provider=reranker_provider
    )
    if "rerank" in wanted:
        builder.load_reranker()  # a bad spec or folder fails before minutes of embedding
    return [builder.config(key) for key in CONFIG_KEYS if key in wanted]


def _key(entry: str) -> str:
    key = entry if entry in CONFIG_KEYS else _KEY_BY_FAMILY.get(entry.split(" (")[0])
    if key is None:
        raise UsageError(f"unknown push config {entry!r}", f"choose from {', '.join(CONFIG_KEYS)}")
    return key


def push_row_name(key: str, *, embedder: str | None = None, reranker: str | None = None) -> str:
    """The row name of push config ``key`` as the report prints it (``tantivy`` → ``tantivy bm25 (…)``)."""
    return _Builder([], cache_dir=None, embedder=embedder, reranker=reranker)._name(_key(key))


def reranker_label(spec: str) -> str:
    """How a reranker spec appears in a row name: a folder by its name, an LLM by its spec."""
    kind, _, target = spec.partition(":")
    return f"onnx:{Path(target).name}" if kind == "onnx" else spec


class _Builder:
    """Builds each retriever at most once, sharing bm25 and dense between rows."""

    def __init__(
        self,
        chunks: Sequence[ChunkLike],
        *,
        cache_dir: Path | None,
        embedder: str | None,
        reranker: str | None,
        reranker_provider: Provider | None = None,
    ) -> None:
        self.chunks = chunks
        self.cache_dir = cache_dir
        self.embedder_spec = embedder or DEFAULT_EMBEDDER
        self.reranker_spec = reranker
        self._built: dict[str, Retriever] = {}
        self._failed: dict[str, str] = {}
        self._reranker: Reranker | None = None
        self.reranker_provider = reranker_provider
        self._builders: dict[str, Callable[[], Retriever]] = {
            "bm25": self._build_bm25,
            "bm25s": self._build_bm25s,
            "tantivy": self._build_tantivy,
            "dense": self._build_dense,
            "hybrid": self._build_hybrid,
            "rerank": self._build_rerank,
        }

    def config(self, key: str) -> PushConfig:
        name = self._name(key)
        if key == "rerank" and self.reranker_spec is None:
            return PushConfig(
                name,
                None,
                "no reranker configured (no cross-encoder ships offline); "
                "pass onnx:<cross-encoder folder> or llm:<provider spec>",
            )
        retriever = self._get(key)
        return PushConfig(name, retriever, None if retriever else self._failed[key])

    def _name(self, key: str) -> str:
        if key == "dense":
            return f"dense ({self.embedder_spec})"
        if key == "hybrid":
            # the default embedder is left unnamed, as every published table names this row
            dense = "dense" if self.embedder_spec == DEFAULT_EMBEDDER else f"dense {self.embedder_spec}"
            return f"hybrid rrf ({_NAMES[HYBRID_LEXICAL].split(' (')[0]}+{dense})"
        if key == "rerank":
            label = reranker_label(self.reranker_spec) if self.reranker_spec else "none"
            fused = "hybrid rrf" if self.embedder_spec == DEFAULT_EMBEDDER else self._name("hybrid")
            return f"{fused} + rerank ({label})"
        return _NAMES[key]

    def _get(self, key: str) -> Retriever | None:
        if key not in self._built and key not in self._failed:
            try:
                self._built[key] = self._builders[key]()
            except _Skip as skip:
                self._failed[key] = str(skip)
        return self._built.get(key)

    def _require(self, key: str) -> Retriever:
        retriever = self._get(key)
        if retriever is None:
            raise _Skip(self._failed[key])
        return retriever

    def _build_bm25(self) -> Retriever:
        return BM25Retriever(self.chunks, name=_NAMES["bm25"])

    def _build_bm25s(self) -> Retriever:
        return BM25Retriever(self.chunks, analyzer=snowball_english, name=_NAMES["bm25s"])

    def _build_tantivy(self) -> Retriever:
        try:
            return TantivyBM25(self.chunks)
        except ModuleNotFoundError as exc:
            raise _Skip(f"{exc.name} is not installed: pip install 'contextpull[eval]'") from exc

    def _build_dense(self) -> Retriever:
        try:
            return DenseRetriever(self.chunks, embedder=get_embedder(self.embedder_spec), cache_dir=self.cache_dir)
        except contextpull_vec.UnknownSpec as exc:
            raise UsageError(exc.message, exc.suggestion) from exc
        except contextpull_vec.EmbedderError as exc:
            raise _Skip(f"dense embedder unavailable: {exc}") from exc

    def _build_hybrid(self) -> Retriever:
        return HybridRRF([self._require(HYBRID_LEXICAL), self._require("dense")])

    def _build_rerank(self) -> Retriever:
        if self._reranker is None:
            raise _Skip(self._failed["rerank"])
        return RerankedRetriever(self._require("hybrid"), self._reranker, chunks=self.chunks)

    def load_reranker(self) -> None:
        """Constructs the configured reranker, or records why its row must be skipped."""
        if self.reranker_spec is not None:
            try:
                self._reranker = self._make_reranker(self.reranker_spec)
            except _Skip as skip:
                self._failed["rerank"] = str(skip)

    def _make_reranker(self, spec: str) -> Reranker:
        kind, _, target = spec.partition(":")
        if kind == "onnx" and target:
            return CrossEncoderFolder(Path(target).expanduser())
        if kind == "llm" and target and self.reranker_provider is not None:
            return LLMListwiseReranker(self.reranker_provider)
        if kind == "llm" and target:
            try:
                return LLMListwiseReranker(get_provider(target, cache_dir=self.cache_dir))
            except NoModelConfigured as exc:
                raise _Skip(f"reranker model unavailable: {exc}") from exc
            except ModelError as exc:
                raise UsageError(str(exc), "write the reranker as llm:<provider>:<model>") from exc
        raise UsageError(f"unknown reranker {spec!r}", "use onnx:<cross-encoder folder> or llm:<provider spec>")


class _Skip(Exception):
    """A row cannot run on this machine; the message becomes its skip reason."""
