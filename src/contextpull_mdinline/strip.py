"""Markdown inline markup removed, and nothing else.

Questions and the index quote headings and table keys verbatim, so stripping
must never touch the text a user would type: a code span keeps its content
exactly (`` `LEDGERLINE_LOG_LEVEL` `` → ``LEDGERLINE_LOG_LEVEL``, `` `__init__` ``
→ ``__init__``), emphasis is removed only where its markers sit at word
boundaries (``**bold**``, ``*em*``, ``_em_``, ``~~struck~~``, never the
underscores inside ``snake_case``), links and images keep their visible text,
``<br>`` becomes "; ", other HTML tags and comments go, a trailing attribute
list (``{#id}``) goes, backslash escapes and entities become their characters.
Whitespace runs become one space.

Regex-based on purpose: it runs on every heading and must stay cheap, and text
without any markup character takes a fast path. Only the first
:data:`INLINE_LIMIT` characters are read: some patterns below backtrack, and a
100 KB heading of ``[`` took 45 s before the cap (docs/reliability.md); with
it a call costs a bounded time whatever the input.
"""

from __future__ import annotations

import html
import re

#: no heading, summary or table key needs more; it bounds the regexes' cost per call
INLINE_LIMIT = 1000
_MARKUP = re.compile(r"[`*_~<>\[\]{}!\\&]")
_ATTR_LIST = re.compile(r"\s*\{:?\s*[#.][^{}]*\}\s*$")
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_HELD = re.compile(r"\x00(\d+)\x00")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])")
_BREAK = re.compile(r"\s*<br\s*/?>\s*", re.IGNORECASE)
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>|<!--.*?-->", re.DOTALL)
_STRONG = re.compile(r"(?<![\w*_~])(\*\*|__|~~)(?=\S)(.+?)(?<=\S)\1(?![\w*_~])")
_EMPHASIS = re.compile(r"(?<![\w*_])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*_])")
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain_text(source: str) -> str:
    """``source`` without inline Markdown markup, whitespace collapsed; code-span contents untouched.

    Only the first :data:`INLINE_LIMIT` characters of ``source`` are read.
    """
    source = source[:INLINE_LIMIT]
    if not _MARKUP.search(source):
        return " ".join(source.split())
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(match.group(2).strip().replace("\\|", "|"))
        return f"\x00{len(spans) - 1}\x00"

    text = _CODE_SPAN.sub(hold, _ATTR_LIST.sub("", source))
    text = _BREAK.sub("; ", _LINK.sub(r"\1", _IMAGE.sub(r"\1", text)))
    text = _TAG.sub("", text)
    for _ in range(2):  # nested emphasis: ***x*** or **_x_**
        text = _STRONG.sub(r"\2", text)
        text = _EMPHASIS.sub(r"\2", text)
    text = html.unescape(_ESCAPE.sub(r"\1", text))
    text = _HELD.sub(lambda match: spans[int(match.group(1))], text)
    return " ".join(text.split())
