"""A hidden file, a home path or a Sphinx short reference is found by its name (analysis version 10)."""

from __future__ import annotations

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

#: a tool's docs: the file that pins a version, beside sections full of the same everyday words
CORPUS = {
    "guide.md": (
        "# Guide\n\n"
        "## Version files\n\nWrite the version to `.zap-version` in the project folder; zap reads it first.\n\n"
        "## User settings\n\nPersonal settings live in `~/.config/zap/zap.toml`.\n\n"
        "## Versions\n\nA project version, a Python version and a zap version are three different versions.\n"
    ),
    "api.rst": (
        "Hooks\n=====\n\n"
        "Callbacks\n---------\n\nFunctions registered with :meth:`~.App.before_call` run first.\n\n"
        "Calls\n-----\n\nEvery call runs its functions before the call returns.\n"
    ),
    **{f"notes/note-{n}.md": f"# Note {n}\n\n## Chores\n\nWater the plants and feed the cat {n}.\n" for n in range(12)},
}


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    tmp = tmp_path_factory.mktemp("dots")
    store = tmp / "store.sqlite"
    ingest(write_corpus(tmp / "corpus", CORPUS), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as opened:
        yield opened


@pytest.mark.parametrize(
    ("query", "heading"),
    [
        (".zap-version", "Version files"),  # failed before: "the query has no words to search for"
        ("Which file does zap read .zap-version from?", "Version files"),
        ("~/.config/zap/zap.toml", "User settings"),
        ("before_call", "Callbacks"),  # written :meth:`~.App.before_call`: in no term before
        ("App.before_call", "Callbacks"),
    ],
)
def test_the_section_naming_it_comes_first(ops: Ops, query: str, heading: str) -> None:
    assert ops.search(query, mode="lexical").hits[0].heading_path[-1] == heading
