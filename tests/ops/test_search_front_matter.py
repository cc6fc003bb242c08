"""YAML front matter is the document's metadata: out of search and snippets, still in grep and read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from contextpull import Ops, ingest
from contextpull.analysis.section_terms import front_matter_description, front_matter_length

PAGE = """---
title: Pump setup
description: "How to ready a quagga pump for its first run."
redirect_from:
  - /articles/zebrafrontword/
---

# Pump setup

Prime the pump before the first start.
"""


def _ingest(corpus: Path, store: Path) -> Ops:
    ingest(corpus, store)
    return Ops.open(store)


def test_front_matter_is_not_searched_or_shown_but_grep_and_read_keep_it(make_corpus, tmp_path: Path) -> None:
    corpus = make_corpus({"pump.md": PAGE, "notes.txt": "---\nzebrafrontword in a text file\n---\n"})
    with _ingest(corpus, tmp_path / "store.sqlite") as ops:
        found = ops.search("zebrafrontword")
        assert [hit.doc for hit in found.hits] == ["notes.txt"]  # a text file has no front matter
        assert ops.store.meta("analysis_version")
        snippet = ops.search("pump setup").hits[0].snippet or ""
        assert "title:" not in snippet and "redirect_from" not in snippet
        assert [match.id for match in ops.grep("zebrafrontword").matches] == ["notes.txt#0", "pump.md#0"]
        assert ops.read("pump.md#0").section.text.startswith("---\ntitle: Pump setup")
        assert ops.index().text.count("Pump setup") == 1  # the front matter title names the document
        # What the author says the page is about is searchable, and still never shown as a snippet.
        described = ops.search("quagga").hits
        assert [hit.id for hit in described] == ["pump.md#0"] and "quagga" not in (described[0].snippet or "")


def test_a_changed_page_with_front_matter_is_replaced_cleanly(make_corpus, tmp_path: Path) -> None:
    """The index entries removed on change are computed like those inserted, front matter rule included."""
    corpus = make_corpus({"pump.md": PAGE})
    store = tmp_path / "store.sqlite"
    ingest(corpus, store)
    (corpus / "pump.md").write_text(PAGE.replace("Prime", "Vent"), encoding="utf-8")
    ingest(corpus, store)
    with sqlite3.connect(store) as conn:
        conn.execute("INSERT INTO sections_fts (sections_fts, rank) VALUES ('integrity-check', 1)")
    with Ops.open(store) as ops:
        assert [hit.id for hit in ops.search("vent").hits] == ["pump.md#0"]
        assert not ops.search("prime").hits


def test_front_matter_length_needs_both_fences_at_the_start() -> None:
    assert front_matter_length("---\na: 1\n---\nbody") == len("---\na: 1\n---\n")
    assert front_matter_length("---\na: 1\n---") == len("---\na: 1\n---")
    assert front_matter_length("text\n---\na\n---\n") == 0
    assert front_matter_length("---\nnever closed\n") == 0
    assert front_matter_length("----\na\n----\n") == 0


def test_only_one_line_describing_values_are_searchable() -> None:
    block = """---
title: 'Pump setup'
description: >
  folded text stays out
summary: Priming and venting.
layout: zebra
---
"""
    assert front_matter_description(block) == "Pump setup\nPriming and venting."
    assert front_matter_description("---\nlayout: page\n---\n") == ""
