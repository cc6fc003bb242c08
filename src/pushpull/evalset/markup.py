"""Markdown inline markup removed, and nothing else.

Questions quote table keys and headings verbatim, so stripping must never
touch the text a user would type: a code span keeps its content exactly
(`` `LEDGERLINE_LOG_LEVEL` `` → ``LEDGERLINE_LOG_LEVEL``, `` `__init__` `` →
``__init__``), emphasis is removed only where its markers sit at word
boundaries (``**bold**``, ``*em*``, ``_em_``, never the underscores inside
``snake_case``), links and images keep their visible text, ``<br>`` becomes
"; ", other HTML tags go, and escaped pipes become pipes.
"""

from __future__ import annotations

import html
import re

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\](?:\([^)]*\)|\[[^\]]*\])")
_BREAK = re.compile(r"\s*<br\s*/?>\s*", re.I)
_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?/?>")
_STRONG = re.compile(r"(?<![\w*_])(\*\*|__)(?=\S)(.+?)(?<=\S)\1(?![\w*_])")
_EMPHASIS = re.compile(r"(?<![\w*_])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*_])")


def _strip_prose(text: str) -> str:
    text = _TAG.sub("", text)
    for _ in range(2):  # nested emphasis: ***x*** or **_x_**
        text = _STRONG.sub(r"\2", text)
        text = _EMPHASIS.sub(r"\2", text)
    return text.replace("\\|", "|").replace("\\*", "*").replace("\\_", "_")


def plain_text(text: str) -> str:
    """``text`` without inline Markdown markup, whitespace collapsed; code-span contents untouched."""
    text = _BREAK.sub("; ", _LINK.sub(r"\1", _IMAGE.sub(r"\1", text)))
    parts: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(text):
        parts.append(_strip_prose(text[last : match.start()]))
        parts.append(match.group(2).strip().replace("\\|", "|"))
        last = match.end()
    parts.append(_strip_prose(text[last:]))
    return " ".join(html.unescape("".join(parts)).split())
