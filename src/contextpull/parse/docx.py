"""Word (.docx) to a Markdown-like rendering.

Body paragraphs and tables are read in document order. A paragraph is a
heading when its style is ``Title`` (level 1) or ``Heading N`` (level N), or
when it or its style carries an outline level (``w:outlineLvl``, 0-based);
in a document with a ``Title``, every other heading is one level deeper, so
the title heads the document rather than standing beside its first chapter;
numbered and bulleted paragraphs become list items at their indent level;
tables become pipe tables with their first row as the header; footnotes
are kept where they are cited (``[^3]``) and listed under a closing
"Footnotes" heading.

Left out on purpose: text boxes and shapes (floating text with no place in
the reading order), tracked-change deletions (text the author removed;
tracked insertions are kept), headers and footers, and comments.
"""

from __future__ import annotations

import re
from typing import Any

from .rendering import LOWERED, ON_LINE, RAISED, Rendering, Writer, joined_runs, open_package

__all__ = ["render"]

CORRUPT = "not a readable Word file (damaged, or not .docx)"

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_HEADING_STYLE = re.compile(r"heading\s*([1-9])", re.IGNORECASE)
#: the level :func:`_paragraph_kind` gives a ``Title`` paragraph: 1 in the rendering, the others one deeper
_TITLE = -1
#: subtrees whose text is not part of the body's reading order
_LEFT_OUT = {
    f"{_W}del",
    f"{_W}txbxContent",
    f"{_W}drawing",
    f"{_W}pict",
    f"{_W}commentReference",
    "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback",
}


def render(data: bytes) -> Rendering:
    """The rendering of the Word file in ``data``; raises :class:`Unparseable` with the reason."""
    import docx  # the `office` extra

    document = open_package(docx.Document, data, CORRUPT)
    writer = Writer()
    styles = {style.style_id: style for style in document.styles}
    items: list[tuple[int, str]] = []
    body = list(document.element.body.iterchildren())
    kinds = {id(element): _paragraph_kind(element, styles) for element in body if element.tag == f"{_W}p"}
    titled = any(level == _TITLE for level, _ in kinds.values())
    for element in body:
        if element.tag == f"{_W}p":
            level, depth = kinds[id(element)]
            level = 1 if level == _TITLE else min(level + titled, 6) if level else 0
            text = _text(element)
            if depth is not None and level == 0:
                items.append((depth, text))
                continue
            if items:
                writer.items(items)
                items = []
            if level:
                writer.heading(level, text)
            else:
                writer.paragraph(text)
        elif element.tag == f"{_W}tbl":
            if items:
                writer.items(items)
                items = []
            writer.table(_rows(element))
    if items:
        writer.items(items)
    notes = _footnotes(document)
    if notes:
        writer.heading(1 + titled, "Footnotes")
        writer.paragraph("\n".join(f"[^{number}]: {text}" for number, text in notes))
    return writer.rendering()


def _paragraph_kind(p: Any, styles: dict[str, Any]) -> tuple[int, int | None]:
    """(heading level, :data:`_TITLE` or 0; list depth or None) of paragraph element ``p``."""
    ppr = p.find(f"{_W}pPr")
    style = None
    if ppr is not None:
        style_el = ppr.find(f"{_W}pStyle")
        if style_el is not None:
            style = styles.get(style_el.get(f"{_W}val"))
    name = style.name if style is not None and style.name else ""
    if name.lower() == "title":
        return _TITLE, None
    level = 0
    match = _HEADING_STYLE.fullmatch(name.strip())
    if match:
        level = int(match.group(1))
    outline = _outline_level(ppr)
    if outline is None and style is not None:
        outline = _outline_level(style.element.find(f"{_W}pPr"))
    if not level and outline is not None and outline < 9:
        level = outline + 1
    depth = None
    numbering = ppr.find(f"{_W}numPr") if ppr is not None else None
    if numbering is not None:
        ilvl = numbering.find(f"{_W}ilvl")
        depth = int(ilvl.get(f"{_W}val", "0")) if ilvl is not None else 0
    elif name.lower().startswith("list"):
        depth = 0
    return min(level, 6), depth


def _outline_level(ppr: Any) -> int | None:
    if ppr is None:
        return None
    element = ppr.find(f"{_W}outlineLvl")
    if element is None:
        return None
    value = element.get(f"{_W}val", "")
    return int(value) if value.isdigit() else None


def _text(element: Any) -> str:
    """The visible text of ``element``, without the subtrees in ``_LEFT_OUT``; raised runs as ``^31``, ``_i``."""
    runs: list[tuple[str, int]] = []

    def walk(node: Any) -> None:
        for child in node.iterchildren():
            tag = child.tag
            if tag in _LEFT_OUT:
                continue
            position = _vertical_position(child) if tag == f"{_W}r" else ON_LINE
            if position != ON_LINE:
                runs.append((_text(child), position))
            elif tag == f"{_W}t":
                runs.append((child.text or "", ON_LINE))
            elif tag in (f"{_W}tab", f"{_W}ptab"):
                runs.append((" ", ON_LINE))
            elif tag in (f"{_W}br", f"{_W}cr"):
                runs.append(("\n", ON_LINE))
            elif tag == f"{_W}footnoteReference":
                runs.append((f"[^{child.get(f'{_W}id')}]", ON_LINE))
            else:
                walk(child)

    walk(element)
    return joined_runs(runs)


def _vertical_position(run: Any) -> int:
    """Whether a run is raised (superscript), lowered (subscript) or on the line.

    A footnote reference is a superscript run too; its mark is written as
    ``[^N]`` by :func:`_text`, so a run holding one is not raised again.
    """
    properties = run.find(f"{_W}rPr")
    align = properties.find(f"{_W}vertAlign") if properties is not None else None
    value = align.get(f"{_W}val", "") if align is not None else ""
    if run.find(f"{_W}footnoteReference") is not None:
        return ON_LINE
    return {"superscript": RAISED, "subscript": LOWERED}.get(value, ON_LINE)


def _rows(table: Any) -> list[list[str]]:
    rows = []
    for tr in table.iterchildren(f"{_W}tr"):
        cells = []
        for tc in tr.iterchildren(f"{_W}tc"):
            text = " ".join(_text(p) for p in tc.iter(f"{_W}p"))
            span = tc.find(f"{_W}tcPr/{_W}gridSpan")
            cells.extend([text] * (int(span.get(f"{_W}val", "1")) if span is not None else 1))
        rows.append(cells)
    return rows


def _footnotes(document: Any) -> list[tuple[str, str]]:
    """(number, text) of each real footnote; separators (ids -1 and 0) are skipped."""
    from docx.oxml import parse_xml

    for rel in document.part.rels.values():
        if rel.reltype.endswith("/footnotes") and not rel.is_external:
            root = parse_xml(rel.target_part.blob)
            notes = []
            for note in root.iterchildren(f"{_W}footnote"):
                number = note.get(f"{_W}id", "")
                if number.lstrip("-").isdigit() and int(number) > 0:
                    text = " ".join(_text(p) for p in note.iter(f"{_W}p")).strip()
                    if text:
                        notes.append((number, text))
            return notes
    return []
