"""Dense retrieval: brute-force cosine over a normalised float32 matrix.

Brute force is exact and, at the sizes an eval corpus has (10^3–10^5 chunks),
a single matrix-vector product per query is fast enough that an approximate
index would only add a dependency and recall loss.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from contextpull_vec import Embedder, embed_queries

from ..progress import progress_bars
from .base import ChunkLike, top_k

#: chunks embedded per embedder call while building, so progress can be shown
_SLICE = 64


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Vectors of one embedder on disk, addressed by the sha256 of each text.

    Per-text keys mean an edited corpus re-embeds only the chunks whose text
    changed, and a re-run of the same corpus embeds nothing. Writes replace
    the file atomically, so an interrupted run never leaves a torn cache.
    """

    def __init__(self, cache_dir: Path, embedder_name: str) -> None:
        safe = re.sub(r"[^A-Za-z0-9._-]+", "_", embedder_name)
        self.path = Path(cache_dir) / f"embeddings-{safe}.npz"

    def load(self) -> dict[str, np.ndarray]:
        if not self.path.exists():
            return {}
        try:
            with np.load(self.path) as data:
                return dict(zip(data["hashes"].tolist(), data["vectors"]))
        except (OSError, ValueError, KeyError):
            return {}  # unreadable cache: recompute rather than fail the run

    def save(self, vectors: dict[str, np.ndarray]) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        hashes = np.array(list(vectors), dtype="U64")
        matrix = np.stack(list(vectors.values())).astype(np.float32)
        fd, tmp = tempfile.mkstemp(dir=self.path.parent, suffix=".npz.tmp")
        try:
            with os.fdopen(fd, "wb") as handle:
                np.savez(handle, hashes=hashes, vectors=matrix)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class DenseRetriever:
    """Chunks ranked by cosine similarity of their embedding to the query's."""

    def __init__(
        self,
        chunks: Sequence[ChunkLike],
        *,
        embedder: Embedder,
        cache_dir: Path | None = None,
        progress: bool = True,
    ) -> None:
        started = time.perf_counter()
        self.embedder = embedder
        self.name = f"dense ({embedder.name})"
        self.ids = [chunk.id for chunk in chunks]
        texts = [chunk.text for chunk in chunks]
        hashes = [text_hash(t) for t in texts]
        cache = EmbeddingCache(cache_dir, embedder.name) if cache_dir is not None else None
        known = cache.load() if cache else {}
        missing = {h: t for h, t in zip(hashes, texts) if h not in known}
        self.embedded = len(missing)
        if missing:
            known.update(self._embed_all(missing, progress=progress))
            if cache:
                cache.save(known)
        self.matrix = (
            np.stack([known[h] for h in hashes]).astype(np.float32, copy=False)
            if hashes
            else np.zeros((0, 0), dtype=np.float32)
        )
        self.build_seconds = time.perf_counter() - started
        self._queries = 0

    def _embed_all(self, missing: dict[str, str], *, progress: bool) -> dict[str, np.ndarray]:
        keys, texts = list(missing), list(missing.values())
        out: dict[str, np.ndarray] = {}
        with progress_bars(show=progress and len(texts) > _SLICE) as bar:
            task = bar.add_task(f"embedding chunks ({self.embedder.name})", total=len(texts))
            for start in range(0, len(texts), _SLICE):
                rows = self.embedder.embed(texts[start : start + _SLICE])
                out.update(zip(keys[start : start + _SLICE], rows))
                bar.advance(task, len(rows))
        return out

    def retrieve(self, query: str, k: int) -> list[str]:
        """Up to ``k`` chunk ids by descending cosine similarity; ties keep corpus order."""
        self._queries += 1
        if not self.ids or not query.strip():
            return []
        vector = embed_queries(self.embedder, [query])[0]
        return [self.ids[i] for i in top_k(self.matrix @ vector, k)]

    def stats(self) -> dict[str, Any]:
        return {
            "queries": self._queries,
            "chunks_embedded": self.embedded,
            "index_seconds": round(self.build_seconds, 3),
        }
