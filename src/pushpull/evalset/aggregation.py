"""Aggregation questions, computed without a model: "which members of a family exist?"

A family is a set of identifiers that share a visible namespace: numbered
codes with a common prefix (``TX-4401``, ``TX-4419`` → ``TX-44xx``) or
snake-case names sharing their first word (``payment_declined``,
``payment_expired`` → ``payment_*``; ``PIP_INDEX_URL`` → ``PIP_*``). Shared
last words (``*_URL``, ``*_python``) are not namespaces a user asks about, and
placeholder or generic stems (``my_*``, ``example_*``, ``not_*``) and short
lowercase ones are not families at all.

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
#: stems that head names without naming a namespace: placeholders and generic verbs or adjectives of enum values
_GENERIC_STEMS = frozenset(
    "my your our some example foo bar baz hello test demo sample dummy "
    "already invalid unknown create update delete replace remove read write list get set sign timed "
    "new old default custom other not non one two".split()
)
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
        if len(stem) >= shortest and stem.casefold() not in _GENERIC_STEMS:
            return [f"{stem}_*"]
    return []


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
    order = {c.id: i for i, c in enumerate(chunks)}
    text = {c.id: c.text for c in chunks}
    families: dict[str, Family] = {}
    seen_gold: set[tuple[str, ...]] = set()
    for label in sorted(members):
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
