"""The ``contextpull`` command: a thin skin over the library.

Each command module registers its subcommands with ``register(subparsers)``;
commands parse arguments, make one library call and render the result, as
readable text or, with ``--json``, as JSON on stdout. Errors from the library
become one line on stderr (or the error object on stdout with ``--json``) and
exit status 1 for store or input problems, 2 for usage or tool errors.
"""

from .main import COMMAND_MODULES, build_parser, main, script

__all__ = ["COMMAND_MODULES", "build_parser", "main", "script"]
