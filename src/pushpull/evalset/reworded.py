"""Aggregation questions re-worded as a person would ask them.

The computed aggregation question names its family in a notation
(``Which identifiers of the form PIP_* are documented?``) that a search
engine with a prefix syntax parses and a plain one cannot. A person asks for
the same list in words: "which environment variables configure pip?". So,
when a model is given, each computed question gets a twin with the same gold
and reference answer, worded by the model from the family's members and the
passages documenting them, and scored as a block of its own
(``aggregation, phrased``), so the table shows both.

The model only words the question; a wording is kept only when it passes
general checks (no word list): it stands alone, it does not write the family
in a notation (no ``*``, no ``xx`` placeholder, no stem followed by ``_`` or
``-``) and it names none of the members, which would turn the question into
a lookup of that member. A failed wording leaves no twin: a template would
only restate the notation.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..chunks import Chunk
from ..questions import Question
from .documents import index_entries
from .phrased import QA_SCHEMA, PhrasedResult, clean_question, is_trivial, map_jobs

REWORD_SYSTEM = """You write test questions for a search engine over technical documentation. You see a list of names that the documentation defines, and passages where they are documented.
Write ONE question a user would type whose complete answer is that whole list: ask for the kind of thing they are (settings, environment variables, options, error codes, fields...) and what they are for, in everyday words, under 25 words.
Never write any of the names, never write a pattern such as NAME_* or AB-12xx, and never write their shared prefix followed by _ or -. Never mention "this section", "the text" or "the document".
Answer with the list of names."""

#: passages shown to the model per question, and how much of each
MAX_PASSAGES = 2
MAX_PASSAGE_CHARS = 1200
MAX_NAMES_SHOWN = 20


def family_notation(question: str, label: str, names: Sequence[str]) -> bool:
    """True when ``question`` writes the family in notation or names a member (it would be a lookup then).

    The notation is the label itself, any ``*`` or ``NNxx`` placeholder, or
    the family's prefix as typed in the corpus (``PIP_``, ``TX-``) at the
    start of a word.
    """
    folded = question.casefold()
    prefix = label[:-1] if label.endswith("*") else re.sub(r"\d*xx$", "", label)
    if "*" in question or label.casefold() in folded or re.search(r"\d+xx\b", folded):
        return True
    if prefix and re.search(rf"(?<![\w-]){re.escape(prefix.casefold())}", folded):
        return True
    return any(re.search(rf"(?<![\w-]){re.escape(name.casefold())}(?![\w-])", folded) for name in names)


def reword_aggregation(
    questions: Sequence[Question],
    chunks: Sequence[Chunk],
    provider: Any,
    *,
    workers: int = 4,
    progress: Callable[[int], None] | None = None,
) -> PhrasedResult:
    """A model-worded twin of each computed aggregation question that passes the checks, in the given order."""
    result = PhrasedResult()
    text = {chunk.id: chunk.text for chunk in chunks}
    index = index_entries(chunks)

    def call(question: Question) -> dict[str, Any]:
        names = question.answer.split(", ")
        passages = "\n".join(
            f"<passage>\n{text[cid][:MAX_PASSAGE_CHARS]}\n</passage>" for cid in question.gold_chunk_ids[:MAX_PASSAGES]
        )
        prompt = f"Names: {', '.join(names[:MAX_NAMES_SHOWN])}\n\n{passages}"
        return result.ask(provider, REWORD_SYSTEM, prompt, QA_SCHEMA)

    for question, reply in map_jobs(list(questions), call, workers, progress):
        q = clean_question(reply.get("q"))
        if q is None or is_trivial(q, "", index):
            continue
        if family_notation(q, question.identifier, question.answer.split(", ")):
            continue
        result.questions.append(replace(question, q=q, phrasing="model"))
    if questions and not result.questions:
        result.reasons["aggregation, phrased"] = (
            f"every model call failed ({result.first_error})"
            if result.all_failed
            else "no re-worded question passed the checks (no notation, no member named)"
        )
    return result
