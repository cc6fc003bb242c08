"""The harness's errors: a message and what to do next.

``pushpull`` imports nothing from ``contextpull``, so it carries its own small
family with the same shape; the CLI prints one line and exits 1 for bad input
(chunk files, question files, eval sets from another corpus) and 2 for usage
problems (a bad adapter spec, an unknown shape).
"""

from __future__ import annotations

import importlib.util

#: what installs every library the harness can need (push rows, hosted models)
EVAL_EXTRA_HINT = 'pip install "contextpull[eval]"'


class HarnessError(Exception):
    """Something the user can fix; carries a suggestion."""

    exit_code: int = 1

    def __init__(self, message: str, suggestion: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion

    def __str__(self) -> str:
        return f"{self.message} ({self.suggestion})" if self.suggestion else self.message


class InputError(HarnessError):
    """A chunk or question file cannot be read as the documented format."""


class FingerprintMismatch(HarnessError):
    """An eval set built from one corpus was offered with another."""


class UsageError(HarnessError):
    """Arguments that cannot work: unknown shape, bad adapter spec, k < 1."""

    exit_code = 2


class MissingDependency(HarnessError):
    """A library this run needs is not installed (it comes with the ``eval`` extra)."""


def is_missing_library(exc: ModuleNotFoundError) -> bool:
    """True when the top-level package ``exc`` names is absent: a library to install, not a broken module."""
    return bool(exc.name) and importlib.util.find_spec(str(exc.name).partition(".")[0]) is None


def missing_dependency(exc: ModuleNotFoundError, needed_by: str) -> MissingDependency:
    """The one-line refusal for ``needed_by`` (e.g. "the push rows") when ``exc.name`` is absent."""
    return MissingDependency(f"{needed_by} need {exc.name}, which is not installed", EVAL_EXTRA_HINT)
