"""What formats add to the store: pages (upgraded in place) and parser availability."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from contextpull.errors import FormatVersionError
from contextpull.ingestion.run import ingest
from contextpull.store import Store
from contextpull.store.schema import FORMAT_VERSION

pytest.importorskip("pdfplumber", reason="needs the pdf extra")

import format_fixtures as ff


def _as_format_1_0(store_path: Path) -> None:
    """Turn a store back into what ContextPull with store format 1.0 wrote."""
    with sqlite3.connect(store_path) as conn:
        conn.execute("ALTER TABLE sections DROP COLUMN first_page")
        conn.execute("ALTER TABLE sections DROP COLUMN last_page")
        conn.execute("DELETE FROM migrations WHERE name = 'm005_section_pages'")
        conn.execute("UPDATE meta SET value = '1.0' WHERE key = 'format_version'")
    conn.close()


def test_a_format_1_0_store_is_refused_by_readers_and_upgraded_in_place_by_ingest(make_corpus, tmp_path) -> None:
    root = make_corpus({"a.md": "# Alpha\n\nThe alpha document.\n"})
    store_path = tmp_path / "store.sqlite"
    ingest(root, store_path)
    _as_format_1_0(store_path)
    with pytest.raises(FormatVersionError) as info:
        Store.open(store_path)
    assert "1.0" in info.value.message and "in place" in info.value.suggestion
    inode = store_path.stat().st_ino
    ingest(root, store_path)
    assert store_path.stat().st_ino == inode  # the same file, migrated, not a rebuild
    with Store.open(store_path) as store:
        assert store.format_version == FORMAT_VERSION
    with sqlite3.connect(store_path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(sections)")}
    conn.close()
    assert {"first_page", "last_page"} <= columns


_WITHOUT_PDFPLUMBER = """
import json, sys
sys.modules["pdfplumber"] = None  # as if the pdf extra were not installed
from contextpull.ingestion.run import ingest
report = ingest(sys.argv[1], sys.argv[2])
print(json.dumps(report.to_dict()))
"""


def test_a_missing_parser_skips_with_the_extra_and_installing_it_picks_the_file_up(tmp_path) -> None:
    root = tmp_path / "corpus"
    root.mkdir()
    ff.write_pdf(root / "pump.pdf")
    (root / "notes.md").write_text("# Notes\n\nPlain notes.\n")
    store_path = tmp_path / "store.sqlite"
    run = subprocess.run(
        [sys.executable, "-c", _WITHOUT_PDFPLUMBER, str(root), str(store_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    before = json.loads(run.stdout)
    assert before["skipped"] == [
        {"path": "pump.pdf", "reason": "pdf parser not installed (pip install 'contextpull[pdf]')"}
    ]
    assert before["documents"] == 1
    after = ingest(root, store_path)  # this process has pdfplumber
    assert after.skipped == [] and after.documents == 2
    again = ingest(root, store_path)
    assert not again.wrote  # and an unchanged corpus stays a no-op
