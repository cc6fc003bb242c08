"""Aggregation questions, computed without a model: "which members of a family exist?"

A family is a set of identifiers that share a visible namespace: numbered
codes with a common prefix (``TX-4401``, ``TX-4419`` → ``TX-44xx``) or
snake-case names sharing their first word (``payment_declined``,
``payment_expired`` → ``payment_*``; ``PIP_INDEX_URL`` → ``PIP_*``). Shared
last words (``*_URL``, ``*_python``) are not namespaces a user asks about;
short stems (``my_*``, ``not_*``: under four letters in lower case, three in
capitals) and stems that are everyday words of the corpus (a plain word in
more than a third of its chunks, like ``example`` or ``type``) are not
families at all. Both rules are general: no word list fitted to a corpus.

A family is asked only when complete: every identifier of that form in the
corpus is a member, so the reference answer lists them all. Gold is, per
member, the chunks that document it best (a heading, table row, list item or
definition; every mention when none does); the equivalent gold is every
chunk that mentions one, and a gold chunk's fact (the members it documents)
is restated by a chunk that mentions every one of those members.
Families whose gold spans 2..``max_gold`` chunks are kept, which keeps
perfect recall reachable at k = ``max_gold``.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import NamedTuple

from ..chunks import Chunk
from ..questions import Question
from .identifiers import definition_score, identifier_chunks

_NUMBERED = re.compile(r"^([A-Z][A-Z0-9]{0,5}-)(\d{3,6})$")
_SNAKE = re.compile(r"^[a-zA-Z][a-zA-Z0-9]*(?:_[a-zA-Z0-9]+)+$")
#: a word standing alone in prose: not part of an identifier, a path or a dotted name
_PLAIN_WORD = re.compile(r"(?<![\w.\-/])[A-Za-z]+(?![\w\-/]|\.\w)")
#: a stem that is a plain word in more than this share of the chunks is an everyday word, not a namespace
MAX_STEM_WORD_SHARE = 1 / 3
MIN_STEM_CHARS = 3
MIN_LOWERCASE_STEM_CHARS = 4


def family_keys(identifier: str) -> list[str]:
    """The family labels an identifier belongs to (``TX-44xx``, ``payment_*``)."""
    numbered = _NUMBERED.match(identifier)
    if numbered:
        prefix, digits = numbered.groups()
        return [f"{prefix}{digits[:-2]}xx"]
    if _SNAKE.match(identifier):
        stem = identifier.split("_")[0]
        shortest = MIN_STEM_CHARS if stem.isupper() else MIN_LOWERCASE_STEM_CHARS
        if len(stem) >= shortest:
            return [f"{stem}_*"]
    return []


def everyday_stems(chunks: Sequence[Chunk], stems: set[str]) -> set[str]:
    """The ``stems`` (case-folded) that stand as a plain word in more than a third of the chunks."""
    if not chunks:
        return set()
    counts: dict[str, int] = defaultdict(int)
    for chunk in chunks:
        for word in {w.casefold() for w in _PLAIN_WORD.findall(chunk.text)} & stems:
            counts[word] += 1
    return {stem for stem, count in counts.items() if count > MAX_STEM_WORD_SHARE * len(chunks)}


def _documenting(name: str, holders: list[str], text: dict[str, str]) -> list[str]:
    """The holders where ``name`` is documented best (a heading, row, list item or definition), else all of them."""
    scores = {cid: definition_score(name, text[cid]) for cid in holders}
    best = max(scores.values())
    return [cid for cid in holders if scores[cid] == best] if best > 0 else holders


class Family(NamedTuple):
    """One asked family: its members, where they are documented, and where they are mentioned."""

    names: list[str]
    gold: list[str]
    mentions: list[str]
    #: gold chunk → the other chunks that mention every member documented in it
    restated_by: dict[str, list[str]]


def find_families(chunks: Sequence[Chunk], *, max_gold: int) -> dict[str, Family]:
    """label → the :class:`Family` of each asked family.

    Families whose gold duplicates another's are kept once, the first label
    in sorted order.
    """
    where = identifier_chunks(chunks)
    members: dict[str, set[str]] = defaultdict(set)
    for ident in where:
        for key in family_keys(ident):
            members[key].add(ident)
    everyday = everyday_stems(chunks, {label[:-2].casefold() for label in members if label.endswith("_*")})
    order = {c.id: i for i, c in enumerate(chunks)}
    text = {c.id: c.text for c in chunks}
    families: dict[str, Family] = {}
    seen_gold: set[tuple[str, ...]] = set()
    for label in sorted(members):
        if label.endswith("_*") and label[:-2].casefold() in everyday:
            continue
        names = sorted(members[label])
        mentions = sorted({cid for name in names for cid in where[name]}, key=order.__getitem__)
        if len(names) < 2 or len(mentions) < 2:
            continue
        documented = {name: _documenting(name, where[name], text) for name in names}
        gold = sorted({cid for cids in documented.values() for cid in cids}, key=order.__getitem__)
        if not 2 <= len(gold) <= max_gold or tuple(gold) in seen_gold:
            continue
        seen_gold.add(tuple(gold))
        restated_by = {
            g: [cid for cid in mentions if cid != g and all(cid in where[n] for n in names if g in documented[n])]
            for g in gold
        }
        families[label] = Family(names, gold, mentions, restated_by)
    return families


def build_aggregation(
    chunks: Sequence[Chunk], *, limit: int, seed: int, max_gold: int
) -> tuple[list[Question], str | None]:
    """Up to ``limit`` family questions (seeded choice), or a reason the corpus has none."""
    families = find_families(chunks, max_gold=max_gold)
    if not families:
        return [], f"no identifier family of 2+ rare members spread over 2..{max_gold} chunks"
    labels = sorted(families)
    random.Random(seed).shuffle(labels)
    source_of = {c.id: c.source for c in chunks}
    questions = []
    for label in sorted(labels[:limit]):
        names, gold, mentions, restated_by = families[label]
        questions.append(
            Question(
                id="",
                q=f"Which identifiers of the form {label} are documented?",
                shape="aggregation",
                gold_chunk_ids=gold,
                answer=", ".join(names),
                source=source_of[gold[0]],
                identifier=label,
                equivalent_gold=mentions,
                equivalent_of=restated_by,
            )
        )
    return questions, None
