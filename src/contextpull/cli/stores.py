"""``contextpull stores``: the stores ingests have made, and which folder each holds."""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from ..errors import ContextPullError
from ..paths import data_home, known_stores
from ..store import Store
from .common import add_json_option, emit


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "stores",
        help="list the stores ingests have made (corpus folder, sections, size, age)",
        description="List every store `contextpull ingest` or `contextpull serve DIR` wrote, most recent "
        f"first: the corpus folder, the store file, its sections, size and age. Kept in {data_home()}.",
    )
    add_json_option(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    rows = [describe(entry.store, entry.corpus, entry.ingested_at) for entry in known_stores()]
    emit(args, {"stores": rows}, _render)
    return 0


def describe(store: str, corpus: str, ingested_at: float) -> dict[str, Any]:
    """A store's row: its file, corpus and age, and its sections, documents and size when it can be read."""
    path = Path(store)
    row: dict[str, Any] = {"corpus": corpus, "store": store, "ingested_at": ingested_at, "exists": path.is_file()}
    if not row["exists"]:
        return row
    row["bytes"] = sum(p.stat().st_size for p in (path, path.with_name(path.name + "-wal")) if p.is_file())
    try:
        with Store.open(path) as opened:
            row["sections"] = int(opened.meta("section_count") or 0)
            row["documents"] = int(opened.meta("document_count") or 0)
    except ContextPullError as err:
        row["problem"] = err.message
    return row


def _render(data: dict[str, Any]) -> str:
    rows = data["stores"]
    if not rows:
        return "no stores yet: run `contextpull ingest DIR`"
    lines = []
    for row in rows:
        if not row["exists"]:
            state = "store file gone"
        elif "problem" in row:
            state = row["problem"]
        else:
            count = row["sections"]
            state = f"{count:,} section{'' if count == 1 else 's'}, {_size(row['bytes'])}"
        lines.append(f"{row['corpus']}\n    {row['store']}  ({state}; ingested {_age(row['ingested_at'])} ago)")
    return "\n".join(lines)


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB"):
        if value < 1024:
            return f"{value:.0f} {unit}"
        value /= 1024
    return f"{value:.1f} GB"


def _age(at: float) -> str:
    seconds = max(0.0, time.time() - at)
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f} {unit}"
    return f"{seconds:.0f} s"
