"""What a converted or plain document's outline says: headings, section paths and the index summary line.

Each case is one a new user met: a CSV file whose sections said "(no heading)"
although the document is titled; a spreadsheet whose sheet heading stood
alone as an empty section before its long table; a Word title and its first
chapter at one level, merged into one section; a slide deck summarised under
its first slide's heading instead of its title; footnote marks and
reStructuredText markup left in summary lines.
"""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("docx", reason="needs the office extra")

import format_fixtures as ff
from contextpull.parse import formats
from contextpull.parse.rst import plain_text
from contextpull.parse.sections import parse_document
from contextpull.settings import SectionSettings

SMALL = SectionSettings(max_depth=3, max_chars=1000, min_chars=100)


def _parse(path: Path, settings: SectionSettings = SMALL):  # type: ignore[no-untyped-def]
    fmt = formats.format_for(path.name)
    assert fmt is not None
    return formats.parse_bytes(path.name, path.read_bytes(), settings, fmt)


def test_a_csv_file_is_headed_by_its_title(tmp_path: Path) -> None:
    doc = _parse(ff.write_csv(tmp_path / "orders.csv"))
    assert doc.title == "Orders" and len(doc.sections) > 1
    assert {section.heading_path for section in doc.sections} == {("Orders",)}


def test_a_plain_text_file_without_headings_is_headed_by_its_title() -> None:
    doc = parse_document("notes/release-notes.txt", "Fixed the pump.\n\nAdded a valve.\n", SMALL, format="text")
    assert [section.heading_path for section in doc.sections] == [("Release notes",)]


def test_a_sheet_heading_starts_its_long_table_rather_than_standing_alone(tmp_path: Path) -> None:
    doc = _parse(ff.write_xlsx(tmp_path / "inventory.xlsx"), SectionSettings(max_depth=3, max_chars=1000, min_chars=0))
    first = doc.sections[0]
    assert first.text.startswith("# Prices\n") and "| SKU |" in first.text and first.kind == "table"
    assert all(section.text.strip() != "# Prices" for section in doc.sections)


def test_a_word_title_heads_the_document_and_its_chapters_sit_below_it(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_heading("Pump manual", 0)  # the Title style
    document.add_paragraph("This manual covers the P-100 pump. " * 20)
    document.add_heading("Installing", 1)
    document.add_paragraph("Mount the pump on a level base. " * 20)
    document.add_heading("Wiring", 1)
    document.add_paragraph("Connect the supply to terminal L1. " * 20)
    document.save(str(tmp_path / "manual.docx"))
    doc = _parse(tmp_path / "manual.docx")
    assert [section.heading_path for section in doc.sections] == [
        ("Pump manual",),
        ("Pump manual", "Installing"),
        ("Pump manual", "Wiring"),
    ]
    assert doc.title == "Pump manual"


def test_a_deck_is_summarised_under_its_title_not_its_first_slide_heading(tmp_path: Path) -> None:
    doc = _parse(ff.write_pptx(tmp_path / "deck.pptx"))
    assert doc.title == "Quarterly Review"
    assert doc.summary.startswith("Quarterly Review") and "Slide 1" not in doc.summary


def test_a_summary_shows_no_footnote_marks(tmp_path: Path) -> None:
    doc = _parse(ff.write_docx(tmp_path / "policy.docx", rows=3))
    assert "[^" not in doc.summary and doc.summary.endswith("through the portal.")


def test_rst_summaries_and_headings_show_text_not_markup() -> None:
    text = (
        "The ``pump`` tool\n=================\n\n"
        "Set ``PUMP_MODE`` to **fast**; see :ref:`the install guide <install>` and `Docs <https://x.org>`_.\n"
    )
    doc = parse_document("guide.rst", text, SMALL, format="rst")
    assert doc.title == "The pump tool"
    assert doc.summary == "The pump tool: Set PUMP_MODE to fast; see the install guide and Docs."


@pytest.mark.parametrize(
    ("marked", "plain"),
    [
        (":func:`~pkg.run` starts it", "run starts it"),  # as Sphinx shows it: the last name
        (":func:`pkg.run` and :ref:`~x <y>`", "pkg.run and x"),
        ("Methods that return ``QuerySet``\\s", "Methods that return QuerySets"),
        ("``QuerySet``\\ s and ``C:\\dir``", "QuerySets and C:\\dir"),
        ("`Tuning`_ and |version|", "Tuning and version"),
        ("2*3*4 and snake_case_names stay", "2*3*4 and snake_case_names stay"),
        ("*emphasis* here", "emphasis here"),
    ],
)
def test_rst_plain_text_takes_off_inline_markup_only(marked: str, plain: str) -> None:
    assert plain_text(marked) == plain
