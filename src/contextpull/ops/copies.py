"""Copies last: a hit repeating one ranked above it moves below the hits that add something.

Documentation keeps copies: pnpm's docs hold each page once per past
version (``versioned_docs/version-10.x/…``, ``versioned_docs_archived/…``),
and a question about one setting filled the first five hits with five copies
of one paragraph, so the second section it asked for never showed (issue
26's first cause of misses: near-duplicate siblings). A copy shows the
reader nothing new; the slot is worth more to the next section that does.

A hit is a *copy* when a hit above it has the same text but for spacing and
stands at the same place: the same document title and heading path, or a
heading path that ends with the other's whole path under headings of its
own. The second is a page that gathers others: mdBook's ``print.html`` holds
the whole book, every chapter's sections under the part's heading
("Fearless Concurrency > Using Threads … > Waiting for All Threads …"), and
filled half the first hits over the Rust book with copies of the chapter
pages above them. Sections whose text matches but whose pages or headings
differ (``--save-dev`` under ``pnpm add`` and under ``pnpm install``: the
same heading path on pages of two names) are different answers and both
stay. The same page in another format beside it (``git-log.html`` and the
``git-log.txt`` it was built from, in one folder: Debian's git documentation
ships both) repeats its sections with other markup (asciidoc's
``--soft::`` and ``linkgit:git-reset[1]`` against the HTML's text), split at
other places and headed otherwise (the source's "NAME; SYNOPSIS" is the
HTML's "SYNOPSIS"): there a section is a copy when nearly all its words, in
their order, are in a hit above from the other file, wherever that stands
(:func:`nearly_the_same`; 2026-12-07, a held-out git set: recall@5 0.520 →
0.600). Of a section and its copy on a gathering page, the section on its own
page is shown, in the better place of the two: its id names the page it is
from, and ``neighbours`` read that page. A copy is never dropped: it moves
after the first ``wanted`` hits that are not copies, so asking for more hits
still reaches it, and the first ``k`` hits are the same for every
``wanted >= k``.

Only hits at the same place as a hit above are compared (same last heading,
then the rule above), or hits of a page whose other format is above, so a
pool with no such pair reads no text at all; the texts read are kept for the
caller's snippets.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from dataclasses import replace

from ..store.reader import StoreReader
from .ranking import RankedSection, never_rising

#: a section of a page in another format is a copy of a hit above when this share of the shorter one's
#: word triples are in the other: of seven pairs of git's asciidoc sources and HTML pages measured, six
#: shared 0.94 to 1.00 and one split at another place 0.798; words in their order are rarely shared so
#: widely by sections that say different things
NEAR_SHARE = 0.8
_WORD = re.compile(r"[^\W_]+")


def copies_last(
    store: StoreReader, order: Sequence[RankedSection], wanted: int, texts: dict[int, str]
) -> list[RankedSection]:
    """``order`` with each copy (module docstring) moved after the first ``wanted`` hits that are not copies.

    ``texts`` holds the section texts already read, by row id; the ones
    this reads are added. A moved hit's score is lowered to the hit above
    it, so scores never increase down the list.
    """
    kept: list[RankedSection] = []
    copies: list[RankedSection] = []
    placed: dict[str, list[RankedSection]] = {}  # last heading (or title) -> kept hits
    pages: dict[str, list[RankedSection]] = {}  # file path less its suffix -> kept hits
    spaced: dict[int, str] = {}  # row id -> text with its spacing collapsed
    taken: set[int] = set()  # sections shown in the place of their copy on a gathering page
    position = 0
    while position < len(order) and len(kept) < wanted:
        hit = order[position]
        position += 1
        if hit.section.rowid in taken:
            continue
        path = hit.section.heading_path
        here = placed.setdefault(path[-1] if path else hit.title, [])
        earlier = [other for other in here if _same_place(hit, other)]
        # the hits above from this page in another format, wherever they stand
        formats = [other for other in pages.get(_page(hit), []) if other.section.path != hit.section.path]
        text = _text(store, hit.section.rowid, texts, spaced) if earlier or formats else ""
        if any(_text(store, other.section.rowid, texts, spaced) == text for other in earlier) or any(
            nearly_the_same(_text(store, other.section.rowid, texts, spaced), text) for other in formats
        ):
            copies.append(hit)
            continue
        original = _original(store, hit, order[position:], texts, spaced)
        if original is not None:
            # The section on its own page takes the place of its copy: its id names the page it is from.
            taken.add(original.section.rowid)
            copies.append(hit)
            hit = replace(original, score=hit.score)
        here.append(hit)
        pages.setdefault(_page(hit), []).append(hit)
        kept.append(hit)
    if not copies:
        return list(order)
    below = copies + [hit for hit in order[position:] if hit.section.rowid not in taken]
    return kept + never_rising(below, kept[-1].score)  # a copy always follows the hit it copies


def _original(
    store: StoreReader,
    hit: RankedSection,
    below: Sequence[RankedSection],
    texts: dict[int, str],
    spaced: dict[int, str],
) -> RankedSection | None:
    """The first hit ``below`` that ``hit`` copies onto a gathering page: its text under a heading path ``hit``'s ends with.

    It is looked for in the whole order below, never only in the first
    ``wanted`` hits, so the first ``k`` hits do not depend on ``wanted``.
    """
    path = hit.section.heading_path
    candidates = [other for other in below if len(other.section.heading_path) < len(path) and _same_place(hit, other)]
    if not candidates:
        return None
    text = _text(store, hit.section.rowid, texts, spaced)
    return next((other for other in candidates if _text(store, other.section.rowid, texts, spaced) == text), None)


def _page(hit: RankedSection) -> str:
    """The page ``hit`` is a section of, whatever its format: its file's path less the suffix."""
    return posixpath.splitext(hit.section.path)[0]


def nearly_the_same(text: str, other: str) -> bool:
    """True when at least :data:`NEAR_SHARE` of the word triples of the shorter text are in the longer.

    Word triples keep the words' order, so two sections using one
    vocabulary for different things do not match; markup between the words
    (``**``, ``::``, `````) is not a word and does not count.
    """
    mine, theirs = _triples(text), _triples(other)
    if not mine or not theirs:
        return False
    return len(mine & theirs) >= NEAR_SHARE * min(len(mine), len(theirs))


def _triples(text: str) -> set[tuple[str, ...]]:
    """Every run of three words of ``text``, case-folded: its words in their order, whatever marks them up."""
    words = _WORD.findall(text.casefold())
    return {tuple(words[at : at + 3]) for at in range(len(words) - 2)}


def _same_place(hit: RankedSection, other: RankedSection) -> bool:
    """True when ``hit`` and ``other`` stand at the same place: one page title and heading path, or
    one heading path ending with the whole of the other under headings of its own (a page gathering others)."""
    mine, theirs = hit.section.heading_path, other.section.heading_path
    if mine == theirs:
        return hit.title == other.title
    shorter, longer = sorted((mine, theirs), key=len)
    return bool(shorter) and longer[len(longer) - len(shorter) :] == shorter


def _text(store: StoreReader, rowid: int, texts: dict[int, str], spaced: dict[int, str]) -> str:
    """The text of section ``rowid`` with its spacing collapsed, read once."""
    if rowid not in spaced:
        if rowid not in texts:
            texts.update(store.section_texts([rowid]))
        spaced[rowid] = " ".join(texts[rowid].split())
    return spaced[rowid]
