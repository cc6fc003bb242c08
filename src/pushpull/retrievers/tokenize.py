"""Lexical terms for the BM25 push configuration.

Technical documentation is searched by identifiers: flags (``--no-cache``),
environment variables (``UV_CACHE_DIR``), ticket ids (``TX-4419``), versions
(``3.12``) and dotted keys (``tool.uv.sources``). A plain word tokenizer breaks
them apart and the query then matches every page that mentions ``uv``. Here an
identifier is kept whole *and* its word pieces are added, so both the exact
identifier and its parts are findable. Terms are case-folded; a full stop that
ends a sentence is not part of the word before it.
"""

from __future__ import annotations

import re

# A run of word characters, optionally joined to further runs by . - / : the
# joiner must be followed by a word character, so "sources." stops before the dot.
_IDENTIFIER = re.compile(r"\w+(?:[./:-]\w+)*")
_PIECE = re.compile(r"[^\W_]+")


def terms(text: str) -> list[str]:
    """Case-folded terms of ``text``: each identifier, then its pieces if it has any.

    Guaranteed: the same function serves documents and queries, so a query that
    is exactly an identifier always shares that whole term with the chunks that
    contain it.
    """
    out: list[str] = []
    for match in _IDENTIFIER.finditer(text.casefold()):
        whole = match.group()
        out.append(whole)
        pieces = _PIECE.findall(whole)
        if len(pieces) > 1 or (pieces and pieces[0] != whole):
            out.extend(pieces)
    return out
