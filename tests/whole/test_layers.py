"""The dependency rules of docs/architecture.md, checked on the source itself.

The layers are the folders: ``contextpull/<folder>/`` is a layer, the modules
directly in ``contextpull/`` are the shared core. ``server``, ``cli``,
``eval`` and ``ui`` are surfaces; every other folder is core. ``contextpull_mdinline`` is a leaf both
packages share. Rules:

- at most 8 modules sit directly in ``contextpull/``: the rest live in the folder named for what they hold;
- the core never imports a surface or the harness;
- ``analysis`` imports only the shared core (and itself);
- ``parse`` imports only the shared core, ``analysis`` and ``contents`` (and itself);
- ``ops`` never imports ``ingestion`` or ``parse``;
- ``eval``, ``server`` and ``ui`` never import ``cli``;
- ``cli`` imports ``pushpull`` and ``eval`` only inside the function that needs them;
- ``pushpull`` never imports ``contextpull``; ``contextpull_mdinline`` and ``contextpull_vec`` import neither;
- only ``store`` imports ``sqlite3`` or writes FTS syntax;
- ``tests/`` mirrors the layers: every test module sits in a folder named for the layer it tests
  (``tests/parse/``, ``tests/ops/``, …; ``pushpull/`` and ``vec/`` for the other packages, ``whole/``
  for checks of the whole project), and the helpers and fakes they share sit in ``tests/`` itself.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
SRC = TESTS.parent / "src"
PACKAGE = SRC / "contextpull"
SURFACES = {"server", "cli", "eval", "ui", "__main__"}
#: FTS5 syntax a string literal outside the store must not carry (a heuristic: docstrings aside)
FTS_SYNTAX = re.compile(r"\bMATCH\b|\bbm25\(|\bNEAR\(|\{heading\}\s*:|^\s*(AND|OR|NOT)\s*$|^\s+\+\s+$")


def _package_of(path: Path) -> str:
    return ".".join(path.relative_to(SRC).with_suffix("").parts[:-1])


def _resolve(node: ast.ImportFrom, package: str) -> str:
    if not node.level:
        return node.module or ""
    base = package.split(".")
    base = base[: len(base) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    """Absolute dotted names a module imports (relative imports resolved).

    ``top_level_only``: leave out imports inside a function, which run only
    when it is called.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _package_of(path)
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if top_level_only and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            prefix = _resolve(node, package)
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _modules(package: str) -> list[Path]:
    return sorted((SRC / package).rglob("*.py"))


def _layer(path: Path) -> str:
    """The folder under ``contextpull/`` a module lives in; ``""`` for the shared core."""
    parts = path.relative_to(PACKAGE).parts
    return parts[0] if len(parts) > 1 else ("__main__" if parts[0] == "__main__.py" else "")


def _contextpull_layer(name: str) -> str | None:
    """The layer an imported ``contextpull`` name belongs to (``""``: shared core); None outside it."""
    parts = name.split(".")
    if parts[0] != "contextpull":
        return None
    if len(parts) == 1:
        return ""
    return parts[1] if (PACKAGE / parts[1]).is_dir() else ("__main__" if parts[1] == "__main__" else "")


def _offenders(
    layers: set[str] | None, forbidden: Callable[[Path, str], bool], *, top_level_only: bool = False
) -> list[str]:
    found = []
    for path in _modules("contextpull"):
        if layers is not None and _layer(path) not in layers:
            continue
        for name in sorted(_imports(path, top_level_only=top_level_only)):
            if forbidden(path, name):
                found.append(f"{path.relative_to(SRC)} imports {name}")
    return found


def test_every_layer_is_a_folder() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    assert {"analysis", "contents", "parse", "ingestion", "store", "ops", "tools", "server", "cli", "eval"} <= folders


def test_at_most_eight_modules_sit_in_the_package_root() -> None:
    """A newcomer finds a module by its folder; the root keeps only what every layer shares."""
    root = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(root) <= 8, root


def test_tests_mirror_the_layers() -> None:
    """A newcomer finds the tests of ``contextpull/ops/`` in ``tests/ops/``, and the shared fakes in one place."""
    layers = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    allowed = layers | {"pushpull", "vec", "whole"}
    tests = sorted(TESTS.glob("**/test_*.py"))
    misplaced = [
        str(path.relative_to(TESTS))
        for path in tests
        if "node_modules" not in path.parts and path.parent.name not in allowed
    ]
    assert len(tests) > 50 and not misplaced, misplaced
    helpers = [p.name for folder in allowed if (TESTS / folder).is_dir() for p in (TESTS / folder).glob("*.py")]
    assert all(name.startswith("test_") for name in helpers), "shared helpers belong in tests/ itself"


def test_core_imports_no_surface_and_no_harness() -> None:
    core = {_layer(p) for p in _modules("contextpull")} - SURFACES

    def forbidden(_: Path, name: str) -> bool:
        return name.split(".")[0] == "pushpull" or _contextpull_layer(name) in SURFACES

    assert not _offenders(core, forbidden)


def test_analysis_imports_only_the_shared_core() -> None:
    assert not _offenders({"analysis"}, lambda _, name: _contextpull_layer(name) not in {None, "", "analysis"})


def test_parse_imports_only_the_shared_core_analysis_and_contents() -> None:
    allowed = {None, "", "analysis", "contents", "parse"}
    assert not _offenders({"parse"}, lambda _, name: _contextpull_layer(name) not in allowed)


def test_ops_never_imports_ingestion_or_parse() -> None:
    assert not _offenders({"ops"}, lambda _, name: _contextpull_layer(name) in {"ingestion", "parse"})


def test_eval_server_and_ui_never_import_the_cli() -> None:
    assert not _offenders({"eval", "server", "ui"}, lambda _, name: _contextpull_layer(name) == "cli")


def test_cli_loads_the_harness_and_eval_only_inside_a_command() -> None:
    def forbidden(_: Path, name: str) -> bool:
        return name.split(".")[0] == "pushpull" or _contextpull_layer(name) == "eval"

    assert not _offenders({"cli"}, forbidden, top_level_only=True)


def test_harness_never_imports_contextpull() -> None:
    offenders = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in [*_modules("pushpull"), *_modules("contextpull_mdinline")]
        for name in _imports(path)
        if name.split(".")[0] == "contextpull"
        or (path.parts[-2] == "contextpull_mdinline" and name.split(".")[0] == "pushpull")
    ]
    assert not offenders, offenders


def test_shared_embedders_import_neither_side() -> None:
    offenders = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in _modules("contextpull_vec")
        for name in _imports(path)
        if name.split(".")[0] in {"contextpull", "pushpull"}
    ]
    assert not offenders, offenders
    assert _modules("contextpull_vec"), "the shared embedder package is missing"


def test_only_the_store_talks_sql() -> None:
    offenders = [
        str(path.relative_to(SRC))
        for path in _modules("contextpull")
        if "sqlite3" in {n.split(".")[0] for n in _imports(path)} and _layer(path) != "store"
    ]
    assert not offenders, offenders


def _strings_not_docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def test_only_the_store_writes_fts_syntax() -> None:
    offenders = [
        f"{path.relative_to(SRC)}: {text!r}"
        for path in _modules("contextpull")
        if _layer(path) != "store"
        for text in _strings_not_docstrings(path)
        if FTS_SYNTAX.search(text)
    ]
    assert not offenders, offenders


def test_the_fts_check_sees_what_ranking_used_to_write() -> None:
    """The heuristic above must catch FTS syntax as it was written outside the store before."""
    assert all(FTS_SYNTAX.search(s) for s in (" AND ", " OR ", " + ", "{heading} : (x)", "x MATCH ?", "bm25(t, 1)"))
