"""The behaviour fingerprint: which code made a pull run, so a replay cannot mix code versions.

A recorded pull run is only worth replaying if the tools would still return
what they returned then and the agent would still see the same prompts. That
depends on far more than the tool schemas: term analysis, ranking, snippets,
the read format, tool error texts, the instructions, the loop and its turn
grammar. Rather than a version someone must remember to bump, the fingerprint
hashes the source of every module that shapes a tool result, a prompt or a
judged score: the :data:`ROOTS` and everything of ours they import, found by
walking their imports (a hand list missed the hint texts and the index
header once), together with the package version and the store's
``analysis_version`` (the index a store holds was built by the analysis of
its day; meta key shared with ingest). Editing any of those files changes
the fingerprint, so every pull-run cache key changes and a replay of an older
run dir refuses, naming the files that changed.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..store import Store

#: the modules that build what a pull run saw or scored: tool results, the index text, tool schemas and
#: instructions, the agent loops and their prompts, the wire format, the judge. Everything they import
#: from our packages is fingerprinted with them (found by walking imports, never a hand list), and so is
#: the ingest that builds the store they read.
ROOTS: tuple[str, ...] = (
    "contextpull.ingestion.run",
    "contextpull.ops.operations",
    "contextpull.contents.index",
    "contextpull.contents.summaries",
    "contextpull.syntax",
    "contextpull.tools.schemas",
    "contextpull.tools.instructions",
    "contextpull.server.app",
    "contextpull.eval.apiloop",
    "contextpull.eval.claudecode",
    "contextpull.eval.pull_retriever",
    "pushpull.models.local_provider",
    "pushpull.models.hosted",
    "pushpull.models.anthropic_provider",
    "pushpull.models.openai_provider",
    "pushpull.scoring.judge",
)
#: the packages whose modules the walk follows (third-party code is pinned by the package version)
PACKAGES = ("contextpull", "pushpull", "contextpull_vec", "contextpull_mdinline")
#: the store meta key holding the version of the analysis that built its index
ANALYSIS_META_KEY = "analysis_version"


def source_root() -> Path:
    """The folder holding our packages: ``src/`` in a clone, ``site-packages`` in an install."""
    spec = importlib.util.find_spec("contextpull")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("cannot locate the contextpull package")
    return Path(next(iter(spec.submodule_search_locations))).parent


def _module_file(root: Path, name: str) -> Path | None:
    """The source file of module ``name`` under ``root``, or None when it is not one of ours."""
    if name.split(".")[0] not in PACKAGES:
        return None
    base = root.joinpath(*name.split("."))
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _imported(root: Path, name: str, file: Path) -> set[str]:
    """Every module of ours that ``file`` (module ``name``) imports, at any depth of its code.

    Imports inside functions count too: a lazily imported module shapes
    results just the same. ``from .pkg import x`` names the submodule
    ``pkg.x`` when there is one, else the package.
    """
    package = name if file.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(file.read_bytes(), str(file))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return {module for module in found if _module_file(root, module) is not None}


def _with_parents(name: str) -> list[str]:
    """``a.b.c`` → ``a``, ``a.b``, ``a.b.c``: importing a module runs its packages' ``__init__`` first."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def walk(root: Path | None = None, roots: tuple[str, ...] = ROOTS) -> dict[str, Path]:
    """Every module reachable from ``roots`` by imports, as ``name → file``, plus each package's data files.

    Data files are the non-Python files of a reached package and of its
    folders that are not packages (contextpull_vec's shipped embedding table changes
    search results as surely as code does).
    """
    root = source_root() if root is None else root
    seen: dict[str, Path] = {}
    pending = [parent for name in roots for parent in _with_parents(name)]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        file = _module_file(root, name)
        if file is None:
            raise RuntimeError(f"fingerprint root or import {name} is not a module under {root}")
        seen[name] = file
        pending += [parent for module in _imported(root, name, file) for parent in _with_parents(module)]
    files = {file.relative_to(root).as_posix(): file for file in seen.values()}
    for file in list(seen.values()):
        if file.name == "__init__.py":
            files.update(_data_files(root, file.parent))
    return dict(sorted(files.items()))


def _data_files(root: Path, package: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for path in sorted(package.iterdir()):
        if path.is_file() and path.suffix not in (".py", ".pyc"):
            found[path.relative_to(root).as_posix()] = path
        elif path.is_dir() and path.name != "__pycache__" and not (path / "__init__.py").exists():
            found.update(
                (f.relative_to(root).as_posix(), f)
                for f in sorted(path.rglob("*"))
                if f.is_file() and "__pycache__" not in f.parts
            )
    return found


def file_hashes(root: Path | None = None) -> dict[str, str]:
    """Every fingerprinted file → the first 16 hex digits of its SHA-256."""
    return {name: hashlib.sha256(path.read_bytes()).hexdigest()[:16] for name, path in walk(root).items()}


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


def shown(store: Store) -> dict[str, str]:
    """Hashes of what the model is shown over a store with this index: the index, the instructions, the tool schemas.

    Recorded beside the fingerprint and checked again by a replay, so a run
    whose agent would now see other text refuses even if no file hash
    caught the cause (a data file, a library the text passes through).
    """
    from ..tools.instructions import store_instructions
    from ..tools.schemas import TOOLS
    from .pull_record import text_hash

    return {
        "index": text_hash(store.index_text)[:16],
        "instructions": text_hash(store_instructions(store))[:16],
        "tools": text_hash(json.dumps(TOOLS, sort_keys=True))[:16],
    }


def of_store(store_path: Path) -> tuple[Fingerprint, dict[str, str]]:
    """:func:`current` for the store at ``store_path`` (an older store without the meta key reads ``none``),
    and :func:`shown` for its index, from one opening of the store."""
    from ..store import Store

    with Store.open(store_path) as store:
        return current(store.meta(ANALYSIS_META_KEY)), shown(store)
