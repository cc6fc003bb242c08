"""A section whose own heading is a run of the question's words leads the sections that only hold its rarer words (ops/ranking.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.ops.ranking import _headed_by_a_run, content_words, is_a_run
from contextpull.settings import SectionSettings
from contextpull.store.connection import Store
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

#: a CLI library's docs: the section on parameter types, and long sections that use the question's
#: rarer words ("built-in", "numbers") in passing
CORPUS = {
    "parameters.md": (
        "# Parameters\n\nOptions and arguments are parameters of a command.\n\n"
        "## Parameter Types\n\nParameters can be of different types, and some come out of the box: "
        "INT accepts integers, FLOAT accepts floating point values, STRING accepts text.\n\n"
        "## Custom Types\n\nSubclass ParamType to convert a value yourself.\n"
    ),
    "completion.md": (
        "# Shell completion\n\n## Custom completion\n\n"
        "The built-in shells are bash, zsh and fish. A custom type completes its own values, and "
        "numbers are never completed.\n"
    ),
    **{f"notes/note-{n}.md": f"# Note {n}\n\n## Chores\n\nWater the plants and feed the cat {n}.\n" for n in range(12)},
}


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    tmp = tmp_path_factory.mktemp("heading-run")
    store = tmp / "store.sqlite"
    ingest(write_corpus(tmp / "corpus", CORPUS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as opened:
        yield opened


def test_the_section_headed_by_the_questions_words_leads(ops: Ops) -> None:
    result = ops.search("Which built-in parameter types does it offer for numbers?", mode="lexical")
    assert result.hits[0].id == "parameters.md#1"
    assert result.hits[0].heading_path[-1] == "Parameter Types"


@pytest.mark.parametrize(
    ("question", "heading", "headed"),
    [
        ("Which built-in parameter types does Click offer for numbers?", "Parameter Types", True),
        ("Which merge strategies can git merge use?", "MERGE STRATEGIES", True),
        ("Which command prints where installed tools' executables go?", "Tool executables", True),
        ("What are the drawbacks of the global virtual store?", "With global virtual store", True),
        ("Which span kind does a send span get?", "Span kind; Span status", True),  # merged siblings
        ("How do Required and Conditionally Required attributes differ?", "Conditionally Required", True),
        ("Which parameter types are there?", "Types of parameter", False),  # not in the question's order
        ("Which parameter has numeric types?", "Parameter Types", False),  # not next to each other
        ("Which loaders does Jinja provide?", "Loaders", False),  # one word says too little
        ("Which parameter types are there?", "Parameter Types and Defaults", False),  # more than the question says
        # an identifier (a hyphenated word too) matches only whole, not by a piece it shares with the question's
        ("What does Metric: http.server.duration measure?", "Metric: http.server.duration", True),
        ("What does Metric: http.server.duration measure?", "Metric: http.client.duration", False),
        ("What can options do that arguments cannot?", "Option-Like Arguments", False),
    ],
)
def test_a_heading_is_a_run_of_the_questions_words(question: str, heading: str, headed: bool) -> None:
    assert is_a_run(("Doc", heading), content_words(question)) is headed


def test_a_documents_opening_and_its_parts_are_never_headed_by_a_run(tmp_path: Path) -> None:
    """The opening section is headed by the document's own name, and so are the parts of a long opening."""
    opening = "# Parameter types\n\n" + "".join(f"Paragraph {n} about converting values.\n\n" for n in range(12))
    corpus = {
        "types.md": opening + "## Parameter types in detail\n\nEvery type converts a string.\n",
        "guide.md": "# Guide\n\nStart here.\n\n## Parameter types\n\nINT and FLOAT convert numbers.\n",
    }
    store = tmp_path / "store.sqlite"
    ingest(write_corpus(tmp_path / "corpus", corpus), store, SectionSettings(max_depth=3, max_chars=200, min_chars=0))
    words = content_words("Which parameter types are there?")
    with Store.open(store) as opened:
        rows = opened.ranked_pointers((rowid, 1.0) for rowid in range(1, opened.section_total() + 1))
        parts = [row.section for row in rows if row.section.path == "types.md"]
        assert [section.heading_path for section in parts[:3]] == [("Parameter types",)] * 3  # the opening, split
        headed = _headed_by_a_run(opened, rows, words)
    assert {row.section.sid for row in rows if row.section.rowid in headed} == {"guide.md#1"}
