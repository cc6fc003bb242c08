"""The behaviour fingerprint: which code made a pull run, so a replay cannot mix code versions.

A recorded pull run is only worth replaying if the tools would still return
what they returned then and the agent would still see the same prompts. That
depends on far more than the tool schemas: term analysis, ranking, snippets,
the read format, tool error texts, the instructions, the loop and its turn
grammar. Rather than a version someone must remember to bump, the fingerprint
hashes the source of every module that shapes a tool result or a prompt
(:data:`SOURCES`), together with the package version and the store's
``analysis_version`` (the index a store holds was built by the analysis of
its day; meta key shared with ingest). Editing any of those files changes
the fingerprint, so every pull-run cache key changes and a replay of an older
run dir refuses, naming the files that changed.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: what shapes a tool result or a prompt, as package-relative paths (a folder means every file
#: under it, data included: pullvec's shipped embedding table changes search results too)
SOURCES: dict[str, tuple[str, ...]] = {
    "analysis": (
        "contextpull/terms.py",
        "contextpull/section_terms.py",
        "contextpull/tokens.py",
        "contextpull/names.py",
        "contextpull/settings.py",
        "contextpull/parse",
        "mdinline",
        "contextpull/ingestion",
        "contextpull/store",
    ),
    "index": ("contextpull/index.py",),
    "vectors, hybrid search": ("contextpull/vectors.py", "pullvec"),
    "ranking, snippets, tool outputs": ("contextpull/ops", "contextpull/records.py", "contextpull/errors.py"),
    "tool schemas, instructions": ("contextpull/tools", "contextpull/server"),
    "pull loop": ("contextpull/eval/apiloop.py", "contextpull/eval/claudecode.py"),
    "turn grammar, wire format": (
        "pushpull/models/base.py",
        "pushpull/models/local_provider.py",
        "pushpull/models/hosted.py",
        "pushpull/models/anthropic_provider.py",
        "pushpull/models/openai_provider.py",
    ),
}
#: the store meta key holding the version of the analysis that built its index
ANALYSIS_META_KEY = "analysis_version"


def _package_root(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"cannot locate package {package}")
    return Path(next(iter(spec.submodule_search_locations))).parent


def source_files() -> dict[str, list[tuple[str, Path]]]:
    """component → its ``(relative path, file)`` pairs, sorted, from the installed source."""
    found: dict[str, list[tuple[str, Path]]] = {}
    for component, entries in SOURCES.items():
        files: dict[str, Path] = {}
        for entry in entries:
            path = _package_root(entry.split("/")[0]) / entry
            candidates = sorted(path.rglob("*")) if path.is_dir() else [path]
            for file in candidates:
                if file.is_file() and "__pycache__" not in file.parts:
                    files[file.relative_to(_package_root(entry.split("/")[0])).as_posix()] = file
        found[component] = sorted(files.items())
    return found


def file_hashes() -> dict[str, str]:
    """Every fingerprinted file → the first 16 hex digits of its SHA-256."""
    return {
        name: hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        for pairs in source_files().values()
        for name, path in pairs
    }


@dataclass(frozen=True)
class Fingerprint:
    """Package version, per-file source hashes and the store's analysis version."""

    version: str
    analysis_version: str
    files: dict[str, str] = field(default_factory=dict)

    @property
    def source(self) -> str:
        """One hash over every fingerprinted file."""
        blob = json.dumps(self.files, sort_keys=True).encode("utf-8")
        return hashlib.sha256(blob).hexdigest()[:16]

    @property
    def key(self) -> str:
        """What goes into cache keys: changes whenever any part does."""
        return f"{self.version}/{self.analysis_version}/{self.source}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "version": self.version,
            "analysis_version": self.analysis_version,
            "source": self.source,
            "files": dict(sorted(self.files.items())),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fingerprint:
        return cls(str(data.get("version", "")), str(data.get("analysis_version", "")), dict(data.get("files") or {}))

    def changes_since(self, recorded: Fingerprint) -> list[str]:
        """What differs from ``recorded``, one phrase each, naming versions and files; empty when equal."""
        changes = []
        if recorded.version != self.version:
            changes.append(f"package version {recorded.version} → {self.version}")
        if recorded.analysis_version != self.analysis_version:
            changes.append(f"store analysis version {recorded.analysis_version} → {self.analysis_version}")
        names = sorted(set(recorded.files) | set(self.files))
        edited = [name for name in names if recorded.files.get(name) != self.files.get(name)]
        for name in edited:
            how = "added" if name not in recorded.files else "removed" if name not in self.files else "changed"
            changes.append(f"{name} {how}")
        return changes


def current(analysis_version: str | None) -> Fingerprint:
    """The fingerprint of the code running now, over a store whose meta says ``analysis_version``."""
    from .._version import __version__

    return Fingerprint(__version__, analysis_version or "none", file_hashes())


def of_store(store_path: Path) -> Fingerprint:
    """:func:`current` for the store at ``store_path`` (an older store without the meta key reads ``none``)."""
    from ..store import Store

    with Store.open(store_path) as store:
        return current(store.meta(ANALYSIS_META_KEY))
