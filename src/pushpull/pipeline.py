"""The steps a scoring command strings together, shared by ``pushpull run`` and ``contextpull bench``.

Open the model (or record why there is none), build or reuse the eval set,
turn push configs into rows, run them under progress on stderr, write the
output folder. Each step is one function so a command composes only what it
needs and both commands produce the same table and files.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from .chunks import Chunk
from .errors import is_missing_library, missing_dependency
from .evalset import EvalSet, build_or_load
from .models.base import ModelError, NoModelConfigured
from .progress import progress_bars
from .provenance import provenance
from .scoring.report import write_outputs
from .scoring.runner import RunResult, RunRow, run


@dataclass
class Rows:
    """Configurations to run, and those that cannot run here with the reason."""

    rows: list[RunRow] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)

    def extend(self, other: Rows) -> None:
        self.rows.extend(other.rows)
        self.skipped.update(other.skipped)


def open_model(spec: str | None, cache_dir: Path) -> tuple[Any | None, str]:
    """The provider for ``spec`` and ``""``, or None and the reason no model is used."""
    if not spec or spec == "none":
        return None, "no model configured (--model none)"
    from .models import get_provider

    try:
        return get_provider(spec, cache_dir=cache_dir / "models"), ""
    except NoModelConfigured as err:
        return None, str(err)


def require_model(spec: str | None, cache_dir: Path) -> Any | None:
    """Like :func:`open_model`, but a model the user named and that cannot run is an error."""
    provider, reason = open_model(spec, cache_dir)
    if provider is None and spec not in (None, "", "none"):
        raise ModelError(f"model {spec!r} cannot be used: {reason}")
    return provider


def evalset_for(
    chunks: Sequence[Chunk],
    cache_dir: Path,
    *,
    shapes: Sequence[str],
    provider: Any | None,
    n: int,
    seed: int,
) -> EvalSet:
    """The cached eval set for these chunks and parameters, built under a progress bar if new."""
    with progress_bars() as progress:
        task = progress.add_task("phrasing questions", total=None)
        return build_or_load(
            chunks,
            cache_dir / "evalsets",
            shapes=shapes,
            provider=provider,
            n=n,
            seed=seed,
            progress=lambda done: progress.advance(task, done),
        )


def push_rows(
    chunks: Sequence[Chunk],
    which: Sequence[str] | None,
    cache_dir: Path,
    *,
    reranker: str | None = None,
    embedder: str | None = None,
    reranker_provider: Any | None = None,
) -> Rows:
    """Rows for the push configs ``which`` (None = all); configs that cannot run are skipped with a reason."""
    if which is not None and not which:
        return Rows()
    require_push_libraries()
    from .retrievers import build_push_configs

    rows = Rows()
    for config in build_push_configs(
        chunks,
        cache_dir=cache_dir / "push",
        which=list(which) if which else None,
        reranker=reranker,
        embedder=embedder,
        reranker_provider=reranker_provider,
    ):
        if config.retriever is None:
            rows.skipped[config.name] = config.skip_reason or "unavailable"
        else:
            rows.rows.append(
                RunRow(
                    config.name,
                    config.retriever,
                    sampled=bool(getattr(config.retriever, "expensive", False)),
                    push=True,
                )
            )
    return rows


def require_push_libraries() -> None:
    """Refuse in one line naming the extra when the push rows' libraries (numpy, bm25s) are absent.

    Commands call it before any work, so a run without them stops at once
    rather than after ingesting and building the eval set.
    """
    try:
        import_module(".retrievers", __package__)
    except ModuleNotFoundError as exc:
        if not is_missing_library(exc):
            raise
        raise missing_dependency(exc, "the push rows (--push)") from exc


def spend() -> tuple[str, dict[str, Any]]:
    """The model layer's spend line and figures for this process."""
    from .models import default_ledger

    ledger = default_ledger()
    return ledger.summary(), ledger.to_dict()


def score(
    chunks: Sequence[Chunk],
    evalset: EvalSet,
    rows: Rows,
    out_dir: Path,
    *,
    k: int,
    sample: int | None,
    seed: int,
    judge: Any | None,
    meta: dict[str, Any] | None = None,
    finish: Callable[[RunResult], None] | None = None,
) -> tuple[RunResult, dict[str, Path]]:
    """Run every row and write the output folder.

    ``meta`` goes into results.json beside the figures; its ``provenance``
    (commit, clean tree, command, machine) is taken now unless the caller
    took it earlier, at the start of its run. ``finish`` may amend the result
    (notes under the table, recorded timings) before anything is written.
    """
    meta = dict(meta or {})
    meta.setdefault("provenance", provenance(exclude=[out_dir]))
    with progress_bars() as progress:
        result = run(
            rows.rows,
            evalset,
            chunks,
            k=k,
            sample=sample,
            seed=seed,
            judge=judge,
            skipped_rows=rows.skipped,
            progress=progress,
        )
    result.meta = meta
    if finish is not None:
        finish(result)
    _, figures = spend()
    return result, write_outputs(result, chunks, out_dir, spend=figures)
