"""The store's schema, as an ordered list of named migrations.

Each schema change is one function ``mNNN_what_it_does`` registered in order;
applied names are recorded in the ``migrations`` table. ``FORMAT_VERSION`` is
``major.minor``: a minor bump is applied in place by the migrations below, a
major bump means this reader cannot read the store and refuses it, naming
both versions (docs/adr/002-store-format.md).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from ..analysis.terms import FTS_TOKENIZE

FORMAT_VERSION = "1.2"
FORMAT_MAJOR = int(FORMAT_VERSION.split(".")[0])
FTS_HASH_BYTES = 16 << 20
#: tables every store has had since the first format
FIRST_TABLES = frozenset({"meta", "documents", "sections", "sections_fts", "sections_tri"})
#: every table of a store at FORMAT_VERSION: one missing means the file was damaged (a table dropped)
TABLES = FIRST_TABLES | {"migrations", "skipped_files", "sections_vocab", "term_sections", "section_vectors"}

Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[tuple[str, Migration]] = []


def migration(fn: Migration) -> Migration:
    MIGRATIONS.append((fn.__name__, fn))
    return fn


@migration
def m001_initial(conn: sqlite3.Connection) -> None:
    conn.executescript(
        f"""
        CREATE TABLE meta (
            key   TEXT PRIMARY KEY,
            value TEXT NOT NULL
        );
        CREATE TABLE documents (
            doc_id        INTEGER PRIMARY KEY,
            path          TEXT NOT NULL UNIQUE,  -- POSIX, relative to the corpus root
            title         TEXT NOT NULL,
            summary       TEXT NOT NULL,
            metadata      TEXT NOT NULL DEFAULT '{{}}',  -- JSON: front matter and the like
            format        TEXT NOT NULL,          -- a name from contextpull.parse.formats.FORMATS
            content_hash  TEXT NOT NULL,          -- sha256 of the raw bytes
            size          INTEGER NOT NULL,       -- raw bytes
            section_count INTEGER NOT NULL
        );
        CREATE TABLE sections (
            id             INTEGER PRIMARY KEY,   -- rowid shared with both FTS tables
            doc_id         INTEGER NOT NULL REFERENCES documents(doc_id) ON DELETE CASCADE,
            path           TEXT NOT NULL,         -- = documents.path, kept here for filters and order
            ordinal        INTEGER NOT NULL,      -- 0.. contiguous per document
            sid            TEXT NOT NULL UNIQUE,  -- 'path#ordinal'
            heading_path   TEXT NOT NULL,         -- JSON array of ancestor headings
            kind           TEXT NOT NULL,         -- prose | table | code | mixed
            text           TEXT NOT NULL,         -- exact source slice
            start          INTEGER NOT NULL,
            end            INTEGER NOT NULL,
            chars          INTEGER NOT NULL,
            content_hash   TEXT NOT NULL,
            table_header   TEXT,                  -- header + separator rows of a continued table
            header_ordinal INTEGER,               -- ordinal of the section holding that header
            UNIQUE (doc_id, ordinal)
        );
        CREATE INDEX sections_path_ordinal ON sections(path, ordinal);
        -- Ranked search over analysed terms (contextpull.analysis.terms); contentless,
        -- so deletes pass the same analysed values again.
        CREATE VIRTUAL TABLE sections_fts USING fts5(
            heading, body, content='', tokenize="{FTS_TOKENIZE}"
        );
        -- Substring grep candidates over case-folded text; contentless and
        -- without positions (detail=none) for size and insert speed, so it is
        -- queried with the AND of a needle's trigrams, never a phrase. The
        -- grep operation verifies every candidate against sections.text.
        CREATE VIRTUAL TABLE sections_tri USING fts5(
            folded, content='', detail=none, tokenize="trigram case_sensitive 1"
        );
        -- A 16 MB pending-terms buffer per index (default 1 MB): a bulk
        -- ingest writes and merges a few large segments instead of many
        -- small ones, about a third less FTS insert time.
        INSERT INTO sections_fts (sections_fts, rank) VALUES ('hashsize', {FTS_HASH_BYTES});
        INSERT INTO sections_tri (sections_tri, rank) VALUES ('hashsize', {FTS_HASH_BYTES});
        """
    )


@migration
def m002_skipped_files(conn: sqlite3.Connection) -> None:
    # Files that were read but not stored (undecodable, empty), with the hash
    # of their bytes, so an unchanged corpus is recognised without re-reading
    # them through the parser.
    conn.execute(
        """
        CREATE TABLE skipped_files (
            path         TEXT PRIMARY KEY,
            content_hash TEXT NOT NULL,
            reason       TEXT NOT NULL
        )
        """
    )


@migration
def m003_search_fields(conn: sqlite3.Connection) -> None:
    # Search fields for BM25F (docs/adr/011-search-terms-and-ranking.md): the
    # heading path, the document title, the section's identifiers and the
    # body, each its own column so ranking can weight them. The old table is
    # dropped; the ingest that applies this migration re-analyses every
    # section, as the stored analysis version is then out of date.
    conn.executescript(
        f"""
        DROP TABLE sections_fts;
        CREATE VIRTUAL TABLE sections_fts USING fts5(
            heading, title, identifiers, body, content='', tokenize="{FTS_TOKENIZE}"
        );
        INSERT INTO sections_fts (sections_fts, rank) VALUES ('hashsize', {FTS_HASH_BYTES});
        -- Every indexed term and how many sections hold it, refreshed from the
        -- index at the end of each ingest that wrote: search reads a term's
        -- count with one B-tree lookup (FTS5 would walk the term's whole
        -- list), and a prefix query (PIP_*, tool.uv.*) expands by a bounded
        -- range scan.
        CREATE VIRTUAL TABLE sections_vocab USING fts5vocab(sections_fts, 'row');
        CREATE TABLE term_sections (
            term     TEXT PRIMARY KEY,
            sections INTEGER NOT NULL
        ) WITHOUT ROWID;
        """
    )


@migration
def m004_section_vectors(conn: sqlite3.Connection) -> None:
    # One vector per section for hybrid search (docs/adr/010-embeddings.md);
    # empty unless an ingest asked for vectors. `key` hashes the embedded text,
    # so a section re-stored unchanged takes its vector back instead of being
    # embedded again. The model, dimension and type are in `meta`.
    conn.execute(
        """
        CREATE TABLE section_vectors (
            section_id INTEGER PRIMARY KEY,  -- = sections.id
            key        TEXT NOT NULL,        -- 64 bits of sha256 of heading path + text
            vector     BLOB NOT NULL         -- little-endian float16, meta embed_dim of them
        )
        """
    )


@migration
def m005_section_pages(conn: sqlite3.Connection) -> None:
    # The first and last page a section has text from (PDF), which read and
    # search show; NULL for formats without pages (docs/adr/014-document-formats.md).
    conn.execute("ALTER TABLE sections ADD COLUMN first_page INTEGER")
    conn.execute("ALTER TABLE sections ADD COLUMN last_page INTEGER")


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    """Names of the migrations recorded in ``conn``'s store, in order applied."""
    rows = conn.execute("SELECT name FROM migrations ORDER BY seq").fetchall()
    return [name for (name,) in rows]


def apply_migrations(conn: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded, in order; return the names applied.

    The caller owns the transaction: on a fresh file this builds the whole
    schema, on an existing store it brings a same-major store up to date.
    """
    conn.execute("CREATE TABLE IF NOT EXISTS migrations ( seq INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
    done = set(applied_migrations(conn))
    applied: list[str] = []
    for name, fn in MIGRATIONS:
        if name in done:
            continue
        fn(conn)
        conn.execute("INSERT INTO migrations (name) VALUES (?)", (name,))
        applied.append(name)
    return applied
