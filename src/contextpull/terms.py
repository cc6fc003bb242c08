"""How text becomes search terms, on the index side and the query side alike.

SQLite's tokenizers split ``tool.uv.sources`` and ``--no-cache`` apart or keep
sentence-final full stops, so identifiers could not be searched for
themselves. We analyse text in Python instead and hand FTS5 a plain
space-separated term list (docs/adr/002-store-format.md):

* a compound identifier (word pieces joined by ``.``, ``-`` or ``_``, with an
  optional leading ``-``/``--``) is emitted whole, then each word piece, so
  ``UV_CACHE_DIR`` is found by itself and by ``cache``;
* punctuation at token edges is dropped, so ``cache.`` at the end of a
  sentence is the term ``cache``;
* terms are case-folded (Unicode, not ASCII only).

The FTS5 tables use ``unicode61`` with ``-_.`` as token characters, so the
terms produced here pass through it unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import chain

FTS_TOKENIZE = "unicode61 remove_diacritics 2 tokenchars '-_.'"

_TOKEN = re.compile(r"(?<![\w.\-])-{0,2}\w+(?:[.\-]+\w+)*", re.UNICODE)
_PIECE = re.compile(r"[^\W_]+", re.UNICODE)


def _split(token: str) -> list[str]:
    return _PIECE.findall(token)


def is_compound(term: str) -> bool:
    """True for identifiers such as ``TX-4419``, ``3.12`` or ``UV_CACHE_DIR``."""
    return len(_split(term)) > 1 or term.startswith("-")


def index_terms(text: str) -> list[str]:
    """Every term a piece of stored text is findable by, in text order."""
    return list(chain.from_iterable(map(_chunk_terms, text.split())))


@lru_cache(maxsize=1 << 17)
def _chunk_terms(chunk: str) -> tuple[str, ...]:
    # Cached per whitespace-free chunk: prose repeats its chunks far more than
    # the regex costs. Tokens never contain whitespace, and whitespace passes
    # the token's look-behind just as the start of a chunk does, so analysing
    # chunk by chunk gives exactly the terms of the whole text.
    return tuple(term for token in _TOKEN.findall(chunk) for term in _token_terms(token))


@lru_cache(maxsize=1 << 16)
def _token_terms(raw: str) -> tuple[str, ...]:
    # Cached: ingest analyses every token of the corpus and vocabularies repeat.
    token = raw.casefold()
    if not is_compound(token):
        return (token,)
    pieces = _split(token)
    bare = token.lstrip("-")
    return (token, bare, *pieces) if bare != token and len(pieces) > 1 else (token, *pieces)


def index_text(text: str) -> str:
    """The analysed form stored in the FTS5 index for ``text``."""
    return " ".join(chain.from_iterable(map(_chunk_terms, text.split())))


def token_spans(text: str) -> Iterator[tuple[int, int]]:
    """Each token of ``text`` as ``(start, end)``, so callers can mark matches in place.

    ``index_terms(text[start:end])`` gives the terms that token is findable by.
    """
    for match in _TOKEN.finditer(text):
        yield match.span()


def query_terms(query: str) -> list[str]:
    """The terms of a user query, compounds kept whole, duplicates dropped.

    Returns an empty list for a query with no word characters (only
    punctuation or FTS syntax), which callers report as "no searchable terms".
    """
    seen: dict[str, None] = {}
    for match in _TOKEN.finditer(query):
        seen.setdefault(match.group().casefold(), None)
    return list(seen)


#: English function words: they carry no topic, so search ranks by the other
#: words of a question (``What is the weight of LT-1200?`` → weight, lt-1200)
STOPWORDS = frozenset(
    """a about above after again all am an and any are as at be because been before being below
    between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me
    more most my myself no nor not now of off on once only or other our ours ourselves out over own
    same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up very was we were what when where which while who whom
    why will with would you your yours yourself yourselves""".split()
)


def content_terms(terms: list[str]) -> list[str]:
    """``terms`` without stopwords; all of them when every term is a stopword."""
    kept = [term for term in terms if term not in STOPWORDS]
    return kept or list(terms)
