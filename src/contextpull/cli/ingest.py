"""``contextpull ingest DIR``: build or update the store for a folder."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..ingest import IngestReport, Progress, ingest
from ..settings import SectionSettings
from .common import STORE_ENV, add_json_option, emit

#: below this many files to parse no progress bar is shown
_PROGRESS_MIN_FILES = 200
_EXAMPLES_PER_REASON = 3


def register(subparsers: argparse._SubParsersAction) -> None:
    defaults = SectionSettings()
    parser = subparsers.add_parser(
        "ingest",
        help="build or update the store for a folder of documents",
        description="Discover, section and store every document under DIR. Unchanged files "
        "are not re-read; an unchanged corpus writes nothing.",
    )
    parser.add_argument("dir", metavar="DIR", type=Path, help="the corpus folder")
    parser.add_argument(
        "--store",
        metavar="PATH",
        type=Path,
        help=f"store file (default: ${STORE_ENV}, then DIR/.contextpull/store.sqlite)",
    )
    parser.add_argument(
        "--max-depth",
        type=int,
        default=defaults.max_depth,
        metavar="N",
        help=f"deepest heading level that starts a section (default {defaults.max_depth})",
    )
    parser.add_argument(
        "--max-chars",
        type=int,
        default=defaults.max_chars,
        metavar="N",
        help=f"split sections longer than this (default {defaults.max_chars})",
    )
    parser.add_argument(
        "--min-chars",
        type=int,
        default=defaults.min_chars,
        metavar="N",
        help=f"merge fragments shorter than this (default {defaults.min_chars})",
    )
    parser.add_argument(
        "--index-budget",
        type=int,
        default=3000,
        metavar="N",
        help="token budget of the index text (default 3000)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=0,
        metavar="N",
        help="parser processes (default 0: one per CPU for large corpora)",
    )
    add_json_option(parser)
    parser.set_defaults(func=run, parser=parser)


def run(args: argparse.Namespace) -> int:
    parser: argparse.ArgumentParser = args.parser
    try:
        settings = SectionSettings(args.max_depth, args.max_chars, args.min_chars)
    except ValueError as err:
        parser.error(str(err))
    if args.index_budget < 0 or args.jobs < 0:
        parser.error("--index-budget and --jobs must be 0 or more")
    store = args.store or (Path(os.environ[STORE_ENV]) if os.environ.get(STORE_ENV) else None)
    with _progress_bar() as progress:
        report = ingest(
            args.dir,
            store,
            settings,
            index_budget=args.index_budget,
            progress=progress,
            workers=args.jobs,
        )
    emit(args, report.to_dict(), lambda _: render(report))
    return 0


@contextmanager
def _progress_bar() -> Iterator[Progress]:
    """A rich bar on stderr, shown only on a terminal and only for many files."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    from rich.console import Console
    from rich.progress import Progress as Bar

    with Bar(console=Console(stderr=True), transient=True) as bar:
        task = None

        def update(done: int, total: int) -> None:
            nonlocal task
            if total < _PROGRESS_MIN_FILES:
                return
            if task is None:
                task = bar.add_task("ingesting", total=total)
            bar.update(task, completed=done)

        yield update


def render(report: IngestReport) -> str:
    lines = [
        f"{report.store}: {report.documents:,} documents, {report.sections:,} sections"
        + ("" if report.wrote else " (corpus unchanged, nothing written)"),
        f"  seen {report.documents_seen:,}: added {report.added:,}, changed {report.changed:,},"
        f" unchanged {report.unchanged:,}, deleted {report.deleted:,};"
        f" {report.sections_written:,} sections written in {report.elapsed_s:.2f}s",
        f"  index: {report.index_mode}, {report.index_tokens:,} tokens;"
        f" corpus {report.fingerprint[:12]}",
    ]
    by_reason: dict[str, list[str]] = {}
    for path, reason in report.skipped:
        by_reason.setdefault(reason, []).append(path)
    for reason, paths in sorted(by_reason.items()):
        shown = ", ".join(paths[:_EXAMPLES_PER_REASON])
        more = (
            f", … {len(paths) - _EXAMPLES_PER_REASON:,} more"
            if len(paths) > _EXAMPLES_PER_REASON
            else ""
        )
        lines.append(f"  skipped {len(paths):,} ({reason}): {shown}{more}")
    return "\n".join(lines)
