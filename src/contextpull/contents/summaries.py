"""The one-line summary each document gets in the index, and who writes it.

By default the offline summary: the title and the document's first
informative sentence (:func:`first_informative_sentence`, which the parser
calls). Informative means it says something the title does not: not the
title again, not a lead-in that only announces a list ("… the following:"),
not a single word. Sentences end at ``.``, ``!`` or ``?`` before a space,
except after common abbreviations (``e.g.``, ``i.e.``, ``etc.``) and
initials, so "(i.e. a directory)" does not end a sentence.

A :class:`Summariser` passed to
``ingest`` replaces it with a model's line; the core never talks to a model
itself: the surface that has one (the CLI, through the harness's model layer)
builds the callable and hands it in. The store records who wrote its
summaries (meta ``summaries``) and the index header names it.
"""

from __future__ import annotations

import re
from typing import Protocol

#: the ``summaries`` meta value of a store whose summaries no model wrote
OFFLINE = "offline: title + first informative sentence"
#: the store meta key naming who wrote the index lines (:data:`OFFLINE`, or a model's name)
META_KEY = "summaries"
#: longest summary line kept from a model
MAX_CHARS = 200


class Summariser(Protocol):
    """``summarise(path, title, text)`` returns one line about the document."""

    #: what the index header names, e.g. ``anthropic:claude-haiku-4-5``
    name: str

    def __call__(self, path: str, title: str, text: str) -> str: ...


def one_line(title: str, line: str) -> str:
    """``title: line`` (whitespace collapsed, cut at a word within :data:`MAX_CHARS`), or the title alone."""
    line = " ".join(line.split()).strip()
    summary = f"{title}: {line}" if line else title
    if len(summary) <= MAX_CHARS:
        return summary
    cut = summary.rfind(" ", 0, MAX_CHARS - 1)
    return summary[: cut if cut > MAX_CHARS // 2 else MAX_CHARS - 1].rstrip() + "…"


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
