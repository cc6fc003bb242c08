"""Copies last: a hit repeating one ranked above it moves below the hits that add something.

Documentation keeps copies: pnpm's docs hold each page once per past
version (``versioned_docs/version-10.x/…``, ``versioned_docs_archived/…``),
and a question about one setting filled the first five hits with five copies
of one paragraph, so the second section it asked for never showed (issue
26's first cause of misses: near-duplicate siblings). A copy shows the
reader nothing new; the slot is worth more to the next section that does.

A hit is a *copy* when a hit above it has the same document title, the same
heading path and the same text but for spacing: the same thing, in the same
place of a page by the same name. Sections whose text matches but whose
pages or headings differ (``--save-dev`` under ``pnpm add`` and under
``pnpm install``) are different answers and both stay. A copy is never
dropped: it moves after the first ``wanted`` hits that are not copies, so
asking for more hits still reaches it, and the first ``k`` hits are the same
for every ``wanted >= k``.

The pool is read in order, a batch of texts at a time, until ``wanted``
hits that are not copies are found: the cost is the texts of the first hits
(which the snippets of those hits read anyway), not of the whole pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..store.reader import StoreReader
from .ranking import RankedSection

#: texts read from the store at a time while looking for ``wanted`` hits that are not copies
BATCH = 16


def copies_last(
    store: StoreReader, order: Sequence[RankedSection], wanted: int, texts: dict[int, str]
) -> list[RankedSection]:
    """``order`` with each copy (module docstring) moved after the first ``wanted`` hits that are not copies.

    ``texts`` holds the section texts already read, by row id; the ones
    this reads are added, for the caller's snippets. A moved hit's score
    is lowered to the hit above it, so scores never increase down the list.
    """
    seen: set[tuple[str, tuple[str, ...], str]] = set()
    kept: list[RankedSection] = []
    copies: list[RankedSection] = []
    position = 0
    while position < len(order) and len(kept) < wanted:
        batch = order[position : position + BATCH]
        unread = [hit.section.rowid for hit in batch if hit.section.rowid not in texts]
        if unread:
            texts.update(store.section_texts(unread))
        for hit in batch:
            position += 1
            key = (hit.title, hit.section.heading_path, " ".join(texts[hit.section.rowid].split()))
            if key in seen:
                copies.append(hit)
            else:
                seen.add(key)
                kept.append(hit)
                if len(kept) == wanted:
                    break
    if not copies:
        return list(order)
    out = kept + copies + list(order[position:])
    for at in range(len(kept), len(out)):
        out[at] = replace(out[at], score=min(out[at].score, out[at - 1].score))
    return out
