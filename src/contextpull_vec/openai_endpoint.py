"""Any OpenAI-compatible embeddings endpoint, through the official SDK.

OpenAI itself, Ollama, llama.cpp, vLLM and most hosted gateways speak the
same ``/v1/embeddings`` wire format; ``openai:<model>`` reaches any of them.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from .base import normalise
from .errors import EndpointFailed, missing

if TYPE_CHECKING:
    import numpy as np
    import openai


class OpenAIEmbedder:
    """Vectors from ``<base_url>/embeddings`` for ``model``.

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
        try:
            import numpy as np
            import openai
        except ImportError as exc:
            raise missing(exc) from exc
        self._np = np
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
            return self._np.zeros((0, self._dim or 0), dtype=self._np.float32)
        matrix = normalise(self._np.array(rows, dtype=self._np.float32))
        self._dim = matrix.shape[1]
        return matrix

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        import openai

        try:
            response = self._client.embeddings.create(model=self.model, input=texts)
        except openai.OpenAIError as exc:
            raise EndpointFailed(
                f"embedding with {self.name} failed: {exc}",
                "check OPENAI_BASE_URL, OPENAI_API_KEY and the model name",
            ) from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(texts):
            raise EndpointFailed(
                f"{self.name} returned {len(data)} embeddings for {len(texts)} texts",
                "check that the endpoint implements the OpenAI embeddings API",
            )
        return [item.embedding for item in data]
