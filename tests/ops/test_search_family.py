"""A query naming a family by prefix lists the sections naming members first (ops/ranking.py, "A family first")."""

from __future__ import annotations

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

#: a section full of the question's other words that names no member, and two short ones that do
CORPUS = {
    "variables.md": (
        "# Environment variables\n\n"
        "## Reading variables\n\nThe tool reads environment variables at start. Variables it reads override "
        "the configuration; variables it does not read are ignored. Which variables are read depends on the "
        "command, and every variable read is logged.\n\n"
        "## Index\n\n`ZAP_INDEX_URL` sets the index the tool reads packages from.\n\n"
        "## Cache\n\nSet `ZAP_CACHE_DIR` to move the cache.\n"
    ),
    **{f"notes/note-{n}.md": f"# Note {n}\n\n## Chores\n\nWater the plants and feed the cat {n}.\n" for n in range(12)},
}


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    tmp = tmp_path_factory.mktemp("family")
    store = tmp / "store.sqlite"
    ingest(write_corpus(tmp / "corpus", CORPUS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as opened:
        yield opened


def test_sections_naming_a_member_come_before_one_that_only_has_the_other_words(ops: Ops) -> None:
    result = ops.search("Which ZAP_* variables does the tool read?", mode="lexical")
    assert [hit.heading_path[-1] for hit in result.hits[:3]] == ["Index", "Cache", "Reading variables"]
    # Scores never increase down the list: the section naming no member ties with the last that does.
    scores = [hit.score for hit in result.hits]
    assert scores == sorted(scores, reverse=True) and scores[1] == scores[2]


def test_without_a_family_the_scores_alone_decide(ops: Ops) -> None:
    result = ops.search("Which variables does the tool read?", mode="lexical")
    assert result.hits[0].heading_path[-1] == "Reading variables"
