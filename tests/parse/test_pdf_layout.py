"""PDF text and layout from PDFium, tables from pdfplumber only where ruling lines are drawn."""

from __future__ import annotations

from pathlib import Path

import pytest

import format_fixtures as ff
from contextpull.parse import pdf

pytest.importorskip("pypdfium2")
pytest.importorskip("pdfplumber")
pytest.importorskip("fpdf")


def test_a_long_text_manual_keeps_its_headings_columns_and_pages(tmp_path: Path) -> None:
    rendering = pdf.render(ff.write_text_pdf(tmp_path / "long.pdf", chapters=6).read_bytes())
    text = rendering.text
    headings = [line for line in text.splitlines() if line.startswith("#")]
    assert headings[:2] == ["# 1 Chapter 1", "## 1.1 Procedure"] and len(headings) == 12
    assert text.index("Left column of chapter 3") < text.index("Right column of chapter 3")  # read by column
    assert "ACME P-200 Pump Manual" not in text and "Page 4" not in text  # running header and footer


def test_a_two_sided_book_loses_its_footers_and_contents_and_keeps_words_hyphenated_at_line_ends(
    tmp_path: Path,
) -> None:
    rendering = pdf.render(ff.write_book_pdf(tmp_path / "book.pdf", pages=6).read_bytes())
    text = rendering.text
    # the footer is "2    ACME Field Guide 2.1" on even pages and "ACME Field Guide 2.1    3" on odd ones;
    # the header names the part ("Field notes on the valve    5"): its text changes, its number is the page's
    assert ff.BOOK_TITLE not in text and "Field notes" not in text
    # PDFium reports a hyphen ending a line inside a word as U+FFFE; the word is whole again
    assert "\ufffe" not in text and text.count("isosurface of the flow") == 6
    # the contents page (twelve entries with leaders and rising page numbers, naming the book's
    # headings) is left out and listed; the log of readings names none of them and stays
    assert rendering.metadata == {"contents_pages": [1]}
    assert ". . ." not in text and "Checking the" not in text and text.count("# The intake") == 1
    assert "Pressure read at the intake on shift 1" in text and "on shift 5" in text


def test_a_table_drawn_without_cell_borders_is_read_row_by_row(tmp_path: Path) -> None:
    text = pdf.render(ff.write_borderless_table_pdf(tmp_path / "functions.pdf", rows=12).read_bytes()).text
    lines = text.splitlines()
    header = lines.index("| Function | Arguments | Returns |")
    assert lines[header + 1] == "|---|---|---|"
    assert lines[header + 5] == "| fn3(x) | any | the value number 3 of x |"
    # the last row's description wraps onto a line of its own: it joins its cell
    assert lines[header + 13] == "| fn11(x) | any | the value number 11 of x rounded toward zero |"
    assert text.index("The functions below") < header and "Text after the table." in lines[header + 15]
    # the two columns of a two-column page are still read as text, one after the other
    two_columns = pdf.render(ff.write_text_pdf(tmp_path / "long.pdf", chapters=2).read_bytes()).text
    assert "|" not in two_columns


def _line(text: str, top: float) -> pdf._Line:
    return pdf._Line(1, top, top + 10, 72, 500, text, 10, False, [(72, 500, text)])


@pytest.mark.parametrize(
    ("numbers", "pages", "contents"),
    [
        ([3, 3, 5, 8, 13, 21, 34, 55], 60, True),
        ([3, 3, 5, 8, 13, 21, 34, 55], 40, False),  # a "page" past the last page: a list of figures
        ([3, 5, 8, 13, 21, 34, 55, 4], 60, False),  # a number falls: not pages in order
        ([3, 5, 8, 13, 21, 34, 55], 60, False),  # too few entries
    ],
)
def test_a_contents_page_is_one_of_rising_page_numbers(numbers: list[int], pages: int, contents: bool) -> None:
    lines = [
        _line(f"Section about part {index} . . . . . {number}", 20.0 * index) for index, number in enumerate(numbers)
    ]
    assert pdf._lists_contents([_line("Contents", 0), *lines], pages) is contents
    prose = [_line("The pump is checked every shift by the operator on duty.", 300.0 + 20 * i) for i in range(8)]
    assert not pdf._lists_contents([*lines, *prose], pages)  # most lines are prose


def test_pdfplumber_is_opened_only_for_pages_with_ruling_lines(tmp_path: Path) -> None:
    import pypdfium2

    data = ff.write_pdf(tmp_path / "manual.pdf").read_bytes()
    document = pypdfium2.PdfDocument(data)
    tables = pdf._Tables(data)
    try:
        found = {}
        for number, page in enumerate(document, 1):
            found[number] = (len(pdf._read_page(number, page, tables)[3]), tables.pdf is not None)
    finally:
        tables.close()
        document.close()
    # pages 1 and 2 are prose; the ruled table spans pages 3 and 4; page 5's picture is one rectangle
    assert found[1] == (0, False) and found[2] == (0, False)
    assert found[3][0] == 1 and found[4][0] == 1 and found[3][1]
