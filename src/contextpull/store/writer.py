"""Writing a store: one ingest is one transaction, or one file renamed into place.

* An existing store is changed inside a single ``BEGIN IMMEDIATE``
  transaction, so readers (WAL mode) see the previous corpus until the
  commit and an ingest killed at any point leaves it intact.
* A new store (or one in a format this version cannot read) is built in
  ``<store>.building`` beside the target and renamed over it when complete.
* One writer at a time: an exclusive lock on ``<store>.lock`` is taken
  without waiting; a second writer gets :class:`StoreLocked`.

FTS tables are contentless with ``rowid = sections.id``; deleting a section
replays the FTS5 ``'delete'`` command with the analysed values recomputed
from the stored text (docs/adr/002-store-format.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

from ..analysis.section_terms import (
    SearchFields,
    document_fields,
    has_front_matter,
    search_fields,
    section_caption,
)
from ..errors import FormatVersionError, StoreLocked, StoreUnwritable
from ..records import ParsedDocument, Section
from .connection import (
    DocumentEntry,
    check_store,
    read_document_hashes,
    read_documents,
    read_meta,
    read_skipped_files,
)
from .damage import corrupt
from .schema import FORMAT_VERSION, apply_migrations

try:
    import fcntl
except ImportError:  # pragma: no cover - non-POSIX: SQLite's own lock still applies
    fcntl = None  # type: ignore[assignment]

#: section rows buffered before one ``executemany`` per table: more rows per call gained nothing
#: measurable, and 2,000 held about 15 MB of text and terms twice over in the writing process
_BATCH = 500
#: sections between commits while building a new store: each commit flushes FTS5's pending terms
#: into new segments, so committing every 500 made a 100k ingest about 10 % slower; 2,000 holds
#: about 3 MB of uncommitted pages
_COMMIT_EVERY = 2000
_LOCK_TIMEOUT_S = 0.5
#: a heading path (tuple of str) as a JSON array; one encoder, not one per row
_heading_json = json.JSONEncoder(ensure_ascii=False).encode


def section_hash(text: str) -> str:
    """64 bits of sha256: enough to tell a section's text changed, small on disk."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


class _WriteLock:
    """An advisory, non-blocking, process-wide lock on ``<store>.lock``.

    The OS releases it when the process dies, so a killed ingest never
    leaves a stale lock behind.
    """

    def __init__(self, store_path: Path) -> None:
        self._store = store_path
        self._path = store_path.with_name(store_path.name + ".lock")
        self._fd: int | None = None

    def acquire(self) -> None:
        self._fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o644)
        if fcntl is None:
            return
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            self.release()
            raise _locked(self._store) from None

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def _locked(path: Path) -> StoreLocked:
    return StoreLocked(
        f"another ingest is writing {path}",
        "wait for it to finish, then run this ingest again",
    )


def _unwritable(path: Path, err: OSError | sqlite3.Error) -> StoreUnwritable:
    why = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
    return StoreUnwritable(f"cannot write the store at {path} ({why})", "pass --store PATH in a folder you can write")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class StoreWriter:
    """The single write transaction of one ingest.

    Use as a context manager: leaving the block without :meth:`commit`
    rolls everything back (or discards the file being built).
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._building = path.with_name(path.name + ".building")
        self._lock = _WriteLock(path)
        self._conn: sqlite3.Connection | None = None
        self._fresh = False
        self._next_section_id = 1
        self._next_doc_id = 1
        self._pending: list[tuple[int, int, Section, SearchFields]] = []
        self._uncommitted = 0  # sections written since the last commit of a store being built
        #: vectors of removed sections by the key of their embedded text, for sections stored again
        self._set_aside: dict[str, bytes] = {}
        #: index lines of removed documents by (path, sha256 of the raw bytes), for a clear or a rebuild
        self._summaries: dict[tuple[str, str], str] = {}

    # --- lifecycle ---------------------------------------------------------
    def __enter__(self) -> Self:
        """Take the lock and open (or start building) the store.

        Raises :class:`StoreUnwritable` when the path cannot hold a store
        (a folder that cannot be created or written, a path under a file),
        :class:`StoreCorrupt` when the existing file is damaged.
        """
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._lock.acquire()
        except OSError as err:
            raise _unwritable(self.path, err) from None
        try:
            self._conn = self._open_existing() if self.path.exists() else None
            if self._conn is None:
                self._conn = self._create()
            self._next_doc_id = self._max("SELECT max(doc_id) FROM documents") + 1
            self._next_section_id = self._max("SELECT max(id) FROM sections") + 1
        except (OSError, sqlite3.OperationalError) as err:
            self._discard()
            raise _unwritable(self.path, err) from None
        except sqlite3.DatabaseError as err:
            self._discard()
            raise corrupt(self.path, err) from None
        except BaseException:
            self._discard()
            raise
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Roll back unless committed; SQLite's failures leave as the store errors users read."""
        if self._conn is not None:
            self._discard()
        if isinstance(exc, sqlite3.OperationalError):  # disk full, I/O error, read-only file
            raise _unwritable(self.path, exc) from None
        if isinstance(exc, sqlite3.DatabaseError):
            raise corrupt(self.path, exc) from None

    @property
    def fresh(self) -> bool:
        """True when this writer builds a new store rather than changing one."""
        return self._fresh

    def _open_existing(self) -> sqlite3.Connection | None:
        conn = sqlite3.connect(self.path, isolation_level=None, timeout=_LOCK_TIMEOUT_S)
        try:
            check_store(conn, self.path)
        except FormatVersionError:
            conn.close()
            return None  # a store in another format is rebuilt from scratch
        except BaseException:
            conn.close()
            raise
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:
            conn.close()
            raise _locked(self.path) from None
        if apply_migrations(conn):
            conn.execute("UPDATE meta SET value = ? WHERE key = 'format_version'", (FORMAT_VERSION,))
        return conn

    def _create(self) -> sqlite3.Connection:
        self._fresh = True
        self._building.unlink(missing_ok=True)
        conn = sqlite3.connect(self._building, isolation_level=None)
        # A file nobody else can see yet: no journal, no fsync until the end.
        conn.execute("PRAGMA journal_mode=OFF")
        conn.execute("PRAGMA synchronous=OFF")
        apply_migrations(conn)
        conn.execute("INSERT INTO meta (key, value) VALUES ('format_version', ?)", (FORMAT_VERSION,))
        conn.execute("BEGIN")
        return conn

    def commit(self) -> None:
        """Make the whole ingest visible at once."""
        conn = self._require()
        self._flush()
        if self._fresh:
            # Merge the search index's segments into one: a term is then found with one probe
            # instead of one per segment, which was most of a rare query's cost (about 4% of a
            # new store's ingest at 100k sections). Content is unchanged; later ingests append.
            conn.execute("INSERT INTO sections_fts (sections_fts) VALUES ('optimize')")
        # Term counts from the index itself, so they can never drift from it.
        conn.execute("DELETE FROM term_sections")
        conn.execute("INSERT INTO term_sections (term, sections) SELECT term, doc FROM sections_vocab")
        conn.execute("COMMIT")
        if self._fresh:
            conn.execute("PRAGMA journal_mode=WAL")
        conn.close()
        self._conn = None
        if self._fresh:
            self._install_built_file()
        self._lock.release()

    def _install_built_file(self) -> None:
        """Rename the finished file over the target, durably."""
        _fsync(self._building)  # it was written without fsync
        # A -wal left by an older file at this path must never be replayed
        # onto the new one.
        for suffix in ("-wal", "-shm"):
            self.path.with_name(self.path.name + suffix).unlink(missing_ok=True)
        os.replace(self._building, self.path)
        if os.name == "posix":  # make the rename itself durable
            _fsync(self.path.parent)

    def _discard(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            conn.close()
        if self._fresh:
            self._building.unlink(missing_ok=True)
        self._lock.release()

    def _require(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("StoreWriter used outside its `with` block")
        return self._conn

    def _max(self, sql: str) -> int:
        return int(self._require().execute(sql).fetchone()[0] or 0)

    # --- reading the state being replaced -----------------------------------
    def meta(self, key: str) -> str | None:
        return read_meta(self._require(), key)

    def document_hashes(self) -> dict[str, str]:
        """``path -> sha256 of raw bytes`` for every stored document."""
        return read_document_hashes(self._require())

    def skipped_files(self) -> dict[str, tuple[str, str]]:
        """``path -> (sha256, reason)`` for files read before and not stored."""
        return read_skipped_files(self._require())

    def documents(self) -> list[DocumentEntry]:
        """Every stored document, in path order (pending writes included)."""
        self._flush()
        return read_documents(self._require())

    # --- changes ------------------------------------------------------------
    def clear(self) -> None:
        """Remove every document and section (settings changed: re-section all)."""
        conn = self._require()
        self._flush()
        conn.execute("INSERT INTO sections_fts (sections_fts) VALUES ('delete-all')")
        conn.execute("INSERT INTO sections_tri (sections_tri) VALUES ('delete-all')")
        self._set_aside.update(conn.execute("SELECT key, vector FROM section_vectors"))
        rows = conn.execute("SELECT path, content_hash, summary FROM documents")
        self._summaries.update(((path, digest), summary) for path, digest, summary in rows)
        conn.execute("DELETE FROM section_vectors")
        conn.execute("DELETE FROM sections")
        conn.execute("DELETE FROM documents")
        conn.execute("DELETE FROM skipped_files")

    def remove(self, path: str) -> None:
        """Forget ``path``: its document, sections, FTS entries and any skip record."""
        conn = self._require()
        conn.execute("DELETE FROM skipped_files WHERE path = ?", (path,))
        row = conn.execute("SELECT doc_id FROM documents WHERE path = ?", (path,)).fetchone()
        if row is None:
            return
        (doc_id,) = row
        fts_rows, tri_rows = [], []
        stored = conn.execute(
            "SELECT s.id, s.heading_path, d.title, s.text, s.table_header, s.header_ordinal, s.ordinal, d.format"
            " FROM sections s JOIN documents d ON d.doc_id = s.doc_id WHERE s.doc_id = ? ORDER BY s.ordinal",
            (doc_id,),
        ).fetchall()
        texts = [row[3] for row in stored]
        for sid, heading_json, title, text, table_header, header_ordinal, ordinal, format in stored:
            fields = search_fields(
                json.loads(heading_json),
                title,
                path,
                text,
                table_header,
                front_matter=has_front_matter(format, ordinal),
                caption=section_caption(texts, ordinal, table_header, header_ordinal),
            )
            fts_rows.append((sid, *fields[:4]))
            tri_rows.append((sid, fields.folded))
        conn.executemany(
            "INSERT INTO sections_fts (sections_fts, rowid, heading, title, identifiers, body)"
            " VALUES ('delete', ?, ?, ?, ?, ?)",
            fts_rows,
        )
        conn.executemany(
            "INSERT INTO sections_tri (sections_tri, rowid, folded) VALUES ('delete', ?, ?)",
            tri_rows,
        )
        in_doc = "SELECT id FROM sections WHERE doc_id = ?"
        self._set_aside.update(
            conn.execute(f"SELECT key, vector FROM section_vectors WHERE section_id IN ({in_doc})", (doc_id,))
        )
        conn.execute(f"DELETE FROM section_vectors WHERE section_id IN ({in_doc})", (doc_id,))
        conn.execute("DELETE FROM sections WHERE doc_id = ?", (doc_id,))
        conn.execute("DELETE FROM documents WHERE doc_id = ?", (doc_id,))

    def record_skip(self, path: str, content_hash: str, reason: str) -> None:
        """Remember a file that was read but not stored, so a no-op re-ingest can tell."""
        self.remove(path)
        self._require().execute(
            "INSERT INTO skipped_files (path, content_hash, reason) VALUES (?, ?, ?)",
            (path, content_hash, reason),
        )

    def put(
        self,
        doc: ParsedDocument,
        content_hash: str,
        size: int,
        fts: Sequence[SearchFields] | None = None,
    ) -> None:
        """Store ``doc`` in place of any previous version of the same path.

        ``fts`` are the sections' :func:`~contextpull.analysis.section_terms.search_fields` when
        the caller computed them already (in a worker process); otherwise they
        are computed here.
        """
        if fts is None:
            fts = document_fields(doc)
        self.remove(doc.path)
        doc_id = self._next_doc_id
        self._next_doc_id += 1
        self._require().execute(
            "INSERT INTO documents (doc_id, path, title, summary, metadata, format,"
            " content_hash, size, section_count) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                doc_id,
                doc.path,
                doc.title,
                doc.summary,
                json.dumps(doc.metadata, ensure_ascii=False, sort_keys=True, default=str),
                doc.format,
                content_hash,
                size,
                len(doc.sections),
            ),
        )
        for section, values in zip(doc.sections, fts, strict=True):
            self._pending.append((self._next_section_id, doc_id, section, values))
            self._next_section_id += 1
        if len(self._pending) >= _BATCH:
            self._flush()

    # --- vectors (docs/adr/010-embeddings.md) --------------------------------
    def sections_without_vectors(self) -> list[tuple[int, tuple[str, ...], str, str | None]]:
        """``(row id, heading path, text, table header)`` of every section that has no vector, by row id."""
        self._flush()
        rows = self._require().execute(
            "SELECT s.id, s.heading_path, s.text, s.table_header FROM sections s"
            " LEFT JOIN section_vectors v ON v.section_id = s.id WHERE v.section_id IS NULL ORDER BY s.id"
        )
        return [(rowid, tuple(json.loads(heading)), text, header) for rowid, heading, text, header in rows]

    def keep_for_reuse(self, vectors: dict[str, bytes], summaries: dict[tuple[str, str], str]) -> None:
        """Offer a rebuilt store's ``vectors`` (by embedded-text key) and ``summaries`` to what is stored from here on."""
        self._set_aside.update(vectors)
        self._summaries.update(summaries)

    def kept_summary(self, path: str, content_hash: str) -> str | None:
        """The index line a cleared or rebuilt store had for these bytes at ``path``, if any."""
        return self._summaries.get((path, content_hash))

    def reusable_vector(self, key: str) -> bytes | None:
        """The vector a removed section with this embedded-text key had in this ingest, if any."""
        return self._set_aside.get(key)

    def put_vectors(self, rows: Iterable[tuple[int, str, bytes]]) -> None:
        """Store ``(section row id, key, vector BLOB)`` rows."""
        self._require().executemany(
            "INSERT OR REPLACE INTO section_vectors (section_id, key, vector) VALUES (?, ?, ?)", rows
        )

    def drop_vectors(self) -> None:
        """Remove every vector, and forget those set aside (another model: nothing is reusable)."""
        self._require().execute("DELETE FROM section_vectors")
        self._set_aside.clear()

    def vector_count(self) -> int:
        return self._max("SELECT count(*) FROM section_vectors")

    def set_meta(self, values: dict[str, str]) -> None:
        self._require().executemany(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            sorted(values.items()),
        )

    def _flush(self) -> None:
        if not self._pending:
            return
        conn = self._require()
        rows, fts_rows, tri_rows = [], [], []
        for rowid, doc_id, s, fields in self._pending:
            rows.append(
                (
                    rowid,
                    doc_id,
                    s.doc,
                    s.ordinal,
                    s.id,
                    _heading_json(s.heading_path),
                    s.kind,
                    s.text,
                    s.start,
                    s.end,
                    len(s.text),
                    section_hash(s.text),
                    s.table_header,
                    s.header_ordinal,
                    s.pages[0] if s.pages else None,
                    s.pages[1] if s.pages else None,
                )
            )
            fts_rows.append((rowid, *fields[:4]))
            tri_rows.append((rowid, fields.folded))
        self._pending.clear()
        conn.executemany(
            "INSERT INTO sections (id, doc_id, path, ordinal, sid, heading_path, kind, text,"
            " start, end, chars, content_hash, table_header, header_ordinal, first_page, last_page)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        conn.executemany(
            "INSERT INTO sections_fts (rowid, heading, title, identifiers, body) VALUES (?, ?, ?, ?, ?)", fts_rows
        )
        conn.executemany("INSERT INTO sections_tri (rowid, folded) VALUES (?, ?)", tri_rows)
        self._uncommitted += len(rows)
        if self._fresh and self._uncommitted >= _COMMIT_EVERY:
            # SQLite holds a transaction's changed pages in memory (about 1.5 KB per
            # section here, 150 MB at 100k sections). A file being built is seen by
            # nobody until it is renamed into place, so committing now and then costs
            # no atomicity and keeps the writer's memory bounded.
            conn.execute("COMMIT")
            conn.execute("BEGIN")
            self._uncommitted = 0
