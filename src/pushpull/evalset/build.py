"""Build, cache, save and load the eval set (see the package docstring for what it holds)."""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ..chunks import Chunk, fingerprint
from ..errors import FingerprintMismatch, InputError
from ..questions import COMPUTED_SHAPES, SHAPES, Question, read_questions, write_questions
from .aggregation import build_aggregation
from .table import build_table

#: bump when builders change what they produce, so old caches are not reused
BUILDER_VERSION = 4
DEFAULT_MAX_GOLD = 5


@dataclass
class EvalSet:
    """Questions plus what they were built from and what was skipped and why."""

    questions: list[Question]
    fingerprint: str
    shapes: tuple[str, ...]
    n: int
    seed: int
    model: str
    max_gold: int = DEFAULT_MAX_GOLD
    counts: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    model_calls: int = 0
    model_errors: int = 0
    path: Path | None = None
    cached: bool = False

    def info(self) -> dict[str, Any]:
        data = asdict(self)
        for key in ("questions", "path", "cached"):
            data.pop(key)
        data["shapes"] = list(self.shapes)
        data["builder_version"] = BUILDER_VERSION
        data["template_fallbacks"] = self.template_fallbacks
        return data

    @property
    def template_fallbacks(self) -> dict[str, int]:
        """Per phrased shape, how many questions a template worded because the model's wording failed its checks."""
        counts: dict[str, int] = {}
        for question in self.questions:
            if question.phrasing == "template":
                counts[question.shape] = counts.get(question.shape, 0) + 1
        return counts

    def template_lines(self) -> list[str]:
        """A line for any report saying how many phrased questions a template worded (none when no template was used)."""
        fallbacks = self.template_fallbacks
        if not fallbacks:
            return []
        parts = ", ".join(f"{shape} {n} of {self.counts.get(shape, n)}" for shape, n in fallbacks.items())
        return [f"template-worded questions (the model's wording failed the checks): {parts}"]


def info_path(questions_path: Path) -> Path:
    """Sidecar beside a questions file. Not ``.meta.json``: ragbisect reads that name as its own report."""
    return questions_path.with_name(questions_path.stem + ".info.json")


def cache_key(fp: str, shapes: Sequence[str], n: int, seed: int, model: str, max_gold: int) -> str:
    params = {
        "fp": fp,
        "shapes": sorted(shapes),
        "n": n,
        "seed": seed,
        "model": model,
        "max_gold": max_gold,
        "v": BUILDER_VERSION,
    }
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:12]


def save_evalset(evalset: EvalSet, path: Path) -> None:
    write_questions(evalset.questions, path)
    info_path(path).write_text(json.dumps(evalset.info(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    evalset.path = path


def load_evalset(path: Path, chunks: Sequence[Chunk]) -> EvalSet:
    """A questions file checked against ``chunks``.

    Refused (:class:`FingerprintMismatch`) when its sidecar names another
    corpus fingerprint, or, for a bare file without sidecar, when a gold id is
    not a chunk of this corpus: scores against a stale set would be silent lies.
    """
    questions = read_questions(path)
    fp = fingerprint(chunks)
    sidecar = info_path(path)
    info: dict[str, Any] = {}
    if sidecar.exists():
        try:
            info = json.loads(sidecar.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as err:
            raise InputError(f"cannot read {sidecar}: {err}", "delete it or rebuild the eval set") from err
        if info.get("fingerprint") != fp:
            raise FingerprintMismatch(
                f"eval set {path} was built from corpus {info.get('fingerprint')}, these chunks are {fp}",
                "rebuild the eval set for this corpus (pushpull build-evalset)",
            )
    known = {c.id for c in chunks}
    unknown = sorted({g for q in questions for g in q.gold_chunk_ids if g not in known})
    if unknown:
        raise FingerprintMismatch(
            f"{len(unknown)} gold chunk id(s) in {path} are not in this corpus (e.g. {unknown[0]!r})",
            "the eval set belongs to another corpus or chunking; rebuild it",
        )
    shapes = tuple(dict.fromkeys(q.shape for q in questions))
    evalset = EvalSet(
        questions,
        fp,
        tuple(info.get("shapes", shapes)),
        int(info.get("n", len(questions))),
        int(info.get("seed", 0)),
        str(info.get("model", "unknown")),
        int(info.get("max_gold", DEFAULT_MAX_GOLD)),
        counts=_counts(questions),
        skipped=dict(info.get("skipped", {})),
        model_calls=int(info.get("model_calls", 0)),
        model_errors=int(info.get("model_errors", 0)),
        path=path,
    )
    return evalset


def _counts(questions: Sequence[Question]) -> dict[str, int]:
    return {
        shape: sum(q.shape == shape for q in questions) for shape in SHAPES if any(q.shape == shape for q in questions)
    }


def build_evalset(
    chunks: Sequence[Chunk],
    *,
    shapes: Sequence[str] = SHAPES,
    provider: Any | None = None,
    n: int = 200,
    seed: int = 0,
    max_gold: int = DEFAULT_MAX_GOLD,
    workers: int = 4,
    progress: Callable[[int], None] | None = None,
) -> EvalSet:
    """Build a fresh eval set of about ``n`` questions, ``n / len(shapes)`` per shape at most.

    Model-phrased shapes are skipped with a reason when ``provider`` is None;
    with a provider, each computed aggregation question also gets a twin
    worded as a person would ask it (:mod:`.reworded`), after the computed ones.
    Question ids are ``q0001``… in shape order, so a rebuild with the same
    inputs writes the same file.
    """
    from .comparison import build_comparison
    from .exact_lookup import build_exact_lookup
    from .phrased import build_conceptual
    from .reworded import reword_aggregation

    quota = max(1, math.ceil(n / max(1, len(shapes))))
    model = getattr(provider, "spec", "none") if provider is not None else "none"
    evalset = EvalSet([], fingerprint(chunks), tuple(shapes), n, seed, model, max_gold)
    found: dict[str, list[Question]] = {}
    for shape in SHAPES:
        if shape not in shapes:
            continue
        if shape in COMPUTED_SHAPES:
            builder = build_aggregation if shape == "aggregation" else build_table
            extra = {"max_gold": max_gold} if shape == "aggregation" else {}
            found[shape], reason = builder(chunks, limit=quota, seed=seed, **extra)
            if reason:
                evalset.skipped[shape] = reason
        elif provider is None:
            evalset.skipped[shape] = "no model configured (--model none); model-phrased shapes need one"
    if provider is not None:
        results = []
        if "conceptual" in shapes:
            results.append(
                build_conceptual(chunks, provider, quota=quota, seed=seed, workers=workers, progress=progress)
            )
        if "exact_lookup" in shapes:
            results.append(
                build_exact_lookup(chunks, provider, quota=quota, seed=seed, workers=workers, progress=progress)
            )
        if "comparison" in shapes:
            results.append(build_comparison(chunks, provider, quota=quota, workers=workers, progress=progress))
        if found.get("aggregation"):
            computed = list(found["aggregation"])
            results.append(reword_aggregation(computed, chunks, provider, workers=workers, progress=progress))
        for result in results:
            for question in result.questions:
                found.setdefault(question.shape, []).append(question)
            evalset.skipped.update(result.reasons)
            evalset.model_calls += result.calls
            evalset.model_errors += result.errors
    for shape in SHAPES:
        evalset.questions.extend(found.get(shape, []))
    for i, question in enumerate(evalset.questions, 1):
        question.id = f"q{i:04d}"
    evalset.counts = _counts(evalset.questions)
    return evalset


def build_or_load(
    chunks: Sequence[Chunk],
    cache_dir: Path,
    *,
    shapes: Sequence[str] = SHAPES,
    provider: Any | None = None,
    n: int = 200,
    seed: int = 0,
    max_gold: int = DEFAULT_MAX_GOLD,
    progress: Callable[[int], None] | None = None,
) -> EvalSet:
    """The cached set for these chunks and parameters, built (and saved) on first use.

    A set whose model calls all failed is returned but not cached, so a
    transient outage is not remembered as "the corpus has no such questions".
    """
    model = getattr(provider, "spec", "none") if provider is not None else "none"
    path = cache_dir / f"evalset-{cache_key(fingerprint(chunks), shapes, n, seed, model, max_gold)}.jsonl"
    if path.exists() and info_path(path).exists():
        evalset = load_evalset(path, chunks)
        evalset.cached = True
        return evalset
    evalset = build_evalset(
        chunks, shapes=shapes, provider=provider, n=n, seed=seed, max_gold=max_gold, progress=progress
    )
    if not (evalset.model_calls and evalset.model_errors == evalset.model_calls):
        save_evalset(evalset, path)
    return evalset
