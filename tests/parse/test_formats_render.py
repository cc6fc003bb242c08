"""The Markdown-like renderings of single documents: what each format keeps and leaves out."""

from __future__ import annotations

from pathlib import Path

import pytest

from contextpull.parse import rst
from contextpull.parse.rendering import Writer, pages_of


def test_writer_escapes_text_that_would_read_as_markdown_structure() -> None:
    writer = Writer()
    writer.paragraph("# not a heading\n- not an item\n| not a table")
    writer.table([["a|b", "c"], ["1", "2"]])
    text = writer.rendering().text
    assert text.startswith("\\# not a heading\n\\- not an item\n\\| not a table\n\n")
    assert "| a\\|b | c |\n|---|---|\n| 1 | 2 |" in text


def test_writer_escapes_a_thematic_break_but_not_a_bold_term_beginning_with_dashes() -> None:
    """``**--follow**`` (an option list's term) reads as bold text; only a line of nothing but ``-*_`` is a rule."""
    writer = Writer()
    writer.paragraph("**--follow**\n**_open(name)**\n***bold italic***\n---\n* * *\n__ _")
    assert writer.rendering().text == "**--follow**\n**_open(name)**\n***bold italic***\n\\---\n\\* * *\n\\__ _\n\n"


def test_pages_of_names_the_pages_a_slice_has_text_from() -> None:
    writer = Writer()
    writer.page(1)
    writer.paragraph("first page")
    writer.page(2)
    writer.table([["h"], ["row on 2"], ["row on 3"]], page_of_row=[2, 3])
    rendering = writer.rendering()
    assert pages_of(rendering, 0, len(rendering.text)) == (1, 3)
    start = rendering.text.index("| row on 3")
    assert pages_of(rendering, start, len(rendering.text)) == (3, 3)
    assert pages_of(rendering, 0, 12) == (1, 1)  # "first page\n\n": trailing blank lines do not count


def test_html_keeps_a_page_header_with_the_title_and_reads_definition_lists() -> None:
    pytest.importorskip("bs4", reason="needs the html extra")
    from contextpull.parse import html

    page = """<html><body><header class="site">Site banner</header>
    <article><header><h1>Config</h1></header>
    <dl class="py function"><dt>load(path)</dt><dd><p>Reads the file.</p><pre>load("a.toml")</pre></dd></dl>
    <div class="admonition note"><p class="admonition-title">Note</p><ul><li><p>Nested once.</p></li></ul></div>
    </article></body></html>"""
    text = html.render(page).text
    assert text.startswith('# Config\n\n**load(path)**\n\nReads the file.\n\n```\nload("a.toml")\n```')
    assert "> **Note:** Nested once.\n" in text and text.count("Nested once.") == 1
    assert "Site banner" not in text


#: a Sphinx reference page: an object described under the heading that names it, two described only by
#: their entries, and a definition list of plain terms
SPHINX = """<main><h1>Loading</h1><h2>load()</h2>
<dl class="py function"><dt class="sig sig-object py" id="zap.load"><code class="sig-prename">zap.</code><code
class="sig-name">load</code>(<em>path</em>)<a class="reference internal" href="_modules/zap.html#load"><span
class="viewcode-link">[source]</span></a><a class="headerlink" href="#zap.load">¶</a></dt><dd></dd></dl>
<p>Reads the file.</p><h2>Helpers</h2>
<dl class="py function"><dt id="zap.dump"><code class="sig-prename">zap.</code><code class="sig-name">dump</code>(<em>obj</em>)</dt>
<dd><p>Writes the object.</p></dd></dl>
<dl class="std envvar"><dt id="envvar-ZAP_HOME">ZAP_HOME</dt><dd><p>Where zap keeps its files.</p></dd></dl>
<dl><dt>strict</dt><dd><p>Refuse unknown keys.</p></dd></dl>
<dl class="footnote brackets"><dt class="label" id="id3">1</dt><dd><p>Since version 2.</p></dd></dl></main>"""


def test_html_reference_entries_are_headed_by_their_names() -> None:
    """A term that is a link target documents a thing: its name heads it, as a reStructuredText directive does."""
    pytest.importorskip("bs4", reason="needs the html extra")
    from contextpull.parse import html

    text = html.render(SPHINX).text
    # the heading just above already names load(): no second heading for it
    # ... and its link to its source code ("[source]") is no part of its signature
    assert "## load()\n\n**zap.load(path)**\n\nReads the file." in text
    assert "## Helpers\n\n###### zap.dump\n\n**zap.dump(obj)**\n\nWrites the object." in text
    assert "###### ZAP_HOME\n\n**ZAP_HOME**\n\nWhere zap keeps its files." in text
    assert "**strict**\n\nRefuse unknown keys." in text and "# strict" not in text  # a plain term
    assert "**1**\n\nSince version 2." in text and "# 1" not in text  # a footnote's label names nothing
    # HAProxy's manual: each keyword a line of its own, its description in a text block below; a second
    # line right after the first is another signature of the same keyword
    keyword = (
        '<main><h3>3.1. Process management</h3><a class="anchor" name="nbthread"></a><div class="keyword">'
        '<b><a class="anchor" name="nbthread"></a><a href="#3.1-nbthread">nbthread</a></b> <span>&lt;number&gt;'
        '</span></div><pre class="text">Makes HAProxy run on &lt;number&gt; threads.</pre>'
        '<div class="keyword"><b>balance</b> &lt;algorithm&gt;</div><div class="keyword"><b>balance url_param</b>'
        " &lt;param&gt;</div><pre>Define the load balancing algorithm.</pre></main>"
    )
    assert html.render(keyword).text == (
        "### 3.1. Process management\n\n###### nbthread\n\n**nbthread <number>**\n\n"
        "```\nMakes HAProxy run on <number> threads.\n```\n\n###### balance\n\n**balance <algorithm>**\n\n"
        "**balance url_param <param>**\n\n```\nDefine the load balancing algorithm.\n```\n\n"
    )


#: a page as Django's documentation theme writes it: no main or article, a banner whose h1 links home, a
#: sidebar with the page's contents, a "Last update" box and a footer, all beside the text inside body
THEMED = """<html><head><title>Model instance reference | Django documentation</title></head><body>
<div class="document"><div id="hd"><h1><a href="../index.html">Django documentation</a></h1>
<div id="global-nav"><a href="../index.html">Home</a> | <a href="../genindex.html">Index</a></div></div>
<div id="bd"><div id="yui-main"><div class="yui-b"><div class="yui-g">
<div class="section"><h1>Model instance reference<a class="headerlink" href="#top">¶</a></h1>
<p>This document describes the details of the Model API and the methods every instance has.</p>
<div class="section"><h2>Creating objects</h2><p>To create a new instance of a model, instantiate it like any
other Python class, passing the field values as keyword arguments.</p></div>
<div class="section"><h2>Saving objects</h2><p>To save an object back to the database, call save().</p></div>
</div></div></div></div>
<div class="yui-b" id="sidebar"><h3>Contents</h3><ul><li><a href="#c">Creating objects</a></li>
<li><a href="#s">Saving objects</a></li></ul><h3>Last update:</h3><p>Nov 11, 2026</p></div></div>
<div id="ft"><a href="prev.html">previous</a> | <a href="next.html">next</a></div></div></body></html>"""


def test_html_without_a_main_container_is_read_around_its_title() -> None:
    pytest.importorskip("bs4", reason="needs the html extra")
    from contextpull.parse import html

    rendering = html.render(THEMED)
    assert rendering.text.startswith("# Model instance reference\n\nThis document describes")
    assert "## Saving objects\n\nTo save an object back to the database, call save()." in rendering.text
    for chrome in ("Django documentation", "Home", "Contents", "Last update", "Nov 11", "previous"):
        assert chrome not in rendering.text
    # a title alone in a small header box is passed over for what holds the text
    boxed = "<body><div class='top'><h1>Guide</h1></div><div><p>" + "Words of the guide. " * 20 + "</p></div></body>"
    assert html.render(boxed).text.startswith("# Guide\n\nWords of the guide.")
    # a page whose chrome outweighs its text is read whole, as before
    heavy = "<body><div><h1>Short</h1><p>Tiny.</p></div><div>" + "<p>Menu entry.</p>" * 40 + "</div></body>"
    assert html.render(heavy).text.count("Menu entry.") == 40


def test_html_leaves_out_what_the_page_hides() -> None:
    pytest.importorskip("bs4", reason="needs the html extra")
    from contextpull.parse import html

    # HAProxy's manual: a Bootstrap menu, shown only on a click, inside every keyword it cites
    page = (
        '<main><p>Paths relative to "<span class="dropdown"><a class="dropdown-toggle" href="#">ca-file</a>'
        '<ul class="dropdown-menu"><li class="dropdown-header">This keyword is available in sections :</li>'
        '<li><a href="#b">Bind options</a></li></ul></span>" use ca-base.</p>'
        '<div style="display: none">Quick search</div><p hidden>Draft</p></main>'
    )
    assert html.render(page).text == 'Paths relative to "ca-file" use ca-base.\n\n'


def test_html_table_caption_is_a_paragraph_above_the_table() -> None:
    pytest.importorskip("bs4", reason="needs the html extra")
    from contextpull.parse import html

    page = "<main><table><caption> Loader\n flags </caption><tr><th>Flag</th></tr><tr><td>-q</td></tr></table></main>"
    assert html.render(page).text == "Loader flags\n\n| Flag |\n|---|\n| -q |\n\n"


def test_html_images_in_table_cells_are_read_as_their_text_alternative() -> None:
    pytest.importorskip("bs4", reason="needs the html extra")
    from contextpull.parse import html

    # HAProxy's keyword matrix marks each section a keyword may be used in with a check-mark image
    page = (
        "<main><table><tr><th>keyword</th><th>frontend</th><th>backend</th></tr><tr><td>balance</td>"
        '<td>&nbsp;</td><td><img src="css/check.png" alt="X" title="yes" /></td></tr>'
        '<tr><td>bind</td><td><img alt="../_images/mark.png" src="../_images/mark.png" /></td><td></td></tr>'
        '<tr><td>mode</td><td>yes<br/><img src="css/check.png" alt="yes" /></td><td>no</td></tr></table>'
        '<p>A list <img src="../_images/cons.svg" alt="An infinite Cons list"> as a figure.</p></main>'
    )
    # in the text an image illustrates what the words say; a file name, or what the cell says, is no text
    assert html.render(page).text == (
        "| keyword | frontend | backend |\n|---|---|---|\n| balance |  | X |\n| bind |  |  |\n| mode | yes | no |\n\n"
        "A list as a figure.\n\n"
    )


def test_html_superscripts_and_subscripts_keep_their_place_in_the_text() -> None:
    pytest.importorskip("bs4", reason="needs the html extra")
    from contextpull.parse import html

    page = (
        "<main><p>A field holds up to 2<sup>31</sup> bytes, from -(2<sup>n - 1</sup>); x<sub>i</sub>"
        ' is read once<sup><a href="#note-1">1</a></sup>.<sup> </sup></p></main>'
    )
    # flattened, 2<sup>31</sup> read as 231: another number
    assert html.render(page).text == "A field holds up to 2^31 bytes, from -(2^(n - 1)); x_i is read once[^1].\n\n"


def test_docx_raised_and_lowered_runs_keep_their_place_in_the_text(tmp_path: Path) -> None:
    docx = pytest.importorskip("docx", reason="needs the office extra")
    from contextpull.parse import docx as reader

    document = docx.Document()
    paragraph = document.add_paragraph("Up to 2")
    for text in ("3", "1"):  # Word splits one superscript into runs as it is typed
        paragraph.add_run(text).font.superscript = True
    paragraph.add_run(" bytes; H")
    paragraph.add_run("2").font.subscript = True
    paragraph.add_run("O and 2")
    paragraph.add_run("n - 1").font.superscript = True
    paragraph.add_run(".")
    document.save(tmp_path / "d.docx")
    text = reader.render((tmp_path / "d.docx").read_bytes()).text
    assert text == "Up to 2^31 bytes; H_2O and 2^(n - 1).\n\n"


def test_pptx_raised_and_lowered_runs_keep_their_place_in_the_text(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx", reason="needs the office extra")
    from contextpull.parse import pptx as reader

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Limits"
    paragraph = slide.shapes.add_textbox(0, 0, 100, 100).text_frame.paragraphs[0]
    for text, baseline in (("Up to 2", None), ("3", "30000"), ("1", "30000"), (" bytes of H", None), ("2", "-25000")):
        run = paragraph.add_run()
        run.text = text
        if baseline:
            run.font._rPr.set("baseline", baseline)
    paragraph.add_run().text = "O."
    deck.save(tmp_path / "d.pptx")
    assert "Up to 2^31 bytes of H_2O." in reader.render((tmp_path / "d.pptx").read_bytes()).text


def test_xlsx_title_rows_above_the_header_are_paragraphs(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl", reason="needs the office extra")
    from contextpull.parse import xlsx

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Budget"
    sheet.append(["Budget 2026 (draft)"])
    sheet.append([])
    sheet.append(["Team", "Q1", "Q2"])
    sheet.append(["Core", 10, 12.0])
    book.save(tmp_path / "b.xlsx")
    text = xlsx.render((tmp_path / "b.xlsx").read_bytes()).text
    assert text == "# Budget\n\nBudget 2026 (draft)\n\n| Team | Q1 | Q2 |\n|---|---|---|\n| Core | 10 | 12 |\n\n"


def test_rst_grid_table_parts_start_at_a_row_and_the_header_ends_at_the_equals_border() -> None:
    rows = "".join(f"| r{n:<3} | {n:<4} |\n+------+------+\n" for n in range(3))
    text = "Table\n=====\n\n+------+------+\n| Name | Max  |\n+======+======+\n" + rows
    outline = rst.outline(text)
    table = next(block for block in outline.blocks if block.kind == "table")
    assert text[table.start : table.header_end].endswith("+======+======+\n")
    assert [text[cut : cut + 5] for cut in table.cuts] == ["| r1 ", "| r2 "]
    assert outline.tables == ((table.start, table.start + len(text) - text.index("+------+------+\n| Name")),)


def test_rst_title_levels_follow_the_order_adornment_styles_appear() -> None:
    text = "=====\nTitle\n=====\n\nAlpha\n-----\n\nBeta\n~~~~~~\n\nGamma\n-----\n\nbody\n"
    headings = [(b.level, b.heading) for b in rst.outline(text).blocks if b.kind == "heading"]
    assert headings == [(1, "Title"), (2, "Alpha"), (3, "Beta"), (2, "Gamma")]
