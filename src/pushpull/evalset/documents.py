"""What a reader sees without opening a passage: document titles and headings.

Comparison questions name their two documents by title, and a phrased
question whose answer is a title or heading is rejected as trivial: the index
an agent keeps in context already answers it, so it measures no retrieval.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import PurePosixPath

from contextpull_mdinline import plain_text

from ..chunks import Chunk

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
_FRONT_TITLE = re.compile(r"\A---\s*\n(?:.*\n)*?title:\s*[\"']?(.+?)[\"']?\s*\n(?:.*\n)*?---", re.MULTILINE)
_WORD = re.compile(r"\w+")


def headings(text: str) -> list[str]:
    """Markdown ATX headings of ``text``, markup removed, in order."""
    return [plain_text(h) for h in _HEADING.findall(text)]


def document_titles(chunks: Sequence[Chunk]) -> dict[str, str]:
    """source → its title: front-matter ``title``, else its first heading, else the file name."""
    titles: dict[str, str] = {}
    for chunk in chunks:
        source = chunk.source or chunk.id
        if titles.get(source):
            continue
        front = _FRONT_TITLE.match(chunk.text)
        found = plain_text(front.group(1)) if front else next(iter(headings(chunk.text)), "")
        titles[source] = found or titles.get(source, "")
    return {source: title or PurePosixPath(source).stem for source, title in titles.items()}


def normalise(text: str) -> str:
    return " ".join(_WORD.findall(text.casefold()))


def index_entries(chunks: Sequence[Chunk]) -> set[str]:
    """Every title and heading of the corpus, normalised: what the index already tells an agent."""
    entries = {normalise(t) for t in document_titles(chunks).values()}
    entries.update(normalise(h) for chunk in chunks for h in headings(chunk.text))
    entries.discard("")
    return entries
