"""Section vectors: what is embedded, how a vector is stored, and how they are ranked.

A section is embedded as its heading path, a blank line, then its text (a
table continuation with its header row, as ``read`` shows it), so a section
whose heading names the subject is found even when its body never repeats
it. Vectors are stored as little-endian float16 BLOBs (half of float32's
bytes; cosine rankings unchanged at three significant digits) and ranked by
brute force: one matrix-vector product per query, exact, and fast enough to
10^5 sections on one core (docs/adr/010-embeddings.md).

The embedders themselves live in :mod:`pullvec`, shared with the eval
harness; this module turns their errors into the ContextPull family. numpy
is imported only when vectors are used, so the core installs without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import pullvec

from .errors import EmbedderUnavailable, EmbeddingFailed
from .records import HEADING_SEPARATOR

if TYPE_CHECKING:
    import numpy as np

    from pullvec import Embedder

#: how vectors are stored: recorded in the store's meta beside the model and dimension
STORED_DTYPE = "float16"
#: meta keys describing a store's vectors
META_MODEL, META_DIM, META_DTYPE, META_COUNT = "embed_model", "embed_dim", "embed_dtype", "vector_count"
_WIRE = "<f2"


def embedding_text(heading_path: Iterable[str], text: str, table_header: str | None = None) -> str:
    """What is embedded for one section: heading path, a blank line, the text as ``read`` shows it."""
    heading = HEADING_SEPARATOR.join(heading_path)
    body = f"{table_header.rstrip(chr(10))}\n{text}" if table_header else text
    return f"{heading}\n\n{body}" if heading else body


def vector_key(text: str) -> str:
    """64 bits of sha256 of the embedded text: a section whose key is unchanged keeps its vector."""
    import hashlib  # here: every read command imports this module, few hash (issue 14)

    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def get_embedder(spec: str) -> Embedder:
    """The embedder for ``spec``, or :class:`EmbedderUnavailable` naming the fix."""
    try:
        return pullvec.get_embedder(spec)
    except pullvec.EmbedderError as exc:
        raise EmbedderUnavailable(exc.message, exc.suggestion) from None


def embed(embedder: Embedder, texts: list[str]) -> np.ndarray:
    """``embedder.embed(texts)``, with an endpoint's failure as :class:`EmbeddingFailed`."""
    try:
        return embedder.embed(texts)
    except pullvec.EmbedderError as exc:
        raise EmbeddingFailed(exc.message, exc.suggestion) from None


def to_blobs(matrix: np.ndarray) -> list[bytes]:
    """One stored BLOB per row."""
    import numpy as np

    wire = np.ascontiguousarray(matrix, dtype=_WIRE)
    return [row.tobytes() for row in wire]


def from_blobs(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """The float32 matrix of stored BLOBs, one row each."""
    import numpy as np

    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    return np.frombuffer(b"".join(blobs), dtype=_WIRE).reshape(len(blobs), dim).astype(np.float32)


class VectorIndex:
    """Every stored vector of one store, in memory, for brute-force cosine ranking.

    ``rowids`` are section row ids, ``doc_ids`` their documents (for the path
    filter). Vectors are unit length, so a dot product is the cosine. They are
    kept transposed (one row per dimension): the product with a query then
    streams memory in order, measured at about twice the speed of the
    row-per-section layout at 10^5 sections.
    """

    def __init__(self, rowids: Sequence[int], doc_ids: Sequence[int], blobs: Sequence[bytes], dim: int) -> None:
        import numpy as np

        self._np = np
        self.rowids = np.asarray(rowids, dtype=np.int64)
        self.doc_ids = np.asarray(doc_ids, dtype=np.int64)
        self.by_dimension = np.ascontiguousarray(from_blobs(blobs, dim).T)

    def __len__(self) -> int:
        return len(self.rowids)

    def top(self, query: np.ndarray, depth: int, doc_ids: Sequence[int] | None = None) -> list[int]:
        """Row ids of the ``depth`` most similar sections (within ``doc_ids``), best first.

        Equal similarities keep store order, so the ranking is deterministic.
        """
        np = self._np
        scores = query.astype(np.float32) @ self.by_dimension
        if doc_ids is not None:
            scores = np.where(np.isin(self.doc_ids, np.asarray(doc_ids, dtype=np.int64)), scores, -np.inf)
        depth = min(depth, int(np.isfinite(scores).sum()))
        if depth <= 0:
            return []
        best = np.argpartition(-scores, depth - 1)[:depth]
        best = best[np.lexsort((best, -scores[best]))]
        return self.rowids[best].tolist()
