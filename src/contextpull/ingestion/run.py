"""Folder in, store out: discover, decode, section and write in one transaction.

Guarantees:

* all or nothing: readers see the previous corpus or the new one, never a
  mix, and an ingest that dies at any point leaves the previous store as it
  was (see :mod:`contextpull.store.writer`);
* incremental: a file whose bytes (sha256) and section settings are
  unchanged is neither parsed nor rewritten; changed files are replaced,
  vanished ones removed; other settings re-section every document, and a
  store indexed by another term analysis (``terms.ANALYSIS_VERSION``) is
  rebuilt like a store in another format;
* an unchanged corpus (same files, same bytes, same settings and index
  budget) opens no write transaction at all: the store file is not touched
  and the index text is byte-identical;
* every file left out is reported with a reason; nothing in the corpus can
  make an ingest crash;
* a damaged store (SQLite's ``quick_check`` fails, or a page errors while
  writing) is renamed aside, kept for inspection, and rebuilt from the corpus.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .._version import __version__
from ..analysis.terms import ANALYSIS_VERSION
from ..contents.index import DEFAULT_BUDGET, build_index
from ..contents.links import META_KEY as LINKS_META_KEY
from ..contents.links import Links
from ..contents.summaries import META_KEY as SUMMARIES_META_KEY
from ..contents.summaries import OFFLINE, Summariser, one_line
from ..errors import FormatVersionError, StoreCorrupt, StoreOfAnotherCorpus
from ..parse.formats import parsers_fingerprint
from ..paths import DEFAULT_STORE, default_store_path
from ..settings import DEFAULT_MAX_SECONDS, SectionSettings
from ..store.connection import Store
from ..store.damage import damage_reported
from ..store.writer import StoreWriter
from . import vectors
from .analyse import Analysed, TimeBudget, analyse_all, default_workers
from .carry import Carried, carried_from
from .discover import FoundFile, discover
from .limits import FileSkipped, digest_file

DEFAULT_SETTINGS = SectionSettings()

Progress = Callable[[int, int], None]
#: appended to a model's name in the index header once an ingest without it summarised changed documents
_SINCE = ", offline for documents changed since"


@dataclass
class IngestReport:
    """What one ingest saw and did; ``to_dict()`` is the CLI's ``--json`` shape."""

    root: str
    store: str
    documents_seen: int = 0  # files of a supported type found
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    deleted: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    sections_written: int = 0
    documents: int = 0  # in the store afterwards
    sections: int = 0
    index_mode: str = ""
    index_tokens: int = 0
    fingerprint: str = ""
    wrote: bool = False  # False when the corpus was unchanged and nothing was written
    embed_model: str = ""  # the model of the store's section vectors; "" without vectors
    vectors: int = 0  # sections with a vector afterwards
    vectors_embedded: int = 0  # embedded by this ingest
    vectors_reused: int = 0  # re-stored sections that kept their vector (same heading path and text)
    set_aside: str = ""  # where a damaged store was moved before this ingest rebuilt it
    rebuilt: str = ""  # why the store was rebuilt from its files (another analysis or format version)
    elapsed_s: float = 0.0

    def skipped_by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(reason for _, reason in self.skipped).items()))

    def to_dict(self) -> dict[str, Any]:
        data = {k: v for k, v in self.__dict__.items() if k != "skipped"}
        data["skipped"] = [{"path": p, "reason": r} for p, r in self.skipped]
        data["skipped_by_reason"] = self.skipped_by_reason()
        data["elapsed_s"] = round(self.elapsed_s, 3)
        return data


@dataclass(frozen=True)
class IngestOptions:
    """Everything an ingest can be asked besides the folder and the store, with the defaults.

    One value the CLI, the server, the bench and the library build once and
    pass through, instead of each threading a dozen keywords; :func:`ingest`
    keeps its keywords for callers of the library and builds one of these.
    Fields are as :func:`ingest` documents them.
    """

    settings: SectionSettings = DEFAULT_SETTINGS
    index_budget: int = DEFAULT_BUDGET
    progress: Progress | None = None
    workers: int = 1
    embed: vectors.EmbedSpec | None = None
    reembed: bool = False
    embed_progress: Progress | None = None
    replace: bool = False
    summarise: Summariser | None = None
    max_seconds: float | None = DEFAULT_MAX_SECONDS
    #: where the sections can be opened (contextpull/contents/links.py); None keeps what the store has
    links: Links | None = None


def ingest(
    root: Path,
    store_path: Path | None = None,
    settings: SectionSettings = DEFAULT_SETTINGS,
    *,
    index_budget: int = DEFAULT_BUDGET,
    progress: Progress | None = None,
    workers: int = 1,
    embed: vectors.EmbedSpec | None = None,
    reembed: bool = False,
    embed_progress: Progress | None = None,
    replace: bool = False,
    summarise: Summariser | None = None,
    max_seconds: float | None = DEFAULT_MAX_SECONDS,
    links: Links | None = None,
) -> IngestReport:
    """Bring the store at ``store_path`` (default ``root/.contextpull/store.sqlite``)
    up to date with the documents under ``root``.

    ``progress(done, total)`` is called after each file that is parsed; an
    exception it raises aborts the ingest and leaves the store unchanged.
    ``workers > 1`` parses in that many processes (0: one per CPU when the
    job is large enough to gain); the result does not depend on it. It uses
    multiprocessing, so a calling script needs the usual
    ``if __name__ == "__main__":`` guard; the default stays in-process.

    ``embed`` (a spec such as ``"static"``, ``"minilm"``, ``"openai:<model>"``,
    or an embedder) keeps one vector per section; a store that has vectors
    keeps them current with its own model whether or not ``embed`` is given,
    and refuses another model unless ``reembed`` (re-embed every section).
    ``embed_progress(done, total)`` follows the sections being embedded.

    ``summarise`` writes each new or changed document's index line (a model,
    handed in by a surface); a store summarised by another writes every
    line again. Without it, documents get the offline summary and a store
    keeps the summaries it has. A store remembers the folder it was built
    from; ingesting another folder into it raises
    :class:`StoreOfAnotherCorpus` unless ``replace``. ``links`` (a base URL
    and page URLs, :class:`~contextpull.contents.links.Links`) make every result
    carry its section's URL; without them the store keeps the links it has.
    Raises :class:`UnreadableCorpus`, :class:`StoreLocked`, :class:`NotAStore`,
    and the :class:`EmbeddingError` family.
    """
    options = IngestOptions(
        settings,
        index_budget,
        progress,
        workers,
        embed,
        reembed,
        embed_progress,
        replace,
        summarise,
        max_seconds,
        links,
    )
    return ingest_with(root, store_path, options)


def ingest_with(root: Path, store_path: Path | None = None, options: IngestOptions = IngestOptions()) -> IngestReport:
    """:func:`ingest` with its options as one value (what the surfaces call)."""
    started = time.perf_counter()
    budget = TimeBudget.from_now(options.max_seconds) if options.max_seconds is not None else None
    root = Path(root)
    store_path = Path(store_path) if store_path is not None else default_store_path(root)
    report = IngestReport(root=str(root), store=str(store_path))
    found = discover(root, exclude=_store_files(store_path))
    report.skipped.extend(found.skipped)
    report.documents_seen = len(found.files)
    hashes: dict[str, str] = {}
    for f in found.files:
        try:
            hashes[f.path] = digest_file(f.location, options.settings.limits)
        except FileSkipped as err:
            report.skipped.append((f.path, err.reason))
    files = [f for f in found.files if f.path in hashes]
    seen_skips = list(report.skipped)
    try:
        try:
            state = _StoredState.load(store_path)
        except FormatVersionError as err:
            state, report.rebuilt = None, err.message
        carried = carried_from(store_path) if report.rebuilt else Carried()
        meta = state.meta if state is not None else carried.meta
        if not options.replace:
            _check_same_corpus(state.meta.get("corpus_root") if state else carried.corpus_root, root, store_path)
        job = vectors.plan(options.embed, meta, str(store_path), reembed=options.reembed)
        summaries = options.summarise.name if options.summarise is not None else None
        unchanged = state is not None and state.matches(
            hashes, options.settings, options.index_budget, corpus_root(root), summaries, options.links
        )
        if unchanged and state is not None and vectors.up_to_date(job, meta):
            _report_unchanged(report, state, files)
        else:
            _write(report, store_path, files, hashes, _WritePlan(options, job, corpus_root(root), budget, carried))
    except StoreCorrupt:
        kept = _set_aside(store_path)
        report = IngestReport(root=str(root), store=str(store_path), skipped=seen_skips, set_aside=str(kept))
        report.documents_seen = len(found.files)
        job = vectors.plan(options.embed, {}, str(store_path), reembed=options.reembed)
        _write(report, store_path, files, hashes, _WritePlan(options, job, corpus_root(root), budget))
    report.skipped.sort()
    report.elapsed_s = time.perf_counter() - started
    return report


def corpus_root(root: Path) -> str:
    """The absolute folder a store records as its corpus."""
    return str(Path(root).resolve())


def _check_same_corpus(recorded: str | None, root: Path, store_path: Path) -> None:
    """Refuse to put ``root`` into a store of another folder.

    A store inside the folder itself (``root/.contextpull/``) moves and is
    copied with it, so there a different recorded root means the folder
    moved: the store is its own and the new root is recorded.
    """
    if store_path.resolve() == (root / DEFAULT_STORE).resolve():
        return
    if recorded and recorded != corpus_root(root):
        raise StoreOfAnotherCorpus(
            f"{store_path} holds the corpus of {recorded}, not {corpus_root(root)}",
            "pass --replace to replace it, or --store PATH for a store of its own",
        )


def _set_aside(store_path: Path) -> Path:
    """Rename a damaged store (and its WAL files) to ``<name>.damaged-<UTC time>``; return the new path."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    kept = store_path.with_name(f"{store_path.name}.damaged-{stamp}")
    for suffix in ("-wal", "-shm"):
        side = store_path.with_name(store_path.name + suffix)
        if side.exists():
            os.replace(side, kept.with_name(kept.name + suffix))
    os.replace(store_path, kept)
    return kept


def _store_files(store_path: Path) -> list[Path]:
    name = store_path.name
    return [store_path.with_name(name + s) for s in ("", "-wal", "-shm", ".lock", ".building")]


def corpus_fingerprint(document_hashes: dict[str, str]) -> str:
    """sha256 over the sorted (path, content hash) pairs of the stored documents."""
    digest = hashlib.sha256()
    for path in sorted(document_hashes):
        digest.update(f"{path}\t{document_hashes[path]}\n".encode())
    return digest.hexdigest()


@dataclass
class _StoredState:
    """What the existing store says about the corpus, read without a write lock."""

    documents: dict[str, str]  # path -> sha256
    skipped: dict[str, tuple[str, str]]  # path -> (sha256, reason)
    meta: dict[str, str]

    @classmethod
    def load(cls, store_path: Path) -> _StoredState | None:
        if not store_path.exists():
            return None
        store = Store.open(store_path)  # FormatVersionError: the caller has the writer rebuild it
        with store, damage_reported(store_path):
            if not store.intact():
                raise StoreCorrupt(f"{store_path} failed SQLite's quick_check")
            return cls(store.document_hashes(), store.skipped_files(), store.all_meta())

    def matches(
        self,
        hashes: dict[str, str],
        settings: SectionSettings,
        budget: int,
        root: str,
        summaries: str | None,
        links: Links | None = None,
    ) -> bool:
        known = {**self.documents, **{p: h for p, (h, _) in self.skipped.items()}}
        return (
            self.meta.get("corpus_root") == root
            and (summaries is None or self.meta.get(SUMMARIES_META_KEY) == summaries)
            and (links is None or self.meta.get(LINKS_META_KEY) == links.to_meta())
            and self.meta.get("settings") == settings.fingerprint()
            and self.meta.get("parsers") == parsers_fingerprint()
            and self.meta.get("index_budget") == str(budget)
            and known == hashes
        )


def _report_unchanged(report: IngestReport, state: _StoredState, files: list[FoundFile]) -> None:
    report.unchanged = sum(1 for f in files if f.path in state.documents)
    report.skipped.extend((p, r) for p, (_, r) in state.skipped.items())
    report.documents = int(state.meta.get("document_count", 0))
    report.sections = int(state.meta.get("section_count", 0))
    report.index_mode = state.meta.get("index_mode", "")
    report.index_tokens = int(state.meta.get("index_tokens", 0))
    report.fingerprint = state.meta.get("corpus_fingerprint", "")
    report.embed_model = state.meta.get(vectors.META_MODEL, "")
    report.vectors = int(state.meta.get(vectors.META_COUNT, 0))


@dataclass(frozen=True)
class _WritePlan:
    """How a write sections, indexes, embeds and summarises: what ``ingest`` was asked, and what it found."""

    options: IngestOptions
    job: vectors.VectorJob | None
    root: str
    budget: TimeBudget | None
    carried: Carried = field(default_factory=Carried)  # what a rebuild keeps of the store it replaces


def _write(
    report: IngestReport, store_path: Path, files: list[FoundFile], hashes: dict[str, str], plan: _WritePlan
) -> None:
    """Apply the corpus to the store in one transaction (or one new file)."""
    options = plan.options
    settings, index_budget, progress, workers = (
        options.settings,
        options.index_budget,
        options.progress,
        options.workers,
    )
    with StoreWriter(store_path) as writer:
        if writer.fresh:
            writer.set_meta(plan.carried.meta)  # the kept vectors' model and size, summariser, links
            writer.keep_for_reuse(plan.carried.vectors, plan.carried.summaries)
        previous = writer.document_hashes()
        parsers = parsers_fingerprint()
        stored_summaries = writer.meta(SUMMARIES_META_KEY) or OFFLINE
        summaries = options.summarise.name if options.summarise is not None else stored_summaries
        if (
            writer.meta("settings") != settings.fingerprint()
            or writer.meta("parsers") != parsers
            or summaries != stored_summaries
        ):
            writer.clear()  # other section boundaries, parsers or summariser: every document is done again
        todo = _plan(writer, report, files, hashes)
        # A line kept from a clear or a rebuild is reused only when this ingest's summariser wrote it.
        reuse = summaries == stored_summaries != OFFLINE
        offline_lines = False
        report.deleted = len(previous.keys() - hashes.keys())
        if workers == 0:
            workers = default_workers(todo)
        analysed = analyse_all(todo, settings, workers=workers, budget=plan.budget)
        try:
            for done, result in enumerate(analysed, 1):
                result, offline = _with_index_line(writer, result, options.summarise, reuse)
                offline_lines |= offline
                _store_analysed(writer, report, result, is_new=result.path not in previous)
                if progress is not None:
                    progress(done, len(todo))
        finally:
            analysed.close()
        if options.summarise is None and offline_lines and summaries != OFFLINE and not summaries.endswith(_SINCE):
            summaries += _SINCE  # the header must not credit the model with lines it did not write
        documents = writer.documents()
        fingerprint = corpus_fingerprint(writer.document_hashes())
        index = build_index(documents, fingerprint=fingerprint, budget=index_budget, summaries=summaries)
        report.documents = len(documents)
        report.sections = sum(d.section_count for d in documents)
        vector_meta: dict[str, str] = {}
        if plan.job is not None:
            done_vectors, vector_meta = vectors.update(writer, plan.job, options.embed_progress)
            report.embed_model = done_vectors.model
            report.vectors_embedded, report.vectors_reused = done_vectors.embedded, done_vectors.reused
            report.vectors = done_vectors.count
        link_meta = {LINKS_META_KEY: options.links.to_meta()} if options.links is not None else {}
        writer.set_meta(
            {
                **vector_meta,
                **link_meta,
                "contextpull_version": __version__,
                "corpus_root": plan.root,
                SUMMARIES_META_KEY: summaries,
                "settings": settings.fingerprint(),
                "analysis_version": ANALYSIS_VERSION,
                "parsers": parsers,
                "corpus_fingerprint": fingerprint,
                "index_text": index.text,
                "index_mode": index.mode,
                "index_tokens": str(index.tokens),
                "index_budget": str(index_budget),
                "section_count": str(report.sections),
                "document_count": str(report.documents),
            }
        )
        writer.commit()
    report.wrote = True
    report.index_mode, report.index_tokens = index.mode, index.tokens
    report.fingerprint = fingerprint


def _with_index_line(
    writer: StoreWriter, result: Analysed, summarise: Summariser | None, reuse: bool
) -> tuple[Analysed, bool]:
    """``result`` with its document's index line, and whether that line is the offline one.

    The line a cleared or rebuilt store had for the same bytes is kept when
    ``reuse`` (the same summariser wrote it), so re-sectioning or an upgrade
    neither calls the model again nor falls back to offline lines.
    """
    doc = result.document
    if doc is None:
        return result, False
    kept = writer.kept_summary(result.path, result.content_hash) if reuse else None
    if kept is not None:
        return dataclasses.replace(result, document=dataclasses.replace(doc, summary=kept)), False
    if summarise is None:
        return result, True
    text = "".join(section.text for section in doc.sections)  # sections tile the text (analysis drops doc.text)
    line = one_line(doc.title, summarise(doc.path, doc.title, text))
    return dataclasses.replace(result, document=dataclasses.replace(doc, summary=line)), False


def _plan(writer: StoreWriter, report: IngestReport, files: list[FoundFile], hashes: dict[str, str]) -> list[FoundFile]:
    """Remove vanished files; return the files whose bytes are new or changed."""
    stored = writer.document_hashes()
    skips = writer.skipped_files()
    for path in sorted({*stored, *skips} - hashes.keys()):
        writer.remove(path)
    todo = []
    for f in files:
        before = stored.get(f.path) or skips.get(f.path, ("", ""))[0]
        if before != hashes[f.path]:
            todo.append(f)
        elif f.path in stored:
            report.unchanged += 1
        else:
            report.skipped.append((f.path, skips[f.path][1]))  # unchanged and still skipped
    return todo


def _store_analysed(writer: StoreWriter, report: IngestReport, result: Analysed, *, is_new: bool) -> None:
    """Store one analysed file, or record why it is left out."""
    doc = result.document
    if result.deferred:
        report.skipped.append((result.path, result.reason))  # the store keeps what it had for it
        return
    if doc is None:
        if result.content_hash:
            writer.record_skip(result.path, result.content_hash, result.reason)
        else:
            writer.remove(result.path)  # unreadable: nothing to remember it by
        report.skipped.append((result.path, result.reason))
        if not is_new:
            report.deleted += 1  # it was a stored document until now
        return
    writer.put(doc, result.content_hash, result.size, result.fts)
    report.sections_written += len(doc.sections)
    if is_new:
        report.added += 1
    else:
        report.changed += 1
