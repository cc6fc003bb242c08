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
_CODE_SPAN = re.compile(r"`([^`\s]{3,60})`")
_URL = re.compile(r"\bhttps?://\S+|\]\([^)\s]*\)")
_HEADING_LINE = re.compile(r"^\s{0,3}#{1,6}\s")
_LINE_START = r"^\s*(?:[-*+]\s+|\d+[.)]\s+|\|\s*)?[`*_\[]*"
_DEFINES = r"[`*_\]]*\s*(?:[:=\u2014\u2013|]|-\s|is\b|are\b|means\b|sets\b|controls\b|specifies\b|defines\b|enables\b|disables\b)"


def find_identifiers(text: str) -> list[str]:
    """Distinct identifiers in ``text``, in order of first appearance."""
    return list(dict.fromkeys(m.group() for m in _IDENTIFIER.finditer(text)))


def lookup_candidates(text: str) -> list[str]:
    """Identifiers plus one-token code spans (`` `requires-python` ``, `` `uv.lock` ``) that look like names, in order."""
    spans = [m.group(1) for m in _CODE_SPAN.finditer(text) if re.search(r"[-_./:\d]|[a-z][A-Z]", m.group(1))]
    return list(dict.fromkeys([*find_identifiers(text), *spans]))


def definition_score(term: str, text: str) -> int:
    """How definition-like the best place ``term`` occurs in ``text`` is; -1 when only inside links/URLs.

    3 a heading, 2 the start of a line, list item or table row, 1 followed by
    a defining word or punctuation ("X is", "X:"), 0 a mention in passing.
    The exact-lookup and aggregation builders use it to pick the passage that
    documents an identifier rather than one that merely mentions it.
    """
    pattern = word_pattern(term)
    escaped = re.escape(term)
    best = -1
    for line in text.splitlines():
        if term not in line:
            continue
        plain = _URL.sub(" ", line)
        if not pattern.search(plain):
            continue
        if _HEADING_LINE.match(plain):
            return 3
        if re.match(_LINE_START + escaped, plain):
            best = max(best, 2)
        elif re.search(escaped + _DEFINES, plain):
            best = max(best, 1)
        else:
            best = max(best, 0)
    return best


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
    """Every identifier in the corpus (outside URLs and link targets) → ids of the chunks it was found in, in order."""
    where: dict[str, list[str]] = {}
    for chunk in chunks:
        for ident in find_identifiers(_URL.sub(" ", chunk.text)):
            where.setdefault(ident, []).append(chunk.id)
    return where
