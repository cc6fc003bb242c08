"""Model-phrased shapes: the shared machinery, and conceptual questions.

The model only phrases; the gold comes from where the text came from, and
every question is checked before it is kept: it must stand alone (no "this
section"), must not be answerable from the index alone (a title or heading),
and near-identical questions are dropped. What the model is asked about is
computed wherever it can be (the identifier of an exact lookup, the pair and
its differences for a comparison: see :mod:`.exact_lookup` and
:mod:`.comparison`), so a small model cannot veto a shape the corpus supports.
All calls go through the model layer, so they are cached on disk and counted
in the spend line.
"""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from itertools import islice
from typing import Any, TypeVar

from ..chunks import Chunk
from ..jsonreply import parse_json_object
from ..models.base import Message, ModelError
from ..questions import Question
from .documents import index_entries, normalise
from .identifiers import chunks_containing

MIN_CHUNK_CHARS = 200
MIN_ANSWER_FOR_EQUIVALENCE = 20
_DEICTIC = (
    "this section",
    "this document",
    "the text",
    "this chunk",
    "the passage",
    "this passage",
    "this page",
    "the above",
    "the following",
    "passage a",
    "passage b",
    "document a",
    "document b",
    "document 1",
    "document 2",
)
_TITLE_QUESTION = re.compile(r"\btitle\b", re.IGNORECASE)

CONCEPTUAL_SYSTEM = """You write test questions for a search engine over technical documentation. You see one passage.
Write ONE question a user who has never seen the passage would type, answered by the passage: about a behaviour, reason, rule or procedure it explains. Self-contained, specific, under 25 words; paraphrase, do not copy a sentence; never mention "this section", "the text" or "the document"; never ask for a title or a name of a document.
Answer briefly from the passage.
If the passage is navigation, boilerplate, a title page or a fragment that cannot support such a question, leave q and a empty."""

QA_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "a": {"type": "string"}},
    "required": ["q", "a"],
    "additionalProperties": False,
}

Job = TypeVar("Job")


@dataclass
class PhrasedResult:
    """Questions of one builder, why a shape came out empty, and the model calls it cost."""

    questions: list[Question] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    calls: int = 0
    errors: int = 0
    first_error: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def ask(self, provider: Any, system: str, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
        """One constrained model call, counted (and its failure counted) whatever happens."""
        with self._lock:
            self.calls += 1
        try:
            completion = provider.complete(
                [Message(role="user", content=prompt)], system=system, json_schema=schema, max_tokens=400
            )
            return parse_json_object(completion.text)
        except ModelError as err:
            with self._lock:
                self.errors += 1
                self.first_error = self.first_error or str(err)[:200]
            raise

    @property
    def all_failed(self) -> bool:
        return bool(self.calls) and self.errors == self.calls


def clean_question(text: object) -> str | None:
    """A one-line question of sensible length that does not point at an unseen passage."""
    if not isinstance(text, str):
        return None
    q = " ".join(text.split())
    if not 12 <= len(q) <= 300 or any(bad in q.casefold() for bad in _DEICTIC):
        return None
    return q


def is_trivial(question: str, answer: str, index: set[str]) -> bool:
    """Answerable from the index alone: asks for a title, or its answer is a title or heading."""
    return bool(_TITLE_QUESTION.search(question)) or normalise(answer) in index


def map_jobs(
    jobs: Sequence[Job],
    call: Callable[[Job], Any],
    workers: int,
    progress: Callable[[int], None] | None,
) -> list[tuple[Job, Any]]:
    """Run ``call(job)`` concurrently; jobs whose model call failed are dropped, the rest kept in order."""

    def one(job: Job) -> Any:
        try:
            return call(job)
        except ModelError as err:
            return err
        finally:
            if progress:
                progress(1)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        replies = list(pool.map(one, jobs))
    return [(job, reply) for job, reply in zip(jobs, replies) if not isinstance(reply, ModelError)]


def ask_in_rounds(
    jobs: Iterable[Job],
    call: Callable[[Job], Any],
    question: Callable[[Job, Any], Question | None],
    result: PhrasedResult,
    *,
    quota: int,
    step: int,
    workers: int,
    progress: Callable[[int], None] | None,
) -> list[Question]:
    """Up to ``quota`` questions: ``call`` ``step`` jobs at a time, ``question(job, reply)``
    of each reply that came back, deduplicated; stop once the quota is met or every call failed.

    ``jobs`` is read lazily, one round at a time, so a caller can bound the
    spend by how many jobs it offers.
    """
    pending = iter(jobs)
    found: list[Question] = []
    while batch := list(islice(pending, step)):
        for job, reply in map_jobs(batch, call, workers, progress):
            made = question(job, reply)
            if made is not None:
                found.append(made)
        found = dedupe(found)
        if len(found) >= quota or result.all_failed:
            break
    return found[:quota]


def _words(q: str) -> frozenset[str]:
    return frozenset(re.findall(r"\w+", q.casefold()))


def dedupe(questions: Iterable[Question], *, threshold: float = 0.8) -> list[Question]:
    """Drop repeated exact-lookup identifiers and questions whose words nearly repeat an earlier one."""
    kept: list[Question] = []
    seen_words: list[frozenset[str]] = []
    seen_idents: set[str] = set()
    for question in questions:
        words = _words(question.q)
        ident = question.identifier.casefold()
        if question.shape == "exact_lookup" and ident in seen_idents:
            continue
        if any(len(words & w) / max(1, len(words | w)) >= threshold for w in seen_words):
            continue
        if question.shape == "exact_lookup":
            seen_idents.add(ident)
        seen_words.append(words)
        kept.append(question)
    return kept


#: a shape whose phrasings keep failing the checks stops after this many jobs per question wanted
MAX_JOBS_PER_QUESTION = 4


def batch_size(quota: int, workers: int) -> int:
    """Jobs asked per round: enough to fill the quota despite rejects, few enough not to overshoot much."""
    return max(workers, quota + quota // 2 + 1)


def job_budget(quota: int, workers: int) -> int:
    """Jobs a builder may spend on ``quota`` questions, so a model whose output keeps failing cannot walk the corpus."""
    return max(batch_size(quota, workers), MAX_JOBS_PER_QUESTION * quota)


def _conceptual_question(
    reply: dict[str, Any], chunk: Chunk, chunks: Sequence[Chunk], index: set[str]
) -> Question | None:
    q = clean_question(reply.get("q"))
    answer = str(reply.get("a", "")).strip()
    if not q or is_trivial(q, answer, index):
        return None
    equivalent = (
        chunks_containing(answer, chunks, whole_word=False) if len(answer) >= MIN_ANSWER_FOR_EQUIVALENCE else []
    )
    return Question("", q, "conceptual", [chunk.id], answer, chunk.source, "", equivalent, phrasing="model")


def build_conceptual(
    chunks: Sequence[Chunk],
    provider: Any,
    *,
    quota: int,
    seed: int,
    workers: int = 4,
    progress: Callable[[int], None] | None = None,
) -> PhrasedResult:
    """Up to ``quota`` conceptual questions from seeded chunks, asked in rounds until the quota is met."""
    result = PhrasedResult()
    order = [c for c in chunks if len(c.text) >= MIN_CHUNK_CHARS]
    if not order:
        result.reasons["conceptual"] = f"no chunk has {MIN_CHUNK_CHARS}+ characters to phrase a question from"
        return result
    random.Random(seed).shuffle(order)
    index = index_entries(chunks)

    def call(chunk: Chunk) -> dict[str, Any]:
        prompt = f"Source: {chunk.source}\n\n<passage>\n{chunk.text}\n</passage>"
        return result.ask(provider, CONCEPTUAL_SYSTEM, prompt, QA_SCHEMA)

    result.questions = ask_in_rounds(
        order[: job_budget(quota, workers)],
        call,
        lambda chunk, reply: _conceptual_question(reply, chunk, chunks, index),
        result,
        quota=quota,
        step=batch_size(quota, workers),
        workers=workers,
        progress=progress,
    )
    if not result.questions:
        result.reasons["conceptual"] = empty_reason(
            result, "no phrased question survived the checks (stand-alone, not answerable from titles or headings)"
        )
    return result


def empty_reason(result: PhrasedResult, otherwise: str) -> str:
    if result.all_failed:
        return f"every model call failed ({result.first_error})"
    return otherwise
