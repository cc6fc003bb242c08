"""Digest of what an ingest stores, to prove a speed change left the results alone.

    python benchmarks/store_digest.py                         # the four shared corpora
    python benchmarks/store_digest.py --corpora DIR --workers 2

Ingests each corpus folder under ``--corpora`` into a fresh store and prints
one sha256 per table: documents, sections, skipped files, the index meta,
term counts, and every FTS5 entry (term, row, column, offset) of the search
index and of the trigram index, read through ``fts5vocab`` instance tables
(the FTS tables are contentless, so this is the only way to see what they
hold). Run it before and after a change and compare the lines: any
difference means something indexed changed (and ``terms.ANALYSIS_VERSION``
must be bumped).
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
import tempfile
from pathlib import Path

from contextpull.ingestion.run import ingest

DEFAULT_CORPORA = Path("/work/shared/corpora")
#: meta that legitimately differs between two runs of the same code on the same corpus
_VOLATILE_META = ("contextpull_version",)

_TABLES = {
    "documents": "SELECT path, title, summary, metadata, format, content_hash, size, section_count"
    " FROM documents ORDER BY path",
    "sections": "SELECT d.path, s.ordinal, s.sid, s.heading_path, s.kind, s.text, s.start, s.end, s.chars,"
    " s.content_hash, s.table_header, s.header_ordinal, s.first_page, s.last_page"
    " FROM sections s JOIN documents d ON d.doc_id = s.doc_id ORDER BY d.path, s.ordinal",
    "skipped": "SELECT path, content_hash, reason FROM skipped_files ORDER BY path",
    "meta": "SELECT key, value FROM meta WHERE key NOT IN ({}) ORDER BY key".format(
        ", ".join(f"'{k}'" for k in _VOLATILE_META)
    ),
    "term_sections": "SELECT term, sections FROM term_sections ORDER BY term",
    # FTS rows are keyed by section row id; name them by (path, ordinal) so row numbering cannot matter
    "fts": "SELECT v.term, d.path, s.ordinal, v.col, v.offset FROM temp.fts_v v"
    " JOIN sections s ON s.id = v.doc JOIN documents d ON d.doc_id = s.doc_id"
    " ORDER BY v.term, d.path, s.ordinal, v.col, v.offset",
    "trigram": "SELECT v.term, d.path, s.ordinal, v.offset FROM temp.tri_v v"
    " JOIN sections s ON s.id = v.doc JOIN documents d ON d.doc_id = s.doc_id"
    " ORDER BY v.term, d.path, s.ordinal, v.offset",
}


def digest_store(store: Path) -> dict[str, str]:
    """sha256 of each table's rows (see module docstring), by table name."""
    conn = sqlite3.connect(store)
    try:
        conn.execute("CREATE VIRTUAL TABLE temp.fts_v USING fts5vocab(main, sections_fts, instance)")
        conn.execute("CREATE VIRTUAL TABLE temp.tri_v USING fts5vocab(main, sections_tri, instance)")
        out = {}
        for name, sql in _TABLES.items():
            digest = hashlib.sha256()
            for row in conn.execute(sql):
                digest.update(repr(row).encode("utf-8", "surrogatepass"))
                digest.update(b"\n")
            out[name] = digest.hexdigest()[:16]
        return out
    finally:
        conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", type=Path, default=DEFAULT_CORPORA, help="folder of corpus folders")
    parser.add_argument("--workers", type=int, default=1, help="ingest processes (0: the default rule)")
    args = parser.parse_args(argv)
    folders = sorted(p for p in args.corpora.iterdir() if p.is_dir())
    if not folders:
        print(f"no corpus folders under {args.corpora}; pass --corpora DIR", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="contextpull-digest-") as tmp:
        for folder in folders:
            store = Path(tmp) / f"{folder.name}.sqlite"
            ingest(folder, store, workers=args.workers)
            for table, value in digest_store(store).items():
                print(f"{folder.name}\t{table}\t{value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
