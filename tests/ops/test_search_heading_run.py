"""A section whose own heading is a run of the question's words leads the sections that only hold its rarer words (ops/ranking.py)."""

from __future__ import annotations

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.ops.ranking import _headed_by_a_run, content_words
from contextpull.store.queries import SectionRow
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


def _section(heading: str, ordinal: int = 2) -> SectionRow:
    return SectionRow(1, f"doc.md#{ordinal}", "doc.md", ordinal, ("Doc", heading), "prose")


@pytest.mark.parametrize(
    ("question", "heading", "ordinal", "headed"),
    [
        ("Which built-in parameter types does Click offer for numbers?", "Parameter Types", 2, True),
        ("Which merge strategies can git merge use?", "MERGE STRATEGIES", 5, True),
        ("Which command prints where installed tools' executables go?", "Tool executables", 9, True),
        ("What are the drawbacks of the global virtual store?", "With global virtual store", 2, True),
        ("Which span kind does a send span get?", "Span kind; Span status", 12, True),  # merged siblings
        ("How do Required and Conditionally Required attributes differ?", "Conditionally Required", 3, True),
        ("Which parameter types are there?", "Types of parameter", 2, False),  # not in the question's order
        ("Which parameter has numeric types?", "Parameter Types", 2, False),  # not next to each other
        ("Which loaders does Jinja provide?", "Loaders", 3, False),  # one word says too little
        ("Which built-in parameter types does Click offer?", "Parameter Types", 0, False),  # a document's own name
        ("Which parameter types are there?", "Parameter Types and Defaults", 2, False),  # more than the question says
        # an identifier (a hyphenated word too) matches only whole, not by a piece it shares with the question's
        ("What does Metric: http.server.duration measure?", "Metric: http.server.duration", 4, True),
        ("What does Metric: http.server.duration measure?", "Metric: http.client.duration", 4, False),
        ("What can options do that arguments cannot?", "Option-Like Arguments", 7, False),
    ],
)
def test_a_heading_is_a_run_of_the_questions_words(question: str, heading: str, ordinal: int, headed: bool) -> None:
    assert _headed_by_a_run(_section(heading, ordinal), content_words(question)) is headed
