"""A section whose heading announces a comparison answers a comparison question (ops/ranking.py)."""

from __future__ import annotations

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.ops.ranking import _COMPARES
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

#: pages that use both names in passing, beside the one section that compares them in other words
#: ("executing" for "run", "installation" for "install")
CORPUS = {
    "guides/tools.md": (
        "# Using tools\n\n## Basics\n\nRun a tool with `zapx`. "
        "To install a tool, use `zap tool install ruff`; it puts the tool on the PATH.\n"
    ),
    "concepts/tools.md": (
        "# Tools\n\n## Tool versions\n\n`zap tool install` installs the latest version; `zapx` takes the latest "
        "version the first time, then the cached one.\n\n"
        "## Execution vs installation\n\nIn most cases, executing a tool with `zapx` is more appropriate than "
        "installing it. Installing is useful when other programs on your system need the tool.\n\n"
        "## Version comparison\n\nEach release of `zapx` compares versions by their numbers.\n"
    ),
    "concepts/choosing.md": (
        "# Choosing: zapx versus a permanent setup\n\n## Caching\n\n`zapx` caches each tool it takes; "
        "an install keeps one copy.\n"
    ),
    **{f"notes/note-{n}.md": f"# Note {n}\n\n## Chores\n\nWater the plants and feed the cat {n}.\n" for n in range(12)},
}
QUESTION = "When should I run a tool with zapx rather than install it with zap tool install?"


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    tmp = tmp_path_factory.mktemp("comparing")
    store = tmp / "store.sqlite"
    ingest(write_corpus(tmp / "corpus", CORPUS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as opened:
        yield opened


@pytest.mark.parametrize(
    "heading",
    [
        "Execution vs installation",
        "Differences vs npm",
        "Differences with `npm run`",
        "What's the difference between `pnpm link` and the `file:` protocol?",
        "Sync versus async",
        "Compared with pip",
    ],
)
def test_headings_that_announce_a_comparison(heading: str) -> None:
    assert _COMPARES.search(heading)


@pytest.mark.parametrize(
    "heading", ["Using Jupyter from VS Code", "Commands with different package names", "Differing", "Tool versions"]
)
def test_headings_that_do_not(heading: str) -> None:
    assert not _COMPARES.search(heading)


def _ids(ops: Ops, query: str) -> list[str]:
    return [hit.id for hit in ops.search(query, mode="lexical").hits]


def test_the_section_that_compares_the_two_things_rises_above_one_that_names_both_in_passing(ops: Ops) -> None:
    compared, passing = "concepts/tools.md#2", "concepts/tools.md#1"
    # The same words without the comparison: the section naming both in passing leads.
    plain = _ids(ops, QUESTION.replace(" rather than ", ", "))
    assert plain.index(compared) > plain.index(passing)
    ranked = _ids(ops, QUESTION)
    assert ranked.index(compared) < ranked.index(passing)


def test_a_comparing_heading_without_both_things_earns_nothing(ops: Ops) -> None:
    # "Version comparison" holds `zapx` but not `install`: it is not raised for the question.
    plain = ops.search(QUESTION.replace(" rather than ", ", "), mode="lexical").hits
    compared = ops.search(QUESTION, mode="lexical").hits
    score = {hit.id: hit.score for hit in plain}
    assert {hit.id: hit.score for hit in compared}["concepts/tools.md#3"] == score["concepts/tools.md#3"]


def test_a_page_titled_as_a_comparison_raises_its_sections_that_hold_both(ops: Ops) -> None:
    plain = {hit.id: hit.score for hit in ops.search(QUESTION.replace(" rather than ", ", "), mode="lexical").hits}
    compared = {hit.id: hit.score for hit in ops.search(QUESTION, mode="lexical").hits}
    assert compared["concepts/choosing.md#1"] == pytest.approx(1.5 * plain["concepts/choosing.md#1"], rel=1e-5)
