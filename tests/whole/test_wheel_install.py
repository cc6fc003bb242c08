"""The built wheel in a fresh venv without extras: the first commands work, and each command needing an
extra refuses in one line naming it (the cases and the checks are ``scripts/smoke_wheel.py``'s).

Builds the wheel once and the venv once per session (about a minute). ``make test`` runs the smoke
first and hands its base venv over in ``$CONTEXTPULL_SMOKE_BASE``, so CI installs it only once.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from script_support import load_script


def _load_smoke() -> ModuleType:
    return load_script("scripts/smoke_wheel.py", "smoke_wheel")


smoke = _load_smoke()


@pytest.fixture(scope="session")
def base_install(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Path]]:
    """``(bin dir, ingested corpus, work dir)`` of the wheel installed without extras."""
    work = tmp_path_factory.mktemp("wheel")
    handed = os.environ.get("CONTEXTPULL_SMOKE_BASE")
    if handed and (Path(handed) / "bin" / "contextpull").is_file():
        bin_dir = Path(handed).resolve() / "bin"
    else:
        bin_dir = smoke.make_venv(work / "base", str(smoke.wheel_only(work / "dist")))
    corpus = smoke.copy_corpus(work / "corpus")
    smoke.check_first_commands(bin_dir, corpus)  # also ingests the corpus the cases run on
    yield bin_dir, corpus, work


def test_the_base_install_has_no_extra(base_install: tuple[Path, Path, Path]) -> None:
    bin_dir, _, _ = base_install
    for library in ("numpy", "bm25s", "anthropic", "openai"):
        probe = subprocess.run([bin_dir / "python", "-c", f"import {library}"], capture_output=True, text=True)
        assert probe.returncode == 1 and "ModuleNotFoundError" in probe.stderr


@pytest.mark.parametrize("case", smoke.MISSING_EXTRA_CASES, ids=lambda case: case.label)
def test_a_command_needing_an_extra_names_it(base_install: tuple[Path, Path, Path], case) -> None:
    bin_dir, corpus, work = base_install
    smoke.check_missing_extra(bin_dir, case, corpus, work)
