"""Tables in search: one row answers a question against a long table's length; a continuation is found by its caption."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from contextpull import Ops, ingest
from contextpull.analysis.section_terms import table_caption
from contextpull.analysis.terms import index_terms
from contextpull.ops.table_rows import row_answers, table_blocks

FLAGS = "".join(
    f"| `--knob-{n:02d}` | integer | Sets how many widgets batch number {n} gathers per pass of the loader. |\n"
    for n in range(24)
)
REGISTRY = (
    "# Registries\n\nThe loader reads registries as described below.\n\n"
    "| Setting | Type | Meaning |\n|---|---|---|\n"
    "| `prefix` | string | Prepended to every package name the registry serves. |\n" + FLAGS
)
#: a short page full of the question's words, none of them in one table row
PROSE = (
    "# Notes\n\nWhen you set up registries, choose what type of mirror each one is, and whether a prefix "
    "applies. The loader checks every mirror once a day and keeps the last good copy of each package it served.\n"
)


def _terms(*words: str) -> list[frozenset[str]]:
    return [frozenset(index_terms(word)) for word in words]


def test_a_row_with_its_header_answers_what_the_context_does_not() -> None:
    text = "| Setting | Type |\n|---|---|\n| prefix | string |\n| suffix | bool |\n"
    context = frozenset(index_terms("Registries registries.md"))
    assert row_answers(text, None, _terms("type", "prefix", "registries"), context)
    # No one row holds both `prefix` and `suffix`.
    assert not row_answers(text, None, _terms("prefix", "suffix"), frozenset())
    # The heading names the whole question: no row is needed, none is credited.
    assert not row_answers(text, None, _terms("registries"), context)


def test_no_row_answers_for_a_table_whose_rows_mostly_hold_the_words() -> None:
    """Words most rows hold are the table's vocabulary (a column's values), not one row's subject."""
    header = "| Key | Level |\n|---|---|\n"
    common = "| a.one | Conditionally Required if set |\n| a.two | Conditionally Required always |\n"
    assert not row_answers(header + common + "| a.three | Recommended |\n", None, _terms("conditionally"), frozenset())
    assert row_answers(header + common + "| a.three | Recommended |\n", None, _terms("recommended"), frozenset())
    # Half the rows still answer: two of four.
    assert row_answers(header + common + "| b | Opt-In |\n| c | Opt-In |\n", None, _terms("conditionally"), frozenset())
    # Under a heading naming the rest of the question, the rows holding the words are what it asks for:
    # "the conditionally required attributes of RPC spans".
    rpc = frozenset(index_terms("RPC spans rpc.md"))
    assert row_answers(header + common + "| a.three | Recommended |\n", None, _terms("conditionally", "rpc"), rpc)


def test_a_continuation_takes_its_header_row_from_the_table_header() -> None:
    rows = "| prefix | string |\n| suffix | bool |\n"
    blocks = list(table_blocks(rows, "| Setting | Type |\n|---|---|\n"))
    assert blocks == [("| Setting | Type |", ["| prefix | string |", "| suffix | bool |"])]
    assert row_answers(rows, "| Setting | Type |\n|---|---|\n", _terms("type", "suffix"), frozenset())


def test_one_matching_row_is_not_drowned_by_a_long_tables_length(make_corpus, tmp_path: Path) -> None:
    corpus = make_corpus({"registries.md": REGISTRY, "setup.md": PROSE})
    ingest(corpus, tmp_path / "store.sqlite")
    with Ops.open(tmp_path / "store.sqlite") as ops:
        hits = ops.search("What is the type of prefix in registries?").hits
        assert [hit.doc for hit in hits[:2]] == ["registries.md", "setup.md"]


def test_a_section_headed_by_the_words_beats_a_table_that_repeats_them_in_every_row(
    make_corpus, tmp_path: Path
) -> None:
    rows = "".join(
        f"| `rpc.knob_{n:02d}` | `Conditionally Required` if available. | Sets how many widgets batch {n} gathers. |\n"
        for n in range(20)
    )
    spans = "# RPC spans\n\n| Attribute | Requirement level | Description |\n|---|---|---|\n" + rows
    levels = (
        "# Requirement levels\n\n## Conditionally Required\n\nAll instrumentations MUST populate a conditionally "
        "required attribute when its condition is satisfied; the convention states the condition.\n"
    )
    corpus = make_corpus({"rpc-spans.md": spans, "levels.md": levels})
    ingest(corpus, tmp_path / "store.sqlite")
    with Ops.open(tmp_path / "store.sqlite") as ops:
        assert [hit.doc for hit in ops.search("Conditionally Required attributes").hits[:2]] == [
            "levels.md",
            "rpc-spans.md",
        ]


def test_a_heading_naming_an_identifiers_pieces_does_not_answer_for_the_row(make_corpus, tmp_path: Path) -> None:
    """The heading names `gcp` and `apphub` for every row; the row must still name the identifier whole."""
    knobs = "".join(
        f"| `gcp.apphub.service.knob_{n:02d}` | development | string | Sets how many widgets batch {n} gathers. |\n"
        for n in range(24)
    )
    location = "| `gcp.apphub.application.location` | development | string | The zone the application is in. |\n"
    table = "# GCP - AppHub Attributes\n\n| Key | Stability | Value Type | Description |\n|---|---|---|---|\n"
    prose = (
        "# AppHub\n\nResources in GCP carry AppHub attributes such as `gcp.apphub.application.location`; their "
        "stability is shown in the registry, and the loader keeps the last good copy of each.\n"
    )
    corpus = make_corpus({"gcp.md": table + knobs + location, "apphub.md": prose})
    ingest(corpus, tmp_path / "store.sqlite")
    with Ops.open(tmp_path / "store.sqlite") as ops:
        hits = ops.search("What is the Stability of gcp.apphub.application.location in GCP - AppHub Attributes?").hits
        assert [hit.doc for hit in hits[:2]] == ["gcp.md", "apphub.md"]


def test_table_caption_is_the_short_paragraph_above_the_header_row() -> None:
    row = "| Flag | Meaning |"
    table = f"{row}\n|---|---|\n| a | b |\n"
    assert table_caption([f"# Flags\n\nIntro.\n\nTable 2: Loader flags\n\n{table}"], 0, row) == (
        "Table 2: Loader flags"
    )
    # A section cut just before its table: the caption ends the section before.
    assert table_caption(["# Flags\n\nIntro.\n\nTable 2: Loader flags\n", table], 1, row) == "Table 2: Loader flags"
    assert table_caption([f"# Flags\n\n{table}"], 0, row) == ""  # a heading is not a caption
    assert table_caption([table], 0, row) == ""
    assert table_caption([f"{'word ' * 80}\n\n{table}"], 0, row) == ""  # too long to name a table


def test_a_continuation_is_found_by_its_caption_which_read_does_not_show(make_corpus, tmp_path: Path) -> None:
    rows = "".join(f"| `opt{n:03d}` | A setting the loader reads on start, number {n}. |\n" for n in range(120))
    page = f"# Loader\n\nThe zebracaption options:\n\n| Option | Meaning |\n|---|---|\n{rows}"
    corpus = make_corpus({"loader.md": page})
    store = tmp_path / "store.sqlite"
    ingest(corpus, store)
    with Ops.open(store) as ops:
        ids = [hit.id for hit in ops.search("zebracaption", limit=10).hits]
        assert {"loader.md#0", "loader.md#1", "loader.md#2"} <= set(ids)
        shown = ops.read("loader.md#2").section
        assert shown.table_header_added and "zebracaption" not in shown.text
        assert [match.id for match in ops.grep("zebracaption").matches] == ["loader.md#0"]
    # The entries removed on change are computed like those inserted, caption included.
    (corpus / "loader.md").write_text(page.replace("zebracaption", "quaggacaption"), encoding="utf-8")
    ingest(corpus, store)
    with sqlite3.connect(store) as conn:
        conn.execute("INSERT INTO sections_fts (sections_fts, rank) VALUES ('integrity-check', 1)")
    with Ops.open(store) as ops:
        assert not ops.search("zebracaption").hits
        assert len(ops.search("quaggacaption", limit=10).hits) > 2
