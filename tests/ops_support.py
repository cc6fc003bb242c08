"""Corpora and stores for the operation tests, built with the real ingest.

``small_corpus`` writes a handful of Markdown files chosen to pin down
ranking, ordering (``#9`` before ``#10``) and Unicode case folding; with
``min_chars=0`` every heading starts its own section. ``EXAMPLES`` is the
bundled sample corpus, which has a table split across sections.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

from contextpull.ingestion.run import ingest
from contextpull.settings import SectionSettings

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "corpus"
SHARED_CORPORA = ROOT.parent / "shared" / "corpora"
ONE_SECTION_PER_HEADING = SectionSettings(max_depth=3, max_chars=3000, min_chars=0)

SMALL_CORPUS = {
    "guides/install.md": (
        "# Installing\n\nInstall the tool with pip. Python 3.12 is required.\n\n"
        "## Cache directory\n\nThe cache lives in APP_CACHE_DIR, or `--cache-dir` when given.\n\n"
        "## Upgrading\n\nRun the installer again to upgrade.\n"
    ),
    "guides/usage.md": (
        "# Usage\n\nSet APP_CACHE_DIR=/tmp/cache before running; the cache is then shared.\n\n"
        "## Flags\n\n```\napp --cache-dir /tmp --no-cache\n```\n"
    ),
    "policies/travel.md": (
        "# Travel policy\n\nEmployees book travel through the portal.\n\n"
        "## Rates\n\n| Code | Rate |\n|---|---|\n| TX-4501 | 120 EUR |\n| TX-4502 | 95 EUR |\n\n"
        "## Straße\n\nDie STRASSE ist lang. İstanbul office. The ﬁle is here. Ærø and ǅemal.\n"
    ),
    "policies/numbers.md": "# Numbers\n\n"
    + "".join(f"## Part {n}\n\nnumbered part {n} of the numbers document\n\n" for n in range(12)),
    "README.md": "# Readme\n\nThe travel portal and the installer are described here.\n",
}


def write_corpus(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def small_store(tmp: Path) -> Path:
    corpus = write_corpus(tmp / "corpus", SMALL_CORPUS)
    store = tmp / "small.sqlite"
    ingest(corpus, store, ONE_SECTION_PER_HEADING)
    return store


def examples_store(tmp: Path) -> Path:
    store = tmp / "examples.sqlite"
    ingest(EXAMPLES, store)
    return store


def written_by_an_older_analysis(store: Path) -> None:
    """Mark ``store`` as indexed by term analysis 1, so the next ingest rebuilds it from its files."""
    with closing(sqlite3.connect(store)) as conn, conn:
        conn.execute("UPDATE meta SET value = '1' WHERE key = 'analysis_version'")
