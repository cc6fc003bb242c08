"""Named collections: a store per library or handbook, kept in the user data folder.

``contextpull ingest SOURCE --collection uv@0.5`` builds the collection's
store in ``DATA/collections/uv@0.5/store.sqlite`` (:func:`contextpull.paths.collection_store_path`)
and records, beside it in ``collection.json``, where it came from and its
base URL. ``contextpull collections`` lists them; ``contextpull serve
--collection A --collection B`` (or ``--collections`` for all) serves them
behind one MCP server, where ids carry the collection
(:mod:`contextpull.ops.library`; docs/adr/024-collections-and-links.md).

A key is a name and an optional version label, ``name`` or
``name@version``: letters, digits, ``.``, ``_`` and ``-`` (and ``+`` in a
version), so a key is a safe folder name and never holds the ``:`` that
separates it from a path in an id.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import CollectionError
from ..paths import collection_store_path, data_home

_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}(@[A-Za-z0-9][A-Za-z0-9._+-]{0,63})?")
RECORD = "collection.json"


def check_key(text: str) -> str:
    """``text`` as a collection key, or :class:`CollectionError` saying what a key looks like."""
    if not _KEY.fullmatch(text) or ".." in text:
        raise CollectionError(
            f"{text!r} is not a collection name",
            "use a name and an optional version, like uv or uv@0.5 (letters, digits, '.', '_', '-')",
        )
    return text


@dataclass(frozen=True)
class Collection:
    """A collection: its key, its store, the folder its documents came from, and where they live online."""

    key: str
    store: str
    corpus: str
    source: str = ""
    base_url: str = ""
    ingested_at: float = 0.0

    @property
    def name(self) -> str:
        return self.key.split("@", 1)[0]

    @property
    def version(self) -> str:
        return self.key.split("@", 1)[1] if "@" in self.key else ""

    def to_dict(self) -> dict[str, object]:
        return {**asdict(self), "name": self.name, "version": self.version}


def _folder() -> Path:
    return data_home() / "collections"


def record(key: str, corpus: Path, source: str = "", base_url: str = "") -> Collection:
    """Write ``collection.json`` for ``key`` after an ingest (through a temporary file, renamed in)."""
    store = collection_store_path(key)
    entry = Collection(key, str(store), str(Path(corpus).resolve()), source, base_url, time.time())
    tmp = store.parent / f".{RECORD}.{os.getpid()}"
    tmp.write_text(json.dumps(asdict(entry), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, store.parent / RECORD)
    return entry


def recorded(key: str) -> Collection | None:
    """The record of collection ``key``; None when it has none (or one that cannot be read)."""
    try:
        data = json.loads((collection_store_path(key).parent / RECORD).read_text(encoding="utf-8"))
        return Collection(
            str(data["key"]),
            str(data["store"]),
            str(data["corpus"]),
            str(data.get("source", "")),
            str(data.get("base_url", "")),
            float(data.get("ingested_at", 0.0)),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def known_collections() -> list[Collection]:
    """Every recorded collection whose store exists, by key."""
    folder = _folder()
    try:
        keys = sorted(path.name for path in folder.iterdir() if path.is_dir()) if folder.is_dir() else []
    except OSError:
        return []
    entries = [recorded(key) for key in keys]
    return [entry for entry in entries if entry is not None and Path(entry.store).is_file()]


def find(key: str) -> Collection:
    """Collection ``key``, or :class:`CollectionError` naming the ones there are."""
    entry = recorded(check_key(key))
    if entry is None or not Path(entry.store).is_file():
        names = ", ".join(c.key for c in known_collections()) or "none yet"
        raise CollectionError(
            f"there is no collection {key!r} (collections: {names})",
            f"make it with `contextpull ingest DIR_OR_URL --collection {key}`",
        )
    return entry


def remove(key: str) -> Collection:
    """Delete collection ``key``: its store and its record (the documents it was built from stay)."""
    entry = find(key)
    shutil.rmtree(collection_store_path(entry.key).parent)
    return entry
