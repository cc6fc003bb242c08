"""Who writes the one-line summary each document gets in the index.

By default the parser's offline summary (title and first informative
sentence, :mod:`contextpull.parse.summary`). A :class:`Summariser` passed to
``ingest`` replaces it with a model's line; the core never talks to a model
itself: the surface that has one (the CLI, through the harness's model layer)
builds the callable and hands it in. The store records who wrote its
summaries (meta ``summaries``) and the index header names it.
"""

from __future__ import annotations

from typing import Protocol

#: the ``summaries`` meta value of a store whose summaries no model wrote
OFFLINE = "offline: title + first informative sentence"
#: longest summary line kept from a model
MAX_CHARS = 200


class Summariser(Protocol):
    """``summarise(path, title, text)`` returns one line about the document."""

    #: what the index header names, e.g. ``anthropic:claude-haiku-4-5``
    name: str

    def __call__(self, path: str, title: str, text: str) -> str: ...


def one_line(title: str, line: str) -> str:
    """``title: line`` (whitespace collapsed, cut at a word within :data:`MAX_CHARS`), or the title alone."""
    line = " ".join(line.split()).strip()
    summary = f"{title}: {line}" if line else title
    if len(summary) <= MAX_CHARS:
        return summary
    cut = summary.rfind(" ", 0, MAX_CHARS - 1)
    return summary[: cut if cut > MAX_CHARS // 2 else MAX_CHARS - 1].rstrip() + "…"
