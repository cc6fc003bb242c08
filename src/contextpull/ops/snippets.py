"""One-line excerpts that show why a search hit matched (docs/adr/005-snippet-policy.md).

A snippet is a window of about ``width`` characters of the section's source
text, placed over the densest cluster of query terms, with whitespace
collapsed to single spaces, ``…`` where the window cuts the text, and every
token that carries a query term wrapped in ``**``, except inside URLs and code
spans, where a mark would change what the text says. It is a pointer's label,
not a substitute for ``read``: it is never longer than ``width`` plus the
marks and ellipses.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Collection, Iterator

from ..analysis.terms import index_terms, token_spans

#: default snippet width in characters of source text
DEFAULT_SNIPPET = 160
#: widest snippet a caller may ask for
MAX_SNIPPET = 1000
MARK = "**"
ELLIPSIS = "…"

_WHITESPACE = re.compile(r"\s+")
_SPACE = re.compile(r"\s")
#: a whitespace-free run: no token crosses its edges
_CHUNK = re.compile(r"\S+")
#: text a mark must not enter: URLs (bare, <autolinks>, link targets) and `code spans`
_CODE_SPAN, _URL, _LINK_TARGET = r"`+[^`]*`+", r"<?[a-z][a-z0-9+.-]*://[^\s>)]*>?", r"\]\([^)\s]*\)"
_VERBATIM = re.compile(f"{_CODE_SPAN}|{_URL}|{_LINK_TARGET}", re.IGNORECASE)
#: the same pattern without the branches a line cannot match (it lacks their ``://`` or ``](``),
#: by (has ``://``, has ``](``): a branch that matches nowhere changes no match, and the URL
#: branch is the slow one (issue 14)
_VERBATIM_FOR = {
    (True, True): _VERBATIM,
    (True, False): re.compile(f"{_CODE_SPAN}|{_URL}", re.IGNORECASE),
    (False, True): re.compile(f"{_CODE_SPAN}|{_LINK_TARGET}"),
    (False, False): re.compile(_CODE_SPAN),
}
#: a line of one punctuation character repeated, an underline or overline in reStructuredText and
#: Markdown; no backticks, and no tildes over a title, which would take a fenced code block for a heading.
#: Their backreferences are to groups 1 (overline) and 2 (underline) of :data:`_HEADING_LINES`
_UNDERLINE, _OVERLINE = r"([=\-~^\"'*+#:._])\2{2,}[ \t]*\n", r"([=\-^\"'*+#:._])\1{2,}[ \t]*\n"
#: the heading lines a section opens with, in any source syntax: ``# Title``, a title over (and under)
#: an adornment line, and the blank lines and reStructuredText targets around them: a link target
#: (``.. _reload:``) or a directive naming the place (``.. setting:: DEBUG``), which open the section of
#: the title below them (``parse/rst.py``)
_HEADING_LINES = re.compile(
    rf"(?:[ \t]*#{{1,6}}[ \t][^\n]*\n|[ \t]*\n|\.\.[ \t]+(?:_[^\n]*:|[\w:.+-]+::[ \t]+\S+)[ \t]*\n"
    rf"|(?:{_OVERLINE})?[ \t]*\S[^\n]*\n{_UNDERLINE})+"
)
#: how far before the first matched term a window starts, as a share of its width
_LEAD = 4
#: matches considered when placing the window; later ones cannot change the choice much
_MAX_SPANS = 200


def make_snippet(text: str, terms: Collection[str], width: int = DEFAULT_SNIPPET) -> str:
    """The excerpt of ``text`` for query ``terms``; ``""`` when ``width`` is 0.

    The section's own heading lines are left out (the hit carries its heading
    path); without any matching token in the rest (the hit matched on its
    heading) the window starts at the first line of the body.
    """
    if width <= 0 or not text:
        return ""
    heading = _HEADING_LINES.match(text)
    body = heading.end() if heading and heading.end() < len(text) else 0
    spans = _matches(text, body, set(terms))
    start = max(body, _window_start(spans, width))
    end = min(len(text), start + width)
    start, end = _snap_to_words(text, start, end, spans)
    return _render(text, start, end, spans, body)


def _matches(text: str, origin: int, wanted: set[str]) -> list[tuple[int, int, set[str]]]:
    """Tokens after ``origin`` carrying a wanted term, as ``(start, end, terms)``.

    A token is analysed only when its case-folded text contains a wanted
    term as a substring, and a line only when its case-folded text does. The
    case-folded section is searched for each term (``str.find``), and only the
    whitespace-separated chunks holding an occurrence are tokenised: a token
    never spans whitespace, so the tokens of a chunk are those the whole line
    would give there, and a token outside those chunks holds no term. That is
    only sound when case folding keeps every character one character long
    (then positions in the folded text are positions in ``text``); otherwise
    every line is checked on its own (:func:`_matches_by_line`), as before.
    """
    if not wanted or "" in wanted or any(_SPACE.search(term) for term in wanted):
        return _matches_by_line(text, origin, wanted)
    folded = text.casefold()
    if len(folded) != len(text):
        return _matches_by_line(text, origin, wanted)
    found = sorted({at for term in wanted for at in _occurrences(folded, term, origin)})
    spans: list[tuple[int, int, set[str]]] = []
    first = 0
    while first < len(found):
        at = found[first]
        line_start = max(origin, text.rfind("\n", origin, at) + 1)
        line_end = text.find("\n", at)
        if line_end < 0:
            line_end = len(text)
        last = bisect_left(found, line_end, first)
        if _line_matches(text[line_start:line_end], line_start, folded, found[first:last], wanted, spans):
            return spans
        first = last
    return spans


def _occurrences(folded: str, term: str, start: int) -> Iterator[int]:
    """Every position at or after ``start`` where ``term`` occurs in ``folded`` (overlapping ones too)."""
    at = folded.find(term, start)
    while at >= 0:
        yield at
        at = folded.find(term, at + 1)


def _line_matches(
    line: str,
    offset: int,
    folded: str,
    occurrences: list[int],
    wanted: set[str],
    spans: list[tuple[int, int, set[str]]],
) -> bool:
    """Add the matching tokens of ``line`` (at ``offset``) to ``spans``; True once :data:`_MAX_SPANS` are found.

    Only the chunks holding one of ``occurrences`` (positions in ``folded``)
    are tokenised.
    """
    verbatim = _verbatim(line)
    chunk_end = -1
    for at in occurrences:
        at -= offset
        if at < chunk_end:
            continue  # in the chunk just analysed
        chunk_start = _chunk_start(line, at)
        chunk_end = _CHUNK.match(line, at).end()  # type: ignore[union-attr]  # line[at] is not whitespace
        for token_start, token_end in token_spans(line[chunk_start:chunk_end]):
            start, end = chunk_start + token_start, chunk_start + token_end
            if any(v_start < end and start < v_end for v_start, v_end in verbatim):
                continue  # marks inside a URL or a code span would change what it says
            token = folded[offset + start : offset + end]
            hit = wanted.intersection(index_terms(line[start:end])) if any(t in token for t in wanted) else None
            if hit:
                spans.append((offset + start, offset + end, hit))
                if len(spans) == _MAX_SPANS:
                    return True
    return False


def _chunk_start(line: str, at: int) -> int:
    """Where the whitespace-free run holding ``line[at]`` starts: after the last whitespace before ``at``."""
    last = max(line.rfind(" ", 0, at), line.rfind("\t", 0, at))
    for other in _SPACE.finditer(line, last + 1, at):  # rarer whitespace (no-break spaces, ...) after it
        last = other.start()
    return last + 1


def _verbatim(line: str) -> list[tuple[int, int]]:
    """The spans of ``line`` a mark must not enter; none without a backtick, ``://`` or ``](`` to start one."""
    url, target = "://" in line, "](" in line
    if not (url or target or "`" in line):
        return []
    return [match.span() for match in _VERBATIM_FOR[url, target].finditer(line)]


def _matches_by_line(text: str, origin: int, wanted: set[str]) -> list[tuple[int, int, set[str]]]:
    """:func:`_matches` one line at a time, for texts whose case folding changes lengths."""
    spans: list[tuple[int, int, set[str]]] = []
    offset = origin
    for line in text[origin:].split("\n"):
        folded = line.casefold()
        if any(term in folded for term in wanted):
            verbatim = _verbatim(line)
            for start, end in token_spans(line):
                if any(v_start < end and start < v_end for v_start, v_end in verbatim):
                    continue  # marks inside a URL or a code span would change what it says
                token = line[start:end].casefold()
                hit = wanted.intersection(index_terms(line[start:end])) if any(t in token for t in wanted) else None
                if hit:
                    spans.append((offset + start, offset + end, hit))
                    if len(spans) == _MAX_SPANS:
                        return spans
        offset += len(line) + 1
    return spans


def _window_start(spans: list[tuple[int, int, set[str]]], width: int) -> int:
    if not spans:
        return 0
    best_start, best_key = 0, (-1, -1)
    for anchor, _, _ in spans:
        start = max(0, anchor - width // _LEAD)
        inside = [found for s, e, found in spans if s >= start and e <= start + width]
        key = (len(set().union(*inside)), len(inside))
        if key > best_key:
            best_start, best_key = start, key
    return best_start


def _snap_to_words(text: str, start: int, end: int, spans: list[tuple[int, int, set[str]]]) -> tuple[int, int]:
    """Move the window's edges to whitespace so no word is cut, never past a match."""
    first_match = next((s for s, _, _ in spans if s >= start), end)
    if start > 0 and not text[start - 1].isspace():
        gap = _WHITESPACE.search(text, start, first_match)
        if gap:
            start = gap.end()
    if end < len(text) and not text[end].isspace():
        cut = max(text.rfind(" ", start, end), text.rfind("\n", start, end))
        last_match_end = max((e for s, e, _ in spans if start <= s and e <= end), default=start)
        if cut > max(last_match_end, start + (end - start) // 2):
            end = cut
    return start, end


def _render(text: str, start: int, end: int, spans: list[tuple[int, int, set[str]]], origin: int) -> str:
    pieces: list[str] = []
    cursor = start
    for s, e, _ in spans:
        if s >= cursor and e <= end and MARK not in (text[s - len(MARK) : s], text[e : e + len(MARK)]):
            pieces += [text[cursor:s], MARK, text[s:e], MARK]  # a token the text already sets in ** is left so
            cursor = e
    pieces.append(text[cursor:end])
    body = _WHITESPACE.sub(" ", "".join(pieces)).strip()
    prefix = ELLIPSIS if start > origin else ""
    suffix = ELLIPSIS if end < len(text.rstrip()) else ""
    return f"{prefix}{body}{suffix}"
