"""Comparison questions from computed near-duplicate pairs; the model only phrases.

The pair (two chunks of two documents, see :mod:`.near_dupes`) and what
differs between them (tokens on one side only) are computed, so the model
cannot veto a pair: it is shown both passages, both document titles and the
differences, and asked for one question. The question is kept only if it
stands alone, names both variants (a word that tells the two titles apart,
e.g. "2024" and "2025") and names the compared attribute (a word of the
heading or of a sentence that differs); otherwise a template stands in
("How does <heading> differ between <title A> and <title B>?"), recorded as
``phrasing="template"``. Pairs whose differences are numbers come first.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from contextpull_mdinline import plain_text

from ..chunks import Chunk
from ..questions import Question
from .documents import document_titles, headings, normalise
from .near_dupes import NearDuplicate, is_number, near_duplicate_pairs, only_in
from .phrased import QA_SCHEMA, PhrasedResult, ask_in_rounds, clean_question, empty_reason

MAX_SIDE_CHARS = 400
MAX_LISTED_DIFFERENCES = 12
MIN_ATTRIBUTE_CHARS = 4
_FRONT_MATTER = re.compile(r"\A---\s*\n.*?\n---\s*\n", re.DOTALL)
_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")
_WORD = re.compile(r"\w+")
_FUNCTION_WORDS = frozenset("and the for with using from into onto over how what your our".split())

PAIR_SYSTEM = """You write test questions for a search engine over technical documentation. You see two passages from two documents that are versions or variants of each other, their titles, and the values that differ.
Write ONE self-contained question (under 30 words) whose answer needs both passages: how one of the differing values compares between the two documents. Name both documents by what tells their titles apart (years, versions, product names) and name what is compared (for example "the daily meal allowance"). Never write "the passages", "the documents", "document 1" or "document 2".
Answer briefly with both values."""


@dataclass(frozen=True)
class PairFacts:
    """A near-duplicate pair with what a question about it must and may mention."""

    pair: NearDuplicate
    name_a: str
    name_b: str
    only_a: list[str]
    only_b: list[str]
    markers_a: frozenset[str]
    markers_b: frozenset[str]
    heading: str

    @property
    def numeric_differences(self) -> int:
        return sum(
            is_number(t) and t.casefold() not in self.markers_a | self.markers_b for t in self.only_a + self.only_b
        )


def _words(text: str) -> frozenset[str]:
    """Casefolded words, a plural "s" dropped, so "hotel" in a question meets "Hotels" in a passage."""
    return frozenset(
        w[:-1] if len(w) > 3 and w.endswith("s") else w for w in (m.casefold() for m in _WORD.findall(text))
    )


def _marker_words(title: str) -> frozenset[str]:
    """Words of a title that can tell it apart: numbers, and words of 3+ letters that are not function words."""
    return frozenset(w for w in _words(title) if w.isdigit() or (len(w) >= 3 and w not in _FUNCTION_WORDS))


def _body(text: str) -> str:
    return _FRONT_MATTER.sub("", text)


def differing_sentences(text: str, differing: Sequence[str]) -> list[str]:
    """Sentences of ``text`` (headings and front matter aside) holding a token from ``differing``."""
    wanted = _words(" ".join(differing))
    sentences = [
        s
        for line in _body(text).splitlines()
        if line.strip() and not _HEADING_LINE.match(line)
        for s in _SENTENCE.split(plain_text(line))
    ]
    return [s for s in sentences if _words(s) & wanted or any(t in s for t in differing if is_number(t))]


def pair_facts(pair: NearDuplicate, titles: dict[str, str]) -> PairFacts:
    title_a, title_b = titles.get(pair.a.source, pair.a.source), titles.get(pair.b.source, pair.b.source)
    if normalise(title_a) == normalise(title_b):
        title_a, title_b = pair.a.source, pair.b.source
    words_a, words_b = _marker_words(title_a), _marker_words(title_b)
    title_names = {normalise(title_a), normalise(title_b)}
    heading = next((h for h in headings(pair.a.text) if normalise(h) not in title_names and normalise(h)), "")
    return PairFacts(
        pair,
        title_a,
        title_b,
        only_in(_body(pair.a.text), _body(pair.b.text)),
        only_in(_body(pair.b.text), _body(pair.a.text)),
        words_a - words_b,
        words_b - words_a,
        heading,
    )


def template_question(facts: PairFacts) -> str:
    if facts.heading:
        return f"How does {facts.heading} differ between {facts.name_a} and {facts.name_b}?"
    return f"What differs between {facts.name_a} and {facts.name_b}?"


def computed_answer(facts: PairFacts) -> str:
    """Both sides' differing sentences under their titles: the reference when the model's answer misses them."""
    sides = []
    for name, chunk, differing in (
        (facts.name_a, facts.pair.a, facts.only_a),
        (facts.name_b, facts.pair.b, facts.only_b),
    ):
        text = " ".join(differing_sentences(chunk.text, differing)) or "(no differing sentence)"
        sides.append(f"{name}: {text if len(text) <= MAX_SIDE_CHARS else text[: MAX_SIDE_CHARS - 1].rstrip() + '…'}")
    return " | ".join(sides)


def _attribute_words(facts: PairFacts) -> frozenset[str]:
    text = " ".join(
        [
            facts.heading,
            *differing_sentences(facts.pair.a.text, facts.only_a),
            *differing_sentences(facts.pair.b.text, facts.only_b),
        ]
    )
    title_words = _words(facts.name_a) | _words(facts.name_b)
    return frozenset(w for w in _words(text) - title_words if len(w) >= MIN_ATTRIBUTE_CHARS and not w.isdigit())


def acceptable(question: str | None, facts: PairFacts) -> bool:
    """Stands alone, tells both variants apart, and names what is compared."""
    if not question:
        return False
    words = _words(question)
    names_both = (not facts.markers_a or bool(words & facts.markers_a)) and (
        not facts.markers_b or bool(words & facts.markers_b)
    )
    return names_both and bool(words & _attribute_words(facts))


def _answer_states_both(answer: str, facts: PairFacts) -> bool:
    words = _words(answer)

    def states(differing: list[str]) -> bool:
        distinctive = [t for t in differing if is_number(t) or len(t) >= MIN_ATTRIBUTE_CHARS]
        return any((t in answer) if is_number(t) else (_words(t) <= words) for t in distinctive)

    return states(facts.only_a) and states(facts.only_b)


def _prompt(facts: PairFacts) -> str:
    a, b = facts.pair.a, facts.pair.b
    return (
        f'Only in "{facts.name_a}": {", ".join(facts.only_a[:MAX_LISTED_DIFFERENCES])}\n'
        f'Only in "{facts.name_b}": {", ".join(facts.only_b[:MAX_LISTED_DIFFERENCES])}\n\n'
        f'<passage from "{facts.name_a}">\n{a.text}\n</passage>\n\n<passage from "{facts.name_b}">\n{b.text}\n</passage>'
    )


def _phrase(result: PhrasedResult, provider: Any, facts: PairFacts) -> tuple[str, str, str]:
    reply = result.ask(provider, PAIR_SYSTEM, _prompt(facts), QA_SCHEMA)
    q = clean_question(reply.get("q"))
    if q and acceptable(q, facts):
        answer = str(reply.get("a", "")).strip()
        return q, answer if _answer_states_both(answer, facts) else computed_answer(facts), "model"
    return template_question(facts), computed_answer(facts), "template"


def build_comparison(
    chunks: Sequence[Chunk],
    provider: Any,
    *,
    quota: int,
    workers: int = 4,
    progress: Callable[[int], None] | None = None,
) -> PhrasedResult:
    """Up to ``quota`` comparison questions, one per pair, sharpest pairs first; gold is both chunks.

    No seed: the order is fully determined by the pairs' differences and overlap.
    """
    result = PhrasedResult()
    titles = document_titles(chunks)
    facts = [pair_facts(pair, titles) for pair in near_duplicate_pairs(chunks)]
    if not facts:
        result.reasons["comparison"] = "no near-duplicate chunks across documents with differing content"
        return result
    facts.sort(key=lambda f: (-f.numeric_differences, -f.pair.jaccard))

    def question(job: PairFacts, phrased: tuple[str, str, str]) -> Question:
        q, answer, phrasing = phrased
        gold = [job.pair.a.id, job.pair.b.id]
        return Question("", q, "comparison", gold, answer, job.pair.a.source, "", gold, phrasing=phrasing)

    result.questions = ask_in_rounds(
        facts,
        lambda f: _phrase(result, provider, f),
        question,
        result,
        quota=quota,
        step=quota,
        workers=workers,
        progress=progress,
    )
    if not result.questions:
        result.reasons["comparison"] = empty_reason(result, "no phrased question survived the checks")
    return result
