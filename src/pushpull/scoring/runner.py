"""One run: every configuration on the same eval set, corpus and k.

Each row's adapter is called once per question with ``adapter.concurrency``
threads. An adapter exception is recorded on that question as an error with
nothing retrieved — a miss that is counted and reported, never dropped. Rows
marked ``sampled`` (expensive adapters) see a seeded sample of the questions;
every other row sees them all. When a judge model is configured and an
adapter can ``generate``, its answers are judged for faithfulness and
correctness on the questions it answered; an adapter with ``evidence(query)``
(the pull rows) is judged against the sections it read, and, where it read
none, also against the snippets it was shown.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..chunks import Chunk, fingerprint
from ..errors import FingerprintMismatch, UsageError
from ..evalset import EvalSet
from ..models.base import ModelError
from ..protocol import adapter_concurrency, adapter_evidence, adapter_stats
from ..questions import Question
from .judge import judge_correctness, judge_faithfulness, judge_faithfulness_to_texts
from .metrics import QuestionResult, Summary, summarize, summarize_by_shape


class ProgressSink(Protocol):
    """The slice of ``rich.progress.Progress`` the runner uses."""

    def add_task(self, description: str, *, total: float | None = ..., **fields: Any) -> Any: ...

    def advance(self, task_id: Any, advance: float = ...) -> None: ...


@dataclass
class RunRow:
    """A named configuration to score. ``sampled`` rows see only ``--sample`` questions."""

    name: str
    adapter: Any
    sampled: bool = False
    #: a push configuration (what a RAG pipeline hands the model): the rows the verdict compares against
    push: bool = False


@dataclass
class RowResult:
    name: str
    results: list[QuestionResult]
    stats: dict[str, Any]
    sampled: bool
    k: int
    push: bool = False
    overall: Summary = field(init=False)
    by_shape: dict[str, Summary] = field(init=False)

    def __post_init__(self) -> None:
        self.summarize()

    def summarize(self) -> None:
        """(Re)compute ``overall`` and ``by_shape`` from ``results``."""
        self.overall = summarize(self.results, self.k)
        self.by_shape = summarize_by_shape(self.results, self.k)

    def per_query(self, key: str) -> float | None:
        """``stats[key]`` per query the adapter reported (or per question run), when reported."""
        if key not in self.stats and not (key == "tokens" and {"tokens_in", "tokens_out"} & self.stats.keys()):
            return None
        queries = self.stats.get("queries") or len(self.results)
        total = self.stats.get("tokens_in", 0) + self.stats.get("tokens_out", 0) if key == "tokens" else self.stats[key]
        return total / queries if queries else None


@dataclass
class RunResult:
    rows: list[RowResult]
    k: int
    fingerprint: str
    evalset: EvalSet
    judge_model: str = "none"
    skipped_rows: dict[str, str] = field(default_factory=dict)
    sample: int | None = None
    #: the questions the ``sampled`` rows saw (all of them when there is no sample)
    sample_ids: list[str] = field(default_factory=list)
    #: what the caller records about the run in results.json (provenance, fingerprints, model identities)
    meta: dict[str, Any] = field(default_factory=dict)
    #: lines the caller puts under the table (snippet leakage, a stale replay)
    notes: list[str] = field(default_factory=list)


def sample_questions(questions: Sequence[Question], sample: int | None, seed: int) -> list[Question]:
    """A seeded sample of ``sample`` questions in eval-set order, or all of them."""
    if not sample or sample >= len(questions):
        return list(questions)
    chosen = set(random.Random(seed).sample(range(len(questions)), sample))
    return [q for i, q in enumerate(questions) if i in chosen]


def _ask(adapter: Any, question: Question, k: int) -> QuestionResult:
    start = time.perf_counter()
    try:
        retrieved = [str(cid) for cid in adapter.retrieve(question.q, k)]
        error = None
    except Exception as err:  # noqa: BLE001 - an adapter's failure is a scored miss, whatever it raised
        retrieved, error = [], f"{type(err).__name__}: {err}"
    ms = (time.perf_counter() - start) * 1000
    return QuestionResult(
        question.id, question.block, list(question.gold_chunk_ids), dict(question.equivalent_of), retrieved, ms, error
    )


def _judge(adapter: Any, question: Question, result: QuestionResult, judge: Any, chunk_text: dict[str, str]) -> None:
    """Judge the adapter's answer: against what it read when it reports ``evidence`` (and, if it
    read nothing, also against the snippets it was shown), else against the chunks it retrieved."""
    if result.error is not None:
        return
    try:
        result.answer = str(adapter.generate(question.q, list(result.retrieved)))
        shown = adapter_evidence(adapter, question.q)
    except Exception:  # noqa: BLE001 - no answer (or no evidence) to judge: the question stays unjudged, retrieval still counts
        return
    try:
        if shown is None:
            passages = [(cid, chunk_text.get(cid, "")) for cid in result.retrieved]
            result.faithful = judge_faithfulness(judge, question.q, passages, result.answer)
        else:
            read, snippets = shown
            result.sections_read = len(read)
            # faithfulness to what was read is undefined when nothing was read: the judge returns None
            result.faithful = judge_faithfulness_to_texts(judge, question.q, read, result.answer)
            result.faithful_to_shown = (
                result.faithful if read else judge_faithfulness_to_texts(judge, question.q, snippets, result.answer)
            )
        if question.answer:
            result.correct = judge_correctness(judge, question.q, question.answer, result.answer)
    except ModelError:
        return


def run_row(
    row: RunRow,
    questions: Sequence[Question],
    k: int,
    *,
    judge: Any | None = None,
    chunk_text: dict[str, str] | None = None,
    progress: ProgressSink | None = None,
) -> RowResult:
    """Score one configuration; results come back in question order."""
    task = progress.add_task(row.name, total=len(questions)) if progress is not None else None
    can_generate = judge is not None and callable(getattr(row.adapter, "generate", None))
    by_id = {q.id: q for q in questions}

    def one(question: Question) -> QuestionResult:
        result = _ask(row.adapter, question, k)
        if can_generate:
            _judge(row.adapter, by_id[question.id], result, judge, chunk_text or {})
        if progress is not None:
            progress.advance(task)
        return result

    workers = adapter_concurrency(row.adapter)
    if workers == 1:  # the adapter's own thread: sqlite handles and the like stay valid
        results = [one(q) for q in questions]
    else:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(one, questions))
    return RowResult(row.name, results, adapter_stats(row.adapter), row.sampled, k, row.push)


def run(
    rows: Sequence[RunRow],
    evalset: EvalSet,
    chunks: Sequence[Chunk],
    *,
    k: int = 5,
    sample: int | None = None,
    seed: int = 0,
    judge: Any | None = None,
    skipped_rows: dict[str, str] | None = None,
    progress: ProgressSink | None = None,
) -> RunResult:
    """Every row on one eval set; refuses an eval set built from other chunks."""
    if k < 1:
        raise UsageError(f"k must be at least 1 (got {k})", "pass --k 5")
    fp = fingerprint(chunks)
    if evalset.fingerprint != fp:
        raise FingerprintMismatch(
            f"eval set was built from corpus {evalset.fingerprint}, the chunks given are {fp}",
            "rebuild the eval set from these chunks",
        )
    chunk_text = {c.id: c.text for c in chunks}
    sampled = sample_questions(evalset.questions, sample, seed)
    results = [
        run_row(
            row, sampled if row.sampled else evalset.questions, k, judge=judge, chunk_text=chunk_text, progress=progress
        )
        for row in rows
    ]
    judge_model = getattr(judge, "spec", "none") if judge is not None else "none"
    return RunResult(results, k, fp, evalset, judge_model, dict(skipped_rows or {}), sample, [q.id for q in sampled])
