"""PowerPoint (.pptx) to a Markdown-like rendering: one section per slide.

Each slide is a level-1 heading ``Slide N: title`` (the title placeholder,
else ``Slide N``), then its shapes top to bottom, left to right: text as
list items at their indent level (slides are mostly bullets), tables as pipe
tables with their first row as the header, grouped shapes in place, and the
speaker notes last as a quoted block. The deck's title is its document
property, else the first slide title.
"""

from __future__ import annotations

from typing import Any

from .rendering import LOWERED, ON_LINE, RAISED, Rendering, Writer, joined_runs, open_package

__all__ = ["render"]

CORRUPT = "not a readable PowerPoint file (damaged, or not .pptx)"


def render(data: bytes) -> Rendering:
    """The rendering of the presentation in ``data``; raises :class:`Unparseable` with the reason."""
    import pptx  # the `office` extra

    deck = open_package(pptx.Presentation, data, CORRUPT)
    writer = Writer()
    titles = []
    for number, slide in enumerate(deck.slides, 1):
        title_shape = slide.shapes.title
        title = " ".join((title_shape.text_frame.text if title_shape is not None else "").split())
        titles.append(title)
        writer.heading(1, f"Slide {number}: {title}" if title else f"Slide {number}")
        _shapes(writer, slide.shapes, skip=title_shape)
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            if notes is not None and notes.text.strip():
                writer.quote(notes.text, "Speaker notes")
    deck_title = (deck.core_properties.title or "").strip() or next((t for t in titles if t), None)
    return writer.rendering(title=deck_title)


def _shapes(writer: Writer, shapes: Any, *, skip: Any = None) -> None:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    ordered = sorted(shapes, key=lambda shape: (shape.top or 0, shape.left or 0))
    for shape in ordered:
        if skip is not None and shape.shape_id == skip.shape_id:
            continue
        if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
            _shapes(writer, shape.shapes)
        elif getattr(shape, "has_table", False) and shape.has_table:
            writer.table([[cell.text for cell in row.cells] for row in shape.table.rows])
        elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
            entries = [(p.level, joined_runs(_runs(p))) for p in shape.text_frame.paragraphs]
            entries = [(level, text) for level, text in entries if text.strip()]
            if len(entries) == 1 and entries[0][0] == 0:
                writer.paragraph(entries[0][1])
            else:
                writer.items(entries)


def _runs(paragraph: Any) -> list[tuple[str, int]]:
    """A paragraph's runs and how each sits on the line: a positive ``baseline`` offset raises a run."""
    runs = []
    for run in paragraph.runs:
        properties = run._r.rPr  # python-pptx exposes no baseline of its own
        offset = properties.get("baseline") if properties is not None else None
        shift = int(offset) if offset and offset.lstrip("-").isdigit() else 0
        runs.append((run.text, RAISED if shift > 0 else LOWERED if shift < 0 else ON_LINE))
    return runs
