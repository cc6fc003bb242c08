"""Per-file limits: each ends in a skip whose reason names the limit; the ingest goes on."""

from __future__ import annotations

import os
import sys
import time

import pytest

from contextpull.ingestion.analyse import analyse_file
from contextpull.ingestion.discover import FoundFile
from contextpull.ingestion.limits import FileSkipped, deadline, read_file
from contextpull.ingestion.run import ingest
from contextpull.settings import FileLimits, SectionSettings

GOOD = "# Good\n\nA small document.\n"


def _ingest(root, tmp_path, **limits):
    return ingest(root, tmp_path / "store.sqlite", SectionSettings(limits=FileLimits(**limits)))


def test_a_file_over_max_bytes_is_skipped_unread(make_corpus, tmp_path):
    root = make_corpus({"good.md": GOOD, "big.md": "# Big\n\n" + "word " * 1000})
    report = _ingest(root, tmp_path, max_bytes=1000)
    assert ("big.md", "larger than 1,000 bytes (max_bytes)") in report.skipped
    assert report.added == 1


@pytest.mark.skipif(sys.platform == "win32", reason="sparse files")
def test_a_huge_sparse_file_costs_no_memory(make_corpus, tmp_path):
    root = make_corpus({"good.md": GOOD})
    with open(root / "sparse.md", "wb") as handle:
        handle.truncate(1 << 30)  # 1 GiB of holes; read whole it took 1.1 GB
    report = ingest(root, tmp_path / "store.sqlite")
    assert ("sparse.md", "larger than 32 MiB (max_bytes)") in report.skipped
    assert report.added == 1


def test_max_lines_and_max_sections_are_skips_naming_the_limit(make_corpus, tmp_path):
    many = "".join(f"# Heading {n}\n\n" + "Some body text here. " * 12 + "\n\n" for n in range(30))
    root = make_corpus({"good.md": GOOD, "lines.txt": "line\n" * 500, "sections.md": many})
    report = _ingest(root, tmp_path, max_lines=400, max_sections=20)
    skipped = dict(report.skipped)
    assert skipped["lines.txt"] == "more than 400 lines (max_lines)"
    assert skipped["sections.md"] == "more than 20 sections (max_sections)"
    assert report.added == 1


def test_raising_a_limit_reads_the_skipped_file_again(make_corpus, tmp_path):
    root = make_corpus({"good.md": GOOD, "lines.txt": "line\n" * 500})
    assert dict(_ingest(root, tmp_path, max_lines=400).skipped)["lines.txt"].endswith("(max_lines)")
    again = _ingest(root, tmp_path)
    assert again.skipped == [] and again.documents == 2


def test_a_parser_over_its_time_is_stopped_and_the_file_skipped(tmp_path):
    slow = FileLimits(time_s=0.2)
    started = time.perf_counter()
    with pytest.raises(FileSkipped, match=r"took longer than 0.2 s \(time_s\)"), deadline(slow):
        while True:  # a parser that never ends
            pass
    assert time.perf_counter() - started < 5
    path = tmp_path / "ok.md"
    path.write_text(GOOD)
    found = FoundFile("ok.md", path, "markdown")
    assert analyse_file(found, SectionSettings(limits=slow)).document is not None  # timer cleared


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs")
def test_a_file_swapped_for_a_fifo_after_discovery_does_not_block(tmp_path):
    os.mkfifo(tmp_path / "pipe.md")
    started = time.perf_counter()
    with pytest.raises(FileSkipped, match="not a regular file"):
        read_file(tmp_path / "pipe.md", FileLimits())
    assert time.perf_counter() - started < 5


def test_limits_hold_in_worker_processes_too(make_corpus, tmp_path):
    root = make_corpus({"good.md": GOOD, "lines.txt": "line\n" * 500})
    settings = SectionSettings(limits=FileLimits(max_lines=400))
    report = ingest(root, tmp_path / "store.sqlite", settings, workers=2)
    assert dict(report.skipped)["lines.txt"] == "more than 400 lines (max_lines)"
    assert report.added == 1
