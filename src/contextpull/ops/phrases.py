"""A phrase of the question found word for word in a section: the question's own wording, part of it.

Ranking already raises a section holding all of a query's words as one
phrase (``ranking.PHRASE_BONUS``), which a question of ten words almost
never finds. Part of a question often is the answer's wording: "the
username for the index" is how the uv docs say it in the one section that
answers "What is the difference between the username for the index in AWS
CodeArtifact and Google Artifact Registry?", while the sections around it
hold the same words apart. The rule, stated on the question's grammar only:

* the question's words (a hyphenated compound such as ``left-to-right`` is
  one word) are matched, in order and next to each other, against the
  section's heading and text, punctuation and Markdown ignored;
* a run counts when it joins two or more content words with a function
  word between them ("username *for the* index", "run *after the* build"):
  content words side by side ("uv tool install") are most often a name,
  whose words already score together wherever they stand (measured: counting
  those runs too lost a comparison question of the uv hand-written set,
  "run a tool with uvx rather than install it with uv tool install", to
  sections that hold the command's name; ADR 011, follow-up);
* the section's share is the longest such run's content words over the
  question's, so the whole question as one phrase would earn all of the
  bonus, and two words of eight a quarter of it.

Only a section that holds one of the question's *bridges* (two content
words joined by function words only, the shortest run that counts) is read
word by word, so the cost is one compiled pattern per query and one search
per pooled section, and nothing for a query of one word or of content words
alone (an identifier, ``topic cache``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..analysis.terms import STOPWORDS

#: a word as phrases count them: a hyphenated compound is one word
_WORD = re.compile(r"\w+(?:-\w+)*")


@dataclass(frozen=True)
class Phrases:
    """A question's words (case-folded) by their places in it, with what a section's text is searched for first."""

    places: dict[str, tuple[int, ...]]
    content: int
    #: each bridge's two content words, looked for as plain substrings before the pattern runs
    ends: tuple[tuple[str, str], ...]
    #: any bridge, its words apart by any non-word characters; no word boundaries, so it may find
    #: a bridge inside longer words (the word-by-word pass then finds no run): a leading
    #: lookbehind made every search ten times slower
    bridges: re.Pattern[str]


def question_phrases(text: str) -> Phrases | None:
    """The phrases of ``text`` worth looking for, or ``None`` when it has no bridge (see the module docstring)."""
    words = tuple(_WORD.findall(text.casefold()))
    bridges = {}
    last_content = None
    for at, word in enumerate(words):
        if word in STOPWORDS:
            continue
        if last_content is not None and at - last_content > 1:
            bridge = words[last_content : at + 1]
            bridges[r"\W+".join(map(re.escape, bridge))] = (bridge[0], bridge[-1])
        last_content = at
    if not bridges:
        return None
    places: dict[str, tuple[int, ...]] = {}
    for at, word in enumerate(words):
        places[word] = (*places.get(word, ()), at)
    content = sum(word not in STOPWORDS for word in words)
    pattern = re.compile("|".join(bridges))
    return Phrases(places, content, tuple(dict.fromkeys(bridges.values())), pattern)


def phrase_share(phrases: Phrases, text: str) -> float:
    """The content words of the longest counting run of ``phrases`` in ``text``, over the question's."""
    text = text.casefold()
    if not any(first in text and last in text for first, last in phrases.ends):
        return 0.0
    if not phrases.bridges.search(text):  # no run can count without one
        return 0.0
    best = 0
    # runs[i]: the run of the question's words ending at word i that ends at the text's previous
    # word, as (content words in it, whether a function word stands between two of them)
    runs: dict[int, tuple[int, bool]] = {}
    for word in _WORD.findall(text):
        function = word in STOPWORDS
        grown = {}
        for at in phrases.places.get(word, ()):
            content, bridged = runs.get(at - 1, (0, False))
            grown[at] = (content + (not function), bridged or (function and content > 0))
            if not function and grown[at][1]:
                best = max(best, grown[at][0])
        runs = grown
    return best / phrases.content if best >= 2 else 0.0
