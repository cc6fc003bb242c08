"""Exact-lookup questions: the identifier is computed, the model only phrases.

For each sampled chunk the builder picks a rare identifier (3+ characters, in
at most 5% of chunks, never only inside a link) that the chunk documents,
preferring a heading, a line start or table row, or a definition ("X is …")
over a mention in passing, and a name held by fewer chunks. The model is
given that identifier and asked for one question containing it verbatim; a
question without it gets one stricter retry, then a fixed template stands in
("What is X?"), recorded as ``phrasing="template"`` so the report can say how
much of the shape a template worded. A small model therefore cannot leave
the shape empty.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from contextpull_mdinline import plain_text

from ..chunks import Chunk
from ..questions import Question
from .documents import index_entries
from .identifiers import chunks_containing, definition_score, is_rare, lookup_candidates
from .phrased import (
    QA_SCHEMA,
    PhrasedResult,
    ask_in_rounds,
    batch_size,
    clean_question,
    empty_reason,
    is_trivial,
    job_budget,
)

MAX_ANSWER_CHARS = 300
_VERSION = re.compile(r"^v?\d+(?:\.\d+)+$")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")

EXACT_SYSTEM = """You write test questions for a search engine over technical documentation. You see one passage and one identifier from it.
Write ONE question a user would type to look that identifier up, answered by the passage. The question MUST contain the identifier exactly as given (same characters, same case). Self-contained, under 25 words; never mention "this section", "the text" or "the document".
Answer briefly from the passage."""

STRICT_SUFFIX = """

Your previous question did not contain the identifier. Copy it character for character: {ident}
Example shape: "What does {ident} do?" or "How is {ident} set?" Write a different, specific question of that kind."""


@dataclass(frozen=True)
class Lookup:
    """One chunk and the identifier chosen from it, with every chunk that holds that identifier."""

    chunk: Chunk
    identifier: str
    holders: list[str]


def choose_identifier(chunk: Chunk, chunks: Sequence[Chunk], taken: set[str]) -> Lookup | None:
    """The best rare identifier ``chunk`` documents, or None when it holds none."""
    best: tuple[tuple[int, int, int], Lookup] | None = None
    for position, ident in enumerate(lookup_candidates(chunk.text)):
        if ident.casefold() in taken:
            continue
        score = definition_score(ident, chunk.text)
        if score < 0:
            continue
        holders = chunks_containing(ident, chunks)
        if chunk.id not in holders or not is_rare(ident, len(holders), len(chunks)):
            continue
        rank = (-score, len(holders), position)
        if best is None or rank < best[0]:
            best = (rank, Lookup(chunk, ident, holders))
    return best[1] if best else None


def template_question(ident: str) -> str:
    """The fixed wording used when the model's does not quote the identifier."""
    if ident.startswith("--"):
        return f"What does the {ident} option do?"
    if _VERSION.match(ident):
        return f"What changed in version {ident}?"
    return f"What is {ident}?"


def defining_text(ident: str, text: str) -> str:
    """The sentence (or table row) of ``text`` that best explains ``ident``, markup removed, shortened."""
    lines = [ln for ln in text.splitlines() if ident in ln]
    if not lines:
        return ""
    line = max(lines, key=lambda ln: definition_score(ident, ln))
    if line.lstrip().startswith("|"):
        plain = "; ".join(c for c in (plain_text(cell) for cell in line.strip().strip("|").split("|")) if c)
    else:
        plain = plain_text(line.lstrip("#>-*+ "))
        plain = next((s for s in _SENTENCE.split(plain) if ident in s), plain)
    return plain if len(plain) <= MAX_ANSWER_CHARS else plain[: MAX_ANSWER_CHARS - 1].rstrip() + "…"


def _phrase(result: PhrasedResult, provider: Any, lookup: Lookup, index: set[str]) -> tuple[str, str, str]:
    """(question, answer, phrasing): the model's wording if it quotes the identifier, else the template."""
    ident = lookup.identifier
    prompt = f"Identifier: {ident}\nSource: {lookup.chunk.source}\n\n<passage>\n{lookup.chunk.text}\n</passage>"
    for suffix in ("", STRICT_SUFFIX.format(ident=ident)):
        reply = result.ask(provider, EXACT_SYSTEM, prompt + suffix, QA_SCHEMA)
        q = clean_question(reply.get("q"))
        answer = str(reply.get("a", "")).strip()
        if q and ident in q and not is_trivial(q, answer, index):
            return q, answer or defining_text(ident, lookup.chunk.text), "model"
    return template_question(ident), defining_text(ident, lookup.chunk.text), "template"


def lookups(chunks: Sequence[Chunk], seed: int) -> Iterator[Lookup]:
    """One lookup per chunk that documents a rare identifier, in seeded order, no identifier twice.

    Lazy, so a large corpus is scanned only as far as the quota needs.
    """
    order = list(chunks)
    random.Random(seed).shuffle(order)
    taken: set[str] = set()
    for chunk in order:
        lookup = choose_identifier(chunk, chunks, taken)
        if lookup:
            taken.add(lookup.identifier.casefold())
            yield lookup


def build_exact_lookup(
    chunks: Sequence[Chunk],
    provider: Any,
    *,
    quota: int,
    seed: int,
    workers: int = 4,
    progress: Callable[[int], None] | None = None,
) -> PhrasedResult:
    """Up to ``quota`` exact-lookup questions; gold is the chunk the identifier was chosen from."""
    result = PhrasedResult()
    candidates = lookups(chunks, seed)
    index = index_entries(chunks)

    def question(lookup: Lookup, phrased: tuple[str, str, str]) -> Question:
        q, answer, phrasing = phrased
        chunk = lookup.chunk
        return Question(
            "",
            q,
            "exact_lookup",
            [chunk.id],
            answer,
            chunk.source,
            lookup.identifier,
            lookup.holders,
            phrasing=phrasing,
        )

    result.questions = ask_in_rounds(
        islice(candidates, job_budget(quota, workers)),
        lambda job: _phrase(result, provider, job, index),
        question,
        result,
        quota=quota,
        step=batch_size(quota, workers),
        workers=workers,
        progress=progress,
    )
    if not result.calls:
        result.reasons["exact_lookup"] = "no chunk documents a rare identifier (3+ characters, in at most 5% of chunks)"
    elif not result.questions:
        result.reasons["exact_lookup"] = empty_reason(result, "no phrased question survived the checks")
    return result
