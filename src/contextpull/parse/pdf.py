"""PDF to a Markdown-like rendering, with the page of every part.

PDFium (pypdfium2) gives every character's box, size and font, grouped into
words as pdfplumber groups them; pdfplumber (on pdfminer.six) reads tables,
and only on pages whose ruling lines may draw one
(docs/adr/015-pdf-extraction.md has the measurements and the rules below).

* **Reading order**: words are grouped into lines, lines into runs split at
  wide gaps. A page whose lines share a vertical gutter near the middle is
  read as two columns: each band of lines between full-width lines (or
  tables) is read left column first, then right.
* **Headings**: the body size is the font size carrying the most characters.
  A short line (at most 120 characters, not ending like a sentence) is a
  heading when its size is at least 1.15 times the body size, or when it is
  bold throughout at body size or more. Levels follow (size, bold) in
  descending order: the largest is level 1.
* **Tables**: ruled tables pdfplumber finds become pipe tables, first row as
  header; a table that starts a page and has the column count of the table
  that ended the previous page continues it (a repeated header row is
  dropped), so a table across a page break stays one table. A table drawn
  without cell borders (booktabs' rules, or none) is found in the lines:
  three or more lines in a row whose text starts at the same three or more
  x positions, each line a row, a line under the later columns only the
  rest of a wrapped cell (read as text, the column reader would take such a
  band for two text columns and read one column's cells after the other's).
* **Running headers and footers**: a line among the first or last two of a
  page whose text, digits ignored and a page number at either end left out
  (a book printed two-sided puts it outside), appears there in the same size
  on at least 60 % of the pages with text (and on three pages or more) is
  dropped; so is one whose text changes (the chapter a page is in) but
  which starts or ends with that page's printed number, on as many pages.
* **Hyphens at line ends**: a word broken over a line is rejoined when the
  next line starts in lower case (PDFium reports such a hyphen as U+FFFE).
* **Contents pages**: a page most of whose lines end in page numbers that
  never fall, and whose entries are mostly lines of the other pages (the
  document's headings), is the table of contents; it is left out (search
  would find it for every topic) and listed in the metadata
  (``contents_pages``).
* Pages with no text layer are listed in the metadata; a file with no text
  at all, an encrypted file and a corrupt file are refused with their reason.
"""

from __future__ import annotations

import io
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from .rendering import Rendering, Unparseable, Writer, clean

__all__ = ["render"]

NO_TEXT = "no text layer (a scanned PDF? OCR it first)"
ENCRYPTED = "encrypted PDF (needs a password)"
CORRUPT = "not a readable PDF (damaged or truncated)"

HEADING_RATIO = 1.15
MAX_HEADING_CHARS = 120
RUNNING_SHARE = 0.6
#: lines further apart than this many times their font size start a new paragraph
PARAGRAPH_GAP = 0.6
RUNNING_MIN_PAGES = 3
#: characters further apart than this many points start a new word (pdfplumber's ``x_tolerance``)
WORD_GAP = 3.0
#: straight segments of a page's paths from which it may hold a ruled table (a rectangle draws four)
RULED_SEGMENTS = 8
_BULLETS = ("•", "◦", "▪", "‣", "●", "○", "■", "–")
_SENTENCE_END = (".", ",", ";")
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER_AT_END = re.compile(r"^#\s+|\s+#$")
#: a number starting or ending a line, where a running line puts the page number
_EDGE_NUMBER = re.compile(r"^(\d{1,4})\s|\s(\d{1,4})$")
#: the page number ending a contents entry, after a space or a dot leader
_PAGE_NUMBER = re.compile(r"[\s.](\d{1,4})$")
#: a contents page: this many entries at least, this share of its lines, this share found as lines elsewhere
CONTENTS_MIN_ENTRIES = 8
CONTENTS_SHARE = 0.6
CONTENTS_NAMED_SHARE = 0.5
#: a table drawn without lines: at least this many lines in a row, each of text in this many columns
#: starting at the same x (within this many points) on half the lines
BORDERLESS_MIN_ROWS = 3
BORDERLESS_MIN_COLUMNS = 3
COLUMN_TOLERANCE = 3.0
#: what PDFium's text holds for a hyphen ending a line inside a word ("isosur-" / "face"); the hyphen
#: it stands for lets the paragraph rule rejoin the word
LINE_END_HYPHEN = "\ufffe"
#: a glyph pdfminer cannot map to text; at the start of a line it is nearly always a bullet
_UNMAPPED_BULLET = re.compile(r"^\(cid:\d+\)\s*")
_BOLD = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)


@dataclass
class _Line:
    page: int
    top: float
    bottom: float
    x0: float
    x1: float
    text: str
    size: float
    bold: bool
    runs: list[tuple[float, float, str]]  # (x0, x1, text) split at wide gaps


@dataclass
class _Table:
    page: int
    top: float
    rows: list[list[str]]


def render(data: bytes) -> Rendering:
    """The rendering of the PDF in ``data``; raises :class:`Unparseable` with the reason."""
    try:
        import pypdfium2  # the `pdf` extra; imported here so the format registry loads without it
    except OSError as err:  # the library cannot even be mapped: the parser child's memory limit
        raise MemoryError from err
    try:
        document = pypdfium2.PdfDocument(data)
    except MemoryError:
        raise  # the parser child's memory limit, reported as such
    except pypdfium2.PdfiumError as err:
        raise Unparseable(ENCRYPTED if "password" in str(err).lower() else CORRUPT) from None
    tables = _Tables(data)
    try:
        pages = [_read_page(number, page, tables) for number, page in enumerate(document, 1)]
    except (Unparseable, MemoryError):
        raise
    except Exception as err:  # noqa: BLE001 - pdfminer raises many unrelated types for damage found page by page
        if _out_of_memory(err):
            raise MemoryError from None
        raise Unparseable(CORRUPT) from None
    finally:
        tables.close()
        document.close()
    return _Layout(pages).rendering()


def _out_of_memory(err: BaseException) -> bool:
    """True when pdfplumber's wrapper (``PdfminerException(MemoryError())``) hides an allocation failure."""
    return any(isinstance(inner, MemoryError) for inner in (*err.args, err.__cause__, err.__context__))


class _Tables:
    """pdfplumber over the same bytes, opened only when a page's ruling lines say it may hold a table."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pdf: Any = None

    def of_page(self, number: int) -> list[Any]:
        if self.pdf is None:
            import pdfplumber

            self.pdf = pdfplumber.open(io.BytesIO(self.data))
        return list(self.pdf.pages[number - 1].find_tables())

    def close(self) -> None:
        if self.pdf is not None:
            self.pdf.close()


def _read_page(number: int, page: Any, tables: _Tables) -> tuple[int, float, list[_Line], list[_Table]]:
    """A page's lines from PDFium's characters, and its tables from pdfplumber when it has ruling lines."""
    width, height = page.get_size()
    words = _words(page, height)
    found = tables.of_page(number) if words and _ruling_segments(page) >= RULED_SEGMENTS else []
    boxes = [table.bbox for table in found]
    kept = [word for word in words if not any(_inside(word, box) for box in boxes)]
    parsed = [_Table(number, table.bbox[1], [[c or "" for c in row] for row in table.extract()]) for table in found]
    return number, float(width), _lines(number, kept), parsed


def _ruling_segments(page: Any) -> int:
    """How many straight segments the page's path objects draw: a ruled table needs several."""
    import pypdfium2.raw as pdfium_c

    count = 0
    for item in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_PATH,), max_depth=2):
        count += max(0, pdfium_c.FPDFPath_CountSegments(item.raw))
        if count >= RULED_SEGMENTS:
            break
    return count


def _words(page: Any, height: float) -> list[dict[str, Any]]:
    """The page's words, as pdfplumber's ``extract_words`` gives them: text, box (top-left origin), size
    and font name. PDFium's characters are split into words at white space, where the font size
    changes, at a gap wider than :data:`WORD_GAP` points or where the line changes; a word takes the
    font of its first character. A character's box is one font size high from the bottom of its loose
    box (the font's descent below the baseline), as pdfminer makes it, so gaps between lines agree."""
    import ctypes

    import pypdfium2.raw as pdfium_c

    textpage = page.get_textpage()
    try:
        raw, count = textpage.raw, textpage.count_chars()
        text = textpage.get_text_range(0, count) if count else ""
        if len(text) != count:  # a character outside the BMP: take them one by one
            text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw, i) or 32) for i in range(count))
        text = text.replace(LINE_END_HYPHEN, "-")
        char_box, font_size = pdfium_c.FPDFText_GetLooseCharBox, pdfium_c.FPDFText_GetFontSize
        box, name, flags = pdfium_c.FS_RECTF(), ctypes.create_string_buffer(128), ctypes.c_int()
        words: list[dict[str, Any]] = []
        current: dict[str, Any] | None = None
        for index, char in enumerate(text):
            if char.isspace():
                current = None
                continue
            char_box(raw, index, box)
            size = font_size(raw, index)
            bottom = height - box.bottom
            if (
                current is None
                or size != current["size"]
                or box.left - current["x1"] > WORD_GAP
                or box.left < current["x0"]
                or abs(bottom - current["bottom"]) > WORD_GAP
            ):
                pdfium_c.FPDFText_GetFontInfo(raw, index, name, len(name), flags)
                font = name.value.decode("utf-8", "replace")
                current = {"text": "", "x0": box.left, "x1": box.right, "top": bottom - size, "bottom": bottom}
                current.update(size=size, fontname=font)
                words.append(current)
            current["text"] += char
            current["x1"] = max(current["x1"], box.right)
        return words
    finally:
        textpage.close()


def _inside(word: dict[str, Any], box: tuple[float, float, float, float]) -> bool:
    x = (word["x0"] + word["x1"]) / 2
    y = (word["top"] + word["bottom"]) / 2
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def _lines(page: int, words: list[dict[str, Any]]) -> list[_Line]:
    """Words grouped into lines by their vertical middle, each line split into runs at wide gaps."""
    rows: list[list[dict[str, Any]]] = []
    for word in sorted(words, key=lambda w: ((w["top"] + w["bottom"]) / 2, w["x0"])):
        middle = (word["top"] + word["bottom"]) / 2
        if rows:
            last = rows[-1][0]
            if abs(middle - (last["top"] + last["bottom"]) / 2) <= 0.4 * min(word["size"], last["size"]):
                rows[-1].append(word)
                continue
        rows.append([word])
    lines = []
    for row in rows:
        row.sort(key=lambda w: w["x0"])
        runs: list[tuple[float, float, str]] = []
        for word in row:
            if runs and word["x0"] - runs[-1][1] <= 1.5 * word["size"]:
                x0, _, text = runs[-1]
                runs[-1] = (x0, word["x1"], f"{text} {word['text']}")
            else:
                runs.append((word["x0"], word["x1"], word["text"]))
        sizes = Counter({round(w["size"] * 2) / 2: len(w["text"]) for w in row})
        lines.append(
            _Line(
                page=page,
                top=min(w["top"] for w in row),
                bottom=max(w["bottom"] for w in row),
                x0=runs[0][0],
                x1=runs[-1][1],
                text=_UNMAPPED_BULLET.sub("• ", " ".join(run[2] for run in runs)),
                size=sizes.most_common(1)[0][0],
                bold=all(_BOLD.search(w["fontname"] or "") for w in row),
                runs=runs,
            )
        )
    return lines


class _Layout:
    def __init__(self, pages: list[tuple[int, float, list[_Line], list[_Table]]]) -> None:
        self.pages = pages
        edges = {number: _edge_lines(lines) for number, _, lines, _ in pages}
        running = _running_lines(list(edges.values()))
        body = _body_size([line for _, _, lines, _ in pages for line in lines])
        numbered = _numbered_lines(edges, body)
        self.no_text = [number for number, _, lines, tables in pages if not lines and not tables]
        if len(self.no_text) == len(pages):
            raise Unparseable(NO_TEXT)
        flows: dict[int, list[_Line | _Table]] = {}
        listing: dict[int, list[_Line]] = {}  # pages that list contents, if their entries are titles found elsewhere
        for number, width, lines, tables in pages:
            at_edge = {id(line) for line in edges[number]}
            kept = [
                line
                for line in lines
                if id(line) not in at_edge or (_running_key(line) not in running and id(line) not in numbered)
            ]
            if not kept and not tables and number not in self.no_text:
                self.no_text.append(number)  # running header and footer only
            if not tables and _lists_contents(kept, len(pages)):
                listing[number] = kept
            prose, borderless = _borderless_tables(number, kept)
            flows[number] = _reading_order(prose, [*tables, *borderless], width)
        self._measure([item for number, items in flows.items() if number not in listing for item in items])
        titles = {_folded(item.text) for item in self.flow if isinstance(item, _Line)}
        self.contents = [number for number, kept in listing.items() if _names_titles(kept, titles)]
        if self.contents != list(listing):  # a page kept after all weighs in the body size and levels
            self._measure([item for number, items in flows.items() if number not in self.contents for item in items])

    def _measure(self, flow: list[_Line | _Table]) -> None:
        """Keep ``flow`` and learn from it the body size and the heading levels."""
        self.flow = flow
        self.body = _body_size([item for item in self.flow if isinstance(item, _Line)])
        found = (self._heading_key(item) for item in self.flow if isinstance(item, _Line))
        keys = sorted({key for key in found if key is not None})
        self.levels = {key: min(6, rank + 1) for rank, key in enumerate(keys)}

    def _heading_key(self, line: _Line) -> tuple[float, bool] | None:
        """(-size, not bold) for a heading line, so sorting puts level 1 first; None for body text."""
        text = line.text
        if len(text) > MAX_HEADING_CHARS or text.endswith(_SENTENCE_END) or not any(c.isalpha() for c in text):
            return None
        if line.size >= HEADING_RATIO * self.body or (line.bold and line.size >= self.body):
            return (-line.size, not line.bold)
        return None

    def rendering(self) -> Rendering:
        writer = Writer()
        pending: _Table | None = None
        page_of_row: list[int] = []
        previous_page = 0
        for block in self._blocks():
            if isinstance(block, _Table):
                starts_page = block.page != previous_page
                if pending is not None and starts_page and len(block.rows[0]) == len(pending.rows[0]):
                    rows = block.rows[1:] if block.rows[0] == pending.rows[0] else block.rows
                    pending.rows.extend(rows)
                    page_of_row.extend([block.page] * len(rows))
                else:
                    if pending is not None:
                        writer.table(pending.rows, page_of_row=page_of_row)
                    writer.page(block.page)
                    pending, page_of_row = block, [block.page] * (len(block.rows) - 1)
                previous_page = block.page
                continue
            if pending is not None:
                writer.table(pending.rows, page_of_row=page_of_row)
                pending = None
            kind, page, text, level = block
            previous_page = page
            writer.page(page)
            if kind == "heading":
                writer.heading(level, text)
            elif kind == "item":
                writer.items([(0, text)])
            else:
                writer.paragraph(text)
        if pending is not None:
            writer.table(pending.rows, page_of_row=page_of_row)
        metadata: dict[str, list[int]] = {"pages_without_text": self.no_text} if self.no_text else {}
        if self.contents:
            metadata["contents_pages"] = self.contents
        return writer.rendering(metadata=metadata)

    def _blocks(self) -> Iterator[_Table | tuple[str, int, str, int]]:
        """Headings, list items and paragraphs (lines joined), tables as they are."""
        group: list[_Line] = []
        group_key: tuple[float, bool] | None = None
        for item in self.flow:
            if isinstance(item, _Table):
                yield from self._flush(group, group_key)
                group = []
                yield item
                continue
            key = self._heading_key(item)
            joins = (
                bool(group)
                and key == group_key
                and _close(group[-1], item)
                and (_wraps(group[-1], item) if key is not None else not item.text.startswith(_BULLETS))
            )
            if not joins:
                yield from self._flush(group, group_key)
                group, group_key = [], key
            group.append(item)
        yield from self._flush(group, group_key)

    def _flush(self, group: list[_Line], key: tuple[float, bool] | None) -> Iterator[tuple[str, int, str, int]]:
        if not group:
            return
        text = _join([line.text for line in group])
        if key is not None:
            yield ("heading", group[0].page, text, self.levels[key])
        elif text.startswith(_BULLETS):
            yield ("item", group[0].page, text.lstrip("".join(_BULLETS)).strip(), 0)
        else:
            yield ("paragraph", group[0].page, text, 0)


def _close(previous: _Line, line: _Line) -> bool:
    """True when ``line`` continues ``previous``'s paragraph: same page, small gap below it."""
    gap = line.top - previous.bottom
    return line.page == previous.page and -0.5 * line.size <= gap <= PARAGRAPH_GAP * line.size and line.x0 < previous.x1


def _wraps(previous: _Line, line: _Line) -> bool:
    """True when heading ``line`` continues heading ``previous``: tight and aligned the same way."""
    aligned = abs(line.x0 - previous.x0) <= 2 or abs((line.x0 + line.x1) - (previous.x0 + previous.x1)) <= 4
    return aligned and line.top - previous.bottom <= 0.5 * line.size


def _join(lines: list[str]) -> str:
    """Lines of one paragraph as one line; a word hyphenated over a line break is rejoined."""
    text = ""
    for line in lines:
        if text.endswith("-") and len(text) > 1 and text[-2].isalpha() and line[:1].islower():
            text = text[:-1] + line
        else:
            text = f"{text} {line}" if text else line
    return clean(text)


def _lists_contents(lines: list[_Line], pages: int) -> bool:
    """True for a table of contents page: most of its lines end in a page number, and those never fall.

    A contents page repeats the document's headings with page numbers, so
    search would find it for every topic and a reader would be sent to a
    list of pointers; the document's own outline is the index's contents.
    At least :data:`CONTENTS_MIN_ENTRIES` entries making :data:`CONTENTS_SHARE`
    of the page's lines, each number a page of the document, in order.
    """
    numbers = [int(match[1]) for line in lines if (match := _contents_entry(line.text))]
    return (
        len(numbers) >= CONTENTS_MIN_ENTRIES
        and len(numbers) >= CONTENTS_SHARE * len(lines)
        and all(a <= b for a, b in pairwise(numbers))
        and numbers[-1] <= pages
    )


def _contents_entry(text: str) -> re.Match[str] | None:
    """The page number ending ``text`` when it reads as a contents entry (words, then the number)."""
    if not text[-1:].isdigit() or not (match := _PAGE_NUMBER.search(text)):
        return None
    return match if any(char.isalpha() for char in text[: match.start()]) else None


def _folded(text: str) -> str:
    """``text`` as it is compared with a contents entry: spaces collapsed, case-blind."""
    return " ".join(text.split()).casefold()


def _entry_key(text: str, number: re.Match[str]) -> str:
    """A contents entry's title: its text before the page ``number`` (:func:`_contents_entry`) and its
    leaders, folded."""
    return _folded(text[: number.start(1)].rstrip(" ."))


def _names_titles(lines: list[_Line], titles: set[str]) -> bool:
    """True when at least half the entries of a contents page are lines of the document's other pages.

    What makes a contents page is that it lists the document's own
    headings (set as headings, or as run-in titles on a line of their own);
    rows of figures sorted by a number ending each are not found elsewhere.
    """
    entries = [_entry_key(line.text, match) for line in lines if (match := _contents_entry(line.text))]
    return sum(entry in titles for entry in entries) >= CONTENTS_NAMED_SHARE * len(entries)


def _running_key(line: _Line) -> tuple[str, float]:
    """A line's text with its numbers as ``#`` and a page number at either end left out, and its size.

    A book printed two-sided puts the page number outside: "12 User Guide"
    on a left page, "User Guide 13" on a right one; both are one running line.
    The size keeps a title page's "User Guide", set large, from being taken
    for the running line that repeats it in small print.
    """
    key = _DIGITS.sub("#", line.text).strip().lower()
    return _PAGE_NUMBER_AT_END.sub("", key) or key, line.size


def _edge_lines(lines: list[_Line]) -> list[_Line]:
    """A page's first two and last two lines, top to bottom, each once: where running lines are."""
    ordered = sorted(lines, key=lambda item: item.top)
    return ordered if len(ordered) <= 4 else ordered[:2] + ordered[-2:]


def _body_size(lines: list[_Line]) -> float:
    """The font size carrying the most characters of ``lines``: the body text's."""
    chars: Counter[float] = Counter()
    for line in lines:
        chars[line.size] += len(line.text)
    return chars.most_common(1)[0][0] if chars else 0.0


def _numbered_lines(edges: dict[int, list[_Line]], body: float) -> set[int]:
    """The ids of the running lines that carry their page's printed number beside a changing title.

    A book heads each page with the chapter it is in and the page number
    ("Chapter 4: Function reference 12"): the text changes with the
    chapter, so :func:`_running_lines` misses it, but the number is the
    page's own. Such a line is among a page's first or last two
    (``edges``, by page number), set no larger than the ``body`` text size,
    short, and starts or ends with a number
    that is its page's position plus the offset most of these lines share
    (the printed numbering; a title page and front matter make it differ),
    on as many pages as a running line needs.
    """
    found: list[tuple[int, int]] = []  # (id of the line, its number less its page's position)
    for number, lines in edges.items():
        for line in lines:
            match = _EDGE_NUMBER.search(line.text)
            if match and line.size <= body and len(line.text) <= MAX_HEADING_CHARS:
                found.append((id(line), int(match[1] or match[2]) - number))
    offsets = Counter(offset for _, offset in found)
    if not offsets:
        return set()
    offset, count = offsets.most_common(1)[0]
    needed = max(RUNNING_MIN_PAGES, RUNNING_SHARE * sum(1 for lines in edges.values() if lines))
    return {line for line, its in found if its == offset} if count >= needed else set()


def _running_lines(edges: list[list[_Line]]) -> set[tuple[str, float]]:
    """Texts (digits ignored) and sizes found among the first or last two lines (``edges``) of most pages."""
    with_text = [lines for lines in edges if lines]
    counts: Counter[tuple[str, float]] = Counter()
    for lines in with_text:
        counts.update({_running_key(line) for line in lines})
    needed = max(RUNNING_MIN_PAGES, RUNNING_SHARE * len(with_text))
    return {key for key, count in counts.items() if count >= needed}


def _borderless_tables(page: int, lines: list[_Line]) -> tuple[list[_Line], list[_Table]]:
    """The page's lines outside tables drawn without ruling lines, and those tables.

    A run of at least :data:`BORDERLESS_MIN_ROWS` lines in reading order
    whose text falls into at least three columns (runs starting at the same
    x on most of them) is a table: each line a row, each run in the column
    it starts at. A line whose runs all start at the columns after the
    first continues the row above (a cell wrapped over two lines). Two text
    columns never make three starts, so a two-column page stays prose.
    """
    ordered = sorted(lines, key=lambda line: line.top)
    prose: list[_Line] = []
    tables: list[_Table] = []
    at = 0
    while at < len(ordered):
        end = at
        while end < len(ordered) and len(ordered[end].runs) >= BORDERLESS_MIN_COLUMNS:
            end += 1
        columns = _columns(ordered[at:end]) if end - at >= BORDERLESS_MIN_ROWS else []
        if not columns:
            stop = max(end, at + 1)
            prose.extend(ordered[at:stop])
            at = stop
            continue
        rows = [_cells(line, columns) for line in ordered[at:end]]
        while end < len(ordered):
            line = ordered[end]
            if len(line.runs) >= BORDERLESS_MIN_COLUMNS:
                rows.append(_cells(line, columns))
            elif cells := _cells(line, columns, continuing=True):
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
            else:
                break
            end += 1
        tables.append(_Table(page, ordered[at].top, rows))
        at = end
    return prose, tables


def _columns(lines: list[_Line]) -> list[float]:
    """The x where columns start: run starts shared (within :data:`COLUMN_TOLERANCE`) by half of ``lines``."""
    starts = sorted(run[0] for line in lines for run in line.runs)
    groups: list[list[float]] = []
    for x in starts:
        if groups and x - groups[-1][-1] <= COLUMN_TOLERANCE:
            groups[-1].append(x)
        else:
            groups.append([x])
    columns = [min(group) for group in groups if len(group) >= 0.5 * len(lines)]
    return columns if len(columns) >= BORDERLESS_MIN_COLUMNS else []


def _cells(line: _Line, columns: list[float], continuing: bool = False) -> list[str]:
    """``line``'s runs as one cell per column; for a ``continuing`` line, [] unless every run starts at
    a column after the first (the rest of a wrapped cell)."""
    cells = [""] * len(columns)
    for x0, _, text in line.runs:
        index = next((i for i in range(len(columns) - 1, -1, -1) if x0 >= columns[i] - COLUMN_TOLERANCE), 0)
        if continuing and (index == 0 or abs(x0 - columns[index]) > COLUMN_TOLERANCE):
            return []
        cells[index] = f"{cells[index]} {text}".strip()
    return cells


def _gutter(lines: list[_Line], width: float) -> float | None:
    """The x of a gap between runs that most lines share near the middle of the page, if any."""
    gaps = [(a[1], b[0]) for line in lines for a, b in zip(line.runs, line.runs[1:])]
    best, best_count = None, 0
    for low, high in gaps:
        x = (low + high) / 2
        if not 0.3 * width <= x <= 0.7 * width:
            continue
        count = sum(1 for line in lines if any(a[1] <= x <= b[0] for a, b in zip(line.runs, line.runs[1:])))
        if count > best_count:
            best, best_count = x, count
    if best is None or best_count < 4 or best_count < 0.25 * len(lines):
        return None
    return best


def _reading_order(lines: list[_Line], tables: list[_Table], width: float) -> list[_Line | _Table]:
    """Lines and tables of one page in reading order, two columns read one after the other."""
    gutter = _gutter(lines, width)
    items: list[_Line | _Table] = sorted([*lines, *tables], key=lambda item: item.top)
    if gutter is None:
        return items
    out: list[_Line | _Table] = []
    left: list[_Line] = []
    right: list[_Line] = []
    for item in items:
        if isinstance(item, _Table) or any(x0 < gutter < x1 for x0, x1, _ in item.runs):
            out.extend(left + right)
            left, right = [], []
            out.append(item)
            continue
        for side, keep in ((left, lambda run: run[1] <= gutter), (right, lambda run: run[0] >= gutter)):
            runs = [run for run in item.runs if keep(run)]
            if runs:
                side.append(
                    _Line(
                        item.page,
                        item.top,
                        item.bottom,
                        runs[0][0],
                        runs[-1][1],
                        " ".join(run[2] for run in runs),
                        item.size,
                        item.bold,
                        runs,
                    )
                )
    out.extend(left + right)
    return out
