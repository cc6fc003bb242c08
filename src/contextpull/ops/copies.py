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

The pool is read in order, each time the texts of as many hits as are
still wanted, until ``wanted`` hits that are not copies are found: with no
copies that is the texts of the hits returned, which their snippets read
anyway, and each copy costs one text more, never the whole pool.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from ..store.reader import StoreReader
from .ranking import RankedSection


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
        batch = order[position : position + wanted - len(kept)]
        position += len(batch)
        unread = [hit.section.rowid for hit in batch if hit.section.rowid not in texts]
        if unread:
            texts.update(store.section_texts(unread))
        for hit in batch:
            key = (hit.title, hit.section.heading_path, " ".join(texts[hit.section.rowid].split()))
            if key in seen:
                copies.append(hit)
            else:
                seen.add(key)
                kept.append(hit)
    if not copies:
        return list(order)
    out = kept + copies + list(order[position:])
    for at in range(len(kept), len(out)):
        out[at] = replace(out[at], score=min(out[at].score, out[at - 1].score))
    return out
