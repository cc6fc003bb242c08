"""Keeping a store's section vectors in step with its sections.

Rules (docs/adr/010-embeddings.md):

* one model per store: its name, dimension and storage type are recorded in
  ``meta``; asking for another model is refused unless the caller asks to
  re-embed everything (``--reembed``), so no store ever mixes two vector spaces;
* a store that has vectors keeps them current on every ingest, with the model
  it records, even when this ingest did not ask for vectors;
* only sections whose embedded text (heading path + text) changed are
  embedded: the writer sets aside the vectors of every section it removes,
  by the hash of their embedded text, and a re-stored section with the same
  hash takes its vector back.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import contextpull_vec

from ..analysis.vectors import (
    META_COUNT,
    META_DIM,
    META_DTYPE,
    META_MODEL,
    STORED_DTYPE,
    embed,
    embedding_text,
    get_embedder,
    to_blobs,
    vector_key,
)
from ..errors import BadArgument, EmbedderUnavailable, MixedModels
from ..store.writer import StoreWriter

#: sections embedded per call: large enough to amortise a call, small enough for steady progress
BATCH = 512

EmbedSpec = str | contextpull_vec.Embedder


@dataclass(frozen=True)
class VectorJob:
    """Which model this ingest keeps vectors for, decided before anything is written."""

    name: str
    source: EmbedSpec  # a spec to build lazily, or an embedder the caller built
    replace: bool  # drop every stored vector first (re-embed all)

    def build(self) -> contextpull_vec.Embedder:
        return get_embedder(self.source) if isinstance(self.source, str) else self.source


def plan(embedding: EmbedSpec | None, meta: Mapping[str, str], store: str, *, reembed: bool) -> VectorJob | None:
    """The vector work of an ingest, or ``None`` when the store has and wants no vectors.

    Raises :class:`MixedModels` when ``embedding`` names another model than the
    store's and ``reembed`` is false, :class:`EmbedderUnavailable` for an
    unknown spec, :class:`BadArgument` for ``reembed`` without a model.
    """
    stored = meta.get(META_MODEL)
    if embedding is None:
        if reembed and stored is None:
            raise BadArgument("--reembed needs --embed on a store without vectors", "add --embed static")
        return None if stored is None else VectorJob(stored, stored, replace=reembed)
    name = _name(embedding)
    if stored is not None and stored != name and not reembed:
        raise MixedModels(
            f"{store} holds {stored} vectors ({meta.get(META_DIM, '?')}-d); embedding with {name} would mix two models",
            f"re-run with --reembed to replace every vector with {name}'s, or leave out --embed to keep {stored}",
        )
    return VectorJob(name, embedding, replace=reembed)


def up_to_date(job: VectorJob | None, meta: Mapping[str, str]) -> bool:
    """True when ``job`` would write nothing to a store whose sections are unchanged."""
    if job is None:
        return True
    return not job.replace and meta.get(META_MODEL) == job.name and meta.get(META_COUNT) == meta.get("section_count")


@dataclass
class VectorReport:
    """What :func:`update` did."""

    model: str = ""
    dim: int = 0
    embedded: int = 0
    reused: int = 0
    count: int = 0  # sections with a vector afterwards


def update(
    writer: StoreWriter, job: VectorJob, progress: Callable[[int, int], None] | None = None
) -> tuple[VectorReport, dict[str, str]]:
    """Give every section without a vector one (reused by text hash, or embedded); return the report and meta."""
    report = VectorReport(model=job.name)
    if job.replace:
        writer.drop_vectors()
    todo, reused = [], []
    for rowid, heading_path, text, table_header in writer.sections_without_vectors():
        content = embedding_text(heading_path, text, table_header)
        key = vector_key(content)
        blob = writer.reusable_vector(key)
        if blob is None:
            todo.append((rowid, key, content))
        else:
            reused.append((rowid, key, blob))
    writer.put_vectors(reused)
    report.reused = len(reused)
    same_model = writer.meta(META_MODEL) == job.name and not job.replace
    dim = int(writer.meta(META_DIM) or 0) if same_model else 0
    if todo:
        embedder = job.build()
        if embedder.name != job.name:
            raise MixedModels(
                f"the embedder given is {embedder.name}, but this ingest keeps {job.name} vectors",
                f"pass the embedder for {job.name}, or re-embed with --reembed",
            )
        for start in range(0, len(todo), BATCH):
            batch = todo[start : start + BATCH]
            matrix = embed(embedder, [content for _, _, content in batch])
            if dim and matrix.shape[1] != dim:
                raise MixedModels(
                    f"{job.name} now returns {matrix.shape[1]}-d vectors; the store holds {dim}-d ones",
                    "re-run with --reembed to replace every vector",
                )
            dim = int(matrix.shape[1])
            writer.put_vectors((rowid, key, blob) for (rowid, key, _), blob in zip(batch, to_blobs(matrix)))
            report.embedded += len(batch)
            if progress is not None:
                progress(start + len(batch), len(todo))
    report.dim, report.count = dim, writer.vector_count()
    meta = {META_MODEL: job.name, META_DIM: str(dim), META_DTYPE: STORED_DTYPE, META_COUNT: str(report.count)}
    return report, meta


def _name(embedding: EmbedSpec) -> str:
    if not isinstance(embedding, str):
        return embedding.name
    try:
        return contextpull_vec.model_name(embedding)
    except contextpull_vec.EmbedderError as exc:
        raise EmbedderUnavailable(exc.message, exc.suggestion) from None
