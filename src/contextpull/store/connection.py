"""Opening a store to read it: validation, metadata and change detection.

A :class:`Store` is a read-only view. It never writes, never forces a WAL
checkpoint and so can sit beside a running ingest: it sees the corpus as of
the last committed ingest, never a mix (docs/adr/002-store-format.md).
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from ..analysis.terms import ANALYSIS_VERSION
from ..errors import FormatVersionError, NotAStore, StoreFromNewerVersion, StoreMissing
from .closeable import Closeable
from .damage import corrupt
from .reader import StoreReader
from .schema import FIRST_TABLES, FORMAT_MAJOR, FORMAT_VERSION, TABLES


@dataclass(frozen=True)
class DocumentEntry:
    """What the index shows for one document."""

    path: str
    title: str
    summary: str
    section_count: int


def check_store(conn: sqlite3.Connection, path: Path) -> str:
    """Return the store's format version, or raise why ``conn`` is not a usable store."""
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()
    except sqlite3.DatabaseError as err:
        if getattr(err, "sqlite_errorname", "").startswith("SQLITE_CORRUPT"):
            raise corrupt(path, err) from None
        raise NotAStore(
            f"{path} is not a ContextPull store ({err})",
            "point --store at a file written by `contextpull ingest`",
        ) from None
    if row is None:
        raise NotAStore(
            f"{path} is not a ContextPull store (no format version)",
            "point --store at a file written by `contextpull ingest`",
        )
    version = str(row[0])
    analysis = read_meta(conn, "analysis_version")
    if _newer(version, FORMAT_VERSION) or analysis is not None and _newer(analysis, ANALYSIS_VERSION):
        raise StoreFromNewerVersion(
            f"{path} was written by a newer ContextPull (store format {version}, term analysis {analysis});"
            f" this one reads format {FORMAT_VERSION}, analysis {ANALYSIS_VERSION}",
            "upgrade ContextPull (pip install -U contextpull) to use it; this version leaves it untouched",
        )
    major = version.split(".")[0]
    if not major.isdigit() or int(major) != FORMAT_MAJOR:
        raise FormatVersionError(
            f"{path} has store format {version}; this ContextPull reads format {FORMAT_VERSION}",
            "re-ingest the corpus with this version: `contextpull ingest DIR --store PATH` rebuilds it",
        )
    if analysis is not None and analysis != ANALYSIS_VERSION or analysis is None and _has_sections(conn):
        raise FormatVersionError(
            f"{path} was indexed by term analysis {analysis or 1}; this ContextPull searches analysis {ANALYSIS_VERSION}",
            "re-ingest the corpus with this version: `contextpull ingest DIR --store PATH` rebuilds it",
        )
    _check_tables(conn, path, TABLES if version == FORMAT_VERSION else FIRST_TABLES)
    return version


def _check_tables(conn: sqlite3.Connection, path: Path, required: frozenset[str]) -> None:
    """Raise :class:`StoreCorrupt` when a table is missing: the store is damaged, and ingest rebuilds it."""
    present = {name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    missing = sorted(required - present)
    if missing:
        raise corrupt(path, sqlite3.DatabaseError(f"missing table {', '.join(missing)}"))


def _newer(version: str, ours: str) -> bool:
    """True when dotted ``version`` is a later one than ``ours`` (a version that is not numbers is not)."""
    try:
        return tuple(int(part) for part in version.split(".")) > tuple(int(part) for part in ours.split("."))
    except ValueError:
        return False


def _has_sections(conn: sqlite3.Connection) -> bool:
    """True once an ingest has stored something (a store written before analysis versions existed)."""
    return conn.execute("SELECT 1 FROM meta WHERE key = 'corpus_fingerprint'").fetchone() is not None


@dataclass(frozen=True)
class OlderStore:
    """What a store ingest is about to rebuild holds that does not depend on how words are indexed."""

    meta: dict[str, str]
    vectors: dict[str, bytes]  # by the key of the embedded text
    summaries: dict[tuple[str, str], str]  # (path, sha256 of the raw bytes) -> index line


def read_older_store(path: Path) -> OlderStore:
    """The meta, vectors and document summaries of ``path``, a store written by another analysis or format.

    Ingest rebuilds such a store from its files, but its vectors depend only
    on the text embedded and the model, and a model's summary only on the
    file, so the rebuild keeps those that still fit instead of paying for
    them again. Read-only and forgiving: a store too old or damaged to hold
    a part gives none of it.
    """
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error:
        return OlderStore({}, {}, {})
    try:
        meta = read_all_meta(conn)
        vectors = _forgiving(conn, "SELECT key, vector FROM section_vectors")
        summaries = _forgiving(conn, "SELECT path, content_hash, summary FROM documents")
        return OlderStore(
            meta,
            {str(key): bytes(vector) for key, vector in vectors},
            {(str(doc), str(digest)): str(summary) for doc, digest, summary in summaries},
        )
    except sqlite3.Error:
        return OlderStore({}, {}, {})
    finally:
        conn.close()


def _forgiving(conn: sqlite3.Connection, sql: str) -> list[tuple[Any, ...]]:
    """The rows of ``sql``; none when the store lacks the table or columns it reads."""
    try:
        return conn.execute(sql).fetchall()
    except sqlite3.Error:
        return []


def read_documents(conn: sqlite3.Connection, prefix: str = "") -> list[DocumentEntry]:
    """Documents whose path starts with ``prefix`` (all for ``""``), in path order."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    rows = conn.execute(
        "SELECT path, title, summary, section_count FROM documents WHERE path LIKE ? ESCAPE '\\' ORDER BY path",
        (escaped + "%",),
    )
    # LIKE is case-insensitive for ASCII; paths are case-sensitive.
    return [DocumentEntry(*row) for row in rows if row[0].startswith(prefix)]


def read_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def read_all_meta(conn: sqlite3.Connection) -> dict[str, str]:
    return {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}


def read_document_hashes(conn: sqlite3.Connection) -> dict[str, str]:
    """``path -> sha256 of raw bytes`` for every stored document."""
    return dict(conn.execute("SELECT path, content_hash FROM documents"))


def read_skipped_files(conn: sqlite3.Connection) -> dict[str, tuple[str, str]]:
    """``path -> (sha256, reason)`` for files read by an ingest and not stored."""
    rows = conn.execute("SELECT path, content_hash, reason FROM skipped_files")
    return {path: (digest, reason) for path, digest, reason in rows}


class _ReadOnlyFolder(Exception):
    """SQLite could not create a reader's side files next to the store."""


def _connect(path: Path, mode: str) -> tuple[sqlite3.Connection, str]:
    uri = "file:" + quote(str(path.resolve())) + "?" + mode
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as err:
        raise NotAStore(f"cannot open {path} ({err})", "check the file's permissions") from None
    try:
        version = check_store(conn, path)
    except NotAStore:
        conn.close()
        # "readonly" in a folder the user cannot write; "unable to open" on a read-only mount
        if mode == "mode=ro" and not _writable_folder(path):
            raise _ReadOnlyFolder from None
        raise
    except BaseException:
        conn.close()
        raise
    # A search's statement builds a few small temporary tables (materialised CTEs, GROUP BY and
    # ORDER BY sorters). Backed by temporary files (the default), each costs fresh memory pages once
    # a frequent search has grown the heap: about 130 page faults, half a rare search's time (issue
    # 14). They are bounded by the statements' LIMITs and caps, so memory is the right place for them.
    conn.execute("PRAGMA temp_store = MEMORY")
    return conn, version


def _writable_folder(path: Path) -> bool:
    """True when this process may create files beside ``path``."""
    return os.access(path.resolve().parent, os.W_OK)


def file_identity(path: Path) -> tuple[int, int] | None:
    """``(device, inode)`` of the file at ``path``, None when there is none: tells a
    file replaced by a rename from the same file written in place."""
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino


class Store(StoreReader, Closeable):
    """A read-only handle on one store file; one per thread (sqlite3 rule).

    Its connection stays inside the store package: callers use the query
    methods of :class:`~.reader.StoreReader` and :meth:`snapshot`.
    """

    def __init__(self, path: Path, conn: sqlite3.Connection, format_version: str) -> None:
        self._path = path
        self._conn = conn
        self._format_version = format_version
        self._data_version = self.data_version()
        self._file_id = file_identity(path)

    @classmethod
    def open(cls, path: str | Path) -> Store:
        """Open ``path`` read-only after checking it is a store this version can read.

        Raises :class:`StoreMissing`, :class:`NotAStore` or
        :class:`FormatVersionError`; never creates or modifies a file.
        """
        path = Path(path)
        if path.is_dir():
            raise NotAStore(f"{path} is a folder, not a store file", "pass --store PATH naming a store file")
        if path.exists() and not path.is_file():
            raise NotAStore(f"{path} is not a regular file, so not a store", "pass the store file written by ingest")
        if not path.is_file():
            raise StoreMissing(
                f"no store at {path}",
                "run `contextpull ingest DIR` first, or pass --store PATH",
            )
        try:
            conn, version = _connect(path, "mode=ro")
        except _ReadOnlyFolder:
            # WAL readers need to create the -shm file beside the store; in a
            # folder they cannot write, nobody can be writing either, so the
            # file is read as immutable (no locks, no side files).
            conn, version = _connect(path, "immutable=1")
        if version != FORMAT_VERSION:
            conn.close()
            raise FormatVersionError(
                f"{path} has store format {version}, older than {FORMAT_VERSION}",
                "run `contextpull ingest DIR --store PATH` once: it upgrades the store in place",
            )
        return cls(path, conn, version)

    @property
    def path(self) -> Path:
        return self._path

    @property
    def format_version(self) -> str:
        return self._format_version

    @property
    def fingerprint(self) -> str:
        return self.meta("corpus_fingerprint") or ""

    @property
    def index_text(self) -> str:
        return self.meta("index_text") or ""

    def meta(self, key: str) -> str | None:
        return read_meta(self._conn, key)

    def all_meta(self) -> dict[str, str]:
        return read_all_meta(self._conn)

    def documents(self, prefix: str = "") -> list[DocumentEntry]:
        """Documents whose path starts with ``prefix``, in path order."""
        return read_documents(self._conn, prefix)

    def document_hashes(self) -> dict[str, str]:
        return read_document_hashes(self._conn)

    def skipped_files(self) -> dict[str, tuple[str, str]]:
        return read_skipped_files(self._conn)

    def intact(self) -> bool:
        """True when SQLite's ``quick_check`` finds every page sound (reads the whole file)."""
        try:
            return str(self._conn.execute("PRAGMA quick_check(1)").fetchone()[0]) == "ok"
        except sqlite3.DatabaseError:
            return False

    def changed(self) -> bool:
        """True once another process has committed to this store since the last call
        (or the open), or has replaced the file (a first ingest after deletion, a
        rebuild from another format): then reopen to see the new corpus.

        Cheap enough to call before every request: one ``stat`` and SQLite's
        ``data_version`` counter, no table.
        """
        current = self.data_version()
        file_id = file_identity(self._path)
        changed = current != self._data_version or file_id != self._file_id
        self._data_version, self._file_id = current, file_id
        return changed

    def close(self) -> None:
        self._conn.close()
