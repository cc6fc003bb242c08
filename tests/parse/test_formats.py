"""Every document format through the whole pipeline: ingest, then the five operations.

One corpus of every format is written by the libraries those files come
from (tests/format_fixtures.py) and ingested once per module with small
sections, so long tables are split and their later parts must carry the
header. Each format is checked for headings becoming sections, a split
table keeping its header, grep and search; PDF also for pages, reading
order, dropped running headers and its three refusals.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("pdfplumber", reason="needs the pdf extra")
pytest.importorskip("docx", reason="needs the office extra")
pytest.importorskip("bs4", reason="needs the html extra")

import format_fixtures as ff
from contextpull import Ops, ingest
from contextpull.ingestion.run import IngestReport
from contextpull.parse import formats
from contextpull.settings import SectionSettings

SETTINGS = SectionSettings(max_depth=3, max_chars=1000, min_chars=100)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, IngestReport]:
    root = tmp_path_factory.mktemp("formats")
    (root / "manuals").mkdir()
    ff.write_pdf(root / "manuals" / "pump.pdf")
    ff.write_scanned_pdf(root / "manuals" / "scanned.pdf")
    ff.write_encrypted_pdf(root / "manuals" / "locked.pdf")
    (root / "manuals" / "truncated.pdf").write_bytes((root / "manuals" / "pump.pdf").read_bytes()[:2000])
    (root / "manuals" / "empty.pdf").write_bytes(b"")
    ff.write_docx(root / "policy.docx")
    (root / "broken.docx").write_bytes(b"PK\x03\x04 not really a zip archive")
    ff.write_xlsx(root / "prices.xlsx")
    ff.write_pptx(root / "review.pptx")
    (root / "site").mkdir()
    ff.write_html(root / "site" / "api.html")
    ff.write_rst(root / "guide.rst")
    ff.write_csv(root / "orders.csv")
    ff.write_csv(root / "orders.tsv", delimiter="\t")
    store = root / ".contextpull" / "store.sqlite"
    report = ingest(root, store, SETTINGS)
    return store, report


@pytest.fixture(scope="module")
def ops(corpus: tuple[Path, IngestReport]):  # type: ignore[no-untyped-def]
    with Ops.open(corpus[0]) as opened:
        yield opened


def _sections(ops: Ops, doc: str) -> list:  # type: ignore[type-arg]
    out = []
    ordinal = 0
    while True:
        result = ops.read(f"{doc}#{ordinal}")
        out.append(result.section)
        if result.next_id is None:
            return out
        ordinal += 1


def test_a_folder_of_every_format_ingests_in_one_call(corpus: tuple[Path, IngestReport]) -> None:
    report = corpus[1]
    reasons = dict(report.skipped)
    assert reasons["manuals/scanned.pdf"] == "no text layer (a scanned PDF? OCR it first)"
    assert reasons["manuals/locked.pdf"] == "encrypted PDF (needs a password)"
    assert reasons["manuals/truncated.pdf"] == "not a readable PDF (damaged or truncated)"
    assert reasons["manuals/empty.pdf"] == "no content (empty or whitespace only)"
    assert reasons["broken.docx"] == "not a readable Word file (damaged, or not .docx)"
    assert len(report.skipped) == 5
    assert report.documents == 8  # pump.pdf, .docx, .xlsx, .pptx, .html, .rst, .csv, .tsv


# --- PDF ---------------------------------------------------------------------
def test_pdf_headings_become_sections_with_inferred_levels(ops: Ops) -> None:
    paths = [view.heading_path for view in _sections(ops, "manuals/pump.pdf")]
    assert ("P-200 Pump Manual", "1 Introduction", "1.1 Safety") in paths
    assert ("P-200 Pump Manual", "2 Installation") in paths
    assert any(path[-1:] == ("4 Maintenance",) for path in paths)


def test_pdf_reads_two_columns_in_order_and_drops_running_header_and_footer(ops: Ops) -> None:
    text = "\n".join(view.text for view in _sections(ops, "manuals/pump.pdf"))
    left, right = text.index("Mount the pump"), text.index("Connect the discharge")
    assert left < right
    # the left column is one paragraph, not interleaved with the right one
    assert "Mount the pump on a level concrete base. The pump draws water" in text
    assert "ACME P-200" not in text and not re.search(r"Page \d", text)
    assert ops.grep("ACME P-200", in_="manuals/").matches == ()


def test_pdf_search_finds_a_page3_phrase_and_reports_its_pages(ops: Ops) -> None:
    hits = ops.search(ff.PAGE3_PHRASE).hits
    assert hits[0].doc == "manuals/pump.pdf"
    assert hits[0].pages == (3, 3)
    read = ops.read(hits[0].id)
    assert read.section.pages == (3, 3)
    assert read.to_dict()["pages"] == [3, 3]


def test_pdf_table_over_a_page_break_is_one_table_with_its_header_on_every_part(ops: Ops) -> None:
    parts = [view for view in _sections(ops, "manuals/pump.pdf") if "| P-1" in view.text]
    assert len(parts) >= 2
    for view in parts:
        assert view.text.lstrip().startswith(("| Code | Part | Torque (Nm) |", "## 3 Specifications"))
    assert parts[-1].table_header_added
    assert parts[0].pages[0] == 3 and parts[-1].pages[-1] == 4
    rows = [line for view in parts for line in view.text.splitlines() if line.startswith("| P-")]
    assert len(rows) == ff.TABLE_ROWS  # every row once: the header repeated on page 4 is not a row
    matches = ops.grep("| P-159 | Seal kit 59 | 69 |").matches
    assert [m.doc for m in matches] == ["manuals/pump.pdf"]


# --- Word ----------------------------------------------------------------------
def test_docx_headings_lists_footnotes_and_left_out_text(ops: Ops) -> None:
    views = _sections(ops, "policy.docx")
    paths = {view.heading_path for view in views}
    assert ("Travel Policy", "Rates") in paths
    text = "\n".join(view.text for view in views)
    assert "# Travel Policy\n\nEmployees book travel through the portal.[^1]\n\n## Allowances\n\n" in text
    assert "\n# Appendix by outline level\n" in text  # an outline level, no heading style
    assert "- Hotel allowance is set per city." in text
    assert "[^1]: Approved by the finance board." in text
    assert "REMOVEDWORDS" not in text  # a tracked deletion
    assert ops.search("finance board").hits[0].doc == "policy.docx"


def test_docx_table_parts_keep_the_header(ops: Ops) -> None:
    parts = [view for view in _sections(ops, "policy.docx") if "| City" in view.text]
    assert len(parts) >= 2
    assert all(view.text.lstrip().startswith(("| City | Hotel | Meals |", "## Rates")) for view in parts)
    assert ops.grep("City79").matches[0].doc == "policy.docx"


# --- Excel, CSV, TSV -------------------------------------------------------------
def test_xlsx_sheets_cached_values_and_hidden_sheets(ops: Ops) -> None:
    views = _sections(ops, "prices.xlsx")
    assert {view.heading_path[0] for view in views} == {"Prices", "Notes"}
    assert all(view.text.lstrip().startswith(("| SKU | Unit price", "# Prices", "# Notes")) for view in views)
    assert ops.grep("| SKU-0003 | 2.5 | 3 | 7.5 |").matches  # the formula's cached value
    assert ops.grep("HIDDENVALUE").matches == ()
    assert ops.search("totals round half up").hits[0].doc == "prices.xlsx"


@pytest.mark.parametrize("doc", ["orders.csv", "orders.tsv"])
def test_delimited_files_are_one_table_with_the_header_on_every_part(ops: Ops, doc: str) -> None:
    views = _sections(ops, doc)
    assert len(views) >= 3
    assert all(view.text.startswith("| order | customer | amount |") for view in views)
    assert ops.grep("| ORD-299 | Customer 299 | 897 |", in_=doc).matches


# --- PowerPoint --------------------------------------------------------------------
def test_pptx_one_section_per_slide_with_notes_and_tables(ops: Ops) -> None:
    views = _sections(ops, "review.pptx")
    assert [view.heading_path for view in views] == [
        ("Slide 1: Quarterly Review",),
        ("Slide 2: Targets",),
        ("Slide 3",),
    ]
    assert "  - EMEA led with new accounts" in views[0].text
    assert "> **Speaker notes:** Mention the churn figure only if asked." in views[0].text
    assert "| Region | Target |\n|---|---|\n| EMEA | 12 |" in views[1].text
    assert ops.search("churn figure").hits[0].id == "review.pptx#0"


# --- HTML --------------------------------------------------------------------------
def test_html_main_content_only_with_code_admonitions_and_tables(ops: Ops) -> None:
    views = _sections(ops, "site/api.html")
    text = "\n".join(view.text for view in views)
    for dropped in ("NAVONLY", "FOOTERONLY", "Site header", "track()", "¶"):
        assert dropped not in text
    assert "> **Warning:** Never run the pump dry." in text
    assert "```python\npump.start()\npump.stop()\n```" in text
    parts = [view for view in views if "| limit-" in view.text]
    assert len(parts) >= 2 and all("| Name | Max |" in view.text for view in parts)
    assert [m.doc for m in ops.grep("| limit-149 | 1490 |").matches] == ["site/api.html"]
    assert ops.search("run the pump dry").hits[0].doc == "site/api.html"


# --- reStructuredText ------------------------------------------------------------
def test_rst_titles_code_and_simple_table_parts(ops: Ops) -> None:
    views = _sections(ops, "guide.rst")
    assert ("Pump Guide", "Installation") in {view.heading_path for view in views}
    code = [view for view in views if "pump.start()" in view.text]
    assert len(code) == 1 and "Example::\n\n    pump.start()" in code[0].text
    parts = [view for view in views if "limit-" in view.text]
    assert len(parts) >= 2
    assert all(view.text.startswith(("=========  =====\nName", "Limits")) for view in parts)
    assert ops.grep("limit-199").matches[0].doc == "guide.rst"
    assert ops.search("keep the base level").hits[0].doc == "guide.rst"


@pytest.mark.parametrize(
    ("name", "format"),
    [
        ("manuals/pump.pdf", "pdf"),
        ("policy.docx", "docx"),
        ("prices.xlsx", "xlsx"),
        ("review.pptx", "pptx"),
        ("site/api.html", "html"),
        ("guide.rst", "rst"),
        ("orders.csv", "csv"),
    ],
)
def test_sections_are_exact_slices_of_the_source_or_rendering(
    corpus: tuple[Path, IngestReport], name: str, format: str
) -> None:
    """The lossless invariant: for .rst the file itself, for the others their rendering."""
    data = (corpus[0].parent.parent / name).read_bytes()
    doc = formats.parse_bytes(name, data, SETTINGS, format)
    assert "".join(section.text for section in doc.sections) == doc.text
    assert [section.ordinal for section in doc.sections] == list(range(len(doc.sections)))
    if format == "rst":
        assert doc.text == data.decode()
    for section in doc.sections:
        if section.table_header is not None:
            assert section.text.startswith(("|", "limit-"))


DJANGO_STYLE = """========
Settings
========

.. setting:: ADMINS

``ADMINS``
----------

Default: ``[]`` (Empty list)

A list of all the people who get code error notifications. Example::

    ADMINS = [("John", "john@example.com")]
"""


def test_a_txt_file_written_in_rst_is_parsed_as_rst() -> None:
    """Django writes its documentation in reStructuredText in ``.txt`` files; plain text parsing lost its titles."""
    doc = formats.parse_bytes("ref/settings.txt", DJANGO_STYLE.encode(), SETTINGS, "text")
    assert doc.format == "rst"
    assert doc.title == "Settings"
    assert [section.heading_path for section in doc.sections] == [("Settings", "ADMINS")]
    assert "".join(section.text for section in doc.sections) == DJANGO_STYLE


def test_a_txt_file_with_roles_but_no_directive_is_parsed_as_rst() -> None:
    """Half of Django's pages, its release notes, have roles (``:doc:``) but no directive nor target."""
    text = (
        "==========================\nDjango 1.2.5 release notes\n==========================\n\n"
        "Welcome to Django 1.2.5! See :doc:`/releases/1.2`.\n\n"
        "Methods that return ``QuerySet``\\s\n===================================\n\n"
        "Each one is listed in :setting:`DEBUG` mode.\n"
    )
    doc = formats.parse_bytes("releases/1.2.5.txt", text.encode(), SETTINGS, "text")
    assert doc.format == "rst"
    assert doc.sections[-1].heading_path == ("Django 1.2.5 release notes", "Methods that return QuerySets")


@pytest.mark.parametrize(
    "text",
    [
        "Meeting notes\n=============\n\nWe met at 10.. and left at noon.\n",
        "Quoting ``like this'' and :smile: are not markup.\n",
        "Changes\n-------\n\n.. and more to come, said the editor.\n",
        "A list:\n\n* one\n* two\n",
    ],
)
def test_plain_text_stays_plain_text(text: str) -> None:
    assert formats.parse_bytes("notes.txt", text.encode(), SETTINGS, "text").format == "text"
