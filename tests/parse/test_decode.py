"""decode_bytes: the order of encodings, binary refusal and newline normalisation."""

from __future__ import annotations

import codecs

import pytest

from contextpull.parse.decode import Undecodable, decode_bytes


def test_utf8_and_newlines_are_normalised() -> None:
    assert decode_bytes("a\r\nb\rc\nd é".encode(), "x.md") == "a\nb\nc\nd é"


def test_utf8_bom_is_stripped() -> None:
    assert decode_bytes(codecs.BOM_UTF8 + b"# Title\r\n", "x.md") == "# Title\n"


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_utf16_with_bom(encoding: str) -> None:
    bom = codecs.BOM_UTF16_LE if encoding.endswith("le") else codecs.BOM_UTF16_BE
    data = bom + "héllo\r\nwörld".encode(encoding)
    assert decode_bytes(data, "x.txt") == "héllo\nwörld"


def test_declared_encoding_wins_over_fallback() -> None:
    text = '<meta charset="koi8-r">\nПривет'
    assert decode_bytes(text.encode("koi8-r"), "x.md") == text


def test_coding_cookie() -> None:
    text = "# -*- coding: iso-8859-7 -*-\nΑλφα"
    assert decode_bytes(text.encode("iso-8859-7"), "x.txt") == text


def test_cp1252_fallback() -> None:
    text = "“Smart quotes” – and € sign"
    assert decode_bytes(text.encode("cp1252"), "x.txt") == text


def test_latin1_fallback_when_cp1252_cannot_decode() -> None:
    data = b"caf\xe9 \x81 " + b"plain words " * 10  # 0x81 is undefined in cp1252
    assert decode_bytes(data, "x.txt") == "caf\xe9 \x81 " + "plain words " * 10


def test_nul_byte_is_binary() -> None:
    with pytest.raises(Undecodable) as caught:
        decode_bytes(b"PNG\x00\x01\x02 data", "image.md")
    assert caught.value.reason == "binary file (NUL byte)"
    assert isinstance(caught.value, ValueError)


def test_control_characters_are_binary() -> None:
    with pytest.raises(Undecodable, match="control"):
        decode_bytes(bytes(range(1, 9)) * 50 + b"text", "x.txt")


def test_empty_is_text() -> None:
    assert decode_bytes(b"", "x.md") == ""
