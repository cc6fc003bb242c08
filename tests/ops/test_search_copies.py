"""Copies last: a hit repeating one above it (same text at the same place) moves below the rest."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pytest

from contextpull.analysis.terms import analyse_query
from contextpull.ingestion.run import ingest
from contextpull.ops import copies
from contextpull.ops.operations import Ops
from contextpull.ops.ranking import RankedSection, rank
from contextpull.store.queries import SectionRow
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

SETTING = (
    "# Settings\n\n## releaseDelay\n\nThe releaseDelay setting holds a new release back for 1440 minutes"
    " before it is installed.\n"
)
#: one page kept once per version, as versioned documentation sets do; version 3's copy differs in spacing only
VERSIONED = {
    "docs/v1/settings.md": SETTING,
    "docs/v2/settings.md": SETTING,
    "docs/v3/settings.md": SETTING.replace("1440 minutes ", "1440 minutes  \n"),
    "docs/current/exclude.md": (
        "# Excluding packages\n\n## releaseDelayExclude\n\nPackages listed under releaseDelayExclude skip the"
        " releaseDelay setting.\n"
    ),
    # the same text under two different pages: two answers, not one
    "cli/add.md": "# pnpm add\n\n## --save-dev\n\nThe release delay does not apply to a package saved with this flag.\n",
    "cli/install.md": "# pnpm install\n\n## --save-dev\n\nThe release delay does not apply to a package saved with this flag.\n",
}


@pytest.fixture(scope="module")
def versioned(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    tmp = tmp_path_factory.mktemp("copies")
    store = tmp / "versioned.sqlite"
    ingest(write_corpus(tmp / "corpus", VERSIONED), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as opened:
        yield opened


def test_copies_of_a_section_move_below_the_sections_that_add_something(versioned: Ops) -> None:
    hits = versioned.search("releaseDelay setting", limit=3).hits
    first = hits[0].doc
    assert first.startswith("docs/v") and hits[0].heading_path[-1] == "releaseDelay"
    # the other two versions, one of them different only in spacing, wait below the next answer
    assert hits[1].doc == "docs/current/exclude.md"
    assert [hit.heading_path[-1] for hit in hits].count("releaseDelay") == 1


def test_copies_are_never_dropped_and_the_first_hits_do_not_depend_on_the_limit(versioned: Ops) -> None:
    everything = versioned.search("releaseDelay setting", limit=20).hits
    assert {hit.doc for hit in everything if hit.doc.startswith("docs/v")} == {
        "docs/v1/settings.md",
        "docs/v2/settings.md",
        "docs/v3/settings.md",
    }
    for limit in range(1, len(everything) + 1):
        assert [hit.id for hit in versioned.search("releaseDelay setting", limit=limit).hits] == [
            hit.id for hit in everything[:limit]
        ]
    scores = [hit.score for hit in everything]
    assert scores == sorted(scores, reverse=True)


def test_the_same_text_under_pages_of_other_names_is_not_a_copy(versioned: Ops) -> None:
    hits = versioned.search("release delay saved with this flag", limit=2).hits
    assert {hit.doc for hit in hits} == {"cli/add.md", "cli/install.md"}


#: a book as mdBook builds it: one page per chapter section, and a print page gathering them all under the
#: chapters' headings, each section's text unchanged
WAITING = "### Waiting for threads\n\nCall join on the handle to wait until the spawned thread finishes.\n"
SPAWNING = "### Spawning threads\n\nCall spawn with a closure to run it on a new thread.\n"
BOOK = {
    "ch16-01-threads.md": f"## Using threads\n\nThreads run code at the same time.\n\n{SPAWNING}\n{WAITING}",
    "ch16-02-channels.md": "## Channels\n\nA channel sends values between threads; join waits for none.\n",
    "print.md": (
        "# Fearless concurrency\n\nSafe concurrency.\n\n"
        f"## Using threads\n\nThreads run code at the same time.\n\n{SPAWNING}\n{WAITING}"
    ),
}


def test_a_page_gathering_others_repeats_their_sections_under_its_own_headings(tmp_path: Path) -> None:
    store = tmp_path / "book.sqlite"
    ingest(write_corpus(tmp_path / "book", BOOK), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as ops:
        hits = ops.search("wait until the spawned thread finishes join", limit=3).hits
        everything = ops.search("wait until the spawned thread finishes join", limit=10).hits
        by_words = rank(ops.store, analyse_query("wait until the spawned thread finishes join")).sections
    # the print page's copy of the section (heading path ending with the chapter's) waits below the channels page,
    # and the chapter's own section is shown in the better place of the two: the print page's headings rank it first
    assert by_words[0].section.path == "print.md"
    assert hits[0].doc == "ch16-01-threads.md" and hits[0].heading_path[-1] == "Waiting for threads"
    assert [hit.heading_path[-1] for hit in hits].count("Waiting for threads") == 1
    assert "ch16-02-channels.md" in {hit.doc for hit in hits}
    assert {hit.doc for hit in everything if hit.heading_path[-1] == "Waiting for threads"} == {
        "ch16-01-threads.md",
        "print.md",
    }
    # the chapter is found below the copy whatever the limit, so the first hits never depend on it
    with Ops.open(store) as ops:
        for limit in range(1, len(everything) + 1):
            shown = ops.search("wait until the spawned thread finishes join", limit=limit).hits
            assert [hit.id for hit in shown] == [hit.id for hit in everything[:limit]], limit


def test_the_same_last_heading_at_another_place_is_not_the_same_place() -> None:
    def at(rowid: int, path: tuple[str, ...], title: str) -> RankedSection:
        section = SectionRow(rowid, f"p{rowid}.md#0", f"p{rowid}.md", 0, path, "prose")
        return RankedSection(section, title, 1.0, "all")

    chapter = at(1, ("Using threads", "Waiting"), "Using threads")
    assert copies._same_place(at(2, ("Concurrency", "Using threads", "Waiting"), "Book"), chapter)
    assert copies._same_place(at(3, ("Using threads", "Waiting"), "Using threads"), chapter)
    assert not copies._same_place(at(4, ("Using threads", "Waiting"), "Another page"), chapter)
    assert not copies._same_place(at(5, ("Using processes", "Waiting"), "Using threads"), chapter)
    assert not copies._same_place(at(6, ("Waiting",), "Using threads"), at(7, (), "Using threads"))


class CountingTexts:
    """A reader of section texts that counts what it is asked for (``copies_last`` reads nothing else)."""

    def __init__(self, texts: dict[int, str]) -> None:
        self.texts = texts
        self.read: list[int] = []

    def section_texts(self, rowids: Iterable[int]) -> dict[int, str]:
        wanted = list(rowids)
        self.read += wanted
        return {rowid: self.texts[rowid] for rowid in wanted}


def ranked(rowid: int, heading: str = "Heading") -> RankedSection:
    section = SectionRow(rowid, f"page-{rowid}.md#0", f"page-{rowid}.md", 0, (heading,), "prose")
    return RankedSection(section, "Page", 100.0 - rowid, "all")


def test_hits_at_different_places_are_never_compared() -> None:
    pool = [ranked(rowid, heading=f"Heading {rowid}") for rowid in range(50)]
    store = CountingTexts({rowid: "one paragraph" for rowid in range(50)})
    assert copies.copies_last(store, pool, 10, {}) == pool  # type: ignore[arg-type]
    assert store.read == []  # same text, but no two share a page title and heading path


def test_a_pool_of_copies_is_read_until_enough_hits_that_are_not() -> None:
    pool = [ranked(rowid) for rowid in range(40)]
    same = {rowid: "one  paragraph" if rowid % 2 else "one paragraph" for rowid in range(20)}
    store = CountingTexts({**same, **{rowid: f"text {rowid}" for rowid in range(20, 40)}})
    texts: dict[int, str] = {}
    out = copies.copies_last(store, pool, 3, texts)  # type: ignore[arg-type]
    assert [hit.section.rowid for hit in out[:3]] == [0, 20, 21]
    assert [hit.section.rowid for hit in out[3:22]] == list(range(1, 20))  # the copies, in their order
    # one text per hit passed over: 22 read for 3 that are not copies, never all 40, each once
    assert sorted(store.read) == list(range(22)) and set(texts) == set(store.read)
    scores = [hit.score for hit in out]
    assert scores == sorted(scores, reverse=True)


#: one manual page in two formats in one folder, as Debian's git documentation ships each: the source and
#: the page built from it, the same words with other markup under another heading; and a page of another
#: name saying other things
FORMATS = {
    "man/git-reset.md": (
        "# git-reset\n\n## OPTIONS\n\n**--soft** does not touch the index file or the working tree at all, but resets"
        " the head to the given commit, leaving every change staged.\n"
    ),
    "man/git-reset.markdown": (
        "# git-reset\n\n## NAME; OPTIONS\n\n`--soft`:: Does not touch the index file or the working tree at all, but"
        " resets the head to the given commit, leaving every change staged (see linkgit:git-status[1]).\n"
    ),
    "man/git-restore.md": (
        "# git-restore\n\n## OPTIONS\n\n**--staged** restores the index file from the given commit; the working tree"
        " is left as it is unless --worktree is given too.\n"
    ),
}


def test_a_page_in_another_format_beside_it_repeats_it_in_other_markup(tmp_path: Path) -> None:
    store = tmp_path / "formats.sqlite"
    ingest(write_corpus(tmp_path / "man", FORMATS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as ops:
        hits = ops.search("does soft reset touch the index file or the working tree", limit=2).hits
        everything = ops.search("does soft reset touch the index file or the working tree", limit=10).hits
    assert hits[0].doc.startswith("man/git-reset.") and hits[1].doc == "man/git-restore.md"
    # the other format's copy is not dropped: it waits below the page that adds something
    assert {hit.doc for hit in everything} == set(FORMATS)


def test_nearly_the_same_words_in_their_order() -> None:
    source = "`--soft`:: Does not touch the index file or the working tree at all, but resets the head."
    built = "--soft Does not touch the index file or the working tree at all, but resets the head."
    assert copies.nearly_the_same(source, built)
    # the same words in another order say something else
    assert not copies.nearly_the_same(source, "the head resets the index file, but does not touch the working tree")
    assert not copies.nearly_the_same("two words", "two words")  # too short to tell: only equal text is a copy
