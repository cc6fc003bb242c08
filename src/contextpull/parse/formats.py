"""The file formats ContextPull reads: which suffix, which parser, which extra.

Three ways in:

* **source formats** (Markdown, plain text, reStructuredText) are decoded and
  outlined as they are, so a section is an exact slice of the file;
* **rendered formats** (PDF, Word, Excel, PowerPoint, HTML, CSV/TSV) are
  first written as Markdown-like text (:mod:`.rendering`), which is then
  outlined as Markdown; a section is an exact slice of that rendering, and
  the rendering is what ``read`` returns (docs/adr/014-document-formats.md);
* a format whose library is not installed is not parsed at all: the file is
  skipped with a reason naming the extra that provides it.

Formats that run third-party parsers on untrusted bytes are marked
``isolated``: the ingest runs them in a child process under a time limit, so
a parser that hangs or crashes costs one file, never the ingest.
"""

from __future__ import annotations

import importlib.util
import json
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from ..records import ParsedDocument
from ..settings import SectionSettings
from .decode import Undecodable, decode_bytes
from .rendering import Rendering, Unparseable, pages_of

__all__ = [
    "FORMATS",
    "FormatSpec",
    "Unparseable",
    "format_for",
    "missing_extra",
    "parse_bytes",
    "parse_rendering",
    "parsers_fingerprint",
    "render",
    "spec",
]


@dataclass(frozen=True)
class FormatSpec:
    """One format: its name (stored as the document's format), suffixes and parser."""

    name: str
    suffixes: tuple[str, ...]
    extra: str | None = None  # the pyproject extra that installs its parser
    module: str | None = None  # importable exactly when that extra is installed
    rendered: bool = False  # parsed from a Markdown-like rendering, not its own text
    isolated: bool = False  # parsed in a child process with a time limit

    def __post_init__(self) -> None:
        if self.isolated and not self.rendered:
            raise ValueError("only rendered formats run isolated")


FORMATS: tuple[FormatSpec, ...] = (
    FormatSpec("markdown", (".md", ".markdown", ".mdx")),
    FormatSpec("text", (".txt", ".text", ".adoc", ".asciidoc")),  # AsciiDoc: see plaintext.py
    FormatSpec("rst", (".rst", ".rest")),
    FormatSpec("csv", (".csv",), rendered=True),
    FormatSpec("tsv", (".tsv", ".tab"), rendered=True),
    FormatSpec("html", (".html", ".htm", ".xhtml"), "html", "bs4", rendered=True, isolated=True),
    FormatSpec("pdf", (".pdf",), "pdf", "pdfplumber", rendered=True, isolated=True),
    FormatSpec("docx", (".docx",), "office", "docx", rendered=True, isolated=True),
    FormatSpec("xlsx", (".xlsx", ".xlsm"), "office", "openpyxl", rendered=True, isolated=True),
    FormatSpec("pptx", (".pptx",), "office", "pptx", rendered=True, isolated=True),
)
_BY_NAME = {f.name: f for f in FORMATS}
_BY_SUFFIX = {suffix: f.name for f in FORMATS for suffix in f.suffixes}
#: bump when a parser's output changes for the same bytes, so stores re-section their files. 2: PDF text
#: and layout from PDFium (docs/adr/015-pdf-extraction.md); 3: HTML and Word superscripts as 2^31; 4: an
#: HTML page with no main-content container is read around its title; 5: what an HTML page hides is left out;
#: 6: PowerPoint superscripts as 2^31 too; 7: an HTML reference entry (a definition term that is a link
#: target, a keyword line) is headed by its name; 8: an image in an HTML table cell is read as its alt text;
#: 9: a term line right after another is a further signature of its entry, not an entry of its own;
#: 10: a footnote's label is no entry; 11: a plain-text document's opening title block is its title; 12: a PDF
#: printed two-sided loses its running lines (and those naming the chapter beside the page number), a word
#: PDFium hyphenates at a line end is whole, a PDF's contents pages are left out, and a table drawn without
#: cell borders is read row by row; 13: Sphinx's links between an entry and its source code ("[source]") are
#: left out; 14: a reStructuredText target above a title belongs to its section, a `.txt` file with roles is
#: reStructuredText, and titles lose escapes (``QuerySet``\s) and what a `~` role hides; 15: a directive
#: with content of its own above a title (``.. autofunction::``, ``.. image::``) is no target of it
PARSE_VERSION = 15
#: slides and sheets are cited one by one, so a short one is never merged into its neighbour
_ONE_SECTION_PER_PART = frozenset({"pptx", "xlsx"})


def format_for(path: str) -> str | None:
    """The format ``path`` is ingested as, by suffix; None means not ingested."""
    return _BY_SUFFIX.get(PurePosixPath(path).suffix.lower())


def spec(format: str) -> FormatSpec:
    return _BY_NAME[format]


def missing_extra(format: str) -> str | None:
    """The skip reason when ``format``'s parser is not installed, else None."""
    found = _BY_NAME[format]
    if found.module is None:
        return None
    try:
        if importlib.util.find_spec(found.module) is not None:
            return None
    except ValueError:  # imported once and then removed from sys.modules: not usable
        pass
    return f"{found.name} parser not installed (pip install 'contextpull[{found.extra}]')"


def parsers_fingerprint() -> str:
    """The parser version and the formats whose parser is installed, as the store records them.

    When it changes (an extra installed or removed, a parser changed), an
    ingest re-sections every file, so files skipped for a missing parser
    are read at last.
    """
    installed = [f.name for f in FORMATS if missing_extra(f.name) is None]
    return json.dumps({"version": PARSE_VERSION, "formats": installed})


def render(format: str, data: bytes) -> Rendering:
    """The Markdown-like rendering of a rendered format; raises :class:`Unparseable` with the reason."""
    # each parser is imported where it is used, by name: its third-party library loads only for a file
    # that needs it, and the behaviour fingerprint's import walk sees every parser (a computed name it cannot)
    if format == "pdf":
        from . import pdf

        return pdf.render(data)
    if format == "docx":
        from . import docx

        return docx.render(data)
    if format == "xlsx":
        from . import xlsx

        return xlsx.render(data)
    if format == "pptx":
        from . import pptx

        return pptx.render(data)
    try:
        text = decode_bytes(data, format)
    except Undecodable as err:
        raise Unparseable(err.reason) from None
    if format == "html":
        from . import html

        return html.render(text)
    from . import delimited

    return delimited.render(text, delimiter="\t" if format == "tsv" else ",")


def parse_rendering(path: str, rendering: Rendering, settings: SectionSettings, format: str) -> ParsedDocument:
    """Section ``rendering`` as Markdown; each section records the pages it spans."""
    if format in _ONE_SECTION_PER_PART:
        settings = replace(settings, min_chars=0)
    from .sections import parse_document  # the Markdown stack, only where a file is parsed (see parse_bytes)

    doc = parse_document(path, rendering.text, settings, format="markdown", title=rendering.title)
    sections = tuple(replace(s, pages=pages_of(rendering, s.start, s.end)) for s in doc.sections)
    return replace(
        doc,
        format=format,
        metadata={**doc.metadata, **rendering.metadata},
        sections=sections,
    )


def parse_bytes(path: str, data: bytes, settings: SectionSettings, format: str) -> ParsedDocument:
    """Decode (or render) and section one file in this process; raises :class:`Unparseable`.

    The ingest calls :func:`render` itself for isolated formats, in a child
    process, and then :func:`parse_rendering`.
    """
    if _BY_NAME[format].rendered:
        return parse_rendering(path, render(format, data), settings, format)
    try:
        text = decode_bytes(data, path)
    except Undecodable as err:
        raise Unparseable(err.reason) from None
    # Imported here: an ingest's writing process (and the read side) needs this
    # module's format table but not markdown-it and the sectioner, about 10 MB
    # resident that each parser process loads for itself.
    from . import rst
    from .sections import parse_document

    if format == "text" and rst.looks_like_rst(text):
        format = "rst"  # a .txt file written in reStructuredText (Django's documentation)
    return parse_document(path, text, settings, format=format)
