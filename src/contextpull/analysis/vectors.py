"""Section vectors: what is embedded, how a vector is stored, and how they are ranked.

A section is embedded as its heading path, a blank line, then its text (a
table continuation with its header row, as ``read`` shows it), so a section
whose heading names the subject is found even when its body never repeats
it. Vectors are stored as little-endian float16 BLOBs (half of float32's
bytes; cosine rankings unchanged at three significant digits) and ranked by
brute force: one matrix-vector product per query, exact, and fast enough to
10^5 sections on one core (docs/adr/010-embeddings.md).

The embedders themselves live in :mod:`contextpull_vec`, shared with the eval
harness; this module turns their errors into the ContextPull family. numpy
is imported only when vectors are used, so the core installs without it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import contextpull_vec

from ..errors import EmbedderUnavailable, EmbeddingFailed
from ..records import HEADING_SEPARATOR

if TYPE_CHECKING:
    import numpy as np

    from contextpull_vec import Embedder

#: how vectors are stored: recorded in the store's meta beside the model and dimension
STORED_DTYPE = "float16"
#: meta keys describing a store's vectors
META_MODEL, META_DIM, META_DTYPE, META_COUNT = "embed_model", "embed_dim", "embed_dtype", "vector_count"
_WIRE = "<f2"
#: path filters whose section positions an open store remembers (an agent repeats its filters)
_FILTERS_KEPT = 8


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
        return contextpull_vec.get_embedder(spec)
    except contextpull_vec.EmbedderError as exc:
        raise EmbedderUnavailable(exc.message, exc.suggestion) from None


def embed(embedder: Embedder, texts: list[str], *, queries: bool = False) -> np.ndarray:
    """``texts`` embedded as sections (or as search ``queries``), an endpoint's failure as :class:`EmbeddingFailed`."""
    try:
        return contextpull_vec.embed_queries(embedder, texts) if queries else embedder.embed(texts)
    except contextpull_vec.EmbedderError as exc:
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

    ``rowids`` are section row ids in ascending order (as the store reads
    them), ``doc_ids`` their documents (for the path filter). Vectors are
    unit length, so a dot product is the cosine. They are kept transposed
    (one row per dimension): the product with a query then streams memory in
    order, measured at about twice the speed of the row-per-section layout
    at 10^5 sections.
    """

    def __init__(self, rowids: Sequence[int], doc_ids: Sequence[int], blobs: Sequence[bytes], dim: int) -> None:
        import numpy as np

        self._np = np
        self.rowids = np.asarray(rowids, dtype=np.int64)
        self.doc_ids = np.asarray(doc_ids, dtype=np.int64)
        self.by_dimension = np.ascontiguousarray(from_blobs(blobs, dim).T)
        self._columns: dict[tuple[int, ...], np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.rowids)

    def columns(self, doc_ids: Sequence[int]) -> np.ndarray:
        """Positions of the sections of ``doc_ids``, in store order; the last few filters are remembered."""
        np = self._np
        key = tuple(sorted(doc_ids))
        found = self._columns.get(key)
        if found is None:
            found = np.flatnonzero(np.isin(self.doc_ids, np.asarray(key, dtype=np.int64)))
            if len(self._columns) >= _FILTERS_KEPT:
                self._columns.pop(next(iter(self._columns)))
            self._columns[key] = found
        return found

    def similarities(self, query: np.ndarray, rowids: Sequence[int]) -> dict[int, float]:
        """The cosine of ``query`` with each of ``rowids`` that has a vector; the others are left out.

        Only those sections' columns are read, so the cost is the few asked
        for, not the store's size.
        """
        np = self._np
        wanted = np.asarray(rowids, dtype=np.int64)
        at = np.searchsorted(self.rowids, wanted)
        inside = at < len(self.rowids)
        found = np.zeros(len(wanted), dtype=bool)
        found[inside] = self.rowids[at[inside]] == wanted[inside]
        positions = at[found]
        scores = query.astype(np.float32, copy=False) @ self.by_dimension[:, positions]
        return dict(zip(wanted[found].tolist(), scores.tolist(), strict=True))

    def top(self, query: np.ndarray, depth: int, doc_ids: Sequence[int] | None = None) -> list[int]:
        """Row ids of the ``depth`` most similar sections (within ``doc_ids``), best first.

        One matrix-vector product over every section (streaming memory in
        order is cheaper than gathering the filtered columns), then a partial
        sort of only the candidates. Equal similarities keep store order, so
        the ranking is deterministic.
        """
        np = self._np
        scores = query.astype(np.float32, copy=False) @ self.by_dimension
        if doc_ids is None:
            candidates = None
        else:
            candidates = self.columns(doc_ids)
            scores = scores[candidates]
        depth = min(depth, len(scores))
        if depth <= 0:
            return []
        if depth < len(scores):
            best = np.argpartition(scores, len(scores) - depth)[len(scores) - depth :]
        else:
            best = np.arange(len(scores))
        best = best[np.lexsort((best, -scores[best]))]
        if candidates is not None:
            best = candidates[best]
        return self.rowids[best].tolist()
