"""The ``contextpull`` command: the parser built from the command modules, and ``main``.

Every failure is one line on stderr (or the error object on stdout with
``--json``) and exit status 1 for store or input problems, 2 for usage or
tool errors; no traceback reaches the user (:mod:`contextpull.cli.failures`).
"""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .._version import __version__
from ..errors import ContextPullError
from .common import print_error
from .extras import missing_dependency
from .failures import as_error

#: modules under ``contextpull.cli`` that contribute subcommands, in help order
COMMAND_MODULES = (
    "ingest",
    "ops",
    "llms_txt",
    "serve",
    "ui",
    "publish",
    "bench",
    "scenarios",
    "results",
    "stores",
    "collections",
)
#: the module that registers each subcommand, so a command imports only its own module
#: (``contextpull index`` need not load the server, asyncio or the ingest options; issue 14)
COMMAND_HOMES = {
    "ingest": "ingest",
    **dict.fromkeys(
        ("index", "search", "read", "grep", "neighbours", "export-chunks", "tools-json", "claude-md"), "ops"
    ),
    "export-llms-txt": "llms_txt",
    "serve": "serve",
    "mcp-config": "serve",
    "ui": "ui",
    "publish": "publish",
    "bench": "bench",
    "scenarios": "scenarios",
    "results": "results",
    "report": "results",
    "stores": "stores",
    "collections": "collections",
}
#: subcommands whose positional argument is free text that may start with ``-``
_TEXT_COMMANDS = {"search": "--no-cache", "grep": "--filter"}


class Parser(argparse.ArgumentParser):
    """argparse, with a usage error on one line that says what to do next.

    Every failure of the CLI is one line, usage errors included: the message,
    then where the usage is (``-h``). ``contextpull grep --filter`` reads
    ``--filter`` as an option; argparse then says only that PATTERN is
    missing, or that ``--filter`` is unknown, so that line says how to pass
    text starting with ``-``.
    """

    def error(self, message: str) -> NoReturn:
        command = self.prog.rsplit(" ", 1)[-1]
        if command in _TEXT_COMMANDS and ("required" in message or "unrecognized" in message):
            hint = (
                f"to {command} for text that starts with '-', put it after `--`:"
                f" contextpull {command} -- {_TEXT_COMMANDS[command]}"
            )
        else:
            hint = f"see `{self.prog} -h`"
        self.exit(2, f"{self.prog}: error: {message}; {hint}\n")


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """The parser with the subcommands of ``modules`` (all of them unless a command was named)."""
    parser = Parser(
        prog="contextpull",
        description="Pull, don't push: an index and five citable tools over a folder of documents.",
        epilog="Start with `contextpull ingest DIR`; then `contextpull search WORDS` from the same folder. "
        "`contextpull COMMAND -h` explains a command.",
    )
    parser.add_argument("--version", action="version", version=f"contextpull {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in modules:
        importlib.import_module(f"{__package__}.{name}").register(subparsers)
    for command in subparsers.choices.values():
        command.set_defaults(command_parser=command)
    return parser


def _modules_for(argv: Sequence[str]) -> Sequence[str]:
    """Only the named command's module when the first argument names one; else every module (for help and errors)."""
    home = COMMAND_HOMES.get(argv[0]) if argv else None
    return (home,) if home is not None else COMMAND_MODULES


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args, unknown = build_parser(_modules_for(argv)).parse_known_args(argv)
    if unknown:
        # Reported by the command's own parser, so the error can say how to pass text starting with '-'.
        args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return int(args.func(args) or 0)
    except ModuleNotFoundError as raised:
        # The net under each command's own checks: a missing library is named with its extra.
        missing = missing_dependency(raised)
        err = missing if missing is not None else as_error(raised)
        print_error(err, as_json=getattr(args, "json", False))
        return err.exit_code
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("contextpull: interrupted", file=sys.stderr)
        return 130
    except Exception as raised:  # noqa: BLE001 - the one place every failure becomes one line
        err = raised if isinstance(raised, ContextPullError) else as_error(raised)
        print_error(err, as_json=getattr(args, "json", False))
        return err.exit_code


def script() -> NoReturn:
    """The ``contextpull`` executable: :func:`main`, then exit without a last walk of the heap.

    Python's shutdown runs one more full collection over every object still
    alive; after an ingest (parsers, term caches) that took about 15 ms of the
    35 ms the process spent exiting. Freezing first leaves them to the
    operating system. Only the executable does this: a caller of :func:`main`
    keeps its collector as it was.
    """
    status = main()
    gc.freeze()
    sys.exit(status)


if __name__ == "__main__":
    script()
