"""Fixtures shared across test modules; keep additions small and independent."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

# Stores the CLI remembers go to a throwaway user data folder, never the real one (contextpull.paths).
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="contextpull-test-data-")

#: the shared read-only corpora, beside the repository (``../shared/corpora``)
CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"

FileMap = Mapping[str, str | bytes]


def write_tree(root: Path, files: FileMap) -> Path:
    """Create ``files`` (relative POSIX path -> text or bytes) under ``root``; return ``root``."""
    for rel, content in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
    return root


@pytest.fixture(scope="session")
def corpora() -> Path:
    """Where the shared corpora live; tests skip a corpus that is not there."""
    return CORPORA


@pytest.fixture
def make_corpus(tmp_path: Path) -> Callable[[FileMap], Path]:
    """Build a corpus folder ``tmp_path/corpus`` from a path -> content mapping."""

    def make(files: FileMap) -> Path:
        return write_tree(tmp_path / "corpus", files)

    return make
