"""Bytes on disk to the one normalised text every later step slices.

Section offsets, ids and grep results all refer to this text, so decoding
must be deterministic and must never silently turn a binary file into
garbage sections. The order of attempts is fixed:

1. UTF-8 (a UTF-8 byte order mark is stripped);
2. UTF-16 when the data starts with a UTF-16 byte order mark;
3. an encoding the file declares about itself (``<meta charset=...>``,
   an Emacs/Python ``-*- coding: ... -*-`` line, front matter ``encoding:``);
4. cp1252 when it decodes cleanly, else latin-1, either only when the result
   looks like text (few control characters).

Binary is refused first: a NUL byte in the first 8 KB (unless the data is
UTF-16 with a BOM) or a high share of control characters. Line endings are
normalised (CRLF and lone CR become LF). Standard library only.
"""

from __future__ import annotations

import codecs
import re
from functools import cache
from typing import Any

__all__ = ["Undecodable", "decode_bytes", "normalise_newlines"]

_SNIFF = 8192
#: above this share of control characters in the first 8 KB the data is not text
_MAX_CONTROL_SHARE = 0.05
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f-\x9f]")
_CONTROL_BYTES = bytes(c for c in range(32) if c not in (9, 10, 12, 13)) + b"\x7f"


@cache
def _declared() -> Any:
    """The pattern of an encoding declaration, compiled on first use: only text that is not
    UTF-8 needs it, and loading RE2 costs a few milliseconds of every ingest otherwise.

    RE2, not ``re``: with backtracking, 8 KB of ``-*-`` took half a second.
    """
    import re2

    return re2.compile(
        rb"""(?im)<meta[^>]*?charset\s*=\s*["']?([A-Za-z0-9_.:-]+)"""
        rb"""|-\*-.*?coding[:=]\s*([A-Za-z0-9_.:-]+).*?-\*-"""
        rb"""|^\s*encoding\s*:\s*["']?([A-Za-z0-9_.:-]+)""",
    )


class Undecodable(ValueError):
    """The bytes are not text we can read; ``reason`` says why in a few words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def normalise_newlines(text: str) -> str:
    """CRLF and lone CR become LF, so offsets are the same on every platform."""
    if "\r" not in text:
        return text
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decode_bytes(data: bytes, path: str) -> str:
    """Decode ``data`` (the contents of ``path``) to newline-normalised text.

    Raises :class:`Undecodable` for binary data or bytes no encoding fits.
    ``path`` is accepted for the caller's messages and future per-type rules;
    the decision is made from the bytes alone.
    """
    del path  # the bytes decide; see the module docstring
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        try:
            return _checked(data.decode("utf-16"))
        except UnicodeDecodeError:
            raise Undecodable("invalid UTF-16 after a UTF-16 byte order mark") from None
    head = data[:_SNIFF]
    if b"\x00" in head:
        raise Undecodable("binary file (NUL byte)")
    # the control bytes counted in one pass (deleting them), not one pass per byte value
    if head and (len(head) - len(head.translate(None, _CONTROL_BYTES))) / len(head) > _MAX_CONTROL_SHARE:
        raise Undecodable("binary file (control characters)")
    try:
        return normalise_newlines(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        pass
    for encoding in (_declared_encoding(head), "cp1252", "latin-1"):
        if encoding is None:
            continue
        try:
            return _checked(data.decode(encoding))
        except (UnicodeError, LookupError, Undecodable):
            continue
    raise Undecodable("not valid UTF-8 and no fallback fits")


def _declared_encoding(head: bytes) -> str | None:
    """The first text encoding the text declares for itself that Python knows.

    A declaration is the file's own claim, so it may name anything: codecs
    that are not bytes-to-text (``base64``, ``rot13``, ``zlib``) or that
    refuse every input (``undefined``) are passed over.
    """
    for match in _declared().finditer(head):
        name = next(g for g in match.groups() if g).decode("ascii").lower()
        try:
            info = codecs.lookup(name)
        except LookupError:
            continue
        if getattr(info, "_is_text_encoding", True) and info.name != "undefined":
            return info.name
    return None


def _checked(text: str) -> str:
    """Refuse decoded text that is mostly control characters, else normalise it."""
    sample = text[:_SNIFF]
    if sample and len(_CONTROL.findall(sample)) / len(sample) > _MAX_CONTROL_SHARE:
        raise Undecodable("binary file (control characters)")
    return normalise_newlines(text.removeprefix("\ufeff"))
