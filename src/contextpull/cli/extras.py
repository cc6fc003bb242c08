"""Which extra of the ``contextpull`` distribution brings a library, for one-line refusals.

Read from the installed distribution's metadata, so ``pyproject.toml`` stays
the one list of what each extra installs; a source tree without metadata
falls back to the extra that brings everything.
"""

from __future__ import annotations

import importlib.util
import re

from .._version import DISTRIBUTION
from ..errors import MissingDependency

#: the extra that installs every optional capability
ALL = "all"
#: extras that are never the answer to "what do I install to run this"
_NOT_SUGGESTED = frozenset({ALL, "test"})
_REQUIREMENT = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)[^;]*;.*\bextra\s*==\s*['\"]([^'\"]+)['\"]")


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def install_hint(extra: str) -> str:
    """The command that installs ``extra``, as every refusal prints it."""
    return f'pip install "{DISTRIBUTION}[{extra}]"'


def extra_for(module: str) -> str:
    """The first declared extra that lists a distribution named like ``module``; else :data:`ALL`.

    Import names and distribution names agree for the libraries the extras
    bring (numpy, bm25s, onnxruntime, tokenizers, anthropic, openai); where
    they differ, the answer is the extra that installs everything.
    """
    from importlib import metadata  # only on the way to an error: every command imports this module

    try:
        requirements = metadata.requires(DISTRIBUTION) or []
    except metadata.PackageNotFoundError:
        return ALL
    wanted = _normalise(module.partition(".")[0])
    for requirement in requirements:
        found = _REQUIREMENT.match(requirement)
        if found and found.group(2) not in _NOT_SUGGESTED and _normalise(found.group(1)) == wanted:
            return found.group(2)
    return ALL


def missing_dependency(exc: ModuleNotFoundError) -> MissingDependency | None:
    """The refusal naming the extra for a library that is not installed; None for a broken module of ours.

    Only an absent top-level package is a library to install: a missing
    submodule of something present (``contextpull.x``) is a bug to show.
    """
    top = (exc.name or "").partition(".")[0]
    if not top or importlib.util.find_spec(top) is not None:
        return None
    return MissingDependency(f"{top} is not installed", install_hint(extra_for(top)))
