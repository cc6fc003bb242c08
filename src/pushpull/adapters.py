"""Loading a user's adapter the way ragbisect does, so one adapter file serves both.

``path/to/file.py:Name`` or ``package.module:Name``. ``Name`` may be an
instance or a class; a class is instantiated with the chunk list when its
constructor takes a required positional argument, otherwise with no
arguments. The result must have ``retrieve(query, k)``.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .chunks import Chunk
from .errors import UsageError


def _module_from_file(path: Path) -> Any:
    if not path.is_file():
        raise UsageError(f"adapter file not found: {path}", "pass path/to/file.py:ClassName")
    spec = importlib.util.spec_from_file_location(f"_pushpull_adapter_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load {path} as Python", "the adapter file must be a .py module")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent.resolve())
    if folder not in sys.path:
        sys.path.insert(0, folder)  # the adapter may import its neighbours, as under ragbisect
    spec.loader.exec_module(module)
    return module


def _needs_chunks(cls: type) -> bool:
    try:
        params = inspect.signature(cls).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params)


def load_adapter(spec: str, chunks: Sequence[Chunk]) -> Any:
    """The adapter named by ``spec``, instantiated as ragbisect would.

    Raises :class:`UsageError` for a malformed spec, a missing file or name,
    or an object without ``retrieve``; an exception raised while importing or
    constructing the adapter is reported as a UsageError naming the spec.
    """
    target, sep, name = spec.rpartition(":")
    if not sep or not target or not name:
        raise UsageError(f"bad adapter spec {spec!r}", "use path/to/file.py:ClassName or package.module:ClassName")
    try:
        if target.endswith(".py") or "/" in target:
            module = _module_from_file(Path(target))
        else:
            module = importlib.import_module(target)
        obj: Any = getattr(module, name)
        if inspect.isclass(obj):
            factory: Any = obj
            obj = factory(list(chunks)) if _needs_chunks(factory) else factory()
    except UsageError:
        raise
    except AttributeError as err:
        raise UsageError(f"{target} has no attribute {name!r} ({err})", "check the name after the colon") from err
    except Exception as err:  # importing or constructing user code can raise anything
        raise UsageError(
            f"adapter {spec} failed to load: {type(err).__name__}: {err}",
            "run the adapter module on its own to see the traceback",
        ) from err
    if not callable(getattr(obj, "retrieve", None)):
        raise UsageError(
            f"adapter {spec} has no retrieve(query, k) method", "implement retrieve(query, k) -> list[str]"
        )
    return obj
