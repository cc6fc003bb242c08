"""How ``search`` orders sections: one relevance score (docs/adr/011-search-terms-and-ranking.md).

1. **Terms.** Each content part of the query (stopwords aside, unless the
   query has nothing else) stands for the index terms of
   ``terms.QueryPart``: a word's stem, an identifier whole and its pieces
   (the part scores the better of the two, so it counts once; when the
   index holds the identifier whole, its pieces count only in the sections
   naming it whole, so ``RARE_KNOB_7`` does not match every ``rare``); an
   identifier the index lacks also for the longer ones it begins
   (``UV_CACHE`` → ``uv_cache_dir``), a prefix (``PIP_*``, ``--no-*``) for
   the indexed terms that begin with it, up to :data:`MAX_EXPANSIONS` of them
   (the most widely held).
2. **BM25F.** Each term's matches are scored by BM25F over four fields
   weighted by :data:`FIELD_WEIGHTS` (heading path, document title and
   path, the section's identifiers, body): the term's frequency in each
   field is weighted and summed before saturation (FTS5's ``bm25`` with
   column weights), then multiplied by the term's IDF,
   ``log(1 + (N - n + 0.5) / (n + 0.5))``. That IDF never reaches zero, so
   a word held by half the sections still counts a little, while a heading
   match on a rare term counts a lot. A section's relevance is the sum over
   the query's parts. The lexical ranking that hybrid search fuses is
   :attr:`Ranking.sections`: always the whole pool, best first.
3. **Bonuses.** Among the best :data:`POOL` sections, one holding the
   query's words as an exact phrase, the identifiers the query names
   exactly, a table row that answers the whole query (:mod:`.table_rows`:
   BM25 divides by the length of a long table, not of the row that answers),
   or, for a query comparing two things, a heading or title that announces
   a comparison over a section holding both, has its relevance raised by
   :data:`PHRASE_BONUS`, :data:`IDENTIFIER_BONUS`, :data:`ROW_BONUS` and
   :data:`COMPARISON_BONUS` (shares of its own relevance, so they reorder
   near neighbours, never lift a weak match over a much stronger one); a
   section headed by exactly an identifier the query names (its own entry in
   a reference) earns :data:`HEADED_BONUS` as well. A
   section holding only part of the question word for word, joined by
   function words ("the username for the index"), earns that part's share
   of :data:`PHRASE_BONUS` (:mod:`.phrases`). A section whose own heading
   is a run of the question's words earns :data:`HEADING_RUN_BONUS`
   (:func:`_headed_by_a_run`).
4. **A family first.** For a query naming an identifier family by prefix
   (``PIP_*``), the pooled sections holding a member of the family come
   before those holding none, each group in score order: the members are
   named in the text, so a section naming none matched only the query's
   other words ("which variables …") and cannot list the family, however
   well those words score (as hybrid search keeps such a query's word hits
   above the sections only vectors found, ``ops/hybrid.py``). A section
   naming none then ties with the last that names one, so scores never
   increase down the list.
5. **Ties** go to document order (path, then ordinal), so the order is total.

The pool never depends on how many hits the caller wants, so the top k is
the same for every ``limit >= k``. Cost is bounded: a term held by more than
:data:`COMMON` sections is *common*; common terms do not score when the
query has other terms (their IDF is small there anyway), and when every term
is common the candidates are the first :data:`COMMON` matches of the rarest
few in store order, scored together, and the ranking says so (``capped``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from ..analysis.terms import Query, QueryPart, analyse_query, index_terms, query_words
from ..records import HEADING_SEPARATOR, SIBLING_SEPARATOR
from ..store import queries
from ..store.reader import StoreReader
from .phrases import phrase_share, question_phrases
from .table_rows import TABLE_KINDS, row_answers

#: BM25F field weights: a heading names what a section is about, a title (and path) what its
#: document is about, an identifier is a name the text defines or uses; set by role, not fitted
FIELD_WEIGHTS = {"heading": 4.0, "title": 2.0, "identifiers": 2.0, "body": 1.0}
#: sections that bonuses may reorder: as many as the largest ``limit`` a caller may ask for
POOL = 50
#: a term held by more sections than this is common (see the module docstring)
COMMON = 2000
#: terms a capped sample is drawn and scored by (FTS5 reads each term's whole list to score it)
SAMPLED_TERMS = 2
#: indexed terms a prefix stands for at most
MAX_EXPANSIONS = 50
PHRASE_BONUS = 0.5
IDENTIFIER_BONUS = 0.5
ROW_BONUS = 0.5
COMPARISON_BONUS = 0.5
#: a section headed by exactly an identifier the query names: half the identifier bonus again, so a
#: table row answering the whole query (:data:`ROW_BONUS`) still outranks the identifier's own entry
HEADED_BONUS = 0.25
#: a section whose own heading is a run of the question's words ("Parameter Types" for "which
#: built-in parameter types …"): as much again as its relevance. Checked at 0.5, 0.75, 1.0 and 1.5
#: on every eval set (benchmarks/RESULTS.md, session 13): 1.5 lost a question that 1.0 keeps
HEADING_RUN_BONUS = 1.0
#: a heading that announces a comparison ("Execution vs installation", "Differences with `npm run`",
#: "What's the difference between …"); ``vs`` only in lower case, so "VS Code" does not
_COMPARES = re.compile(r"\bvs\b|(?i:\b(?:versus|compared|comparison|comparing|differ(?:s|ences?)?)\b)")
#: the words naming each of two things a query compares (``sides.named_things``)
Things = tuple[tuple[QueryPart, ...], tuple[QueryPart, ...]]
#: query parts whose holding a section's relevance records (``queries.Relevance.held_parts``, a 64-bit integer)
_PART_BITS = 62
#: FTS5's own IDF floor: its ``bm25`` scores a term held by half the sections or more with this IDF
_FTS5_MIN_IDF = 1e-6


@dataclass(frozen=True)
class RankedSection:
    """One ranked section: what :func:`rank` returns and what a fusion of rankings works on."""

    section: queries.SectionRow
    title: str
    score: float
    match: str  # "phrase", "all" (every content part) or "any"


@dataclass(frozen=True)
class Ranking:
    """Sections best first (up to :data:`POOL`), the index terms matched, whether the pool was capped."""

    sections: list[RankedSection]
    terms: frozenset[str]
    capped: bool


@dataclass(frozen=True)
class PartTerms:
    """The index terms one query part stands for: as typed (with expansions), and by its pieces."""

    exact: tuple[str, ...]
    pieces: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        return (*self.exact, *self.pieces)


def query_index_terms(store: StoreReader, query: Query) -> tuple[list[PartTerms], dict[str, int]]:
    """The index terms each content part of ``query`` stands for (see the module docstring), and
    how many sections hold each of them.

    An identifier typed whole stands for longer ones only when the index
    lacks it (``UV_CACHE``); one it holds means itself (``grpc.client``).
    One look-up counts every term typed; an expansion comes with its count.
    """
    counts = store.term_counts(list(dict.fromkeys(term for part in query.content for term in _typed_terms(part))))
    out = []
    for part in query.content:
        expand = part.prefix or (part.expand and not counts[part.term])
        expanded = store.terms_with_prefix(part.term, MAX_EXPANSIONS) if expand else []
        counts.update(expanded)
        # A prefix's own pieces (`tool`, `uv` of `tool.uv.*`) only stand in when it expands to nothing.
        pieces = () if part.prefix and expanded else part.pieces
        out.append(PartTerms(tuple(dict.fromkeys([*part.exact, *(term for term, _ in expanded)])), pieces))
    return out, counts


def _typed_terms(part: QueryPart) -> tuple[str, ...]:
    """The terms ``part`` names before any expansion: its own term when it may expand, its exact terms, its pieces."""
    own = (part.term,) if part.expand and not part.prefix else ()
    return (*own, *part.exact, *part.pieces)


def rank(
    store: StoreReader, query: Query, doc_ids: Sequence[int] | None = None, things: Things | None = None
) -> Ranking:
    """The best sections for ``query`` (from ``terms.analyse_query``), best first.

    ``things`` are the two things the query compares, when it compares two
    (``sides.named_things``): a section under a heading that announces a
    comparison, holding both, earns :data:`COMPARISON_BONUS`.
    """
    parts, counts = query_index_terms(store, query)
    terms = list(dict.fromkeys(term for part in parts for term in part.all))
    if not terms:
        return Ranking([], frozenset(), False)
    found, capped = _candidates(store, query, parts, terms, counts, doc_ids)
    rows = store.ranked_pointers((hit.rowid, hit.score) for hit in found)
    covered = {hit.rowid for hit in found if hit.parts == len(parts) and not capped}
    named = {hit.rowid: hit.named for hit in found}
    pattern = _phrase_pattern(query)
    phrases = question_phrases(query.text) if len(parts) >= 2 else None
    # Only a section holding every part can hold them as a phrase, or have a table row that
    # answers the query (a question of two parts or more); any pooled section may hold part of
    # the question as a phrase (ops/phrases.py). One read serves every check.
    tabled = [
        row for row in rows if len(parts) >= 2 and row.section.rowid in covered and row.section.kind in TABLE_KINDS
    ]
    if phrases:
        read = [row.section.rowid for row in rows]
    else:
        read = sorted(covered) if pattern else [row.section.rowid for row in tabled]
    stored = store.section_tables(read) if read else {}
    in_rows = _answered_by_a_row(tabled, _row_terms(query, parts, counts), stored)
    identifiers = [frozenset(part.exact) for part in query.content if part.identifier and not part.prefix]
    wanted = len(identifiers)
    compares = _comparing(store, rows, things) if things else set()
    headed_by_run = _headed_by_a_run(store, rows, content_words(query.text))
    ranked = []
    for row in rows:
        rowid = row.section.rowid
        heading = HEADING_SEPARATOR.join(row.section.heading_path)
        shown = f"{heading}\n{stored[rowid][0]}" if rowid in stored else ""
        in_phrase = bool(pattern and rowid in covered and shown and pattern.search(shown))
        part = phrase_share(phrases, shown) if phrases and not in_phrase else 0.0
        exact = named[rowid] / wanted if wanted else 0.0
        headed = _headed_by(row.section.heading_path, identifiers) / wanted if wanted else 0.0
        bonus = PHRASE_BONUS * max(float(in_phrase), part) + IDENTIFIER_BONUS * exact + ROW_BONUS * (rowid in in_rows)
        bonus += HEADED_BONUS * headed + COMPARISON_BONUS * (rowid in compares)
        bonus += HEADING_RUN_BONUS * (rowid in headed_by_run)
        score = row.score * (1.0 + bonus)
        match = "phrase" if in_phrase else "all" if rowid in covered else "any"
        ranked.append(RankedSection(row.section, row.title, round(score, 6), match))
    members = _holding_a_member(query, found)
    ranked.sort(key=lambda hit: (hit.section.rowid not in members, -hit.score, hit.section.path, hit.section.ordinal))
    if members:
        ranked = never_rising(ranked)
    return Ranking(ranked, frozenset(terms), capped)


def never_rising(ranked: Sequence[RankedSection], ceiling: float = math.inf) -> list[RankedSection]:
    """``ranked`` with each score capped at the one above it (the first at ``ceiling``): scores never
    increase down a result.

    A rule that puts a lower score above a higher one calls it: the family
    rule (a section naming no member ties with the last that names one) and
    ``copies.copies_last`` (a copy moved down ties with the hit above it).
    """
    out = []
    for hit in ranked:
        ceiling = min(ceiling, hit.score)
        out.append(hit if hit.score == ceiling else replace(hit, score=ceiling))
    return out


def _holding_a_member(query: Query, found: list[queries.Relevance]) -> set[int]:
    """The row ids of ``found`` holding a member of a family the query names by prefix (``PIP_*``).

    Empty when the query names no family, or no pooled section holds a
    member: the order is then the scores' alone. A prefix part's terms are
    its expansions only (``terms.QueryPart``), so holding the part is
    holding a member.
    """
    family = sum(1 << index for index, part in enumerate(query.content) if part.prefix and index < _PART_BITS)
    if not family:
        return set()
    return {hit.rowid for hit in found if hit.held_parts & family}


def _headed_by(heading_path: Sequence[str], identifiers: list[frozenset[str]]) -> int:
    """How many of ``identifiers`` (each by its exact terms) a section's own heading is, and nothing else.

    A reference gives each setting, flag or function its own section headed
    by its name (``### minimumReleaseAge``, ``select_related()``); the
    sections of its neighbours (``minimumReleaseAgeStrict``) may name it more
    often than its own entry does, but they only mention it.
    """
    if not identifiers or not heading_path:
        return 0
    heading = heading_path[-1].casefold()
    if not any(term in heading for terms in identifiers for term in terms):
        return 0  # the heading does not spell any of them: no need to analyse it
    own = analyse_query(heading_path[-1]).content
    if len(own) != 1:
        return 0
    return sum(bool(terms & set(own[0].exact)) for terms in identifiers)


def _headed_by_a_run(store: StoreReader, rows: list[queries.RankedRow], words: Sequence[frozenset[str]]) -> set[int]:
    """The row ids of ``rows`` whose own heading is a run of the question's content ``words`` (each by its terms).

    A heading names what its section is about in a few words, and a
    question asking about that thing often says them in the same order:
    "Which built-in parameter types does Click offer for numbers?" and the
    section "Parameter Types", "Which merge strategies can git merge use?"
    and "MERGE STRATEGIES". BM25 counts those words like any others, so a
    long section holding the question's rarer, incidental words ("numbers")
    outranks the one the docs head with its subject. The rule:

    * every content word of the heading, in order, matches the question's
      content words next to each other (:func:`is_a_run`), and the heading
      has two content words or more: one word ("Name", "Loaders") is too
      common a heading to say what the question is about;
    * not a document's opening section, nor one carrying it on under the
      same headings (a long opening split in parts): the opening is headed
      by the document's own name, which every section of the document
      already carries as its title, so a question naming the document asks
      about something in it. Measured: the first sections of "AWS
      CodeArtifact" and "Google Artifact Registry" took the places of the
      two sections comparing their usernames, and the second and third
      parts of "Semantic conventions for ASP.NET Core metrics" that of the
      SignalR side of a question comparing the two pages.
    """
    if len(words) < 2:
        return set()
    headed = [row.section for row in rows if row.section.ordinal and is_a_run(row.section.heading_path, words)]
    if not headed:
        return set()
    opening = store.opening_headings({section.path for section in headed})
    return {section.rowid for section in headed if section.heading_path != opening.get(section.path)}


def is_a_run(heading_path: Sequence[str], words: Sequence[frozenset[str]]) -> bool:
    """Whether the last heading of ``heading_path`` is a run of ``words`` (the question's content words).

    Every content word of the heading matches one of ``words``, in order and
    next to each other: function words are left out on both sides, and a
    word matches by its form or its stem, an identifier only whole
    (:func:`content_words`). It must have two content words or more. A
    section holding merged siblings is headed by each of them ("Span kind;
    Span status").
    """
    if not heading_path:
        return False
    for heading in heading_path[-1].split(SIBLING_SEPARATOR):
        own = content_words(heading)
        if len(own) >= 2 and any(
            all(mine & theirs for mine, theirs in zip(own, words[start:], strict=False))
            for start in range(len(words) - len(own) + 1)
        ):
            return True
    return False


@lru_cache(maxsize=1 << 14)
def content_words(text: str) -> tuple[frozenset[str], ...]:
    """The content words of ``text`` in order, repeats kept, each by the index terms it matches.

    A word matches by its form or its stem, an identifier (a hyphenated word
    too) only whole, as in :func:`_row_terms`: the headings
    "Metric: aspnetcore.routing.match_attempts" and
    "Metric: aspnetcore.rate_limiting.requests" share the piece
    ``aspnetcore``, not what they are about, and "Option-Like Arguments"
    are not options.

    Cached: a store's headings come back query after query, and analysing
    the fifty pooled sections' headings anew cost about a millisecond a query.
    """
    return tuple(
        frozenset(part.exact if part.identifier else part.terms) for part in query_words(text) if not part.stopword
    )


def _row_terms(query: Query, parts: list[PartTerms], counts: dict[str, int]) -> list[frozenset[str]]:
    """The index terms that hold each content part of ``query`` in a table row or a heading.

    A word is held by its stem as by its form; an identifier the index holds
    is held only whole (``gcp.apphub.application.location``, not by ``gcp``,
    which the heading "GCP - AppHub Attributes" names for every row).
    """
    out = []
    for part, terms in zip(query.content, parts, strict=True):
        whole = part.identifier and any(counts.get(term) for term in terms.exact)
        out.append(frozenset(terms.exact if whole else terms.all))
    return out


def _answered_by_a_row(
    tabled: list[queries.RankedRow], parts: list[frozenset[str]], stored: dict[int, tuple[str, str | None]]
) -> set[int]:
    """The row ids of ``tabled`` (table sections holding every query part) where one table row answers the query.

    See :mod:`.table_rows`: the heading path, title and path say what every
    row is about, and one row with its header holds the rest. ``stored``
    holds each section's text and table header.
    """
    found = set()
    for row in tabled:
        text, header = stored[row.section.rowid]
        heading = " ".join(row.section.heading_path)
        context = frozenset(index_terms(f"{heading}\n{row.title}\n{row.section.path}"))
        if row_answers(text, header, parts, context):
            found.add(row.section.rowid)
    return found


def _comparing(store: StoreReader, rows: list[queries.RankedRow], things: Things) -> set[int]:
    """The row ids of ``rows`` under a heading (or title) that announces a comparison, holding both ``things``.

    Documentation answers "when should I use X rather than Y" in a section
    headed "X vs Y" or "Differences with Y", or in a page titled so, often
    in other words than the question's ("Execution vs installation" for
    "run with uvx rather than install"): such a section is the comparison
    itself, where sections that use both names in passing only mention them.
    """
    headed = {}
    for row in rows:
        heading = f"{HEADING_SEPARATOR.join(row.section.heading_path)}\n{row.title}"
        if _COMPARES.search(heading):
            headed[row.section.rowid] = heading
    if not headed:
        return set()
    texts = store.section_texts(headed)
    wanted = [frozenset(term for part in thing for term in part.terms) for thing in things]
    return {
        rowid
        for rowid, heading in headed.items()
        if all(frozenset(index_terms(f"{heading}\n{texts[rowid]}")) & terms for terms in wanted)
    }


def _candidates(
    store: StoreReader,
    query: Query,
    parts: list[PartTerms],
    terms: list[str],
    counts: dict[str, int],
    doc_ids: Sequence[int] | None,
) -> tuple[list[queries.Relevance], bool]:
    """The best :data:`POOL` sections by BM25F, and whether they were drawn from a capped sample.

    Terms held by more than :data:`COMMON` sections are left out when the
    query has others. When every term is that common, the sample is the first
    :data:`COMMON` sections holding any of the :data:`SAMPLED_TERMS` rarest
    terms plus the first :data:`COMMON` holding one in a heading (so
    definitions are not lost), each scored by one FTS5 ``bm25`` over those terms.
    An identifier the index holds whole, in any of its spellings, scores its
    pieces only in the sections naming it whole
    (docs/adr/011-search-terms-and-ranking.md).
    """
    if all(counts[term] > COMMON or counts[term] == 0 for term in terms) and any(counts[term] for term in terms):
        rarest = sorted((term for term in terms if counts[term]), key=lambda term: (counts[term], term))
        sample = store.sampled_best(rarest[:SAMPLED_TERMS], FIELD_WEIGHTS, COMMON, POOL, doc_ids)
        return [queries.Relevance(rowid, score, 0, 0) for rowid, score in sample], True
    total = store.section_total()
    named = {part.term for part in query.content if part.identifier and not part.prefix}
    weighted = []
    for index, (part, spec) in enumerate(zip(query.content, parts, strict=True)):
        groups = [(term, 0) for term in part.exact] + [(term, 1) for term in spec.exact if term not in part.exact]
        whole = sum(counts[term] for term in part.exact if _scored(counts[term])) if part.term in named else 0
        for term, group in [*groups, *((term, 2) for term in spec.pieces)]:
            n = counts[term]
            if _scored(n):
                scale = _idf(total, n) / max(math.log((total - n + 0.5) / (n + 0.5)), _FTS5_MIN_IDF)
                gate = whole if group == 2 else 0
                weighted.append(queries.WeightedTerm(term, index, group, scale, group == 0 and term in named, gate, n))
    return store.relevance(weighted, FIELD_WEIGHTS, POOL, doc_ids), False


def _scored(n: int) -> bool:
    """Whether a term held by ``n`` sections is scored (held, and not common)."""
    return 0 < n <= COMMON


def _idf(total: int, n: int) -> float:
    """BM25's IDF as Lucene computes it: never zero, so a word in half the sections still counts a little."""
    return math.log(1.0 + (total - n + 0.5) / (n + 0.5))


def _phrase_pattern(query: Query) -> re.Pattern[str] | None:
    """A pattern for the query's words from its first content word to its last, when that is two or more.

    Words may be separated by any run of non-word characters (spaces,
    punctuation, Markdown marks), and must be whole words.
    """
    content = [i for i, part in enumerate(query.parts) if part in query.content]
    if len(content) < 2:
        return None
    words = [re.escape(part.term) for part in query.parts[content[0] : content[-1] + 1]]
    return re.compile(r"(?<!\w)" + r"\W+".join(words) + r"(?!\w)", re.IGNORECASE)
