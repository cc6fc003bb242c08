"""Every Markdown file of the shared corpora parses and sections with the invariants intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextpull.parse.decode import decode_bytes
from contextpull.parse.formats import format_for
from contextpull.parse.sections import parse_document
from contextpull.settings import SectionSettings

CORPORA = Path(__file__).resolve().parents[3] / "shared" / "corpora"
pytestmark = pytest.mark.slow  # about 6 s of CPU for ~1,300 files, two settings

FILES = sorted(p for p in CORPORA.rglob("*") if p.suffix in (".md", ".mdx") and p.is_file()) if CORPORA.is_dir() else []


@pytest.mark.skipif(not FILES, reason=f"no corpora at {CORPORA}")
@pytest.mark.parametrize("settings", [SectionSettings(), SectionSettings(max_depth=6, max_chars=400, min_chars=100)])
def test_every_corpus_file_sections_losslessly(settings: SectionSettings) -> None:
    failures: list[str] = []
    sections = 0
    for file in FILES:
        path = file.relative_to(CORPORA).as_posix()
        text = decode_bytes(file.read_bytes(), path)
        doc = parse_document(path, text, settings, format=format_for(path) or "markdown")
        sections += len(doc.sections)
        problems = _problems(doc, text, settings)
        if problems:
            failures.append(f"{path}: {problems}")
    assert not failures, "\n".join(failures[:20])
    assert sections > len(FILES)


def _problems(doc, text: str, settings: SectionSettings) -> list[str]:
    problems = []
    if "".join(s.text for s in doc.sections) != text:
        problems.append("not lossless")
    position = 0
    for ordinal, section in enumerate(doc.sections):
        if section.ordinal != ordinal or section.start != position or section.end <= section.start:
            problems.append(f"section {ordinal} not contiguous")
        position = section.end
        if section.table_header is not None:
            holder = doc.sections[section.header_ordinal]
            if section.table_header not in holder.text or section.text.lstrip().startswith(section.table_header):
                problems.append(f"section {ordinal} bad table header")
        if len(section.text) > settings.max_chars and section.kind not in ("code", "table", "mixed"):
            problems.append(f"section {ordinal} oversize {section.kind} ({len(section.text)} chars)")
    if not doc.title:
        problems.append("no title")
    return problems
