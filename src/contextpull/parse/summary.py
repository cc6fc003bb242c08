"""The offline summary of a document: its first informative sentence.

Informative means it says something the title does not: not the title again,
not a lead-in that only announces a list ("… the following:"), not a
single word. Sentences end at ``.``, ``!`` or ``?`` before a
space, except after common abbreviations (``e.g.``, ``i.e.``, ``etc.``) and
initials, so "(i.e. a directory)" does not end a sentence.
"""

from __future__ import annotations

import re

_END = re.compile(r"[.!?](?=\s|$)")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no|fig|dr|mr|mrs|ms)|\b[A-Za-z])\.$", re.IGNORECASE
)
_MIN_WORDS = 2


def sentences(text: str) -> list[str]:
    """``text`` (plain, whitespace collapsed) cut into sentences."""
    out, start = [], 0
    for match in _END.finditer(text):
        candidate = text[start : match.end()]
        if _ABBREVIATION.search(candidate):
            continue
        out.append(candidate.strip())
        start = match.end()
    rest = text[start:].strip()
    return [s for s in [*out, rest] if s]


def first_informative_sentence(title: str, text: str) -> str:
    """The first sentence of ``text`` that is informative beside ``title``; ``""`` when none is."""
    same = _bare(title)
    for sentence in sentences(text):
        if sentence.endswith(":") or len(sentence.split()) < _MIN_WORDS or _bare(sentence) == same:
            continue
        return sentence
    return ""


def _bare(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())
