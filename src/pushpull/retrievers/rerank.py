"""Second-stage reranking of a retriever's candidates.

No cross-encoder ships offline, so reranking is pluggable: a user-supplied
cross-encoder exported to ONNX, or listwise ranking by a language model
through the harness's model layer. Either way the base retriever proposes
``depth`` candidates and the reranker orders them.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import InputError
from ..models.base import Message, ModelError, Provider, Usage
from ..protocol import Retriever, adapter_stats
from .base import ChunkLike, family_name


@runtime_checkable
class Reranker(Protocol):
    #: shown in the config name, e.g. ``llm:local:qwen2.5-coder-1.5b``
    name: str

    def rerank(self, query: str, candidates: list[tuple[str, str]], k: int) -> list[str]:
        """Ids of ``candidates`` (``(id, text)`` pairs) best first, at most ``k``."""
        ...


class CrossEncoderFolder:
    """A cross-encoder in ONNX form: ``model.onnx`` plus its ``tokenizer.json``.

    Each (query, passage) pair is encoded as one sequence; the score is the
    model's single output logit. Inputs the graph does not declare (often
    ``token_type_ids``) are not fed.
    """

    expensive = False

    def __init__(self, path: Path | str, *, max_tokens: int = 512, batch_size: int = 8) -> None:
        folder = Path(path)
        missing = [f for f in ("model.onnx", "tokenizer.json") if not (folder / f).is_file()]
        if missing:
            raise InputError(
                f"cross-encoder folder {folder} lacks {' and '.join(missing)}",
                "export the cross-encoder to ONNX and put model.onnx and tokenizer.json side by side",
            )
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        import onnxruntime
        from tokenizers import Tokenizer

        self.name = f"onnx:{folder.name}"
        self.batch_size = batch_size
        self._session = onnxruntime.InferenceSession(str(folder / "model.onnx"), providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_length=max_tokens)
        self._tokenizer.enable_padding()

    def scores(self, query: str, passages: list[str]) -> np.ndarray:
        """One relevance logit per passage, in input order."""
        out = [
            self._score_batch(query, passages[i : i + self.batch_size])
            for i in range(0, len(passages), self.batch_size)
        ]
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    def _score_batch(self, query: str, passages: list[str]) -> np.ndarray:
        encodings = self._tokenizer.encode_batch([(query, p) for p in passages])
        feeds = {
            "input_ids": np.array([e.ids for e in encodings], dtype=np.int64),
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        (logits, *_) = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})
        logits = np.asarray(logits, dtype=np.float32).reshape(len(passages), -1)
        if logits.shape[1] != 1:
            raise ModelError(f"{self.name}: expected one logit per pair, got {logits.shape[1]}")
        return logits[:, 0]

    def rerank(self, query: str, candidates: list[tuple[str, str]], k: int) -> list[str]:
        scores = self.scores(query, [text for _, text in candidates])
        order = np.argsort(-scores, kind="stable")
        return [candidates[i][0] for i in order[:k]]


_SYSTEM = (
    "You rank documentation passages by how well they answer a question. "
    'Reply with JSON only: {"ranking": [numbers of the passages, most relevant first]}.'
)
_RANKING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"ranking": {"type": "array", "items": {"type": "integer"}}},
    "required": ["ranking"],
    "additionalProperties": False,
}


class LLMListwiseReranker:
    """A language model orders the numbered candidates in one call.

    Language models return broken or partial lists; the guarantee here is that
    every candidate comes back exactly once: numbers the model gave, in its
    order, then the ones it left out in their original order. When nothing
    usable comes back (or the call fails) the input order is kept and the
    failure is counted in ``stats()`` so the report can show it.
    """

    expensive = True

    def __init__(self, provider: Provider, *, max_chars: int = 600) -> None:
        self.provider = provider
        self.name = f"llm:{provider.spec}"
        self.max_chars = max_chars
        self.calls = 0
        self.failures = 0
        self.usage = Usage()

    def rerank(self, query: str, candidates: list[tuple[str, str]], k: int) -> list[str]:
        if len(candidates) < 2:
            return [cid for cid, _ in candidates][:k]
        self.calls += 1
        try:
            completion = self.provider.complete(
                [Message(role="user", content=self._prompt(query, candidates))],
                system=_SYSTEM,
                json_schema=_RANKING_SCHEMA,
                max_tokens=16 + 6 * len(candidates),
            )
        except ModelError:
            self.failures += 1
            return [cid for cid, _ in candidates][:k]
        self.usage = self.usage + completion.usage
        order = parse_ranking(completion.text, len(candidates))
        if not order:
            self.failures += 1
        given = set(order)
        ranked = order + [i for i in range(len(candidates)) if i not in given]
        return [candidates[i][0] for i in ranked[:k]]

    def _prompt(self, query: str, candidates: list[tuple[str, str]]) -> str:
        passages = "\n\n".join(
            f"[{n}] {' '.join(text.split())[: self.max_chars]}" for n, (_, text) in enumerate(candidates, start=1)
        )
        return f"Question: {query}\n\nPassages:\n{passages}\n\nRank all {len(candidates)} passages for the question."

    def stats(self) -> dict[str, Any]:
        return {
            "rerank_calls": self.calls,
            "rerank_failures": self.failures,
            "tokens_in": self.usage.tokens_in,
            "tokens_out": self.usage.tokens_out,
            "usd": self.usage.usd,
        }


def parse_ranking(text: str, n: int) -> list[int]:
    """Zero-based candidate positions from a model's reply, deduplicated, invalid numbers dropped.

    Accepts ``{"ranking": [...]}``, a bare JSON list, or a list embedded in
    prose or a code fence; returns ``[]`` when no usable number is found.
    """
    numbers: Any = _json_or_none(text)
    if isinstance(numbers, dict):
        numbers = numbers.get("ranking")
    if numbers is None:
        embedded = re.search(r"\[[\d\s,]*\]", text)
        numbers = _json_or_none(embedded.group()) if embedded else None
    if not isinstance(numbers, list):
        return []
    seen: list[int] = []
    for number in numbers:
        if isinstance(number, int) and not isinstance(number, bool) and 1 <= number <= n and number - 1 not in seen:
            seen.append(number - 1)
    return seen


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


class RerankedRetriever:
    """``base`` proposes ``depth`` candidates; ``reranker`` orders them and keeps ``k``."""

    def __init__(
        self,
        base: Retriever,
        reranker: Reranker,
        *,
        chunks: Sequence[ChunkLike],
        depth: int = 20,
    ) -> None:
        self.base = base
        self.reranker = reranker
        self.depth = depth
        self.texts = {chunk.id: chunk.text for chunk in chunks}
        self.name = f"{family_name(base)} + rerank ({reranker.name})"
        #: the runner restricts expensive configs to the seeded sample (``--sample``)
        self.expensive = bool(getattr(reranker, "expensive", False))
        self._queries = 0

    def retrieve(self, query: str, k: int) -> list[str]:
        self._queries += 1
        ids = self.base.retrieve(query, max(self.depth, k))
        if not ids:
            return []
        return self.reranker.rerank(query, [(cid, self.texts[cid]) for cid in ids], k)

    def stats(self) -> dict[str, Any]:
        return {"queries": self._queries, **adapter_stats(self.reranker)}
