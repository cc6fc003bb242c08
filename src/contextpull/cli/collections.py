"""``contextpull collections``: the named collections, what each holds and where it came from."""

from __future__ import annotations

import argparse
from typing import Any

from ..paths import data_home
from ..store.collections import known_collections, remove
from .common import add_json_option, emit
from .stores import describe


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "collections",
        help="list the named collections (made by `ingest --collection`), or remove one",
        description="List every collection: its name and version, sections, source, base URL and store "
        f"(kept in {data_home() / 'collections'}). `contextpull serve --collections` serves them all.",
    )
    parser.add_argument(
        "--remove", metavar="NAME[@VERSION]", help="delete this collection's store (its source folder stays)"
    )
    add_json_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.remove:
        gone = remove(args.remove)
        emit(args, {"removed": gone.to_dict()}, lambda _: f"removed collection {gone.key} ({gone.store})")
        return 0
    rows = []
    for entry in known_collections():
        row = {**entry.to_dict(), **describe(entry.store, entry.corpus, entry.ingested_at)}
        rows.append(row)
    emit(args, {"collections": rows}, _render)
    return 0


def _render(data: dict[str, Any]) -> str:
    rows = data["collections"]
    if not rows:
        return "no collections yet: run `contextpull ingest DIR_OR_URL --collection NAME[@VERSION]`"
    lines = []
    for row in rows:
        state = row.get("problem") or f"{row.get('sections', 0):,} sections in {row.get('documents', 0):,} documents"
        lines.append(f"{row['key']}  ({state})")
        lines.append(f"    from {row['source'] or row['corpus']}")
        if row["base_url"]:
            lines.append(f"    cited as {row['base_url']}")
        lines.append(f"    {row['store']}")
    return "\n".join(lines)
