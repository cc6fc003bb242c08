"""What every embedder promises, and the one normalisation they share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into L2-normalised float32 rows, so cosine similarity is a dot product."""

    #: stable identity of the model: recorded in stores and cache keys, and a store refuses another
    name: str

    @property
    def dim(self) -> int: ...

    def embed(self, texts: list[str]) -> np.ndarray:
        """One L2-normalised float32 row per text, in input order: the texts searched (sections, chunks)."""
        ...


def embed_queries(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """``texts`` embedded as search queries.

    An asymmetric model (e5) embeds a query differently from the passages it
    searches and says so with an ``embed_queries`` method; every other
    embedder, ours or one a user injects, embeds both alike, with ``embed``.
    """
    method = getattr(embedder, "embed_queries", None)
    return method(texts) if callable(method) else embedder.embed(texts)


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (zero rows stay zero), as float32."""
    import numpy as np

    matrix = np.asarray(matrix, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.where(norms == 0, 1.0, norms)
