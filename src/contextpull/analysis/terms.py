"""How text becomes search terms, on the index side and the query side alike.

SQLite's tokenizers split ``tool.uv.sources`` and ``--no-cache`` apart or keep
sentence-final full stops, so identifiers could not be searched for
themselves. We analyse text in Python instead and hand FTS5 a plain
space-separated term list (docs/adr/002-store-format.md, docs/adr/011-search-terms-and-ranking.md):

* an *identifier* is a token of word pieces joined by ``.``, ``-``, ``_`` or
  ``/`` (with an optional leading ``-``/``--``), or a camelCase / PascalCase
  word (``autoInstallPeers``, ``HTTPServer``). It is emitted whole, then each
  word piece, so ``UV_CACHE_DIR`` is found by itself and by ``cache``, and
  ``strictPeerDependencies`` by ``strict peer dependencies``;
* a possessive ``'s`` is dropped (``uv's`` is the term ``uv``), and
  punctuation at token edges is dropped (``cache.`` ending a sentence is
  ``cache``);
* each word (or word piece) of letters is followed by its English stem when
  that differs (``fields`` → ``fields field``), so a plural or another
  inflection still matches; the exact form is kept, so it still counts more;
* terms are case-folded (Unicode, not ASCII only).

The FTS5 tables use ``unicode61`` with ``-_./`` as token characters, so the
terms produced here pass through it unchanged. :data:`ANALYSIS_VERSION`
names this analysis: a store indexed by another is re-analysed on ingest.

On the query side (:func:`analyse_query`) a token may also ask for every
identifier with a prefix: ``PIP_*``, ``PIP_``, ``tool.uv.*``, ``--no-*`` and
``TX-44xx`` (digits followed by ``x`` placeholders) are prefixes, and an
identifier typed whole (``UV_CACHE``) also stands for the longer identifiers
it begins.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from operator import itemgetter
from typing import Any

#: what the analysis indexes; bump it whenever a change alters the terms of any text or how a file is sectioned
ANALYSIS_VERSION = "15"
FTS_TOKENIZE = "unicode61 remove_diacritics 2 tokenchars '-_./'"

#: what a name may open with: a flag's dashes (``--no-cache``), a path's slashes, a hidden file's dot
#: (``.env``, ``.python-version``), a relative or home path (``./configure``, ``~/.config/uv``), and a
#: Sphinx reference's ``.`` or ``~.`` (``:meth:`~.Flask.before_request```); ``~`` only before ``.`` or
#: ``/``, so "~5 seconds" is still the number
_LEAD = r"(?:-{1,2}|~?/{1,2}\.?|\.{1,2}/|~?\.)?"
_TOKEN = re.compile(rf"(?<![\w.\-/]){_LEAD}\w+(?:[./\-]+\w+)*(?:/(?![\w.\-/]))?", re.UNICODE)
#: a query token; a ``*`` ends it as a wildcard only when no word or ``*`` follows (``PIP_*``, not ``3**3`` or ``a*b``)
_QUERY_TOKEN = re.compile(rf"(?<![\w.\-/]){_LEAD}\w+(?:[./\-]+\w+)*[./\-]*(?:\*(?![\w*]))?", re.UNICODE)
#: the marks :data:`_LEAD` may open a name with
_LEAD_MARKS = "-/.~"
_PIECE = re.compile(r"[^\W_]+", re.UNICODE)
#: the segments of a name between its dots, dashes and slashes
_SEGMENT = re.compile(r"\w+", re.UNICODE)
_POSSESSIVE = re.compile(r"(?<=\w)['\u2019]s(?!\w)", re.UNICODE)
#: camelCase and PascalCase pieces: an upper-case run before a capitalised word, a (capitalised) word, a run, digits
_CAMEL_PIECE = re.compile(r"[^\W\d_a-z]+(?=[^\W\d_a-z][^\W\d_A-Z])|[^\W\d_a-z]?[^\W\d_A-Z]+\d*|[^\W\d_a-z]+\d*|\d+")
_CAMEL = re.compile(r"[^\W\d_A-Z][^\W\d_a-z]|[^\W\d_a-z]{2}[^\W\d_A-Z]")
#: a placeholder for digits at the end of an identifier: ``TX-44xx``, ``4xx``
_DIGIT_PLACEHOLDER = re.compile(r"(?<=\d)[xX]+$")
_TRAILING_SEPARATORS = re.compile(r"[./_-]+$")
#: a ``-`` or ``_`` between two letters or digits: where a name's spellings differ (``no-cache``, ``no_cache``)
_INNER_DASH = re.compile(r"(?<=[^\W_])-(?=[^\W_])")
_INNER_UNDERSCORE = re.compile(r"(?<=[^\W_])_(?=[^\W_])")


@lru_cache(maxsize=1)
def _english_stemmer() -> Any:
    """Snowball's English stemmer, made on first use: importing ``snowballstemmer`` loads
    every language's stemmer, which commands that never stem (``index``, ``read``) skip."""
    import snowballstemmer

    return snowballstemmer.stemmer("english")


def _split(token: str) -> list[str]:
    return _PIECE.findall(token)


def _camel_pieces(word: str) -> list[str]:
    """The pieces of a camelCase or PascalCase word, or ``[]`` when it is not one."""
    if not _CAMEL.search(word):
        return []
    pieces = _CAMEL_PIECE.findall(word)
    return pieces if len(pieces) > 1 else []


def is_compound(term: str) -> bool:
    """True for separator-joined identifiers such as ``TX-4419``, ``3.12``, ``uv_cache_dir``, ``docs/`` or ``.env``."""
    return len(_split(term)) > 1 or term.startswith(tuple(_LEAD_MARKS)) or term.endswith("/")


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """The English stem of a case-folded word (Snowball's Porter2); words with digits are left alone."""
    if not word.isalpha() or len(word) < 3:
        return word
    return str(_english_stemmer().stemWord(word))


def _with_stems(pieces: list[str]) -> list[str]:
    out: list[str] = []
    for piece in pieces:
        out.append(piece)
        stemmed = stem(piece)
        if stemmed != piece:
            out.append(stemmed)
    return out


def _without_possessives(text: str) -> str:
    return _POSSESSIVE.sub("", text) if "s" in text else text


def tokens(text: str) -> list[str]:
    """The raw tokens of ``text``, possessives dropped: what :func:`index_terms` analyses."""
    return _TOKEN.findall(_without_possessives(text))


def index_terms(text: str) -> list[str]:
    """Every term a piece of stored text is findable by, in text order."""
    return index_text(text).split()  # terms never hold whitespace


def index_text(text: str) -> str:
    """The analysed form stored in the FTS5 index for ``text``."""
    return "".join(map(_TERMS, map(_chunk, text.split())))[:-1]


def identifiers(text: str) -> list[str]:
    """The identifiers of ``text``, whole and case-folded, in text order (with repeats)."""
    return index_text_and_identifiers(text)[1].split()


def index_text_and_identifiers(text: str) -> tuple[str, str]:
    """``index_text(text)`` and the identifiers of ``text`` space-separated, in one pass.

    Ingest needs both of every section body, and stores both as text.
    """
    chunks = list(map(_chunk, text.split()))
    return "".join(map(_TERMS, chunks))[:-1], "".join(map(_IDENTIFIERS, chunks))[:-1]


_TERMS = itemgetter(0)
_IDENTIFIERS = itemgetter(1)

#: entries per analysis cache. Measured on the four shared corpora's 6,729 sections (issue 14): 128k
#: and 16k entries cost the same CPU, 8k about 7 % more term-analysis CPU, 4k 20 % more; a 100k-section
#: synthetic corpus saw no difference. Each ingest worker has its own; with entries held as ready
#: strings (a one-word chunk sharing its token's entry), 8k of each take about 4 MB per worker
#: (tracemalloc, 100k-section synthetic corpus; 6.6 MB as tuples of terms), and a default
#: two-worker ingest of that corpus peaks at 144 MB for all processes (150 MB before).
_CACHE = 1 << 13


@lru_cache(maxsize=_CACHE)
def _chunk(chunk: str) -> tuple[str, str]:
    """The terms and the identifiers of one whitespace-free chunk, tokenised once for both.

    Each is ready to concatenate: every term or identifier followed by one
    space (``""`` when there are none), so a text's analysis is the join of
    its chunks' without building a list per chunk again for every section.
    Cached per chunk: prose repeats its chunks far more than the regex costs.
    Tokens never contain whitespace, and whitespace passes the token's
    look-behind just as the start of a chunk does (the possessive rule looks
    only at word characters), so analysing chunk by chunk gives exactly the
    terms of the whole text.
    """
    analysed = [_token(raw) for raw in tokens(chunk)]
    if len(analysed) == 1:
        return analysed[0]  # the usual chunk, one word: share the token's entry rather than copy it
    return "".join(map(_TERMS, analysed)), "".join(map(_IDENTIFIERS, analysed))


@lru_cache(maxsize=_CACHE)
def _token(raw: str) -> tuple[str, str]:
    """A token's terms, and the token case-folded when it is an identifier, each as :func:`_chunk` gives them.

    Cached: ingest analyses every token of the corpus and vocabularies repeat.
    """
    return "".join(f"{term} " for term in _token_terms(raw)), f"{raw.casefold()} " if _is_identifier(raw) else ""


def _is_identifier(raw: str) -> bool:
    return is_compound(raw) or bool(_camel_pieces(raw))


def _token_terms(raw: str) -> tuple[str, ...]:
    token = raw.casefold()
    camel = _camel_pieces(raw)
    if not is_compound(token):
        if camel:
            return (token, *_with_stems([piece.casefold() for piece in camel]))
        return (token, *_with_stems([token])[1:])
    parts = _split(raw)
    pieces = [piece.casefold() for part in parts for piece in (_camel_pieces(part) or [part])]
    bare = token.lstrip(_LEAD_MARKS)
    head = (token, bare) if bare != token and len(pieces) > 1 else (token,)
    # A part of a longer name that is a name in its own right is indexed whole too, so the name
    # typed alone finds the path: a camelCase part (`GetterDict` of `pydantic.utils.GetterDict`),
    # and a snake_case segment between dots, dashes or slashes (`model_fields` of
    # `Model.model_fields`, `manylinux2014_aarch64` of a wheel's file name).
    names = [part.casefold() for part in parts if _camel_pieces(part)] if len(parts) > 1 else []
    segments = _SEGMENT.findall(token)
    if len(segments) > 1:
        names += [segment for segment in segments if len(_split(segment)) > 1]
    return (*head, *_with_stems(pieces), *names)


def token_spans(text: str) -> Iterator[tuple[int, int]]:
    """Each token of ``text`` as ``(start, end)``, so callers can mark matches in place.

    ``index_terms(text[start:end])`` gives the terms that token is findable by.
    """
    for match in _TOKEN.finditer(text):
        yield match.span()


#: English function words: they carry no topic, so search ranks by the other
#: words of a question (``What is the weight of LT-1200?`` → weight, lt-1200)
STOPWORDS = frozenset(
    [
        # what a contraction leaves on either side of its apostrophe ("isn't" → isn, t)
        "aren",
        "couldn",
        "d",
        "didn",
        "doesn",
        "don",
        "hadn",
        "hasn",
        "haven",
        "isn",
        "ll",
        "m",
        "mightn",
        "mustn",
        "needn",
        "re",
        "shan",
        "shouldn",
        "t",
        "ve",
        "wasn",
        "weren",
        "won",
        "wouldn",
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)


@dataclass(frozen=True)
class QueryPart:
    """One token of a query, analysed.

    ``term`` is the token case-folded (for a prefix, without its ``*`` or
    placeholder). ``exact`` are the index terms that match it as typed: a
    word's stem (every inflection is indexed with its stem), an identifier
    whole. ``pieces`` are the stems of an identifier's word pieces, which
    match a text that writes it apart (``strict peer dependencies`` for
    ``strictPeerDependencies``). ``expand`` asks for every identifier
    beginning with ``term`` as well (a prefix, or an identifier typed
    whole); ``prefix`` marks a part typed as a prefix (``PIP_*``,
    ``--no-``), which names no identifier exactly; ``stopword`` marks a
    function word.
    """

    term: str
    exact: tuple[str, ...]
    pieces: tuple[str, ...] = ()
    expand: bool = False
    identifier: bool = False
    prefix: bool = False
    stopword: bool = False

    @property
    def terms(self) -> tuple[str, ...]:
        """Every index term the part matches: as typed, then by its pieces."""
        return (*self.exact, *self.pieces)


@dataclass(frozen=True)
class Query:
    """A user query analysed: its parts, in order, duplicates dropped."""

    text: str
    parts: tuple[QueryPart, ...]

    @property
    def content(self) -> tuple[QueryPart, ...]:
        """The parts that carry the topic: all but stopwords, or all of them when every part is one."""
        kept = tuple(part for part in self.parts if not part.stopword)
        return kept or self.parts

    @property
    def names_family(self) -> bool:
        """True when a part is typed as a prefix (``PIP_*``): the query asks for an identifier family by its form."""
        return any(part.prefix for part in self.parts)


def _separator_spellings(name: str) -> tuple[str, ...]:
    """``name`` with its inner ``-`` written ``_`` (a flag's leading dashes dropped), and its inner ``_`` written ``-``.

    Documentation spells one name both ways: a command-line flag
    ``--no-build-isolation`` and its setting ``no_build_isolation``, prose's
    "manylinux-compatible" and the function ``manylinux_compatible``. The
    index holds each spelling whole, so a query typing one finds the other
    as exactly as its own.
    """
    bare = name.lstrip("-")
    dashed = (_INNER_DASH.sub("_", bare),) if _INNER_DASH.search(bare) else ()
    underscored = (_INNER_UNDERSCORE.sub("-", name),) if _INNER_UNDERSCORE.search(name) else ()
    return (*dashed, *underscored)


def analyse_query(query: str) -> Query:
    """``query`` analysed into parts (see :class:`QueryPart`); no parts when it has no word characters."""
    parts: dict[str, QueryPart] = {}
    for part in query_words(query):
        parts.setdefault(part.term, part)
    return Query(query, tuple(parts.values()))


def query_words(text: str) -> list[QueryPart]:
    """Every part of ``text`` in the order written, repeats kept: what a run of the question's words is read from."""
    return [part for raw in _QUERY_TOKEN.findall(_without_possessives(text)) if (part := _query_part(raw)) is not None]


def _query_part(raw: str) -> QueryPart | None:
    wildcard = raw.endswith("*")
    body = raw.rstrip("*")
    core = _TRAILING_SEPARATORS.sub("", body)
    tail = body[len(core) :]
    if tail.startswith("_") and body.startswith("_"):
        core, tail = body, ""  # a dunder name such as __init__, not a prefix
    placeholder = _DIGIT_PLACEHOLDER.search(core)
    if placeholder and not tail and is_compound(core[: placeholder.start()]):
        core, wildcard = core[: placeholder.start()], True
    if not _split(core):
        return None
    if tail == "/" and not wildcard:
        core, tail = core + tail, ""  # a folder: `policies/`
    identifier = _is_identifier(core)
    folded = core.casefold()
    pieces = [stem(piece.casefold()) for part in _split(core) for piece in (_camel_pieces(part) or [part])]
    # A trailing full stop or slash is punctuation (a sentence's end, a folder)
    # unless `*` follows; `_` and `-` ask for a prefix.
    if wildcard or tail.strip("./"):
        prefix = (core + tail if wildcard else core + tail.rstrip("./")).casefold()
        own = tuple(dict.fromkeys(pieces)) if identifier else ()
        return QueryPart(prefix, (), own, expand=True, identifier=identifier, prefix=True)
    if identifier:
        spellings = tuple(dict.fromkeys([folded, *_separator_spellings(folded)]))
        return QueryPart(folded, spellings, tuple(dict.fromkeys(pieces)), expand=True, identifier=True)
    stemmed = stem(folded)
    # The word as typed, or any inflection by its stem: the part scores the better of the two.
    inflections = (stemmed,) if stemmed != folded else ()
    return QueryPart(folded, (folded,), inflections, stopword=folded in STOPWORDS)
