"""Hostile corpora: every file ingests or is skipped with a reason; nothing crashes."""

from __future__ import annotations

import sqlite3

import pytest

from contextpull.analysis.tokens import estimate_tokens
from contextpull.errors import FormatVersionError, NotAStore
from contextpull.ingestion.analyse import EMPTY
from contextpull.ingestion.discover import OUTSIDE_ROOT, SEEN_FOLDER
from contextpull.ingestion.run import ingest
from contextpull.store import Store
from contextpull.store.schema import FORMAT_VERSION

HOSTILE = {
    "empty.md": "",
    "blank.md": "   \n\n\t  \n",
    "binary.md": bytes(range(256)) * 4,
    "latin1.md": "# Café\n\nUn résumé très naïf.\n".encode("latin-1"),
    "long-line.md": "# Long\n\n" + "word " * 10_000 + "\n",
    "fence.md": "# Fence\n\n```python\nprint('never closed')\n\n## Not a heading\n",
    "table-end.md": "# Table\n\n| a | b |\n|---|---|\n| 1 | 2 |",
    "table-nobody.md": "# Empty table\n\n| a | b |\n|---|---|\n",
    "deep.md": "".join(f"{'#' * n} Level {n}\n\nText at level {n}.\n\n" for n in range(1, 8)),
    "ünïcödé dir/naïve café.md": "# Unicode\n\nÀ bientôt.\n",
    "with space/a file.txt": "A plain text file with spaces in its name.\n",
    "one/README.md": "# One\n\nFirst readme.\n",
    "two/README.md": "# Two\n\nSecond readme.\n",
    "crlf.md": b"# CRLF\r\n\r\nWindows line endings.\r\n",
    "utf16.txt": "UTF-16 text with a BOM.\n".encode("utf-16"),
    "nul-in-middle.txt": b"looks like text " * 10 + b"\x00" + b"then a NUL",
}


@pytest.fixture
def hostile(make_corpus, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# Secret\n\nMust not be ingested.\n")
    root = make_corpus(HOSTILE)
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "escape.md").symlink_to(outside / "secret.md")
    (root / "escape-dir").symlink_to(outside, target_is_directory=True)
    (root / "dangling.md").symlink_to(root / "gone.md")
    return root


def test_every_file_ingests_or_is_skipped_with_a_reason(hostile, tmp_path):
    store_path = tmp_path / "store.sqlite"
    report = ingest(hostile, store_path)
    skipped = dict(report.skipped)
    assert skipped["empty.md"] == EMPTY and skipped["blank.md"] == EMPTY
    assert skipped["binary.md"].startswith("binary")
    assert skipped["nul-in-middle.txt"].startswith("binary")
    assert skipped["escape.md"] == skipped["escape-dir"] == OUTSIDE_ROOT
    assert skipped["loop/"] == SEEN_FOLDER
    assert skipped["dangling.md"] == "broken symlink"
    with Store.open(store_path) as store:
        stored = {d.path for d in store.documents()}
        texts = dict(store._conn.execute("SELECT sid, text FROM sections"))
    accounted = stored | set(skipped)
    assert set(HOSTILE) <= accounted
    assert {
        "one/README.md",
        "two/README.md",
        "ünïcödé dir/naïve café.md",
        "with space/a file.txt",
    } <= stored
    assert "Un résumé très naïf." in texts["latin1.md#0"]
    assert not any("\r" in t for t in texts.values())
    assert not any("Secret" in t for t in texts.values())
    assert report.documents == len(stored) == report.added


def test_hostile_corpus_reingests_as_a_no_op(hostile, tmp_path):
    store_path = tmp_path / "store.sqlite"
    first = ingest(hostile, store_path)
    second = ingest(hostile, store_path)
    assert not second.wrote and second.skipped == first.skipped


def test_ten_thousand_files_in_one_folder(make_corpus, tmp_path):
    files = {f"many/doc{i:05}.md": f"# Doc {i}\n\nParagraph {i}.\n" for i in range(10_000)}
    root = make_corpus(files)
    store_path = tmp_path / "store.sqlite"
    report = ingest(root, store_path)
    assert report.documents == 10_000 and not report.skipped
    assert report.index_tokens <= 3000
    with Store.open(store_path) as store:
        assert estimate_tokens(store.index_text) <= 3000
        assert store._conn.execute("SELECT count(*) FROM sections").fetchone()[0] == report.sections


def test_store_from_another_format_version(make_corpus, tmp_path):
    root = make_corpus({"a.md": "# A\n\nText.\n"})
    store_path = tmp_path / "store.sqlite"
    ingest(root, store_path)
    with sqlite3.connect(store_path) as conn:
        conn.execute("UPDATE meta SET value = '0.9' WHERE key = 'format_version'")
    conn.close()
    with pytest.raises(FormatVersionError) as info:
        Store.open(store_path)
    assert "0.9" in str(info.value) and FORMAT_VERSION in str(info.value)
    report = ingest(root, store_path)  # re-ingesting rebuilds it in this version
    assert report.wrote and report.added == 1
    with Store.open(store_path) as store:
        assert store.format_version == FORMAT_VERSION


def test_file_that_is_not_sqlite(make_corpus, tmp_path):
    store_path = tmp_path / "store.sqlite"
    store_path.write_bytes(b"PK\x03\x04 a zip file, say" * 50)
    with pytest.raises(NotAStore):
        Store.open(store_path)
    with pytest.raises(NotAStore):  # and ingest refuses to overwrite it
        ingest(make_corpus({"a.md": "# A\n"}), store_path)
    assert store_path.read_bytes().startswith(b"PK")
