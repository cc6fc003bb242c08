"""A section headed by the identifier a query names is its entry, above neighbours that only mention it (ops/ranking.py)."""

from __future__ import annotations

import pytest

from contextpull.analysis.terms import analyse_query
from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.ops.ranking import _headed_by
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

#: a settings reference: the entry for zapReleaseAge, and a neighbour that names it more often
CORPUS = {
    "settings.md": (
        "# Resolution settings\n\n"
        "## zapReleaseAge\n\n* Default: **1440**\n\nThe minutes that must pass after a version is published "
        "before zap installs it. Example: `zapReleaseAge: 1440`.\n\n"
        "## zapReleaseAgeStrict\n\n* Default: **true** if `zapReleaseAge` is set\n\nWhen no version satisfies "
        "the `zapReleaseAge` constraint, zap fails. Set `zapReleaseAge` yourself and strict mode is on; "
        "the built-in `zapReleaseAge` default is not strict.\n"
    ),
    **{f"notes/note-{n}.md": f"# Note {n}\n\n## Chores\n\nWater the plants and feed the cat {n}.\n" for n in range(12)},
}


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    tmp = tmp_path_factory.mktemp("headed")
    store = tmp / "store.sqlite"
    ingest(write_corpus(tmp / "corpus", CORPUS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as opened:
        yield opened


def test_the_identifiers_own_entry_comes_before_a_neighbour_that_names_it_more(ops: Ops) -> None:
    result = ops.search("What is the default of zapReleaseAge?", mode="lexical")
    assert [hit.heading_path[-1] for hit in result.hits[:2]] == ["zapReleaseAge", "zapReleaseAgeStrict"]


@pytest.mark.parametrize(
    ("heading", "count"),
    [
        ("zapReleaseAge", 1),
        ("`select_related()`", 1),  # decoration around the name is no other word
        ("--frozen-lockfile", 1),
        ("zapReleaseAgeStrict", 0),  # another identifier that begins with it
        ("Setting zapReleaseAge in CI", 0),  # a heading about more than the name
    ],
)
def test_a_heading_is_an_identifier_when_it_names_nothing_else(heading: str, count: int) -> None:
    query = analyse_query("zapReleaseAge select_related --frozen-lockfile")
    identifiers = [frozenset(part.exact) for part in query.content if part.identifier]
    assert _headed_by(["Settings", heading], identifiers) == count
