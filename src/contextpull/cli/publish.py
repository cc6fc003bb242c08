"""``contextpull publish``: a store as an artifact that replicas fetch, verify and follow."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .common import add_json_option, emit, resolve_store_path


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    publish = subparsers.add_parser(
        "publish",
        help="write a store as an artifact (one verified file and its manifest) for replicas to serve",
        description=(
            "Copy STORE into the folder DEST as store-<sha>.sqlite and write DEST/manifest.json naming it with"
            " its SHA-256, size and corpus fingerprint. Serve DEST with any static web server and start"
            " replicas with `contextpull serve --store URL`; publishing again rolls every replica over to"
            " the new store, with calls in flight finishing on the old one (docs/scaling.md)."
        ),
    )
    publish.add_argument("store", nargs="?", metavar="STORE", help="the store file (default: this folder's store)")
    publish.add_argument("dest", metavar="DEST", help="the folder to publish into (created if missing)")
    add_json_option(publish)
    publish.set_defaults(func=run_publish)


def run_publish(args: argparse.Namespace) -> int:
    from ..store.artifact import publish

    store = Path(args.store) if args.store else resolve_store_path(args)
    manifest = publish(store, Path(args.dest))
    emit(args, {**asdict(manifest), "dest": str(Path(args.dest))}, _render)
    return 0


def _render(data: dict[str, Any]) -> str:
    return (
        f"published {data['store']} ({data['bytes']:,} bytes, corpus {data['corpus_fingerprint'][:12]}) into {data['dest']}\n"
        f"  manifest: {Path(data['dest']) / 'manifest.json'}; sha256 {data['sha256']}"
    )
