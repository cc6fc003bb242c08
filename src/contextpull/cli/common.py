"""What every command shares: choosing the store, ``--json``, rendering errors."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import CollectionError, ContextPullError
from ..paths import STORE_ENV, store_path


def add_store_option(parser: argparse.ArgumentParser, *, artifact: bool = False, several: bool = False) -> None:
    where = (
        "store file, or a published store (a URL or the folder `contextpull publish` wrote)"
        if artifact
        else "store file"
    )
    parser.add_argument(
        "--store",
        metavar="URL|PATH" if artifact else "PATH",
        help=f"{where} (default: ${STORE_ENV}, then the store of this folder: see `contextpull stores`)",
    )
    if several:
        parser.add_argument(
            "--collection",
            action="append",
            metavar="NAME[@VERSION]",
            help="serve this collection (see `contextpull collections`); give it again for several behind one"
            " server, their ids prefixed with the collection",
        )
        parser.add_argument("--collections", action="store_true", help="serve every collection there is")
    else:
        parser.add_argument(
            "--collection",
            metavar="NAME[@VERSION]",
            help="use this collection's store (see `contextpull collections`) instead",
        )


def add_json_option(parser: argparse.ArgumentParser, help_text: str = "print the result as JSON") -> None:
    parser.add_argument("--json", action="store_true", help=help_text)


def resolve_store_path(args: argparse.Namespace) -> Path:
    """``--collection``'s store, else ``--store``, then ``$CONTEXTPULL_STORE``, then the store of the working
    folder (:mod:`contextpull.paths`)."""
    key = getattr(args, "collection", None)
    if isinstance(key, list):  # a command that serves several: one named is its store
        key = key[0] if len(key) == 1 else None
    if key:
        if getattr(args, "store", None):
            raise CollectionError("--store and --collection both name a store", "give one of them")
        from ..store.collections import find

        return Path(find(key).store)
    return store_path(getattr(args, "store", None))


def emit(args: argparse.Namespace, data: Any, render: Callable[[Any], str]) -> None:
    """Print ``data`` as JSON with ``--json``, else as ``render(data)``."""
    if getattr(args, "json", False):
        json.dump(data, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        text = render(data)
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def print_error(err: ContextPullError, *, as_json: bool) -> None:
    if as_json:
        json.dump(err.to_dict(), sys.stdout, ensure_ascii=False)
        sys.stdout.write("\n")
        sys.stdout.flush()
    else:
        line = f"contextpull: error: {err.message}"
        if err.suggestion:
            line += f" — {err.suggestion}"
        print(line, file=sys.stderr)


def defer_options(parser: argparse.ArgumentParser, add: Callable[[argparse.ArgumentParser], None]) -> None:
    """Call ``add(parser)`` just before ``parser`` first parses (its own ``--help`` included).

    For options declared in a module too heavy to import for every command:
    the top-level help lists the command without them, and the command sees
    them in full.
    """
    parse = parser.parse_known_args

    def parse_known_args(*args: Any, **kwargs: Any) -> Any:
        setattr(parser, "parse_known_args", parse)  # noqa: B010 - mypy refuses assigning to a method
        add(parser)
        return parse(*args, **kwargs)

    setattr(parser, "parse_known_args", parse_known_args)  # noqa: B010 - as above
