"""Part of the question, word for word, in a section: its share of the phrase bonus (ops/phrases.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.ops.phrases import phrase_share, question_phrases
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

QUESTION = "What is the username for the index in the Zeta registry?"  # content: username, index, zeta, registry


def test_a_run_counts_when_function_words_join_two_content_words() -> None:
    phrases = question_phrases(QUESTION)
    assert phrases is not None and phrases.content == 4
    assert phrase_share(phrases, "# Keyring\n\nSet the **username** for the `index` first.") == 0.5  # 2 of 4
    assert phrase_share(phrases, "The username for the index in the Zeta registry is fixed.") == 1.0
    assert phrase_share(phrases, "A username and an index, for the Zeta registry.") == 0.0  # not in the order asked


@pytest.mark.parametrize(
    ("question", "text"),
    [
        ("uv tool install and uvx", "Run uv tool install first."),  # content words side by side: a name
        ("the left-to-right mode", "left-to-right mode"),  # a hyphenated compound is one word
        ("index", "the index"),  # one content word
    ],
)
def test_names_compounds_and_single_words_earn_nothing(question: str, text: str) -> None:
    phrases = question_phrases(question)
    assert phrases is None or phrase_share(phrases, text) == 0.0


#: two sibling sections hold every word of the question; the second holds part of it word for word
SIBLINGS = {
    "zeta/token.md": (
        "# Zeta registry\n\n## Token\n\nThe Zeta registry asks for a username. Every index of the Zeta registry "
        "takes a token; the username is fixed and the index name is yours.\n"
    ),
    "zeta/keyring.md": (
        "# Zeta registry\n\n## Keyring\n\nWith a keyring, set the username for the index: it must be `zeta`.\n"
    ),
    **{f"notes/note-{n}.md": f"# Note {n}\n\n## Chores\n\nWater the plants and feed the cat {n}.\n" for n in range(12)},
}


def test_the_section_holding_part_of_the_question_word_for_word_leads(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    ingest(write_corpus(tmp_path / "corpus", SIBLINGS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as ops:
        asked = [hit.doc for hit in ops.search(QUESTION).hits[:2]]
        # the same content words without the phrase's function words: the token page leads
        bare = [hit.doc for hit in ops.search("username index Zeta registry").hits[:2]]
    assert asked == ["zeta/keyring.md", "zeta/token.md"]
    assert bare == ["zeta/token.md", "zeta/keyring.md"]
