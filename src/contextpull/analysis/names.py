"""Names a model reads (paths, titles, headings, summaries) are printable and one line.

The index is part of the server's instructions, so a name is prompt text: a
file named with a newline could add lines to the instructions, and U+202E
could make a name read backwards. Both kinds of name are made printable when
they enter the store, so every surface (index, instructions, tool results,
``--in`` filters) shows and matches the same form:

* :func:`printable` for text from inside documents (titles, headings,
  summaries): control, format (bidi) and line-separator characters become
  ``\\uXXXX``;
* :func:`corpus_path` for file names: ``%``, bytes that are not UTF-8 and
  those characters are percent-encoded, so two files never share a stored
  path and :func:`path_bytes` gives the name back; a printable UTF-8 name
  without ``%`` (nearly all of them) is kept exactly as it is.
"""

from __future__ import annotations

import os
import unicodedata
from urllib.parse import unquote_to_bytes

__all__ = ["corpus_path", "path_bytes", "printable"]

#: Unicode categories never shown raw: controls, format (bidi, zero-width), separators, surrogates
_HIDDEN = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in _HIDDEN


def printable(text: str) -> str:
    """``text`` with every control, format and separator character written as ``\\uXXXX``."""
    if text.isprintable():
        return text
    return "".join(f"\\u{ord(c):04x}" if _hidden(c) else c for c in text)


def corpus_path(name: str) -> str:
    """A file's relative path (from ``os.scandir``, so undecodable bytes are surrogates) as stored.

    Unchanged when it is printable UTF-8 without ``%``; otherwise
    percent-encoded as the module docstring describes.
    """
    if name.isprintable() and "%" not in name:
        return name
    raw = os.fsencode(name)
    text = raw.decode("utf-8", errors="surrogateescape")
    out = []
    for char in text:
        if char == "%" or _hidden(char):
            out.append("".join(f"%{byte:02X}" for byte in os.fsencode(char)))
        else:
            out.append(char)
    return "".join(out)


def path_bytes(stored: str) -> bytes:
    """The file name bytes a stored path stands for (the inverse of :func:`corpus_path`)."""
    return unquote_to_bytes(stored)
