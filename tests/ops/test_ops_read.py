"""read, neighbours, index and the chunk export, on the real sample corpus and a small one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextpull.errors import BadFilter, OutOfRange, UnknownSection, WrongType
from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from ops_support import ONE_SECTION_PER_HEADING, SMALL_CORPUS, examples_store, small_store, write_corpus

TABLE_PART = "reference/spec-sheet.md#2"
TABLE_HEAD = "reference/spec-sheet.md#1"


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    with Ops.open(examples_store(tmp_path_factory.mktemp("read"))) as opened:
        yield opened


def stored_text(ops: Ops, sid: str) -> str:
    row = ops.store.section_by_sid(sid)
    assert row is not None and row.text is not None
    return row.text


def test_read_returns_the_section_verbatim(ops: Ops) -> None:
    result = ops.read("guides/install.md#2")
    assert result.section.text == stored_text(ops, "guides/install.md#2")
    assert result.section.heading_path == ("Installing the Ledgerline agent", "Configuration")
    assert (result.prev_id, result.next_id) == ("guides/install.md#1", "guides/install.md#3")
    data = result.to_dict()
    assert data["id"] == "guides/install.md#2" and "before" not in data and "context" not in data


def test_read_at_document_edges_has_no_prev_or_next(ops: Ops) -> None:
    assert ops.read("guides/install.md#0").prev_id is None
    assert ops.read("guides/install.md#4").next_id is None
    assert ops.read("changelog.txt#0").to_dict()["next_id"] is None


def test_read_context_adds_marked_neighbours_within_the_document(ops: Ops) -> None:
    result = ops.read("guides/install.md#1", context=5)
    assert [v.id for v in result.before] == ["guides/install.md#0"]
    assert [v.id for v in result.after] == [f"guides/install.md#{n}" for n in (2, 3, 4)]
    assert all(v.context for v in (*result.before, *result.after)) and not result.section.context
    assert all(v["context"] is True for v in result.to_dict()["after"])


def test_table_continuation_is_read_with_its_header(ops: Ops) -> None:
    result = ops.read(TABLE_PART)
    header = ops.store.section_by_sid(TABLE_PART).table_header  # type: ignore[union-attr]
    assert header and result.section.table_header_added
    assert result.section.text == header.rstrip("\n") + "\n" + stored_text(ops, TABLE_PART)
    assert result.section.text.startswith("| Model | Screen |")
    assert result.to_dict()["table_header_added"] is True
    assert not ops.read(TABLE_HEAD).section.table_header_added


@pytest.mark.parametrize(
    ("bad", "hint"),
    [
        ("nope", "search first"),
        ("guides/install.md", "read guides/install.md#0 for its first section"),
        ("guides/install.md#x", "search first"),
        ("#3", "search first"),
        ("guides/install.md#99", "guides/install.md#4"),
        ("guides/instal.md#0", "guides/install.md#0"),
        ("guides/instal.md#3", "guides/install.md#3"),  # the ordinal is kept where the document has it
        ("install.md#2", "did you mean guides/install.md#2?"),  # typed from inside guides/
        ("unknown/doc.md#0", "search first"),
        ("guides/nonexist.md#1", "list the documents under guides/"),  # no unrelated file offered
    ],
)
def test_unknown_ids_suggest_what_to_do(ops: Ops, bad: str, hint: str) -> None:
    with pytest.raises(UnknownSection) as caught:
        ops.read(bad)
    assert hint in caught.value.suggestion
    assert "guides/troubleshooting.md" not in caught.value.suggestion
    with pytest.raises(UnknownSection):
        ops.neighbours(bad)


def test_a_document_path_without_a_section_number_names_its_range(ops: Ops) -> None:
    with pytest.raises(UnknownSection) as caught:
        ops.read("guides/install.md")
    count = ops.store.section_count("guides/install.md")
    assert str(caught.value).startswith(
        f"'guides/install.md' is a document, not a section id; its sections are #0 to #{count - 1}"
    )


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"context": -1}, OutOfRange),
        ({"context": 6}, OutOfRange),
        ({"context": 1.5}, WrongType),
        ({"id": 3}, WrongType),
        ({"id": ""}, OutOfRange),
    ],
)
def test_read_argument_bounds(ops: Ops, kwargs: dict, error: type) -> None:
    with pytest.raises(error):
        ops.read(**{"id": "guides/install.md#0", **kwargs})


def test_neighbours_stop_at_document_edges(ops: Ops) -> None:
    result = ops.neighbours("guides/install.md#0", before=5, after=5)
    assert result.before == ()
    assert [v.id for v in result.after] == [f"guides/install.md#{n}" for n in range(1, 5)]
    assert result.after[0].text == stored_text(ops, "guides/install.md#1")
    none = ops.neighbours("changelog.txt#0", before=0, after=0).to_dict()
    assert none == {"id": "changelog.txt#0", "before": [], "after": []}


def test_neighbours_report_a_continued_tables_header_section(ops: Ops) -> None:
    result = ops.neighbours(TABLE_PART, before=0, after=0)
    assert result.table_header_section is not None
    assert result.table_header_section.id == TABLE_HEAD
    assert result.to_dict()["table_header_section"]["id"] == TABLE_HEAD
    assert ops.neighbours(TABLE_HEAD).table_header_section is None


def test_neighbours_of_a_continued_table_is_one_read(ops: Ops) -> None:
    """The window and the header come from one statement, so one consistent read without a transaction.

    The store's links (a meta value, ADR 024) are read on their own: a URL base never has to agree
    with a particular ingest's sections."""
    statements: list[str] = []
    ops.store._conn.set_trace_callback(statements.append)
    try:
        near = ops.neighbours(TABLE_PART, before=5, after=5)
    finally:
        ops.store._conn.set_trace_callback(None)
    sections = [sql for sql in statements if not sql.startswith("--") and "key = 'links'" not in sql]
    assert len(sections) == 1, statements
    assert near.table_header_section is not None and near.table_header_section.id == TABLE_HEAD
    # The header also sits in the window here, and stays in its place there.
    ordinals = [int(view.id.rsplit("#", 1)[1]) for view in (*near.before, *near.after)]
    assert ordinals == sorted(ordinals) and TABLE_HEAD in [view.id for view in near.before]
    assert near.table_header_section.text == stored_text(ops, TABLE_HEAD)


@pytest.mark.parametrize("kwargs", [{"before": -1}, {"after": 6}, {"before": 6}])
def test_neighbours_argument_bounds(ops: Ops, kwargs: dict) -> None:
    with pytest.raises(OutOfRange):
        ops.neighbours("guides/install.md#0", **kwargs)


def test_index_whole_and_by_prefix(ops: Ops) -> None:
    whole = ops.index()
    assert whole.text == ops.store.index_text and "reference/spec-sheet.md" in whole.text
    part = ops.index("policies/")
    assert "policies/data-retention.md" in part.text and "guides/install.md" not in part.text
    assert part.to_dict()["prefix"] == "policies/"
    with pytest.raises(BadFilter):
        ops.index("nowhere/")
    with pytest.raises(WrongType):
        ops.index(3)  # type: ignore[arg-type]


def test_chunks_cover_every_section_in_order_as_read_shows_them(ops: Ops) -> None:
    chunks = list(ops.chunks())
    count = ops.store._conn.execute("SELECT count(*) FROM sections").fetchone()[0]
    assert len(chunks) == count
    assert [c["id"] for c in chunks] == [
        c["id"] for c in sorted(chunks, key=lambda c: (c["source"], int(c["id"].rsplit("#", 1)[1])))
    ]
    by_id = {c["id"]: c for c in chunks}
    assert by_id[TABLE_PART]["text"] == ops.read(TABLE_PART).section.text
    assert by_id[TABLE_PART]["source"] == "reference/spec-sheet.md"
    json.dumps(chunks)


def test_same_call_twice_is_identical(ops: Ops) -> None:
    assert ops.read(TABLE_PART, context=2).to_dict() == ops.read(TABLE_PART, context=2).to_dict()
    assert ops.neighbours(TABLE_PART).to_dict() == ops.neighbours(TABLE_PART).to_dict()


def test_an_operation_sees_one_snapshot_while_a_reingest_commits(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    with Ops.open(store) as ops, ops.store.snapshot():
        before = ops.search("portal").to_dict()
        changed = dict(SMALL_CORPUS, **{"README.md": "# Readme\n\nNothing about that here.\n"})
        write_corpus(tmp_path / "corpus", changed)
        ingest(tmp_path / "corpus", store, ONE_SECTION_PER_HEADING)
        assert ops.search("portal").to_dict() == before
    with Ops.open(store) as fresh:
        assert "README.md#0" not in [hit["id"] for hit in fresh.search("portal").to_dict()["hits"]]
