"""Model-phrased shapes: conceptual and exact_lookup (one chunk), comparison (a pair).

The model only phrases; the gold comes from where the text came from, and
every question is checked before it is kept: it must stand alone (no "this
section"), an exact lookup must quote an identifier that really is in its
chunk and is rare in the corpus, and repeated identifiers or near-identical
questions are dropped. All calls go through the model layer, so they are
cached on disk and counted in the spend line.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ..chunks import Chunk
from ..jsonreply import parse_json_object
from ..models.base import Message, ModelError
from ..questions import Question
from .identifiers import chunks_containing, is_rare
from .near_dupes import NearDuplicate, near_duplicate_pairs

MIN_CHUNK_CHARS = 200
MIN_ANSWER_FOR_EQUIVALENCE = 20
_DEICTIC = ("this section", "this document", "the text", "this chunk", "the passage", "this page", "the above", "the following")

ONE_CHUNK_SYSTEM = """You write test questions for a search engine over technical documentation. You see one passage.
Write questions as a user who has never seen the passage would type them: self-contained, specific, under 25 words, never mentioning "this section", "the text" or "the document", never copying a whole sentence.
- conceptual: about a behaviour, reason or procedure the passage explains; paraphrase, avoid its rare identifiers.
- exact_lookup: only if the passage explains a specific identifier (flag, error code, environment variable, setting, command, version). The question must contain that identifier verbatim, and "identifier" must be copied exactly from the passage. Otherwise leave exact_q, exact_a and identifier empty.
Set usable to false for navigation, boilerplate or fragments that cannot support a question."""

PAIR_SYSTEM = """You write test questions for a search engine over technical documentation. You see two passages from two different documents that are near-duplicates with some values changed (two versions, two variants).
Write ONE self-contained question (under 30 words) that can only be answered by comparing both: what differs or changed between them. Name the variants as the passages do (years, versions, product names). Never say "the passages" or "the documents". Answer briefly with both values.
Set usable to false if they are not genuinely comparable variants."""

ONE_CHUNK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "usable": {"type": "boolean"},
        "conceptual_q": {"type": "string"},
        "conceptual_a": {"type": "string"},
        "exact_q": {"type": "string"},
        "exact_a": {"type": "string"},
        "identifier": {"type": "string"},
    },
    "required": ["usable", "conceptual_q", "conceptual_a", "exact_q", "exact_a", "identifier"],
    "additionalProperties": False,
}

PAIR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"usable": {"type": "boolean"}, "q": {"type": "string"}, "a": {"type": "string"}},
    "required": ["usable", "q", "a"],
    "additionalProperties": False,
}


@dataclass
class PhrasedResult:
    questions: list[Question] = field(default_factory=list)
    reasons: dict[str, str] = field(default_factory=dict)
    calls: int = 0
    errors: int = 0
    first_error: str = ""


def clean_question(text: object) -> str | None:
    """A one-line question of sensible length that does not point at an unseen passage."""
    if not isinstance(text, str):
        return None
    q = " ".join(text.split())
    if not 12 <= len(q) <= 300 or any(bad in q.casefold() for bad in _DEICTIC):
        return None
    return q


def _ask(provider: Any, system: str, prompt: str, schema: dict[str, Any]) -> dict[str, Any]:
    completion = provider.complete([Message(role="user", content=prompt)], system=system, json_schema=schema, max_tokens=400)
    return parse_json_object(completion.text)


def _map_calls(
    provider: Any,
    jobs: list[Any],
    call: Callable[[Any, Any], dict[str, Any]],
    result: PhrasedResult,
    workers: int,
    progress: Callable[[int], None] | None,
) -> list[tuple[Any, dict[str, Any]]]:
    """Run ``call(provider, job)`` concurrently; failures are counted, replies kept in job order."""

    def one(job: Any) -> dict[str, Any] | ModelError:
        try:
            return call(provider, job)
        except ModelError as err:
            return err
        finally:
            if progress:
                progress(1)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        replies = list(pool.map(one, jobs))
    result.calls += len(jobs)
    kept: list[tuple[Any, dict[str, Any]]] = []
    for job, reply in zip(jobs, replies):
        if isinstance(reply, ModelError):
            result.errors += 1
            result.first_error = result.first_error or str(reply)[:200]
        else:
            kept.append((job, reply))
    return kept


def _one_chunk_call(provider: Any, chunk: Chunk) -> dict[str, Any]:
    prompt = f"Source: {chunk.source}\n\n<passage>\n{chunk.text}\n</passage>"
    return _ask(provider, ONE_CHUNK_SYSTEM, prompt, ONE_CHUNK_SCHEMA)


def _pair_call(provider: Any, pair: NearDuplicate) -> dict[str, Any]:
    prompt = (
        f"Passage A (from {pair.a.source}):\n{pair.a.text}\n\n"
        f"Passage B (from {pair.b.source}):\n{pair.b.text}"
    )
    return _ask(provider, PAIR_SYSTEM, prompt, PAIR_SCHEMA)


def _one_chunk_questions(reply: dict[str, Any], chunk: Chunk, chunks: Sequence[Chunk]) -> list[Question]:
    if not reply.get("usable", True):
        return []
    out: list[Question] = []
    q = clean_question(reply.get("conceptual_q"))
    if q:
        answer = str(reply.get("conceptual_a", "")).strip()
        equivalent = chunks_containing(answer, chunks, whole_word=False) if len(answer) >= MIN_ANSWER_FOR_EQUIVALENCE else []
        out.append(Question("", q, "conceptual", [chunk.id], answer, chunk.source, "", equivalent))
    q = clean_question(reply.get("exact_q"))
    ident = str(reply.get("identifier", "")).strip()
    if q and ident and ident in chunk.text and ident.casefold() in q.casefold():
        holders = chunks_containing(ident, chunks, whole_word=False)
        if is_rare(ident, len(holders), len(chunks)):
            out.append(Question("", q, "exact_lookup", [chunk.id], str(reply.get("exact_a", "")).strip(), chunk.source, ident, holders))
    return out


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


def build_one_chunk(
    chunks: Sequence[Chunk],
    provider: Any,
    *,
    shapes: Sequence[str],
    quota: int,
    seed: int,
    workers: int = 4,
    progress: Callable[[int], None] | None = None,
) -> PhrasedResult:
    """Conceptual and exact-lookup questions, up to ``quota`` each, from seeded chunks.

    Chunks are asked in seeded batches until every requested shape has its
    quota or the eligible chunks run out.
    """
    result = PhrasedResult()
    order = [c for c in chunks if len(c.text) >= MIN_CHUNK_CHARS]
    if not order:
        for shape in shapes:
            result.reasons[shape] = f"no chunk has {MIN_CHUNK_CHARS}+ characters to phrase a question from"
        return result
    random.Random(seed).shuffle(order)
    found: list[Question] = []
    batch = max(8, workers * 2)
    for start in range(0, len(order), batch):
        jobs = order[start : start + batch]
        for chunk, reply in _map_calls(provider, jobs, _one_chunk_call, result, workers, progress):
            found.extend(q for q in _one_chunk_questions(reply, chunk, chunks) if q.shape in shapes)
        found = dedupe(found)
        if all(sum(q.shape == s for q in found) >= quota for s in shapes):
            break
        if result.errors == result.calls:
            break
    for shape in shapes:
        mine = [q for q in found if q.shape == shape][:quota]
        result.questions.extend(mine)
        if not mine:
            result.reasons[shape] = _empty_reason(shape, result)
    return result


def build_comparison(
    chunks: Sequence[Chunk],
    provider: Any,
    *,
    quota: int,
    seed: int,
    workers: int = 4,
    progress: Callable[[int], None] | None = None,
) -> PhrasedResult:
    """Comparison questions from near-duplicate pairs across documents; gold is both chunks."""
    result = PhrasedResult()
    pairs = near_duplicate_pairs(chunks)
    if not pairs:
        result.reasons["comparison"] = "no cross-document near-duplicate chunks with differing numbers"
        return result
    rng = random.Random(seed)
    jobs = pairs[: quota * 2]
    rng.shuffle(jobs)
    for pair, reply in _map_calls(provider, jobs, _pair_call, result, workers, progress):
        q = clean_question(reply.get("q"))
        if reply.get("usable", True) and q and len(result.questions) < quota:
            gold = [pair.a.id, pair.b.id]
            result.questions.append(Question("", q, "comparison", gold, str(reply.get("a", "")).strip(), pair.a.source, "", gold))
    if not result.questions:
        result.reasons["comparison"] = _empty_reason("comparison", result)
    return result


def _empty_reason(shape: str, result: PhrasedResult) -> str:
    if result.calls and result.errors == result.calls:
        return f"every model call failed ({result.first_error})"
    if shape == "exact_lookup":
        return "the model found no rare identifier explained in the sampled chunks"
    return "the model judged no sampled text usable for this shape"
