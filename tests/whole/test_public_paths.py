"""Names users and ragbisect load by path keep working, and stay light to import."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest

import contextpull
import contextpull.eval

README = Path(__file__).resolve().parents[2] / "README.md"
README_IMPORT = re.compile(r"^from (contextpull[\w.]*|pushpull[\w.]*) import ([\w, ]+)", re.MULTILINE)
EVAL_MODULES = sorted(f"contextpull.eval.{m.name}" for m in pkgutil.iter_modules(contextpull.eval.__path__))


def test_the_library_surface() -> None:
    from contextpull import ContextPullError, IngestReport, Ops, SearchResult, SectionSettings, Store, ingest

    assert callable(ingest) and Ops.open and Store.open and SectionSettings() and IngestReport and SearchResult
    assert issubclass(contextpull.NotAStore, ContextPullError)
    assert contextpull.__version__ and set(contextpull.__all__) <= set(dir(contextpull))
    for name in contextpull.__all__:
        assert getattr(contextpull, name) is not None
    with pytest.raises(AttributeError):
        contextpull.not_a_name  # noqa: B018


def test_every_name_the_readme_imports_imports() -> None:
    """Modules moved between folders (issue 33) keep every import the README shows working."""
    shown = [
        (module, name.strip())
        for module, names in README_IMPORT.findall(README.read_text())
        for name in names.split(",")
    ]
    assert len(shown) >= 5
    for module, name in shown:
        assert getattr(importlib.import_module(module), name) is not None, f"from {module} import {name}"


def test_tools_cli_and_harness_entry_points() -> None:
    from contextpull.cli import main as contextpull_main
    from contextpull.tools import TOOLS, call_json, openai_tools
    from pushpull.cli import main as pushpull_main

    assert TOOLS and callable(call_json) and openai_tools() and callable(contextpull_main) and callable(pushpull_main)


@pytest.mark.parametrize("module", EVAL_MODULES)
def test_every_eval_module_imports(module: str) -> None:
    importlib.import_module(module)


def test_the_search_adapter_loads_by_the_name_ragbisect_uses() -> None:
    module, _, name = "contextpull.eval.search_adapter:ContextPullSearch".partition(":")
    adapter = getattr(importlib.import_module(module), name)
    assert adapter.name == "contextpull search" and callable(adapter.retrieve)


def _loaded_after(code: str) -> list[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True)
    return json.loads(done.stdout.splitlines()[-1])


HEAVY = ("pushpull", "contextpull.ingestion", "contextpull.parse", "markdown_it", "pathspec", "mcp", "uvicorn")


@pytest.mark.parametrize(
    "code",
    [
        "import contextpull",
        "import contextpull.cli",
        "from contextpull.cli import main; main(['read', 'a.md#0', '--store', 'no-such-store.sqlite'])",
    ],
)
def test_reading_loads_no_parser_server_or_harness(code: str) -> None:
    heavy = [m for m in _loaded_after(code) if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    assert not heavy, heavy
