from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from contextpull.errors import FormatVersionError, NotAStore, StoreLocked, StoreMissing
from contextpull.ingestion.run import ingest
from contextpull.records import ParsedDocument, Section
from contextpull.store import Store
from contextpull.store.queries import trigram_match
from contextpull.store.schema import FORMAT_VERSION, MIGRATIONS
from contextpull.store.writer import StoreWriter

META_KEYS = {
    "format_version",
    "contextpull_version",
    "settings",
    "corpus_fingerprint",
    "index_text",
    "index_mode",
    "index_tokens",
    "index_budget",
    "section_count",
    "document_count",
}


@pytest.fixture
def store_path(make_corpus, tmp_path) -> Path:
    root = make_corpus({"a.md": "# Alpha\n\nThe alpha document.\n", "b/c.md": "# Gamma\n\nText.\n"})
    path = tmp_path / "store.sqlite"
    ingest(root, path)
    return path


def doc(path: str, *texts: str, heading: str = "Heading") -> ParsedDocument:
    sections, start = [], 0
    for ordinal, text in enumerate(texts):
        sections.append(Section(path, ordinal, (heading,), "prose", text, start, start + len(text)))
        start += len(text)
    return ParsedDocument(path, "".join(texts), path, path, {}, tuple(sections))


def fts_rowids(conn: sqlite3.Connection, table: str, query: str) -> list[int]:
    return [r for (r,) in conn.execute(f"SELECT rowid FROM {table} WHERE {table} MATCH ?", (query,))]


def test_open_reads_meta(store_path):
    with Store.open(store_path) as store:
        assert store.format_version == FORMAT_VERSION
        assert set(store.all_meta()) >= META_KEYS
        assert store.index_text.startswith("Corpus index: 2 documents")
        assert len(store.fingerprint) == 64
        assert store.meta("document_count") == "2"
        assert store.meta("no such key") is None
        assert store.path == store_path
        assert [d.path for d in store.documents()] == ["a.md", "b/c.md"]


def test_open_is_read_only(store_path):
    with Store.open(store_path) as store, pytest.raises(sqlite3.OperationalError, match="readonly"):
        store._conn.execute("DELETE FROM documents")


def test_missing_store(tmp_path):
    with pytest.raises(StoreMissing):
        Store.open(tmp_path / "nope.sqlite")
    assert not (tmp_path / "nope.sqlite").exists()


def test_not_sqlite(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("this is not a database, just text " * 100)
    with pytest.raises(NotAStore):
        Store.open(path)


def test_sqlite_but_not_a_store(tmp_path):
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    with pytest.raises(NotAStore):
        Store.open(path)


def test_other_format_version_names_both(store_path):
    with sqlite3.connect(store_path) as conn:
        conn.execute("UPDATE meta SET value = '0.9' WHERE key = 'format_version'")
    conn.close()
    with pytest.raises(FormatVersionError) as info:
        Store.open(store_path)
    assert "0.9" in info.value.message and FORMAT_VERSION in info.value.message
    assert "ingest" in info.value.suggestion


def test_migrations_recorded_in_order(store_path):
    with Store.open(store_path) as store:
        names = [n for (n,) in store._conn.execute("SELECT name FROM migrations ORDER BY seq")]
    assert names == [name for name, _ in MIGRATIONS]


def test_store_is_wal(store_path):
    with Store.open(store_path) as store:
        assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_read_handle_keeps_temporary_tables_in_memory(store_path):
    # 2 is MEMORY: search's temporary tables then cost no fresh pages per statement (ADR 002 addendum)
    with Store.open(store_path) as store:
        assert store._conn.execute("PRAGMA temp_store").fetchone()[0] == 2


def test_readers_see_old_corpus_until_commit_and_notice_the_change(store_path):
    with Store.open(store_path) as reader:
        assert not reader.changed()
        with StoreWriter(store_path) as writer:
            writer.put(doc("new.md", "# New\n", "body\n"), "0" * 64, 10)
            writer.remove("a.md")
            assert [d.path for d in writer.documents()] == ["b/c.md", "new.md"]
            # A second reader opened mid-transaction also sees the old corpus.
            with Store.open(store_path) as other:
                assert [d.path for d in other.documents()] == ["a.md", "b/c.md"]
            assert [d.path for d in reader.documents()] == ["a.md", "b/c.md"]
            assert not reader.changed()
            writer.commit()
        assert reader.changed()
        assert not reader.changed()
        assert [d.path for d in reader.documents()] == ["b/c.md", "new.md"]


def test_uncommitted_writer_leaves_store_unchanged(store_path):
    with StoreWriter(store_path) as writer:
        writer.clear()
    with Store.open(store_path) as store:
        assert [d.path for d in store.documents()] == ["a.md", "b/c.md"]


def test_second_writer_is_locked_out(store_path):
    with StoreWriter(store_path):
        with pytest.raises(StoreLocked) as info, StoreWriter(store_path):
            pass
        assert str(store_path) in info.value.message
    with StoreWriter(store_path):  # the lock is released afterwards
        pass


def test_fresh_store_appears_only_on_commit(tmp_path):
    path = tmp_path / "new" / "store.sqlite"
    with StoreWriter(path) as writer:
        assert writer.fresh
        writer.put(doc("x.md", "# X\n"), "1" * 64, 4)
        assert not path.exists()
    assert not path.exists()
    assert not any(p.name.endswith(".building") for p in path.parent.iterdir())


def test_a_new_store_has_one_search_segment_and_finds_every_section(make_corpus, tmp_path, monkeypatch):
    # Write and commit every 3 sections while building, so the build leaves several segments to merge.
    monkeypatch.setattr("contextpull.store.writer._BATCH", 3)
    monkeypatch.setattr("contextpull.store.writer._COMMIT_EVERY", 3)
    root = make_corpus({f"d{n}.md": f"# Doc {n}\n\nword{n} shared\n\n## Part\n\nmore{n}\n" for n in range(10)})
    path = tmp_path / "store.sqlite"
    ingest(root, path)
    with Store.open(path) as store:
        conn = store._conn
        assert conn.execute("SELECT count(DISTINCT segid) FROM sections_fts_idx").fetchone()[0] == 1
        assert len(fts_rowids(conn, "sections_fts", '"shared"')) == 10
        assert fts_rowids(conn, "sections_fts", '"word7"') == [
            conn.execute("SELECT id FROM sections WHERE sid = 'd7.md#0'").fetchone()[0]
        ]


def test_fts_entries_follow_replacements(store_path):
    with StoreWriter(store_path) as writer:
        writer.put(doc("a.md", "# Zebra\n", "quokka.config lives here\n", heading="Zebra"), "2" * 64, 30)
        writer.commit()
    with Store.open(store_path) as store:
        conn = store._conn
        assert fts_rowids(conn, "sections_fts", '"alpha"') == []
        ids = dict(conn.execute("SELECT sid, id FROM sections WHERE path = 'a.md'"))
        assert fts_rowids(conn, "sections_fts", '"quokka.config"') == [ids["a.md#1"]]
        assert fts_rowids(conn, "sections_fts", "heading:zebra") == sorted(ids.values())
        assert fts_rowids(conn, "sections_tri", trigram_match("okka.con")) == [ids["a.md#1"]]
        assert fts_rowids(conn, "sections_tri", trigram_match("alpha doc")) == []
        # Deleted rows really left both contentless indexes.
        sections = conn.execute("SELECT count(*) FROM sections").fetchone()[0]
        for table in ("sections_fts", "sections_tri"):
            assert conn.execute(f"SELECT count(*) FROM {table}_docsize").fetchone()[0] == sections


def test_changed_notices_a_replaced_file(store_path, make_corpus, tmp_path):
    with Store.open(store_path) as reader:
        other = tmp_path / "other.sqlite"
        ingest(make_corpus({"z.md": "# Z\n"}), other)
        other.replace(store_path)
        assert reader.changed()
        assert not reader.changed()


def test_trigram_match_is_the_and_of_distinct_quoted_trigrams():
    assert trigram_match("abc") == '"abc"'
    assert trigram_match("abab") == '"aba" AND "bab"'
    assert trigram_match('a"bc') == '"a""b" AND """bc"'


def test_trigram_index_has_no_positions(store_path):
    # detail=none keeps the index small; phrase queries are refused, which is
    # why grep asks for the AND of trigrams (trigram_match).
    with Store.open(store_path) as store, pytest.raises(sqlite3.OperationalError):
        store._conn.execute("SELECT rowid FROM sections_tri WHERE sections_tri MATCH ?", ('"abcd"',)).fetchall()
