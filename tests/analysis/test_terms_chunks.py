"""Term analysis chunk by chunk (the cached fast path) equals the regex over the whole text."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from contextpull.analysis.terms import (
    _is_identifier,
    _token_terms,
    index_terms,
    index_text,
    index_text_and_identifiers,
    tokens,
)

#: word characters, the token joiners, edge punctuation and every kind of whitespace
ALPHABET = st.sampled_from(
    list("aZ9_-.`'\"()*:/,éßİ\u212aǅ٣sS\u2019")
    + [" ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u2028", "\u3000"]
)


def reference_terms(text: str) -> list[str]:
    """The definition: every token of the whole text (possessives dropped), analysed."""
    return [term for token in tokens(text) for term in _token_terms(token)]


@settings(max_examples=200, deadline=None)
@given(text=st.one_of(st.text(ALPHABET, max_size=60), st.text(max_size=60)))
def test_chunked_analysis_equals_the_whole_text_regex(text: str) -> None:
    assert index_terms(text) == reference_terms(text)
    assert index_text(text) == " ".join(reference_terms(text))
    identifiers = [token.casefold() for token in tokens(text) if _is_identifier(token)]
    assert index_text_and_identifiers(text) == (" ".join(reference_terms(text)), " ".join(identifiers))


def test_identifiers_and_sentence_ends() -> None:
    text = "Set `UV_CACHE_DIR` or pass --no-cache.\nSee tool.uv.sources."
    assert index_terms(text) == reference_terms(text)
    assert "uv_cache_dir" in index_terms(text) and "--no-cache" in index_terms(text)
    assert index_terms(text)[-2:] == ["sources", "sourc"]  # the word, then its stem


def test_no_whitespace_character_can_be_part_of_a_token() -> None:
    # What makes chunking exact: str.split() only cuts where no token can continue.
    token_char = re.compile(r"[\w.\-/'\u2019]")
    assert not [hex(c) for c in range(sys.maxunicode + 1) if chr(c).isspace() and token_char.match(chr(c))]
