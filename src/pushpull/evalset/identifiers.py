"""Identifiers a user would type verbatim, and how rare they are.

An exact-lookup or aggregation question only measures retrieval when its
identifier is rare: ``uv`` or ``pyproject.toml`` occur everywhere, so a single
gold chunk for them would be arbitrary. Rarity is document frequency over the
chunk list; an identifier held by one chunk is always rare, so tiny corpora
keep their questions.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ..chunks import Chunk

MIN_IDENTIFIER_CHARS = 3
MAX_CHUNK_FRACTION = 0.05

_PATTERNS = (
    r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)+",  # --no-cache
    r"\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b",  # UV_CACHE_DIR
    r"\b[A-Z][A-Z0-9]{0,5}-\d{2,6}\b",  # TX-4419
    r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b",  # payment_declined
    r"\b[a-z][a-z0-9_]+(?:\.[a-z][a-z0-9_]+)+\b",  # tool.uv.sources
    r"\b\d+\.\d+(?:\.\d+)+\b",  # 0.4.1
)
_IDENTIFIER = re.compile("|".join(_PATTERNS))


def find_identifiers(text: str) -> list[str]:
    """Distinct identifiers in ``text``, in order of first appearance."""
    return list(dict.fromkeys(m.group() for m in _IDENTIFIER.finditer(text)))


def word_pattern(term: str) -> re.Pattern[str]:
    """``term`` as a whole token: ``TX-4401`` does not match inside ``TX-44012``."""
    return re.compile(r"(?<![\w-])" + re.escape(term) + r"(?![\w-]*\w)")


def chunks_containing(term: str, chunks: Sequence[Chunk], *, whole_word: bool = True) -> list[str]:
    """Ids of the chunks holding ``term`` verbatim, in corpus order."""
    if whole_word:
        pattern = word_pattern(term)
        return [c.id for c in chunks if term in c.text and pattern.search(c.text)]
    return [c.id for c in chunks if term in c.text]


def max_chunks_for_rare(n_chunks: int) -> int:
    return max(1, int(MAX_CHUNK_FRACTION * n_chunks))


def is_rare(term: str, chunk_count: int, n_chunks: int) -> bool:
    """Long enough and in few enough chunks to pin a question to its gold."""
    stripped = term.strip("`").strip()
    return len(stripped) >= MIN_IDENTIFIER_CHARS and 0 < chunk_count <= max_chunks_for_rare(n_chunks)


def identifier_chunks(chunks: Iterable[Chunk]) -> dict[str, list[str]]:
    """Every identifier in the corpus → ids of the chunks it was found in, in order."""
    where: dict[str, list[str]] = {}
    for chunk in chunks:
        for ident in find_identifiers(chunk.text):
            where.setdefault(ident, []).append(chunk.id)
    return where
