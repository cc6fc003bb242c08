"""HTML pages to a Markdown-like rendering of their main content.

A documentation page carries navigation, a header, a footer, a sidebar and
scripts around the text people read. The main content is the first of
``<main>``, ``[role=main]``, ``<article>`` or a known documentation-theme
container (Sphinx, MkDocs, Read the Docs, Docusaurus), else the smallest
element around the page's title holding half its text (a theme with none of
those, as Django's own documentation), else ``<body>``;
``nav``, ``footer``, ``aside``, ``script``, ``style`` and the like are
dropped inside it too, and so is a ``header`` without a heading (a page
header holding the title, as Docusaurus writes it, stays). Within it: ``h1``-``h6`` are headings,
``pre`` is fenced code (language from a ``language-*`` or ``highlight-*``
class), tables keep their first row (or ``thead``) as the header and their
``caption`` as a paragraph above them, lists keep
their nesting, admonitions (``.admonition``, ``.note``, ``.warning``, ...)
are quoted with their title, a reference entry (a definition term that is a
link target, as Sphinx writes every function and setting) is headed by its
name, an image in a table cell is read as its ``alt`` text (a support matrix
of check-mark images keeps its marks), and everything else is read as
paragraphs.
The page ``<title>`` is the document title when the page has no ``h1``.
"""

from __future__ import annotations

import re
from typing import Any

from .rendering import Rendering, Writer, raised

__all__ = ["render"]

#: main-content containers, best first: (tag or "" for any, attribute, value) — class values match one class
_MAIN: tuple[tuple[str, str, str], ...] = (
    ("main", "", ""),
    ("", "role", "main"),
    ("article", "", ""),
    ("div", "class", "body"),  # Sphinx, inside div.document
    ("div", "class", "rst-content"),
    ("div", "class", "md-content"),
    ("div", "class", "theme-doc-markdown"),
    ("", "id", "content"),
    ("div", "class", "content"),
)
_DROP_TAGS = frozenset(
    {"script", "style", "noscript", "template", "nav", "footer", "aside", "form", "button", "iframe", "svg"}
)
_DROP_ROLES = frozenset({"navigation", "banner", "contentinfo"})
#: theme chrome by class; ``dropdown-menu`` is Bootstrap's menu, shown only when clicked (HAProxy's HTML
#: manual puts one inside every keyword it cites: "ca-fileThis keyword is available in sections :…");
#: ``viewcode-link`` and ``viewcode-back`` are Sphinx's links between an entry and its source ("[source]",
#: "[docs]"), which Django's reference put in 526 entry lines ("class BaseCommand[source]")
_DROP_CLASSES = frozenset(
    {
        "headerlink",
        "sphinxsidebar",
        "toctree-wrapper",
        "md-sidebar",
        "breadcrumbs",
        "dropdown-menu",
        "viewcode-link",
        "viewcode-back",
    }
)
#: an inline style hiding its element
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.IGNORECASE)
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
#: a reference documents each function, setting or keyword in an *entry*: a definition term that is a
#: link target (Sphinx's ``<dt id="django.db.models.query.QuerySet.filter">``) or a known theme's keyword
#: div (HAProxy's manual: ``<div class="keyword">``). Its name is a heading of the deepest level, below the
#: levels that start sections (``max_depth``, 3 by default), so it names the part of a long section it
#: starts (ADR 022, 2026-12-07 follow-up; a reStructuredText entry sits one level below its title instead,
#: ``rst.ENTRY_BELOW_TITLE``: measured there, not yet on built HTML)
ENTRY_LEVEL = 6
_ENTRY_CLASSES = frozenset({"keyword"})
#: docutils' footnote and citation lists: their terms are link targets, but labels ("1", "[Ref]"), not names
_NOTE_CLASSES = frozenset({"footnote", "citation"})
#: the longest entry name kept in a heading path
_ENTRY_NAME = 80
_TEXT_BLOCKS = ["p", "li", "pre", "dd", "dt"]
_ADMONITION = re.compile(r"^(admonition|note|warning|tip|important|caution|danger|attention|hint|error|seealso)$")
_LANGUAGE = re.compile(r"^(?:language|lang|highlight|sourceCode)-(\S+)$")
_BLOCKS = {
    "p",
    "div",
    "section",
    "pre",
    "table",
    "ul",
    "ol",
    "dl",
    "blockquote",
    "figure",
    "details",
    "header",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "main",
    "article",
}


def render(text: str) -> Rendering:
    """The rendering of the HTML page ``text`` (decoded)."""
    from bs4 import BeautifulSoup  # the `html` extra

    soup = BeautifulSoup(text, "html.parser")
    page_title = _words(soup.title) if soup.title else ""
    body = soup.body or soup
    root = _main(soup) or _around_title(body) or body
    for element in [e for e in root.find_all(True) if _dropped(e)]:
        if not element.decomposed:
            element.decompose()
    for br in root.find_all("br"):
        br.replace_with("\n")
    for image in root.find_all("img"):
        cell = image.find_parent(("td", "th"))
        image.replace_with(_alt(image, cell) if cell is not None else "")
    for script in root.find_all(("sup", "sub")):
        script.replace_with(_script(script))
    writer = Writer()
    _Walker(writer).block(root)
    has_h1 = root.find("h1") is not None
    return writer.rendering(title=page_title if page_title and not has_h1 else None)


def _alt(image: Any, cell: Any) -> str:
    """A table cell's image as its text alternative: there it stands for a value (HAProxy's check marks for
    "yes"), where in the text it illustrates what the words say. None when the alternative only repeats the
    file name (Sphinx writes ``alt="../_images/postmortem.png"`` for an image given none) or what the cell
    already says in words ("yes" above a check mark whose alternative is "yes")."""
    alt = " ".join(str(image.get("alt") or "").split())
    name = str(image.get("src") or "").rsplit("/", 1)[-1]
    if not alt or (name and alt.rsplit("/", 1)[-1] == name):
        return ""
    said = _words(cell)
    return "" if re.search(rf"(?<!\w){re.escape(alt)}(?!\w)", said, re.IGNORECASE) else alt


def _main(soup: Any) -> Any:
    """The best main-content container, in one pass over the tags (CSS selectors cost 4x the parse)."""
    best: tuple[int, Any] | None = None
    for element in soup.find_all(True):
        for rank, (tag, attribute, value) in enumerate(_MAIN[: best[0] if best else None]):
            if tag and element.name != tag:
                continue
            found = element.get(attribute) if attribute else None
            matches = not attribute or (value in found if isinstance(found, list) else found == value)
            if matches and (rank != 3 or element.find_parent("div", class_="document") is not None):
                best = (rank, element)
                break
        if best is not None and best[0] == 0:
            break
    return best[1] if best else None


def _around_title(body: Any) -> Any:
    """For a page with no main-content container: the smallest element around its title holding half its text.

    A theme without ``main`` or ``article`` (Django's own documentation)
    puts a site banner, a sidebar with the page's contents and a "Last
    update" box beside the text, all inside ``body``. The page's own title
    is its first ``h1`` with text outside links (a banner's ``h1`` is a link
    home); the text people read is around it. Half the page's characters is
    the bar, so a title standing alone in a small header box is passed over
    for what holds the text, and a page whose chrome outweighs its text
    keeps ``body``, as before.
    """
    title = next((h1 for h1 in body.find_all("h1") if _outside_links(h1)), None)
    if title is None:
        return None
    whole = _characters(body)
    element = title.parent
    while element is not None and element is not body and _characters(element) * 2 < whole:
        element = element.parent
    return None if element is None or element is body else element


def _outside_links(element: Any) -> str:
    """The text of ``element`` that is not inside a link."""
    return "".join(text for text in element.find_all(string=True) if text.find_parent("a") is None).strip()


def _characters(element: Any) -> int:
    return sum(len(word) for word in element.get_text().split())


def _dropped(element: Any) -> bool:
    """Navigation, chrome, scripts, what the page hides, and the like; a header only when it holds no heading
    (a site banner)."""
    if element.name in _DROP_TAGS or element.get("role") in _DROP_ROLES or element.get("aria-hidden") == "true":
        return True
    if element.has_attr("hidden") or _HIDDEN_STYLE.search(str(element.get("style") or "")):
        return True
    if _DROP_CLASSES.intersection(element.get("class") or ()):
        return True
    return element.name == "header" and element.find(list(_HEADINGS)) is None


class _Walker:
    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self._term_end = -1  # blocks written when the last term line was

    def block(self, element: Any) -> None:
        """Write ``element``'s children: block elements by kind, runs of inline content as paragraphs."""
        inline: list[str] = []
        for child in element.children:
            name = getattr(child, "name", None)
            if name is None:
                inline.append(str(child) if type(child).__name__ == "NavigableString" else "")
                continue
            if name not in _BLOCKS and not _is_admonition(child):
                inline.append(_inline(child))
                continue
            self._paragraph(inline)
            inline = []
            self.element(child)
        self._paragraph(inline)

    def _paragraph(self, parts: list[str]) -> None:
        text = "".join(parts)
        if text.strip():
            self.writer.paragraph(text)

    def _term(self, element: Any, entry: str) -> None:
        """A term line in bold, under a heading naming its ``entry`` (when it is one) unless the heading
        just above names it (Django's ``#### filter()`` over the entry ``filter(*args, **kwargs)``) or the
        block just above is a term line too (a further signature of the same entry: ``balance
        <algorithm>`` then ``balance url_param <param>``)."""
        after_term = self._term_end == self.writer.blocks()
        if entry and not after_term and not _names(self.writer.last_heading(), entry):
            self.writer.heading(ENTRY_LEVEL, entry[:_ENTRY_NAME])
        self.writer.paragraph("**" + _words(element) + "**")
        self._term_end = self.writer.blocks()

    def element(self, element: Any) -> None:
        name = element.name
        if name in _HEADINGS:
            self.writer.heading(_HEADINGS[name], _inline(element))
        elif name == "pre":
            self.writer.code(element.get_text(), _language(element))
        elif name == "table":
            caption = element.find("caption", recursive=False)
            if caption is not None and (text := _words(caption)):
                self.writer.paragraph(text)  # where a reader sees it: above the table it names
            self.writer.table(_table_rows(element))
        elif name in ("ul", "ol"):
            entries: list[tuple[int, str]] = []
            _list_items(element, 0, entries)
            self.writer.items(entries, ordered=name == "ol")
        elif _is_admonition(element):
            title = element.find(class_="admonition-title")
            label = _inline(title) if title is not None else _admonition_kind(element)
            if title is not None:
                title.decompose()
            self.writer.quote(_plain(element), label)
        elif name == "blockquote":
            self.writer.quote(_plain(element))
        elif name == "dl":
            # a footnote's label is a link target too, but names nothing ("1", "2")
            notes = _NOTE_CLASSES.intersection(element.get("class") or ())
            for item in element.find_all(["dt", "dd"], recursive=False):
                if item.name == "dt":
                    self._term(item, _entry_name(item) if item.get("id") and not notes else "")
                else:
                    self.block(item)
        elif name == "div" and _ENTRY_CLASSES.intersection(element.get("class") or ()):
            bold = element.find(["b", "strong"])
            self._term(element, _words(bold) if bold is not None else "")
        elif name == "hr":
            return
        elif name == "p":
            self.writer.paragraph(_inline(element))
        else:
            self.block(element)


def _entry_name(term: Any) -> str:
    """The name a ``dt`` that is a link target documents: Sphinx's ``sig-name`` (with its class or module
    prefix), else its text up to a ``(``."""
    named = [part for part in term.find_all(class_=("sig-prename", "sig-name")) if part.get_text().strip()]
    text = "".join(part.get_text() for part in named) if named else term.get_text().split("(")[0]
    return " ".join(text.split())


def _names(heading: str, entry: str) -> bool:
    """Whether ``heading`` is the name of ``entry``, whole or its last dotted part, a ``(…)`` after it aside."""
    bare = heading.split("(")[0].strip(" `").casefold()
    return bool(bare) and bare in (entry.casefold(), entry.rsplit(".", 1)[-1].casefold())


def _is_admonition(element: Any) -> bool:
    classes = element.get("class") or []
    return element.name in ("div", "aside", "section") and any(_ADMONITION.match(c) for c in classes)


def _admonition_kind(element: Any) -> str:
    for name in element.get("class") or []:
        if _ADMONITION.match(name) and name != "admonition":
            return name.capitalize()
    return "Note"


def _script(element: Any) -> str:
    """A ``sup`` or ``sub`` as text: a footnote mark (a link within the page) as ``[^1]``, else ``^31``, ``_i``."""
    text = _words(element)
    link = element.find("a")
    internal = link is not None and str(link.get("href", "")).startswith("#")
    if element.name == "sup" and internal and _words(link) == text:
        return f"[^{text.strip('[]')}]"
    return raised(text, element.name == "sup")


def _words(element: Any) -> str:
    """Text of an element on one line: every run of whitespace, line breaks included, one space."""
    return " ".join(element.get_text().split())


def _inline(element: Any) -> str:
    """Text of an inline run: whitespace collapsed, explicit line breaks kept."""
    return "\n".join(" ".join(line.split()) for line in element.get_text().split("\n"))


def _plain(element: Any) -> str:
    """Text of a block with its paragraphs on separate lines."""
    lines = []
    leaves = [e for e in element.find_all(_TEXT_BLOCKS) if e.find(_TEXT_BLOCKS) is None]
    for child in leaves or [element]:
        text = _words(child)
        if text:
            lines.append(text)
    return "\n".join(lines)


def _language(pre: Any) -> str:
    for element in (pre.find("code"), pre, pre.parent, pre.parent.parent if pre.parent else None):
        if element is None or not hasattr(element, "get"):
            continue
        for name in element.get("class") or []:
            match = _LANGUAGE.match(name)
            if match and match.group(1) not in ("default", "notranslate"):
                return match.group(1)
    return ""


def _table_rows(table: Any) -> list[list[str]]:
    rows = []
    for tr in table.find_all("tr"):
        if tr.find_parent("table") is not table:
            continue  # a row of a nested table
        cells = []
        for td in tr.find_all(["th", "td"], recursive=False):
            span = td.get("colspan", "1")
            cells.extend([_words(td)] * (int(span) if str(span).isdigit() else 1))
        rows.append(cells)
    return rows


def _list_items(element: Any, depth: int, entries: list[tuple[int, str]]) -> None:
    for item in element.find_all("li", recursive=False):
        nested = item.find_all(["ul", "ol"], recursive=False)
        for sub in nested:
            sub.extract()
        entries.append((depth, _words(item)))
        for sub in nested:
            _list_items(sub, depth + 1, entries)
