"""Both sides of a comparison: a crowded-out second thing's best section takes rank 3 (ops/sides.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextpull.analysis.terms import analyse_query
from contextpull.ingestion.run import ingest
from contextpull.ops import sides
from contextpull.ops.operations import Ops
from contextpull.ops.ranking import rank
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

#: one vendor with many sections full of the question's words, another whose page holds only its
#: name, a name that everyday notes use too (so it is not rare enough to lead on its own)
CROWDED = {
    **{
        f"vendors/acme-{n}.md": (
            f"# Acme Vault part {n}\n\n## Username {n}\n\n"
            f"The Acme Vault username for the index is `aws`; the index URL names the Acme Vault domain {n}.\n"
        )
        for n in range(6)
    },
    "vendors/zeta.md": "# Zeta Store\n\n## Signing in\n\nSign in to the Zeta Store with `oauth2accesstoken`.\n",
    **{
        f"notes/note-{n}.md": f"# Note {n}\n\n## Shopping\n\nThe zeta store on the corner sells bread {n}.\n"
        for n in range(6)
    },
    **{
        f"other/cooking-{n}.md": f"# Cooking {n}\n\n## Bread\n\nFlour, water and salt make bread {n}.\n"
        for n in range(12)
    },
}
QUESTION = "What is the username for the index in Acme Vault and Zeta Store?"


@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    tmp = tmp_path_factory.mktemp("sides")
    store = tmp / "crowded.sqlite"
    ingest(write_corpus(tmp / "corpus", CROWDED), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as opened:
        yield opened


def docs(result, n: int = 5) -> list[str]:
    return [hit.doc for hit in result.hits[:n]]


@pytest.mark.parametrize(
    ("query", "things"),
    [
        ("How do uv cache clean and uv cache prune differ?", (["clean"], ["prune", "differ"])),
        (
            "the username in AWS CodeArtifact vs Google Artifact Registry",
            (["aws", "codeartifact"], ["google", "artifact", "registry"]),
        ),
        ("Is Python 3.13 treated differently than Python 3.14?", (["3.13", "treated", "differently"], ["3.14"])),
        ("When should I run uvx rather than uv tool install?", (["run", "uvx"], ["uv", "tool", "install"])),
        ("What is the difference between the 'ignore' and 'allow' settings?", (["ignore"], ["allow", "settings"])),
        # the same content words on both sides: the function word leading each is the thing compared
        ("How do before validators differ from after validators on a field?", (["before"], ["after"])),
        # an article opens the second run; a function word leading both runs is shared, as "uv cache" is
        ("How does a messaging producer differ from a consumer?", (["messaging", "producer"], ["consumer"])),
        ("What are the minimum supported versions of Windows and of macOS?", (["windows"], ["macos"])),
        ("How do before validators differ from before hooks?", (["validators"], ["hooks"])),
    ],
)
def test_a_coordinating_word_splits_the_two_things_a_query_names(query: str, things: tuple[list, list]) -> None:
    named = sides.named_things(analyse_query(query))
    assert named is not None
    assert ([part.term for part in named[0]], [part.term for part in named[1]]) == things


@pytest.mark.parametrize(
    "query",
    [
        "How do I configure the cache directory?",  # no coordinating word
        "Which PIP_* and UV_* variables exist?",  # an identifier family: exact evidence
        "How do I install and install again?",  # the run before the split holds nothing the other lacks
        "and the cache",  # nothing before the split
        "How do before validators differ from before validators?",  # the same words on both sides
    ],
)
def test_a_query_naming_fewer_than_two_things_is_left_alone(query: str) -> None:
    assert sides.named_things(analyse_query(query)) is None


def test_the_crowded_out_side_takes_the_third_place(crowded: Ops) -> None:
    # Without a coordinating word the same words rank the Zeta page below the first five.
    plain = crowded.search(QUESTION.replace(" and ", ", "))
    assert "vendors/zeta.md" not in docs(plain)
    result = crowded.search(QUESTION)
    assert result.hits[2].doc == "vendors/zeta.md"
    assert result.hits[2].id == "vendors/zeta.md#0"  # the first hit of the question without Acme Vault
    # The first two hits stay where the words put them, and nothing is lost: the rest move down.
    assert all(doc.startswith("vendors/acme-") for doc in docs(result, 2))
    assert len({hit.id for hit in result.hits}) == len(result.hits)
    # Scores never increase down the list: the moved hit ties with the one it displaced.
    scores = [hit.score for hit in result.hits]
    assert scores == sorted(scores, reverse=True) and scores[2] == scores[3]


def test_the_first_hits_do_not_depend_on_the_limit(crowded: Ops) -> None:
    ten = [hit.id for hit in crowded.search(QUESTION, limit=10).hits]
    for limit in (3, 4, 5, 6):
        assert [hit.id for hit in crowded.search(QUESTION, limit=limit).hits] == ten[:limit]


#: a reference page with a section per mode, and guides that discuss both modes: the guides and the beta
#: section (which names alpha too) fill the first five; the alpha section of the same page does not show
SAME_PAGE = {
    "ref/modes.md": (
        "# Modes\n\n## alpha_mode\n\nalpha_mode joins the related rows in one query.\n\n"
        "## beta_mode\n\nUnlike alpha_mode, beta_mode fetches the related rows in a second query.\n"
    ),
    **{
        f"guides/speed-{n}.md": (
            f"# Speed {n}\n\n## Queries\n\nUse alpha_mode or beta_mode to cut the queries of page {n}; "
            "alpha_mode and beta_mode both help.\n"
        )
        for n in range(4)
    },
}


def test_a_side_whose_page_shows_but_not_its_best_section_takes_the_third_place(tmp_path: Path) -> None:
    store = tmp_path / "modes.sqlite"
    ingest(write_corpus(tmp_path / "corpus", SAME_PAGE), store, ONE_SECTION_PER_HEADING)
    query = "What is the difference between alpha_mode and beta_mode?"
    with Ops.open(store) as ops:
        words = rank(ops.store, sides.stressed(analyse_query(query), sides.named_things(analyse_query(query))))
        first = [hit.section.sid for hit in words.sections[:5]]
        result = ops.search(query)
    # the page shows (its beta section), its alpha section does not: before, that left the alpha side alone
    assert "ref/modes.md#2" in first and "ref/modes.md#1" not in first
    shown = [hit.id for hit in result.hits[:5]]
    # the alpha section takes the third place; the first two stay where the words put them
    assert shown[2] == "ref/modes.md#1" and shown[:2] == first[:2] and "ref/modes.md#2" in shown


def test_a_side_whose_best_section_already_shows_is_not_moved(crowded: Ops) -> None:
    # Both things are held by the Acme pages, which fill the first five: nothing moves.
    query = "Acme Vault username and Acme Vault domain"
    assert sides.named_things(analyse_query(query)) is not None
    moved = crowded.search(query)
    plain = crowded.search(query, in_=["vendors/"])  # the same ranking: every hit is under vendors/
    assert [hit.id for hit in moved.hits] == [hit.id for hit in plain.hits]


def test_hybrid_search_gives_the_crowded_out_side_its_place_too(tmp_path: Path) -> None:
    store = tmp_path / "crowded-vectors.sqlite"
    ingest(write_corpus(tmp_path / "corpus", CROWDED), store, ONE_SECTION_PER_HEADING, embed="static")
    with Ops.open(store) as ops:
        result = ops.search(QUESTION, mode="hybrid")
        ten = [hit.id for hit in ops.search(QUESTION, mode="hybrid", limit=10).hits]
        fewer = {limit: [hit.id for hit in ops.search(QUESTION, mode="hybrid", limit=limit).hits] for limit in (3, 4)}
    assert result.mode == "hybrid"
    assert "vendors/zeta.md" in docs(result, 3)
    # Fused scores are rank scores: still falling down the list after the move.
    scores = [hit.score for hit in result.hits]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
    # The first hits do not depend on the limit in hybrid mode either.
    assert all(ids == ten[:limit] for limit, ids in fewer.items())


#: a page whose every section is about hooks; two of them are what a before/after question asks for
HOOKS = {
    "build/hooks.md": "# Hooks\n\n"
    + "".join(
        f"## Hook recipe {n}\n\nHooks hooks: a recipe of hooks, how hooks differ, hooks {n}.\n\n" for n in range(8)
    )
    + "## Pre-build\n\nRun before the build starts: these hooks see the raw sources.\n\n"
    + "## Post-build\n\nRun after the build ends: these hooks see the built files.\n",
}


def test_the_function_words_that_tell_two_things_apart_are_searched_for(tmp_path: Path) -> None:
    store = tmp_path / "hooks.sqlite"
    ingest(write_corpus(tmp_path / "corpus", HOOKS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as ops:
        compared = ops.search("How do before hooks differ from after hooks?")
        listed = ops.search("How do hooks differ, before hooks after hooks?")  # no coordination: no things
    assert {hit.id for hit in compared.hits[:2]} == {"build/hooks.md#9", "build/hooks.md#10"}
    assert not {"build/hooks.md#9", "build/hooks.md#10"} & {hit.id for hit in listed.hits[:5]}


#: notes that say how things differ crowd the question; the page that defines each level never says "differ"
LEVELS = {
    "levels.md": (
        "# Requirement levels\n\n## Recommended\n\nRecommended attributes are added by default.\n\n"
        "## Opt-In\n\nOpt-In attributes are added only when a user asks for them.\n"
    ),
    **{
        f"notes/platform-{n}.md": (
            f"# Platform {n}\n\n## Attributes\n\nRecommended attributes differ on platform {n}; opt-in ones differ too.\n"
        )
        for n in range(6)
    },
}


def test_a_side_is_ranked_without_the_coordinating_verb(tmp_path: Path) -> None:
    store = tmp_path / "levels.sqlite"
    ingest(write_corpus(tmp_path / "corpus", LEVELS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as ops:
        result = ops.search("How do Recommended attributes differ from Opt-In ones?", limit=5)
    # "differ from" is the question's grammar: ranked with it, each side's best section was a note
    assert "levels.md" in docs(result, 5)
