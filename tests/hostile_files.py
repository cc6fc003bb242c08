"""Files built to exhaust a parser: decompression bombs and sheets whose declared size is the attack.

Shared by the reliability tests and ``benchmarks/reliability.py bombs``, which
builds them at the sizes the adversarial campaign used.
"""

from __future__ import annotations

import zipfile
import zlib
from pathlib import Path

_CHUNK = 16 << 20


def far_cell_xlsx(path: Path) -> Path:
    """A workbook of two cells, A1 and XFD1048576: 4.7 KB on disk, 17 billion cells to a streaming reader."""
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet["A1"] = "top left"
    sheet["XFD1048576"] = "bottom right"
    book.save(path)
    return path


def inflating_docx(path: Path, inflated: int) -> Path:
    """A Word file whose ``word/document.xml`` inflates to about ``inflated`` bytes (blank space in a valid body)."""
    import docx

    docx.Document().save(path)
    with zipfile.ZipFile(path) as package:
        members = {info.filename: package.read(info) for info in package.infolist()}
    body = members.pop("word/document.xml")
    head, tail = body.split(b"<w:body>", 1)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as package:
        for name, data in members.items():
            package.writestr(name, data)
        with package.open("word/document.xml", "w", force_zip64=True) as stream:
            stream.write(head + b"<w:body>")
            for _ in range(inflated // _CHUNK):
                stream.write(b" " * _CHUNK)
            stream.write(tail)
    return path


def inflating_pdf(path: Path, inflated: int) -> Path:
    """A one-page PDF whose content stream inflates to about ``inflated`` bytes of blank space."""
    squeeze = zlib.compressobj(1)
    parts = [squeeze.compress(b"BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n")]
    block = b" " * _CHUNK
    parts += [squeeze.compress(block) for _ in range(inflated // _CHUNK)]
    stream = b"".join(parts) + squeeze.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path
