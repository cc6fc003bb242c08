"""Which files under a corpus root are documents, in a fixed order.

Guarantees: the walk is recursive and deterministic (results sorted by
POSIX relative path); hidden files and folders (names starting with ``.``)
are left out, and so is the source copy Sphinx ships of each page it built
(``_sources/``); ``.contextpullignore`` files apply gitignore semantics to
their own folder and below (negation, directory patterns, deeper files
overriding shallower ones; a file inside an ignored folder cannot be
re-included, as in git); a symlink is followed only when its target lies
inside the root, and a folder is entered at most once, so symlink loops
end. Files of a type no parser reads, unreadable folders, refused
symlinks, non-regular files (FIFOs, sockets, devices) and ignore rules that
are not valid patterns are reported with a reason instead of failing the
walk. Paths are stored as :func:`contextpull.analysis.names.corpus_path` gives them
(printable, reversible), whatever bytes the file system holds.
"""

from __future__ import annotations

import os
import stat as stat_kinds
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..analysis.names import corpus_path
from ..errors import UnreadableCorpus
from ..parse.formats import format_for

IGNORE_FILE = ".contextpullignore"

UNSUPPORTED = "unsupported file type"
OUTSIDE_ROOT = "symlink points outside the corpus"
BROKEN_LINK = "broken symlink"
SEEN_FOLDER = "symlink to a folder already included (loop or duplicate)"
UNREADABLE_FOLDER = "folder cannot be listed"
SOURCE_COPY = "Sphinx's copy of the source of a page built beside it"
_NOT_REGULAR = {
    stat_kinds.S_IFIFO: "FIFO",
    stat_kinds.S_IFSOCK: "socket",
    stat_kinds.S_IFCHR: "character device",
    stat_kinds.S_IFBLK: "block device",
}


@dataclass(frozen=True)
class FoundFile:
    """A file a parser can read: its corpus path and where it is on disk."""

    path: str  # POSIX, relative to the corpus root; the document's id prefix
    location: Path
    format: str  # a name from contextpull.parse.formats.FORMATS


@dataclass
class Discovery:
    files: list[FoundFile] = field(default_factory=list)
    #: (path, reason) for each file or folder left out for a reason worth reporting
    skipped: list[tuple[str, str]] = field(default_factory=list)


if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

_Spec = tuple[str, "GitIgnoreSpec"]  # (folder prefix "a/b/", spec)
#: the suffixes of the sources Sphinx copies into ``_sources`` (``.rst.txt``, MyST's ``.md.txt``, ``.ipynb.txt``)
_SOURCE_SUFFIXES = frozenset({"rst", "md", "ipynb", "txt"})


def discover(root: Path, *, exclude: Iterable[Path] = ()) -> Discovery:
    """Find every document under ``root``; ``exclude`` lists files to pass over silently.

    Raises :class:`UnreadableCorpus` when ``root`` is missing, not a folder
    or cannot be listed.
    """
    try:
        real_root = Path(os.path.realpath(root))
        stat = real_root.stat()
    except OSError as err:
        raise _unreadable(root, err.strerror or str(err)) from None
    if not real_root.is_dir():
        raise _unreadable(root, "not a folder")
    walk = _Walk(real_root, {os.path.realpath(p) for p in exclude})
    walk.seen.add((stat.st_dev, stat.st_ino))
    try:
        entries = _list(real_root)
    except OSError as err:
        raise _unreadable(root, err.strerror or str(err)) from None
    walk.folder(real_root, "", entries, [])
    walk.result.files, copies = _without_source_copies(walk.result.files)
    walk.result.skipped.extend((f.path, SOURCE_COPY) for f in copies)
    walk.result.files.sort(key=lambda f: f.path)
    walk.result.skipped.sort()
    return walk.result


def _without_source_copies(files: list[FoundFile]) -> tuple[list[FoundFile], list[FoundFile]]:
    """``files`` without the source copies of pages built beside them, and those copies.

    Sphinx ships each page's source next to the HTML it builds from it
    (``_sources/ch-files.rst.txt`` for ``ch-files.html``): the same text
    twice, once as markup, so every hit would come with its twin. A copy
    whose page is not in the folder is kept: it is the only text there is.
    """
    built = {f.path for f in files if f.format == "html"}
    kept: list[FoundFile] = []
    copies: list[FoundFile] = []
    for found in files:
        page = _built_page(found.path)
        (copies if page is not None and page in built else kept).append(found)
    return kept, copies


def _built_page(path: str) -> str | None:
    """The HTML page Sphinx builds from the source copy at ``path`` (``_sources/a/b.rst.txt`` → ``a/b.html``)."""
    parts = path.split("/")
    if "_sources" not in parts[:-1] or not parts[-1].endswith(".txt"):
        return None
    at = parts.index("_sources")
    stem = parts[-1].removesuffix(".txt")
    base, dot, suffix = stem.rpartition(".")
    if dot and suffix in _SOURCE_SUFFIXES:
        stem = base
    return "/".join([*parts[:at], *parts[at + 1 : -1], stem + ".html"])


def _unreadable(root: Path, why: str) -> UnreadableCorpus:
    return UnreadableCorpus(
        f"cannot read corpus folder {root}: {why}",
        "pass an existing folder you can read",
    )


def _list(folder: Path) -> list[os.DirEntry[str]]:
    with os.scandir(folder) as it:
        return sorted(it, key=lambda e: e.name)


def _inside(path: str, root: Path) -> bool:
    return os.path.commonpath([path, root]) == str(root)


class _Walk:
    def __init__(self, root: Path, exclude: set[str]) -> None:
        self.root = root
        self.exclude = exclude
        #: only a file with one of these names, or a symlink, can be an excluded file: the others
        #: need no realpath (a system call per path component, for every file of the corpus)
        self.exclude_names = {os.path.basename(p) for p in exclude}
        self.seen: set[tuple[int, int]] = set()
        self.result = Discovery()

    def folder(self, location: Path, prefix: str, entries: list[os.DirEntry[str]], specs: list[_Spec]) -> None:
        if any(e.name == IGNORE_FILE for e in entries):
            spec, refused = _read_spec(location / IGNORE_FILE)
            specs = [*specs, (prefix, spec)]
            where = corpus_path(prefix + IGNORE_FILE)
            self.result.skipped.extend((where, f"line {n}: not a valid pattern ({line!r})") for n, line in refused)
        for entry in entries:
            if entry.name.startswith("."):
                continue
            self.entry(entry, prefix + entry.name, specs)

    def entry(self, entry: os.DirEntry[str], rel: str, specs: list[_Spec]) -> None:
        target = entry.path
        if entry.is_symlink():
            target = os.path.realpath(entry.path)
            if not _inside(target, self.root):
                self.result.skipped.append((corpus_path(rel), OUTSIDE_ROOT))
                return
            if not os.path.exists(target):
                self.result.skipped.append((corpus_path(rel), BROKEN_LINK))
                return
        if entry.is_dir():
            self.subfolder(Path(entry.path), rel, specs, linked=target != entry.path)
        elif _ignored(rel, specs):
            return
        elif entry.is_file():
            if self.excluded(entry, target):
                return
            fmt = format_for(rel)
            if fmt is None:
                self.result.skipped.append((corpus_path(rel), UNSUPPORTED))
            else:
                self.result.files.append(FoundFile(corpus_path(rel), Path(entry.path), fmt))
        else:
            self.result.skipped.append((corpus_path(rel), _not_regular(entry)))

    def excluded(self, entry: os.DirEntry[str], target: str) -> bool:
        """True for a file to pass over silently (the store's own files)."""
        if target != entry.path:  # a symlink, already resolved
            return target in self.exclude
        return entry.name in self.exclude_names and os.path.realpath(entry.path) in self.exclude

    def subfolder(self, location: Path, rel: str, specs: list[_Spec], *, linked: bool) -> None:
        if _ignored(rel + "/", specs):
            return
        stat = location.stat()
        key = (stat.st_dev, stat.st_ino)
        if key in self.seen:
            if linked:
                self.result.skipped.append((corpus_path(rel + "/"), SEEN_FOLDER))
            return
        self.seen.add(key)
        try:
            entries = _list(location)
        except OSError:
            self.result.skipped.append((corpus_path(rel + "/"), UNREADABLE_FOLDER))
            return
        self.folder(location, rel + "/", entries, specs)


def _not_regular(entry: os.DirEntry[str]) -> str:
    """Why a directory entry that is neither a folder nor a regular file is left out."""
    try:
        mode = entry.stat().st_mode
    except OSError as err:
        return f"cannot stat file ({err.strerror or err})"
    kind = _NOT_REGULAR.get(stat_kinds.S_IFMT(mode), "special file")
    return f"not a regular file ({kind})"


def _read_spec(path: Path) -> tuple[GitIgnoreSpec, list[tuple[int, str]]]:
    """The rules of one ignore file, and ``(line number, line)`` of each rule that is no valid pattern.

    git passes over a pattern it cannot read (``!``, a trailing ``\\``); so do we,
    reporting it, instead of failing the whole ingest. pathspec is imported
    here: most corpora have no ignore file, and it costs about 10 ms to load.
    """
    import pathspec

    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        lines = []
    valid: list[str] = []
    refused: list[tuple[int, str]] = []
    for number, line in enumerate(lines, 1):
        try:
            pathspec.GitIgnoreSpec.from_lines([line])
        except ValueError:
            refused.append((number, line))
            continue
        valid.append(line)
    return pathspec.GitIgnoreSpec.from_lines(valid), refused


def _matchable(rel: str) -> str:
    try:
        rel.encode("utf-8")
    except UnicodeEncodeError:
        return rel.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return rel


def _ignored(rel: str, specs: list[_Spec]) -> bool:
    """gitignore decision for ``rel``: the deepest ignore file with a matching rule wins.

    A name that is not UTF-8 reaches here with surrogate escapes, which
    pathspec's regex engine cannot encode; each such byte is matched as one
    U+FFFD character, so ``?`` and ``*`` match it as git's byte matching does.
    """
    if not specs:
        return False
    rel = _matchable(rel)
    for folder, spec in reversed(specs):
        base = _matchable(folder)
        if not rel.startswith(base):
            continue
        decision = spec.check_file(rel[len(base) :]).include
        if decision is not None:
            return decision
    return False
