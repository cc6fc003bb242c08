"""Documents of every supported format, written by the same libraries users' files come from.

Each builder writes one file and returns its path. The PDF has what real
manuals have: a running header and footer on every page, a two-column page,
a table that runs over a page break (its header repeated, as writers do),
a phrase only on page 3, and a last page with no text layer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

FILLER = (
    "The pump draws water from the intake and pushes it through the filter housing. "
    "Operators check the pressure gauge every shift and record the reading in the log. "
)
PAGE3_PHRASE = "impeller tolerance is checked with a feeler gauge"
TABLE_ROWS = 60


def write_text_pdf(path: Path, *, chapters: int = 30) -> Path:
    """A long manual with no table: two pages a chapter (headings, paragraphs, a two-column page),
    with the manual's running header and footer; what most of a PDF documentation set looks like."""
    pdf = _manual()
    for chapter in range(1, chapters + 1):
        pdf.add_page()
        _heading(pdf, f"{chapter} Chapter {chapter}", 15)
        _body(pdf, FILLER * 6)
        _heading(pdf, f"{chapter}.1 Procedure", 12)
        _body(pdf, f"Step {chapter}: " + FILLER * 5)
        pdf.add_page()
        top = pdf.get_y()
        pdf.set_font("Helvetica", "", 11)
        pdf.multi_cell(85, 5.5, f"Left column of chapter {chapter}. " + FILLER * 6)
        pdf.set_xy(110, top)
        pdf.multi_cell(85, 5.5, f"Right column of chapter {chapter}. " + FILLER * 6)
    pdf.output(str(path))
    return path


BOOK_TITLE = "ACME Field Guide 2.1"


def write_book_pdf(path: Path, *, pages: int = 6) -> Path:
    """A book printed two-sided, as TeX sets one: a contents page (each part and its check, with dot
    leaders and page numbers), the footer holding the page number outside (left on an even page,
    right on an odd one) beside the book's title, a header naming the part a page is in beside the
    page number, words hyphenated at line ends, and a last page logging readings whose lines end
    in rising numbers as a contents page's do."""
    from fpdf import FPDF

    class Book(FPDF):
        part = ""

        def header(self) -> None:  # the part a page is in, and the page number outside
            if self.part:
                self.set_font("Helvetica", "", 8)
                number = self.page_no()
                text = f"{number}    Field notes on the {self.part}"
                self.cell(0, 6, text if number % 2 == 0 else f"Field notes on the {self.part}    {number}")
                self.ln(10)

        def footer(self) -> None:
            self.set_y(-12)
            self.set_font("Helvetica", "", 8)
            number = self.page_no()
            text = f"{number}    {BOOK_TITLE}" if number % 2 == 0 else f"{BOOK_TITLE}    {number}"
            self.cell(0, 6, text, align="L" if number % 2 == 0 else "R")

    parts = ("intake", "filter", "gauge", "valve", "impeller", "housing", "seal", "motor")
    pdf = Book()
    pdf.add_page()
    _heading(pdf, "Contents", 15)
    pdf.set_font("Helvetica", "", 11)
    for page in range(pages):
        part = parts[page % len(parts)]
        for entry in (f"The {part}", f"Checking the {part}"):
            pdf.cell(150, 5.5, f"{entry} {'. ' * (60 - len(entry) // 2)}")
            pdf.cell(0, 5.5, str(page + 2), align="R", new_x="LMARGIN", new_y="NEXT")
    for page in range(pages):
        part = parts[page % len(parts)]
        pdf.part = part
        pdf.add_page()
        _heading(pdf, f"The {part}", 15)
        pdf.set_font("Helvetica", "", 11)
        for line in (
            f"This part explains how the {part} is read and why the iso-",
            "surface of the flow is drawn with a dashed line in the operator's",
            "manual; a gauge that reads zero is replaced before the next shift.",
        ):
            pdf.cell(0, 5.5, line, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
        _body(pdf, FILLER * 3)
    pdf.part = "readings"
    pdf.add_page()  # a log of readings, each line ending in a rising number: not a contents page
    _heading(pdf, "Readings", 15)
    pdf.set_font("Helvetica", "", 11)
    for index in range(10):
        pdf.cell(0, 5.5, f"Pressure read at the {parts[index % len(parts)]} on shift {index // 2 + 1}")
        pdf.ln(5.5)
    pdf.output(str(path))
    return path


def write_borderless_table_pdf(path: Path, *, rows: int = 12) -> Path:
    """A page with a table drawn as LaTeX's booktabs draws one: three columns, a rule above and
    below the header and one under the last row, no cell borders; the last row's description
    wraps onto a second line."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "", 10)
    pdf.multi_cell(0, 5, "The functions below are built in. " + FILLER, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(3)
    pdf.line(20, pdf.get_y(), 190, pdf.get_y())
    body = [(f"fn{i}(x)", "any" if i % 2 else "int or real", f"the value number {i} of x") for i in range(rows)]
    for index, (name, arguments, returns) in enumerate([("Function", "Arguments", "Returns"), *body]):
        pdf.set_x(20)
        pdf.cell(40, 5, name)
        pdf.cell(35, 5, arguments)
        pdf.cell(0, 5, returns, new_x="LMARGIN", new_y="NEXT")
        if index == 0:
            pdf.line(20, pdf.get_y() + 0.5, 190, pdf.get_y() + 0.5)
            pdf.ln(1)
    pdf.set_x(95)
    pdf.cell(0, 5, "rounded toward zero", new_x="LMARGIN", new_y="NEXT")
    pdf.line(20, pdf.get_y() + 1, 190, pdf.get_y() + 1)
    pdf.ln(5)
    pdf.multi_cell(0, 5, "Text after the table. " + FILLER)
    pdf.output(str(path))
    return path


def _manual() -> Any:
    from fpdf import FPDF

    class Manual(FPDF):
        def header(self) -> None:
            self.set_font("Helvetica", "", 8)
            self.cell(0, 6, "ACME P-200 Pump Manual - Internal", align="C")
            self.ln(10)

        def footer(self) -> None:
            self.set_y(-12)
            self.set_font("Helvetica", "", 8)
            self.cell(0, 6, f"Page {self.page_no()}", align="C")

    return Manual()


def _heading(pdf: Any, text: str, size: int) -> None:
    pdf.set_font("Helvetica", "B", size)
    pdf.multi_cell(0, size * 0.6, text)
    pdf.ln(2)


def _body(pdf: Any, text: str) -> None:
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(0, 5.5, text)
    pdf.ln(3)


def write_pdf(path: Path) -> Path:
    pdf = _manual()
    pdf.add_page()
    _heading(pdf, "P-200 Pump Manual", 22)
    _heading(pdf, "1 Introduction", 15)
    _body(pdf, FILLER * 3)
    _heading(pdf, "1.1 Safety", 12)
    _body(pdf, "Always isolate the motor before opening the housing. " + FILLER * 2)
    pdf.add_page()
    _heading(pdf, "2 Installation", 15)
    top = pdf.get_y()
    pdf.set_font("Helvetica", "", 11)
    pdf.multi_cell(85, 5.5, "Mount the pump on a level concrete base. " + FILLER * 3)
    pdf.set_xy(110, top)
    pdf.multi_cell(85, 5.5, "Connect the discharge pipe after the base has cured. " + FILLER * 3)
    pdf.add_page()
    _heading(pdf, "3 Specifications", 15)
    _body(pdf, f"The {PAGE3_PHRASE} during commissioning. " + FILLER)
    pdf.set_font("Helvetica", "", 10)
    with pdf.table(col_widths=(30, 60, 40), repeat_headings=1) as table:
        row = table.row()
        for name in ("Code", "Part", "Torque (Nm)"):
            row.cell(name)
        for number in range(TABLE_ROWS):
            row = table.row()
            row.cell(f"P-{100 + number}")
            row.cell(f"Seal kit {number}")
            row.cell(str(10 + number))
    pdf.ln(4)
    _heading(pdf, "4 Maintenance", 15)
    _body(pdf, FILLER * 2)
    pdf.add_page()
    pdf.set_fill_color(200, 200, 200)
    pdf.rect(20, 40, 150, 100, style="F")  # a picture: no text layer on this page
    pdf.output(str(path))
    return path


def write_scanned_pdf(path: Path) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 100, style="F")
    pdf.output(str(path))
    return path


def write_encrypted_pdf(path: Path) -> Path:
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "", 12)
    pdf.cell(0, 10, "secret")
    pdf.set_encryption(owner_password="owner", user_password="user")
    pdf.output(str(path))
    return path


def write_docx(path: Path, rows: int = 80) -> Path:
    import docx

    document = docx.Document()
    document.add_heading("Travel Policy", level=1)
    paragraph = document.add_paragraph("Employees book travel through the portal.")
    paragraph.add_run().element.append(_footnote_reference(1))
    document.add_heading("Allowances", level=2)
    document.add_paragraph("Hotel allowance is set per city.", style="List Bullet")
    document.add_paragraph("Meals are reimbursed at cost.", style="List Bullet")
    document.add_heading("Rates", level=2)
    table = document.add_table(rows=1, cols=3)
    for cell, name in zip(table.rows[0].cells, ("City", "Hotel", "Meals")):
        cell.text = name
    for number in range(rows):
        cells = table.add_row().cells
        cells[0].text, cells[1].text, cells[2].text = f"City{number}", str(100 + number), str(40 + number)
    outline = document.add_paragraph("Appendix by outline level")
    _set_outline_level(outline, 0)
    document.add_paragraph("Keep receipts for seven years.")
    _strike_deleted(document.add_paragraph("Visible text."), "REMOVEDWORDS")
    document.save(str(path))
    _add_footnotes(path, {1: "Approved by the finance board."})
    return path


def _footnote_reference(number: int):  # type: ignore[no-untyped-def]
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    return parse_xml(f'<w:footnoteReference {nsdecls("w")} w:id="{number}"/>')


def _set_outline_level(paragraph, level: int) -> None:  # type: ignore[no-untyped-def]
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    paragraph._p.get_or_add_pPr().append(parse_xml(f'<w:outlineLvl {nsdecls("w")} w:val="{level}"/>'))


def _strike_deleted(paragraph, text: str) -> None:  # type: ignore[no-untyped-def]
    from docx.oxml import parse_xml
    from docx.oxml.ns import nsdecls

    paragraph._p.append(
        parse_xml(f'<w:del {nsdecls("w")} w:id="9" w:author="a"><w:r><w:delText>{text}</w:delText></w:r></w:del>')
    )


def _add_footnotes(path: Path, notes: dict[int, str]) -> None:
    """python-docx writes no footnotes part; add one to the saved package by hand."""
    import zipfile

    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    body = "".join(
        f'<w:footnote w:id="{n}"><w:p><w:r><w:t>{text}</w:t></w:r></w:p></w:footnote>' for n, text in notes.items()
    )
    part = (
        f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes xmlns:w="{w}">'
        '<w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:footnote>'
        f"{body}</w:footnotes>"
    )
    with zipfile.ZipFile(path) as source:
        entries = {name: source.read(name) for name in source.namelist()}
    rels = entries["word/_rels/document.xml.rels"].decode()
    rels = rels.replace(
        "</Relationships>",
        '<Relationship Id="rIdFoot" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
        'relationships/footnotes" Target="footnotes.xml"/></Relationships>',
    )
    entries["word/_rels/document.xml.rels"] = rels.encode()
    types = (
        entries["[Content_Types].xml"]
        .decode()
        .replace(
            "</Types>",
            '<Override PartName="/word/footnotes.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"/></Types>',
        )
    )
    entries["[Content_Types].xml"] = types.encode()
    entries["word/footnotes.xml"] = part.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for name, data in entries.items():
            target.writestr(name, data)


def write_xlsx(path: Path, rows: int = 200) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Prices"
    sheet.append(["SKU", "Unit price", "Quantity", "Total"])
    for number in range(rows):
        sheet.append([f"SKU-{number:04d}", 2.5, number, f"=B{number + 2}*C{number + 2}"])
    hidden = book.create_sheet("Secret")
    hidden.append(["HIDDENVALUE"])
    hidden.sheet_state = "hidden"
    book.create_sheet("Blank")
    notes = book.create_sheet("Notes")
    notes.append(["Topic", "Note"])
    notes.append(["Rounding", "Totals round half up"])
    book.save(str(path))
    _cache_formula_values(path, {f"D{n + 2}": 2.5 * n for n in range(rows)})
    return path


def _cache_formula_values(path: Path, values: dict[str, float]) -> None:
    """Store each formula's computed value in the file, as Excel does on save (openpyxl cannot)."""
    import re
    import zipfile

    with zipfile.ZipFile(path) as source:
        entries = {name: source.read(name) for name in source.namelist()}
    name = "xl/worksheets/sheet1.xml"

    def cached(match: re.Match[str]) -> str:
        return f'<c r="{match.group(1)}"><f>{match.group(2)}</f><v>{values[match.group(1)]}</v></c>'

    entries[name] = re.sub(r'<c r="([A-Z]+\d+)"><f>([^<]*)</f><v></v></c>', cached, entries[name].decode()).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as target:
        for entry, data in entries.items():
            target.writestr(entry, data)


def write_pptx(path: Path) -> Path:
    import pptx
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Quarterly Review"
    body = slide.placeholders[1].text_frame
    body.text = "Revenue grew in every region"
    item = body.add_paragraph()
    item.text = "EMEA led with new accounts"
    item.level = 1
    slide.notes_slide.notes_text_frame.text = "Mention the churn figure only if asked."
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Targets"
    shape = slide.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2))
    for r, values in enumerate((("Region", "Target"), ("EMEA", "12"), ("APAC", "9"))):
        for c, value in enumerate(values):
            shape.table.cell(r, c).text = value
    deck.slides.add_slide(deck.slide_layouts[6])  # blank, untitled
    deck.save(str(path))
    return path


HTML_PAGE = """<!doctype html><html><head><title>Pump API</title><style>p {}</style></head><body>
<header>Site header</header><nav><ul><li>Home</li><li>NAVONLY</li></ul></nav>
<div class="document"><div class="body" role="main">
<h1>Pump API<a class="headerlink" href="#x">¶</a></h1>
<p>The <b>pump</b> API starts and stops pumps.</p>
<div class="admonition warning"><p class="admonition-title">Warning</p><p>Never run the pump dry.</p></div>
<div class="highlight-python notranslate"><pre>pump.start()
pump.stop()</pre></div>
<h2>Limits</h2>
<table><thead><tr><th>Name</th><th>Max</th></tr></thead><tbody>{rows}</tbody></table>
</div></div><footer>FOOTERONLY</footer><script>track()</script></body></html>
"""


def write_html(path: Path, rows: int = 150) -> Path:
    body = "".join(f"<tr><td>limit-{n}</td><td>{n * 10}</td></tr>" for n in range(rows))
    path.write_text(HTML_PAGE.replace("{rows}", body), encoding="utf-8")
    return path


RST_DOC = """\
============
 Pump Guide
============

The guide covers installing the pump. Example::

    pump.start()

Installation
============

Mount the pump on a level base.

.. note::

   Keep the base level.

.. code-block:: python

   import pump

Limits
------

=========  =====
Name       Max
=========  =====
{rows}
=========  =====
"""


def write_rst(path: Path, rows: int = 200) -> Path:
    body = "\n".join(f"limit-{n:<3}  {n * 10:<5}" for n in range(rows))
    path.write_text(RST_DOC.replace("{rows}", body), encoding="utf-8")
    return path


def write_csv(path: Path, rows: int = 300, delimiter: str = ",") -> Path:
    lines = [delimiter.join(("order", "customer", "amount"))]
    lines += [delimiter.join((f"ORD-{n}", f"Customer {n}", str(n * 3))) for n in range(rows)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
