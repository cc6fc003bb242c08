"""How ``search`` orders hits: passes, definitions, then BM25.

1. Passes, strictest first: the exact phrase, then all words (AND), then any
   word (OR). Hits found by an earlier pass come first; later passes only add
   sections not seen yet. The all-words and any-word passes leave out
   stopwords (``terms.STOPWORDS``) when the query has other words, so a
   question is matched on what it is about, not on "what is the".
2. Within a pass, a *definition* outranks a *usage*: a section whose heading
   path or document title carries the query's terms (stopwords aside) ranks
   above sections that only mention them in the body. For a compound identifier such as
   ``UV_CACHE_DIR`` its word pieces count too (half weight), a piece also
   matching as the start of a heading word (``dir`` in ``directory``).
3. Then BM25 over the analysed terms with the heading column weighted above
   the body, then document path and numeric ordinal, so equal scores always
   come out in the same order.

``score`` folds all three into one number that never increases down the list:
20 for the phrase pass, 10 for all words, 0 for any word, plus up to 5 for
definition strength, plus BM25 relevance squashed into [0, 1).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..records import HEADING_SEPARATOR
from ..store.connection import Store
from ..store.queries import FtsQuery, RankedRow, SectionRow, fts_all, fts_any, fts_in_headings, fts_phrase, fts_quote
from ..terms import content_terms, index_terms, is_compound

HEADING_WEIGHT = 5.0
BODY_WEIGHT = 1.0
#: candidates fetched beyond the limit per pass, so definitions further down BM25 can rise
POOL_EXTRA = 40
#: a pass matching more sections than this is ranked over a bounded pool (see ``_pool``)
RANK_CAP = 2000
_PASS_BASE = {"phrase": 20.0, "all": 10.0, "any": 0.0}
_DEFINITION_SCALE = 5.0
_MIN_PREFIX = 3


@dataclass(frozen=True)
class RankedHit:
    section: SectionRow
    match: str
    score: float


def passes(terms: Sequence[str]) -> list[tuple[str, FtsQuery]]:
    """``(pass name, FTS5 expression)`` pairs; the store quotes every term, so no syntax leaks in."""
    if len(terms) == 1:
        return [("all", fts_all(terms))]
    content = content_terms(list(terms))
    if len(content) == 1:
        return [("phrase", fts_phrase(terms)), ("all", fts_all(content))]
    return [("phrase", fts_phrase(terms)), ("all", fts_all(content)), ("any", fts_any(content))]


def definition_strength(terms: Sequence[str], heading_path: Sequence[str], title: str) -> float:
    """Share of the query (0..1) that the section's headings or its document title carry."""
    heading_terms = set(index_terms(HEADING_SEPARATOR.join(heading_path) + "\n" + title))
    terms = content_terms(list(terms))
    total = 0.0
    for term in terms:
        if term in heading_terms:
            total += 1.0
        elif is_compound(term):
            pieces = [piece for piece in index_terms(term) if not is_compound(piece)]
            found = sum(_piece_in(piece, heading_terms) for piece in pieces)
            total += 0.5 * found / len(pieces) if pieces else 0.0
    return total / len(terms)


def _piece_in(piece: str, heading_terms: set[str]) -> bool:
    if piece in heading_terms:
        return True
    return len(piece) >= _MIN_PREFIX and any(term.startswith(piece) for term in heading_terms)


def rank(
    store: Store,
    terms: Sequence[str],
    limit: int,
    doc_ids: Sequence[int] | None,
) -> tuple[list[RankedHit], bool]:
    """The best ``limit`` sections for ``terms`` (already analysed by ``query_terms``).

    The flag is true when some pass matched more than :data:`RANK_CAP`
    sections and was ranked over a bounded pool (see :func:`_pool`).
    """
    hits: list[RankedHit] = []
    seen: set[int] = set()
    capped = False
    for name, expression in passes(terms):
        alternatives = content_terms(list(terms)) if name == "any" else ()
        pool, pass_capped = _pool(store, expression, alternatives, limit + len(seen) + POOL_EXTRA, doc_ids)
        capped |= pass_capped
        fresh = []
        for row in pool.values():
            if row.section.rowid in seen:
                continue
            strength = definition_strength(terms, row.section.heading_path, row.title)
            fresh.append((-strength, row.bm25, row.section.path, row.section.ordinal, row))
        fresh.sort(key=lambda item: item[:4])
        for negative_strength, bm25, _, _, row in fresh[: limit - len(hits)]:
            relevance = max(0.0, -bm25)
            score = _PASS_BASE[name] - _DEFINITION_SCALE * negative_strength + relevance / (1 + relevance)
            hits.append(RankedHit(row.section, name, round(score, 4)))
            seen.add(row.section.rowid)
        if len(hits) >= limit:
            break
    return hits, capped


def _pool(
    store: Store,
    expression: FtsQuery,
    alternatives: Sequence[str],
    size: int,
    doc_ids: Sequence[int] | None,
) -> tuple[dict[int, RankedRow], bool]:
    """The best ``size`` candidates for one pass, by row id, and whether the pass was capped.

    Scoring every match costs time in proportion to the matches, and for
    words found in most sections BM25 says little anyway. When more than
    :data:`RANK_CAP` sections match, the pool is drawn from the first
    ``RANK_CAP`` matches in store order, plus as many sections whose
    *headings* match (so definitions are not lost), plus, for the any-word
    pass, as many matches of each query word on its own (so a rare word is
    not drowned by a common one).
    """
    scores: dict[int, float] = {}

    def add(match: FtsQuery) -> bool:
        scored = store.scored_matches(match, (HEADING_WEIGHT, BODY_WEIGHT), RANK_CAP + 1, doc_ids)
        for rowid, bm25 in scored[:RANK_CAP]:
            scores[rowid] = min(bm25, scores.get(rowid, bm25))
        return len(scored) > RANK_CAP

    capped = add(expression)
    if capped:
        add(fts_in_headings(expression))
        for term in alternatives:
            add(fts_quote(term))
    best = sorted(scores.items(), key=lambda item: (item[1], item[0]))[:size]
    return {row.section.rowid: row for row in store.ranked_pointers(best)}, capped
