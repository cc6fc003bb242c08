"""The ``contextpull`` command: the parser built from the command modules, and ``main``."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

from ..errors import ContextPullError
from ..extras import missing_dependency
from .common import print_error

#: modules under ``contextpull.cli`` that contribute subcommands, in help order
COMMAND_MODULES = ("ingest", "ops", "serve", "bench")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="contextpull",
        description="Pull, don't push: an index and five citable tools over a folder of documents.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(f"{__package__}.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ContextPullError as err:
        print_error(err, as_json=getattr(args, "json", False))
        return err.exit_code
    except ModuleNotFoundError as err:
        # The net under each command's own checks: a missing library is named with its extra.
        missing = missing_dependency(err)
        if missing is None:
            raise
        print_error(missing, as_json=getattr(args, "json", False))
        return 1
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("contextpull: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
