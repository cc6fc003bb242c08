"""A store published as an artifact: one immutable file and the manifest that names and verifies it.

The scale-out design (docs/scaling.md) is one store built once and served
read-only by any number of identical replicas. ``publish`` writes a folder a
plain static web server can serve:

    DEST/manifest.json                 {"store": "store-<sha12>.sqlite", "sha256": ..., ...}
    DEST/store-<sha12>.sqlite          a self-contained copy (rollback journal, no WAL side files)

The store file is written and renamed into place before the manifest, and the
manifest itself is replaced atomically, so a reader of the folder sees the old
version or the new one, never half of either. Earlier store files are kept
(the newest :data:`KEEP` of them) so replicas still downloading one finish.

A replica ``follow``\\s a source (a URL or a folder): it downloads the store
named by the manifest into its cache, checks the SHA-256 while writing, and
swaps the file it serves by renaming a hard link over it. The server reopens a
replaced file on its next call (:class:`~contextpull.server.app.StoreReaders`);
a call already running finishes on the old file, whose pages stay readable
while it is open.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ..errors import ContextPullError
from .connection import Store

MANIFEST = "manifest.json"
#: published store files kept beside the newest, for replicas still downloading them
KEEP = 3
SERVED = "served.sqlite"
_CHUNK = 1 << 20


class ArtifactError(ContextPullError):
    """A published store could not be written, read or verified."""

    code = "artifact_error"
    exit_code = 1


@dataclass(frozen=True)
class Manifest:
    """What a published store is: its file, its checksum and which corpus version it holds."""

    store: str
    sha256: str
    bytes: int
    corpus_fingerprint: str
    format_version: str
    analysis_version: str
    published_at: str

    @classmethod
    def parse(cls, text: str, where: str) -> Manifest:
        try:
            data = json.loads(text)
            texts = {name: str(data[name]) for name in _FIELDS if name != "bytes"}
            manifest = cls(bytes=int(data["bytes"]), **texts)
        except (ValueError, KeyError, TypeError) as err:
            raise ArtifactError(
                f"{where} is not a store manifest ({err})", "point at the folder `publish` wrote"
            ) from None
        if "/" in manifest.store or "\\" in manifest.store or manifest.store in ("", ".", ".."):
            raise ArtifactError(f"{where} names a store outside its folder: {manifest.store!r}", "republish it")
        return manifest


_FIELDS = ("store", "sha256", "bytes", "corpus_fingerprint", "format_version", "analysis_version", "published_at")


def publish(store_path: Path, dest: Path) -> Manifest:
    """Write ``store_path`` as an artifact into the folder ``dest``; returns the new manifest."""
    with Store.open(store_path) as store:
        meta = store.all_meta()
    try:
        dest.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=dest, prefix=".publish-", suffix=".sqlite", delete=False) as scratch:
            partial = Path(scratch.name)
        try:
            _copy(store_path, partial)
            digest, size = _sha256(partial)
            name = f"store-{digest[:12]}.sqlite"
            os.chmod(partial, 0o644)  # a static web server serves it
            os.replace(partial, dest / name)
        finally:
            partial.unlink(missing_ok=True)
        manifest = Manifest(
            name,
            digest,
            size,
            meta.get("corpus_fingerprint", ""),
            meta.get("format_version", ""),
            meta.get("analysis_version", ""),
            datetime.now(UTC).isoformat(timespec="seconds"),
        )
        _write_atomically(dest / MANIFEST, json.dumps(asdict(manifest), indent=1) + "\n")
        _prune(dest, keep={name})
    except OSError as err:
        raise ArtifactError(
            f"cannot publish into {dest}: {err.strerror or err}", "pick a folder you can write"
        ) from None
    return manifest


def _copy(source: Path, target: Path) -> None:
    """A consistent single-file copy of the store (SQLite's backup API), without WAL side files."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst)
        dst.execute("PRAGMA journal_mode=DELETE")
        dst.commit()
    finally:
        dst.close()
        src.close()


def _sha256(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def _write_atomically(path: Path, text: str) -> None:
    with tempfile.NamedTemporaryFile("w", dir=path.parent, prefix=".manifest-", delete=False, encoding="utf-8") as out:
        out.write(text)
        out.flush()
        os.fsync(out.fileno())
    os.chmod(out.name, 0o644)
    os.replace(out.name, path)


def _prune(dest: Path, keep: set[str]) -> None:
    published = sorted(dest.glob("store-*.sqlite"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in published[KEEP:]:
        if old.name not in keep:
            old.unlink(missing_ok=True)


# --- the replica's side -------------------------------------------------------
def is_artifact(source: str) -> bool:
    """Whether ``--store`` names a published artifact: a URL, a manifest, or a folder holding one."""
    if urlsplit(source).scheme in ("http", "https", "file"):
        return True
    path = Path(source)
    return path.name == MANIFEST or (path.is_dir() and (path / MANIFEST).is_file())


class Follower:
    """A replica's copy of a published store: fetched into ``cache``, verified, swapped when republished."""

    def __init__(self, source: str, cache: Path, *, timeout_s: float = 60.0) -> None:
        self.source = source
        self.cache = cache
        self.timeout_s = timeout_s
        self.served = cache / SERVED
        self.current: Manifest | None = None

    def manifest(self) -> Manifest:
        """The manifest the source publishes now."""
        where = self._locate(MANIFEST)
        return Manifest.parse(self._read_text(where), where)

    def refresh(self) -> bool:
        """Fetch the published store if it changed, and swap it in; True when the served file changed."""
        manifest = self.manifest()
        if self.current is not None and manifest.sha256 == self.current.sha256:
            return False
        try:
            self.cache.mkdir(parents=True, exist_ok=True)
            fetched = self.cache / f"{manifest.sha256}.sqlite"
            if not fetched.is_file():
                self._download(manifest, fetched)
            Store.open(fetched).close()  # a store this version can read, or one line saying why not
            self._swap(fetched)
        except OSError as err:
            raise ArtifactError(
                f"cannot keep the store in {self.cache}: {err.strerror or err}", "check that folder"
            ) from None
        self.current = manifest
        self._prune(keep=fetched)
        return True

    def _locate(self, name: str) -> str:
        if urlsplit(self.source).scheme in ("http", "https"):
            base = self.source if self.source.endswith("/") or self.source.endswith(MANIFEST) else self.source + "/"
            return urljoin(base, name)
        path = Path(self.source.removeprefix("file://"))
        folder = path.parent if path.name == MANIFEST else path
        return str(folder / name)

    def _read_text(self, where: str) -> str:
        try:
            return b"".join(self._stream(where)).decode("utf-8")
        except UnicodeDecodeError:
            raise ArtifactError(
                f"{where} is not a store manifest (not UTF-8 text)", "point at the folder `publish` wrote"
            ) from None

    def _stream(self, where: str) -> Iterator[bytes]:
        if not urlsplit(where).scheme:
            try:
                with open(where, "rb") as handle:
                    yield from iter(lambda: handle.read(_CHUNK), b"")
            except OSError as err:
                raise ArtifactError(f"cannot read {where}: {err.strerror or err}", "check the --store path") from None
            return
        import httpx

        try:
            with httpx.stream("GET", where, timeout=self.timeout_s, follow_redirects=True) as response:
                if response.status_code != 200:
                    raise ArtifactError(f"{where} answered HTTP {response.status_code}", "check the --store URL")
                yield from response.iter_bytes(_CHUNK)
        except httpx.HTTPError as err:
            raise ArtifactError(f"cannot fetch {where}: {err}", "check the --store URL and the network") from None

    def _download(self, manifest: Manifest, target: Path) -> None:
        digest, size = hashlib.sha256(), 0
        with tempfile.NamedTemporaryFile(dir=self.cache, prefix=".fetch-", delete=False) as partial:
            try:
                for block in self._stream(self._locate(manifest.store)):
                    size += len(block)
                    if size > manifest.bytes:
                        break
                    digest.update(block)
                    partial.write(block)
            except BaseException:
                Path(partial.name).unlink(missing_ok=True)
                raise
        if size != manifest.bytes or digest.hexdigest() != manifest.sha256:
            Path(partial.name).unlink(missing_ok=True)
            raise ArtifactError(
                f"{manifest.store} does not match its manifest (sha256 or size differs)",
                "republish it; a download is never served unverified",
            )
        os.replace(partial.name, target)

    def _swap(self, fetched: Path) -> None:
        """Point ``served`` at ``fetched`` in one rename: a hard link, or a copy where links are refused."""
        staged = self.cache / f".{SERVED}.{os.getpid()}"
        staged.unlink(missing_ok=True)
        try:
            os.link(fetched, staged)
        except OSError:
            shutil.copyfile(fetched, staged)
        os.replace(staged, self.served)

    def _prune(self, keep: Path) -> None:
        for old in self.cache.glob("*.sqlite"):
            if old != keep and old.name != SERVED and len(old.stem) == 64:
                old.unlink(missing_ok=True)
