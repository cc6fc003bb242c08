"""Where a store lives, decided in one place.

The rule a user can guess (README, "Where stores live"):

* ``contextpull ingest DIR`` keeps DIR's store in ``DIR/.contextpull/``, or,
  when DIR cannot be written (a mounted share, a vendored docs tree), in the
  user data folder, ``$XDG_DATA_HOME/contextpull/stores/`` (default
  ``~/.local/share/contextpull/stores/``), in a folder named after DIR and a
  hash of its absolute path. Either way the store is remembered.
* Every other command, run without ``--store`` or ``$CONTEXTPULL_STORE``,
  uses the store of the folder it is run from: the corpus last ingested from
  this folder, else the corpus this folder is in (DIR itself or below it).
  A ``.contextpull/store.sqlite`` in this folder or a parent, written by
  older versions or by the library, is found too.
* ``contextpull stores`` lists the remembered stores.

Remembering is best effort: a data folder that cannot be written costs only
the lookup from other folders, never an ingest.
"""

from __future__ import annotations

import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

STORE_ENV = "CONTEXTPULL_STORE"
STORE_DIR = ".contextpull"
STORE_NAME = "store.sqlite"
#: the store of the working directory, relative to it
DEFAULT_STORE = Path(STORE_DIR) / STORE_NAME
DATA_ENV = "XDG_DATA_HOME"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def data_home() -> Path:
    """``$XDG_DATA_HOME/contextpull`` (default ``~/.local/share/contextpull``)."""
    base = os.environ.get(DATA_ENV) or str(Path.home() / ".local" / "share")
    return Path(base) / "contextpull"


def _key(path: Path) -> str:
    import hashlib  # here, not at the top: the read commands import this module and never hash (issue 14)

    return hashlib.sha256(str(path).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def user_store_path(root: Path) -> Path:
    """The store of ``root`` in the user data folder, for corpora that cannot hold their own."""
    absolute = Path(root).resolve()
    name = _UNSAFE.sub("-", absolute.name).strip("-.") or "root"
    return data_home() / "stores" / f"{name}-{_key(absolute)}" / STORE_NAME


def default_store_path(root: Path) -> Path:
    """The store a folder gets when nothing else is said.

    ``root/.contextpull/store.sqlite`` when it exists or can be made there,
    else :func:`user_store_path`.
    """
    local = Path(root) / DEFAULT_STORE
    if local.is_file() or _writable(local.parent):
        return local
    return user_store_path(root)


def _writable(folder: Path) -> bool:
    """True when ``folder`` exists and can be written, or does not exist and its parent can."""
    target = folder if folder.exists() else folder.parent
    return target.is_dir() and os.access(target, os.W_OK | os.X_OK)


def env_store_path() -> Path | None:
    """``$CONTEXTPULL_STORE`` when it is set and not empty."""
    chosen = os.environ.get(STORE_ENV)
    return Path(chosen) if chosen else None


def store_path(explicit: str | Path | None = None, *, here: Path | None = None) -> Path:
    """``explicit``, then ``$CONTEXTPULL_STORE``, then the store of the folder ``here`` (the working one)."""
    if explicit:
        return Path(explicit)
    return env_store_path() or find_store(Path.cwd() if here is None else here)


def find_store(here: Path) -> Path:
    """The store of ``here``: ingested from it, else of the corpus it is in, else a ``.contextpull`` above.

    Returns ``./.contextpull/store.sqlite`` when nothing is found, so the
    error names the path that was looked for.
    """
    here = here.resolve()
    known = [entry for entry in known_stores() if Path(entry.store).is_file()]
    ingested_here = [entry for entry in known if str(here) in entry.ingested_from]
    if ingested_here:
        return Path(max(ingested_here, key=lambda entry: entry.ingested_at).store)
    containing = [entry for entry in known if here.is_relative_to(entry.corpus)]
    if containing:
        return Path(max(containing, key=lambda entry: (len(entry.corpus), entry.ingested_at)).store)
    for folder in (here, *here.parents):
        if (folder / DEFAULT_STORE).is_file():
            return folder / DEFAULT_STORE
    return DEFAULT_STORE


def collection_store_path(key: str) -> Path:
    """The store of collection ``key`` (``name`` or ``name@version``): ``DATA/collections/KEY/store.sqlite``."""
    return data_home() / "collections" / key / STORE_NAME


def bench_dir(root: Path) -> Path:
    """Where ``contextpull bench`` writes a folder's results: beside the folder's store."""
    return default_store_path(root).parent / "bench"


# --- the list of known stores ---------------------------------------------------------
@dataclass(frozen=True)
class KnownStore:
    """A store an ingest wrote: where it is, which folder it holds, and where it was ingested from."""

    store: str
    corpus: str
    ingested_at: float
    ingested_from: tuple[str, ...] = field(default=())

    def to_dict(self) -> dict[str, object]:
        return {
            "store": self.store,
            "corpus": self.corpus,
            "ingested_at": self.ingested_at,
            "ingested_from": list(self.ingested_from),
        }


def _known_dir() -> Path:
    return data_home() / "known"


def remember(store: Path, corpus: Path, ingested_from: Path | None = None) -> None:
    """Record that ``store`` holds ``corpus`` and was ingested from ``ingested_from`` (best effort).

    Reads only this store's own entry, and writes it through a temporary file
    opened with ``O_EXCL`` and renamed into place: one ingest costs the same
    however many stores are known, and loads no ``tempfile`` (issue 14).
    """
    store, corpus = Path(store).resolve(), Path(corpus).resolve()
    here = str((ingested_from or Path.cwd()).resolve())
    folder = _known_dir()
    target = folder / f"{_key(store)}.json"
    entry = _read_entry(target)
    same = entry is not None and (entry.store, entry.corpus) == (str(store), str(corpus))
    earlier = entry.ingested_from if entry is not None and same else ()
    record = KnownStore(str(store), str(corpus), time.time(), tuple(sorted({*earlier, here})))
    tmp = folder / f".entry-{os.getpid()}-{time.monotonic_ns()}"
    try:  # best effort: a data folder that cannot be written costs only the lookup from elsewhere
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(record.to_dict(), out)
        os.replace(tmp, target)
    except OSError:
        return


def known_stores() -> list[KnownStore]:
    """Every remembered store, most recently ingested first (entries that cannot be read are left out)."""
    folder = _known_dir()
    try:
        items = sorted(folder.glob("*.json")) if folder.is_dir() else []
    except OSError:
        return []  # a data folder this user cannot read knows no stores for them
    entries = [entry for entry in map(_read_entry, items) if entry is not None]
    return sorted(entries, key=lambda entry: entry.ingested_at, reverse=True)


def _read_entry(item: Path) -> KnownStore | None:
    """The entry in ``item``; None when it is missing or cannot be read."""
    try:
        data = json.loads(item.read_text(encoding="utf-8"))
        return KnownStore(
            str(data["store"]),
            str(data["corpus"]),
            float(data["ingested_at"]),
            tuple(map(str, data.get("ingested_from", []))),
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
