"""Both sides of a comparison: a query naming two things gets the best section for each among its first hits.

One-shot search was weakest on comparison questions (issue 26): the words a
question shares with one side's documents (a rare product name in their
titles, their repeated terms) fill the first hits with that side, and the
section about the second thing never shows. The rule, stated without word
lists about any corpus:

* a query *names two things* when its first coordinating word (``and``,
  ``or``, ``vs``, ``versus``, ``than``, ``rather than``, ``compared
  with``/``to``, ``differ(s) from``) has a run of content words on each
  side (up to the nearest function word) and each run holds a word the
  other lacks: ``uv cache clean`` *and* ``uv cache prune`` name ``clean``
  and ``prune``; ``in AWS CodeArtifact`` *and* ``Google Artifact Registry``
  name ``aws codeartifact`` and ``google artifact registry``; the run
  after the word may open with an article, or with the function word that
  leads the run before it ("differ from *a* consumer", "*of* Windows and
  *of* macOS": 2026-12-07, semconv comparison 0.417 → 0.500);
* when both runs hold the same content words, a different function word
  leading each side names the things ("*before* validators differ from
  *after* validators"): those two words then count as content words of
  the query (:func:`stressed`);
* each thing's best section is the first hit of the query ranked without
  the *other* thing's words and without the coordinating word itself
  (``differ``, ``compared``: the question's grammar, not either thing's
  topic); the rest of the question still counts;
* when that section is not among the first :data:`FIRST_HITS` (the other
  side's documents crowd them out, or other sections of its own document
  do), it takes rank :data:`SIDE_SLOT` and the hits from there down move
  one place (its score is raised to tie with the hit it displaces, so
  scores still never increase down the list). The first two hits are never
  moved, and a thing whose best section already shows is left where the
  ranking put it. Until 2026-12-07 a thing was left alone when any section
  of its document showed; Django's reference page for both
  ``select_related`` and ``prefetch_related`` then showed only later parts
  of one of them (ADR 026 follow-up: no figure of the other sets moved).

The same two things let ``ranking`` raise a section whose own heading
announces a comparison ("Execution vs installation") when it holds both
(ADR 026, follow-up).

Only the split counts: the grammar of English coordination, not a topic. A
query naming an identifier family by prefix (``PIP_*``) is exact evidence
and is left alone. The cost is two more lexical rankings, only for a query
that names two things.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..analysis.terms import Query, QueryPart, analyse_query
from ..store.reader import StoreReader
from .ranking import RankedSection, Things, rank

#: the rank a thing's best section takes at worst: the first two hits stay where the ranking put
#: them, as with the vector slot of hybrid search (ops/hybrid.py)
SIDE_SLOT = 3
#: the first hits, where a comparison needs both sides: the k of recall@5 and of the reading agents
FIRST_HITS = 5
#: words that open the run after the split rather than end it ("differ from *a* consumer")
_ARTICLES = frozenset({"a", "an", "the"})
#: the first coordinating word of a query splits it into two sides
_SPLIT = re.compile(
    r"\b(?:vs\.?|versus|compared\s+(?:with|to)|differs?\s+from|rather\s+than|than|and|or)\b", re.IGNORECASE
)


def named_things(query: Query) -> Things | None:
    """The words naming each of the two things ``query`` compares, or ``None`` when it names fewer.

    Each thing is the run of content words next to the first coordinating
    word (up to the nearest function word), less the words both runs share.
    """
    if query.names_family:
        return None
    split = _SPLIT.search(query.text)
    if split is None:
        return None
    before = analyse_query(query.text[: split.start()]).parts[::-1]  # read back from the split
    after = analyse_query(query.text[split.end() :]).parts
    left = _run(before)[::-1]
    lead = before[len(left)].term if len(before) > len(left) else None
    right = _run(_opening(after, lead))
    shared = {part.term for part in left} & {part.term for part in right}
    first = tuple(part for part in left if part.term not in shared)
    second = tuple(part for part in right if part.term not in shared)
    if first and second:
        return first, second
    return _told_apart_by_function_words(before, after)


def _told_apart_by_function_words(before: Sequence[QueryPart], after: Sequence[QueryPart]) -> Things | None:
    """Two sides whose content words are the same, led by different function words: those words are the things.

    "*before* validators differ from *after* validators", "*on* hooks
    versus *off* hooks": the content words name one thing twice, and the
    word leading each side is what the question compares. ``before`` reads
    back from the split, ``after`` forward.
    """
    left, right = _run(before), _run(after[1:])
    if not left or len(before) == len(left) or not after:
        return None
    lead_left, lead_right = before[len(left)], after[0]
    same = {part.term for part in left} == {part.term for part in right}
    if not (same and lead_left.stopword and lead_right.stopword and lead_left.term != lead_right.term):
        return None
    return (replace(lead_left, stopword=False),), (replace(lead_right, stopword=False),)


def stressed(query: Query, things: Things | None) -> Query:
    """``query`` with the words naming ``things`` as content words, function words among them.

    A question comparing *before* validators with *after* ones is about
    those two words: ranked without them, every validator section ties.
    """
    named = {part.term for thing in things or () for part in thing}
    if not named:
        return query
    return Query(
        query.text, tuple(replace(part, stopword=False) if part.term in named else part for part in query.parts)
    )


def _coordinating_terms(query: Query) -> set[str]:
    """The terms of the query's first coordinating word ("differ from", "compared with"), which name no thing.

    Ranked with them, a side finds sections that merely use the verb (the
    semconv docs: "Recommended … differ" matched metric notes that say
    values differ, not the section defining Recommended attributes).
    """
    split = _SPLIT.search(query.text)
    return {part.term for part in analyse_query(split.group()).parts} if split else set()


def _opening(after: Sequence[QueryPart], lead: str | None) -> Sequence[QueryPart]:
    """``after`` from where the second thing's words begin: past an article, and past the left run's own leading word.

    "differ from *a* consumer", "versions *of* Windows and *of* macOS": an
    article opens a noun phrase, and a function word repeated on both sides
    is shared like a repeated content word ("uv cache" in "uv cache clean
    and uv cache prune"), so neither ends the run before it starts.
    """
    at = 0
    if at < len(after) and after[at].term == lead:
        at += 1
    while at < len(after) and after[at].term in _ARTICLES:
        at += 1
    return after[at:]


def _run(parts: Iterable[QueryPart]) -> tuple[QueryPart, ...]:
    """The leading run of content words in ``parts``."""
    return tuple(itertools.takewhile(lambda part: not part.stopword, parts))


def cover_sides(
    store: StoreReader,
    query: Query,
    things: Things | None,
    order: list[RankedSection],
    doc_ids: Sequence[int] | None,
) -> list[RankedSection]:
    """``order`` with the best section of each of ``things`` (:func:`named_things`) at rank :data:`SIDE_SLOT` at worst.

    ``order`` is the ranking the caller returns (lexical, or fused), at
    least its first :data:`FIRST_HITS`: a thing's best section comes from
    its own ranking, never from the caller's first hits, so the first ``k``
    are the same for every limit. A caller whose limit leaves no room for
    rank :data:`SIDE_SLOT` passes no ``things``, and no ranking is made.
    """
    if things is None or len(order) < SIDE_SLOT:
        return order
    out = list(order)
    grammar = _coordinating_terms(query)
    for other in things[::-1]:
        dropped = {part.term for part in other} | grammar
        without = Query(query.text, tuple(part for part in query.parts if part.term not in dropped))
        ranked = rank(store, without, doc_ids).sections
        if not ranked:
            continue
        best = ranked[0]
        if any(hit.section.rowid == best.section.rowid for hit in out[:FIRST_HITS]):
            continue
        rowid = best.section.rowid
        at = next((i for i, hit in enumerate(out) if hit.section.rowid == rowid), None)
        moved = best if at is None else out.pop(at)
        # Scores never increase down a result: the moved hit ties with the one it displaces.
        out.insert(SIDE_SLOT - 1, replace(moved, score=max(moved.score, out[SIDE_SLOT - 1].score)))
    return out
