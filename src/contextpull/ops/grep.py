"""Exact matching for the ``grep`` operation: patterns, prefilters, budgets.

Literal mode is a case-insensitive substring test under full Unicode case
folding (``str.casefold``), so ``STRASSE`` finds ``Straße`` and ``TX-45``
finds ``TX-4501``. Regex mode uses RE2, which runs in time linear in the text
and so cannot be made to backtrack catastrophically; it folds case the way
RE2 does (simple case folding) and treats the section as multi-line text
(``^`` and ``$`` match at line ends).

Both modes can take their candidates from the trigram index over case-folded
text (``sections_tri``): a literal of three or more characters directly, a
regex through a literal it provably requires. Candidates are always verified
here against the real text, so the trigram index only makes grep faster,
never different from a full scan.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from dataclasses import dataclass

import re2

from ..errors import PatternRejected
from ..store.queries import SectionRow

PATTERN_MAX = 200
#: longest line shown for a match; longer lines are cut around the match
LINE_WIDTH = 200
#: a regex scan stops after this many characters of text or this many seconds
SCAN_BUDGET_CHARS = 64_000_000
SCAN_BUDGET_SECONDS = 2.0
#: RE2 refuses patterns whose compiled program needs more memory than this
REGEX_MAX_MEM = 8 << 20
TRIGRAM = 3

#: how RE2 reports lookaround and backreferences, which it deliberately lacks
_UNSUPPORTED = re.compile(r"invalid perl operator|invalid escape sequence: \\[1-9]")


@dataclass(frozen=True)
class LineHit:
    """A matching line of a section: 1-based line number in the section, the line, and the match span in it."""

    line_number: int
    line: str
    start: int
    end: int


class LiteralPattern:
    """A case-folded substring; ``prefilter`` is the folded text itself when long enough."""

    def __init__(self, pattern: str) -> None:
        if "\n" in pattern or "\r" in pattern:
            raise PatternRejected(
                "grep matches within one line; the pattern contains a line break",
                "grep for one line of the text, or search for the words",
            )
        self.folded = pattern.casefold()
        self.prefilter = self.folded if len(self.folded) >= TRIGRAM and "\x00" not in self.folded else None

    def lines(self, text: str, most: int) -> list[LineHit]:
        """Up to ``most`` matching lines of ``text``, in order (line numbers 1-based within it)."""
        if self.folded not in text.casefold():
            return []
        hits = []
        for number, line in enumerate(text.split("\n"), start=1):
            folded_line = line.casefold()
            at = folded_line.find(self.folded)
            if at >= 0:
                start = _original_offset(line, at)
                end = _original_offset(line, at + len(self.folded))
                hits.append(LineHit(number, line, start, end))
                if len(hits) == most:
                    break
        return hits


class RegexPattern:
    """An RE2 pattern, compiled case-insensitive and multi-line."""

    def __init__(self, pattern: str) -> None:
        options = re2.Options()
        options.case_sensitive = False
        options.log_errors = False
        options.max_mem = REGEX_MAX_MEM
        try:
            self._regex = re2.compile("(?m)" + pattern, options)
        except re2.error as err:
            raise _rejection(pattern, err) from None
        literal = required_literal(pattern)
        self.prefilter = literal.casefold() if literal and len(literal) >= TRIGRAM else None

    def lines(self, text: str, most: int) -> list[LineHit]:
        """Up to ``most`` lines where a match starts, in order (line numbers 1-based within ``text``)."""
        hits: list[LineHit] = []
        position = 0
        number = 1
        while len(hits) < most and position <= len(text):
            match = self._regex.search(text, position)
            if match is None:
                break
            line_start = text.rfind("\n", 0, match.start()) + 1
            line_end = text.find("\n", match.start())
            line_end = len(text) if line_end < 0 else line_end
            number += text.count("\n", position, line_start)
            end = min(match.end(), line_end) - line_start
            hits.append(LineHit(number, text[line_start:line_end], match.start() - line_start, end))
            # the next match must start on a later line
            position = line_end + 1
            number += 1
        return hits


Pattern = LiteralPattern | RegexPattern


def compile_pattern(pattern: str, regex: bool) -> Pattern:
    """Validate and compile a grep pattern; raises :class:`PatternRejected` with the reason."""
    if not 1 <= len(pattern) <= PATTERN_MAX:
        raise PatternRejected(
            f"the pattern must be 1 to {PATTERN_MAX} characters long (got {len(pattern)})",
            "grep for a distinctive part of the text",
        )
    return RegexPattern(pattern) if regex else LiteralPattern(pattern)


def _rejection(pattern: str, err: re2.error) -> PatternRejected:
    raw = err.args[0] if err.args else err
    reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    if _UNSUPPORTED.search(reason):
        return PatternRejected(
            f"RE2 does not support backreferences or lookaround ({reason})",
            "rewrite the pattern without them, or grep for a literal part of it",
        )
    if "too large" in reason or "pattern too" in reason:
        return PatternRejected(
            f"the regex is too expensive to run ({reason})",
            "use a smaller repetition count or a literal pattern",
        )
    return PatternRejected(f"invalid regex {pattern!r}: {reason}", "fix the pattern, or grep without regex")


def _original_offset(line: str, folded_offset: int) -> int:
    """Map an offset in ``line.casefold()`` back to ``line`` (folding can change lengths)."""
    consumed = 0
    for index, char in enumerate(line):
        if consumed >= folded_offset:
            return index
        consumed += len(char.casefold())
    return len(line)


def trim_line(hit: LineHit, width: int = LINE_WIDTH) -> str:
    """The matching line, cut to ``width`` characters around the match with ``…`` marks."""
    line = hit.line.strip()
    shift = len(hit.line) - len(hit.line.lstrip())
    start, end = hit.start - shift, hit.end - shift
    if len(line) <= width:
        return line
    lead = max(0, min(start - width // 4, len(line) - width))
    if end - lead > width:
        lead = max(0, start)
    piece = line[lead : lead + width]
    return ("…" if lead > 0 else "") + piece + ("…" if lead + width < len(line) else "")


@dataclass(frozen=True)
class ScanOutcome:
    #: matching sections in order, each with its first ``lines_per_section`` matching lines
    hits: list[tuple[SectionRow, list[LineHit]]]
    #: more sections matched than the limit
    more: bool
    #: the scan stopped at its budget before reaching the end
    exhausted: bool


def scan(rows: Iterable[SectionRow], pattern: Pattern, limit: int, lines_per_section: int = 1) -> ScanOutcome:
    """Verify candidate sections in order until ``limit + 1`` match or the budget runs out."""
    hits: list[tuple[SectionRow, list[LineHit]]] = []
    chars = 0
    deadline = time.monotonic() + SCAN_BUDGET_SECONDS
    for row in rows:
        text = row.text or ""
        found = pattern.lines(text, lines_per_section)
        if found:
            if len(hits) == limit:
                return ScanOutcome(hits, more=True, exhausted=False)
            hits.append((row, found))
        chars += len(text)
        if chars > SCAN_BUDGET_CHARS or time.monotonic() > deadline:
            return ScanOutcome(hits, more=False, exhausted=True)
    return ScanOutcome(hits, more=False, exhausted=False)


_SIMPLE_ESCAPES = set("dDwWsSbBAz")
_SPECIAL = set("\\.^$|?*+()[]{}")
_REPEAT = re.compile(r"\{(\d+)(?:,(\d*))?\}")


def required_literal(pattern: str) -> str | None:
    """The longest ASCII literal every match of ``pattern`` must contain, or ``None``.

    Conservative by design: any construct it does not fully understand
    (alternation at the top level, hex or property escapes, ``\\Q``) makes it
    give up, because a wrong answer would make grep miss matches.
    """
    runs: list[str] = []
    run: list[str] = []
    depth = 0
    i = 0

    def cut() -> None:
        if run:
            runs.append("".join(run))
            run.clear()

    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            if i + 1 >= len(pattern):
                return None
            nxt = pattern[i + 1]
            i += 2
            if nxt.isascii() and not nxt.isalnum():
                literal: str | None = nxt
            elif nxt in _SIMPLE_ESCAPES:
                literal = None
            else:
                return None
        elif char == "[":
            end = _class_end(pattern, i)
            if end is None:
                return None
            i = end
            literal = None
        elif char == "(":
            depth += 1
            i += 1
            if pattern.startswith("?", i):
                while i < len(pattern) and pattern[i] not in ":)":
                    i += 1
                i += pattern.startswith(":", i)
            cut()
            continue
        elif char == ")":
            depth -= 1
            i += 1
            literal = None
        elif char == "|":
            if depth == 0:
                return None
            i += 1
            continue
        elif char in "*?+{":
            return None  # a quantifier with nothing to repeat
        elif char in _SPECIAL:
            i += 1
            literal = None
        else:
            i += 1
            literal = char if char.isascii() else None
        i, minimum = _quantifier(pattern, i)
        if minimum is None:
            return None
        if depth > 0 or literal is None:
            cut()
            continue
        if minimum == 0:
            cut()
        elif minimum == -1:
            run.append(literal)
        else:
            run.append(literal)
            cut()
    cut()
    best = max(runs, key=len, default="")
    return best or None


def _quantifier(pattern: str, i: int) -> tuple[int, int | None]:
    """Skip a quantifier at ``i``: returns (new index, min repeats), -1 when there is none."""
    if i >= len(pattern):
        return i, -1
    char = pattern[i]
    if char in "*?":
        minimum, i = 0, i + 1
    elif char == "+":
        minimum, i = 1, i + 1
    elif char == "{":
        repeat = _REPEAT.match(pattern, i)
        if repeat is None:
            return i, None
        minimum, i = int(repeat.group(1)), repeat.end()
    else:
        return i, -1
    if i < len(pattern) and pattern[i] in "?+":
        i += 1
    return i, minimum


def _class_end(pattern: str, i: int) -> int | None:
    """Index just past the character class that starts at ``pattern[i] == '['``."""
    j = i + 1
    if j < len(pattern) and pattern[j] == "^":
        j += 1
    if j < len(pattern) and pattern[j] == "]":
        j += 1
    while j < len(pattern):
        if pattern[j] == "\\":
            j += 2
        elif pattern.startswith("[:", j):
            close = pattern.find(":]", j + 2)
            if close < 0:
                return None
            j = close + 2
        elif pattern[j] == "]":
            return j + 1
        else:
            j += 1
    return None
