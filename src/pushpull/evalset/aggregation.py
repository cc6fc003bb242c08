"""Aggregation questions, computed without a model: "which members of a family exist?"

A family is a set of identifiers that share a visible stem: numbered codes
with a common prefix (``TX-4401``, ``TX-4419`` → ``TX-44xx``) or snake-case
names sharing their first or last word (``payment_declined``,
``payment_expired`` → ``payment_*``). Answering needs every chunk that holds a
member, so gold is all of them; families spread over 2..``max_gold`` chunks are
kept, which keeps perfect recall reachable at k = ``max_gold``.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Sequence

from ..chunks import Chunk
from ..questions import Question
from .identifiers import identifier_chunks, is_rare

_NUMBERED = re.compile(r"^([A-Z][A-Z0-9]{0,5}-)(\d{3,6})$")
_SNAKE = re.compile(r"^[a-zA-Z][a-zA-Z0-9]*(?:_[a-zA-Z0-9]+)+$")


def family_keys(identifier: str) -> list[str]:
    """The family labels an identifier belongs to (``TX-44xx``, ``payment_*``, ``*_declined``)."""
    numbered = _NUMBERED.match(identifier)
    if numbered:
        prefix, digits = numbered.groups()
        return [f"{prefix}{digits[:-2]}xx"]
    if _SNAKE.match(identifier):
        words = identifier.split("_")
        return [f"{words[0]}_*", f"*_{words[-1]}"]
    return []


def find_families(chunks: Sequence[Chunk], *, max_gold: int) -> dict[str, tuple[list[str], list[str]]]:
    """label → (sorted members, gold chunk ids) for families of ≥ 2 rare members over 2..max_gold chunks.

    Families whose gold duplicates another's (a prefix and a suffix family
    naming the same chunks) are kept once, the first label in sorted order.
    """
    where = identifier_chunks(chunks)
    n = len(chunks)
    members: dict[str, set[str]] = defaultdict(set)
    for ident, ids in where.items():
        if not is_rare(ident, len(ids), n):
            continue
        for key in family_keys(ident):
            if len(key.replace("*", "").strip("_")) >= 3:
                members[key].add(ident)
    order = {c.id: i for i, c in enumerate(chunks)}
    families: dict[str, tuple[list[str], list[str]]] = {}
    seen_gold: set[tuple[str, ...]] = set()
    for label in sorted(members):
        names = sorted(members[label])
        gold = sorted({cid for name in names for cid in where[name]}, key=order.__getitem__)
        if len(names) < 2 or not 2 <= len(gold) <= max_gold or tuple(gold) in seen_gold:
            continue
        seen_gold.add(tuple(gold))
        families[label] = (names, gold)
    return families


def build_aggregation(chunks: Sequence[Chunk], *, limit: int, seed: int, max_gold: int) -> tuple[list[Question], str | None]:
    """Up to ``limit`` family questions (seeded choice), or a reason the corpus has none."""
    families = find_families(chunks, max_gold=max_gold)
    if not families:
        return [], f"no identifier family of 2+ rare members spread over 2..{max_gold} chunks"
    labels = sorted(families)
    random.Random(seed).shuffle(labels)
    source_of = {c.id: c.source for c in chunks}
    questions = []
    for label in sorted(labels[:limit]):
        names, gold = families[label]
        questions.append(
            Question(
                id="",
                q=f"Which identifiers of the form {label} are documented?",
                shape="aggregation",
                gold_chunk_ids=gold,
                answer=", ".join(names),
                source=source_of[gold[0]],
                identifier=label,
                equivalent_gold=gold,
            )
        )
    return questions, None
