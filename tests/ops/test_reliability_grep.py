"""grep equals a scan of the stored text, whatever control characters the text holds."""

from __future__ import annotations

import sqlite3
import tempfile
from contextlib import closing
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops

#: past the 8 KB a binary check reads, so a NUL later on is kept in the text
PREFIX = "# Doc\n\n" + "Plain opening words for the sniffed part. " * 200 + "\n\n"
ALPHABET = "abcXYZß \t\x00\x01\x07\x1b\x7f\x85\u202e\ufeffé"


def _scan(store: Path, pattern: str) -> set[str]:
    """Section ids whose stored text holds ``pattern`` on one line, read straight from SQLite."""
    folded = pattern.casefold()
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as conn:
        rows = conn.execute("SELECT sid, text FROM sections").fetchall()
    return {sid for sid, text in rows if any(folded in line.casefold() for line in text.split("\n"))}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tails=st.lists(st.text(ALPHABET, min_size=5, max_size=60), min_size=1, max_size=4),
    pick=st.data(),
)
def test_literal_grep_finds_exactly_what_a_scan_finds(tails: list[str], pick: st.DataObject) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "corpus"
        root.mkdir()
        for number, tail in enumerate(tails):
            (root / f"d{number}.md").write_text(PREFIX + tail + "\n", encoding="utf-8")
        ingest(root, Path(folder) / "store.sqlite")
        source = pick.draw(st.sampled_from(tails))
        start = pick.draw(st.integers(0, len(source) - 3))
        pattern = source[start : start + pick.draw(st.integers(3, 8))]
        expected = _scan(Path(folder) / "store.sqlite", pattern)
        with Ops.open(Path(folder) / "store.sqlite") as ops:
            found = {match.id for match in ops.grep(pattern, limit=100).matches}
    assert found == expected, repr(pattern)
