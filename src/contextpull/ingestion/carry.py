"""What an ingest keeps of a store it rebuilds: work paid for once, which the new index does not change.

A store written by another term-analysis or format version is rebuilt from
its files. Its vectors depend only on each section's embedded text and the
model, a model's index line only on the file's bytes, and its links on a
base URL the user passed once. A rebuild that started from nothing
re-embedded the whole corpus (20 minutes for the semconv docs with
e5-small), or, without ``--embed``, silently left a store with no vectors
(hybrid search fell back to words) and no links, and replaced a model's
summaries with offline ones (docs/adr/010-embeddings.md, follow-up).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..analysis.vectors import META_COUNT, META_DIM, META_DTYPE, META_MODEL, STORED_DTYPE
from ..contents.links import META_KEY as LINKS_META_KEY
from ..contents.summaries import META_KEY as SUMMARIES_META_KEY
from ..contents.summaries import OFFLINE
from ..store.connection import read_older_store


@dataclass(frozen=True)
class Carried:
    """What a rebuild keeps: meta to start the new store with, and the work to reuse by content."""

    meta: dict[str, str] = field(default_factory=dict)  # vector model and size, summariser, links
    vectors: dict[str, bytes] = field(default_factory=dict)  # by the key of the embedded text
    summaries: dict[tuple[str, str], str] = field(default_factory=dict)  # (path, sha256) -> a model's line
    corpus_root: str | None = None  # the folder the old store was built from


def carried_from(store: Path) -> Carried:
    """What a rebuild of ``store`` keeps (module docstring).

    Vectors stored in another type than this version's are not reused (the
    model is kept, and they are embedded again), so nothing mixes two
    encodings; offline index lines are written again, as the offline
    summariser may have changed with the version.
    """
    older = read_older_store(store)
    meta, kept = older.meta, {}
    vectors: dict[str, bytes] = {}
    summaries: dict[tuple[str, str], str] = {}
    if meta.get(META_MODEL) and meta.get(META_DTYPE) == STORED_DTYPE:
        kept.update({key: meta[key] for key in (META_MODEL, META_DIM, META_DTYPE, META_COUNT) if key in meta})
        vectors = older.vectors
    elif meta.get(META_MODEL):
        kept[META_MODEL] = meta[META_MODEL]
    if meta.get(SUMMARIES_META_KEY, OFFLINE) != OFFLINE:
        kept[SUMMARIES_META_KEY] = meta[SUMMARIES_META_KEY]
        summaries = older.summaries
    if LINKS_META_KEY in meta:
        kept[LINKS_META_KEY] = meta[LINKS_META_KEY]
    return Carried(kept, vectors, summaries, meta.get("corpus_root"))
