"""A script of the repository (a benchmark, the wheel smoke check) loaded as a module, for tests of its functions."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_script(relative: str, name: str) -> ModuleType:
    """``ROOT / relative`` imported under ``name``; registered in ``sys.modules``, where dataclasses look it up."""
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
