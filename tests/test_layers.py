"""The dependency rules of docs/architecture.md, checked on the source itself.

- the core never imports a surface (cli, server, eval) or the harness;
- the harness (pushpull) never imports contextpull;
- only the store package talks SQL.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
SURFACES = {"cli", "server", "eval", "http_guard", "__main__"}


def _imports(path: Path) -> set[str]:
    """Absolute dotted names imported by a module, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = ".".join(path.relative_to(SRC).with_suffix("").parts[:-1])
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)
    return found


def _modules(package: str) -> list[Path]:
    return sorted((SRC / package).rglob("*.py"))


def _is_core(path: Path) -> bool:
    rel = path.relative_to(SRC / "contextpull").parts
    return rel[0].removesuffix(".py") not in SURFACES


def test_core_imports_no_surface_and_no_harness() -> None:
    offenders = []
    for path in filter(_is_core, _modules("contextpull")):
        for name in _imports(path):
            parts = name.split(".")
            if parts[0] == "pushpull" or (parts[0] == "contextpull" and len(parts) > 1 and parts[1] in SURFACES):
                offenders.append(f"{path.relative_to(SRC)} imports {name}")
    assert not offenders, offenders


def test_harness_never_imports_contextpull() -> None:
    offenders = [
        f"{path.relative_to(SRC)} imports {name}"
        for path in _modules("pushpull")
        for name in _imports(path)
        if name.split(".")[0] == "contextpull"
    ]
    assert not offenders, offenders


def test_only_the_store_talks_sql() -> None:
    offenders = [
        str(path.relative_to(SRC))
        for path in _modules("contextpull")
        if "sqlite3" in {n.split(".")[0] for n in _imports(path)}
        and path.relative_to(SRC / "contextpull").parts[0] != "store"
    ]
    assert not offenders, offenders
