"""Chunk files: JSON lines of ``{"id", "text", "source"}``, the format ragbisect reads.

A chunk list is the corpus as the harness sees it: every push configuration
indexes it, every gold id names one of its records, and its fingerprint keys
the eval-set cache so questions are rebuilt only when the corpus changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from pathlib import Path

from .errors import InputError


@dataclass(frozen=True)
class Chunk:
    id: str
    text: str
    source: str = ""

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def read_chunks(path: Path) -> list[Chunk]:
    """Chunks from a JSON-lines file, in file order.

    Guaranteed: ids are unique and every record has ``id`` and ``text``;
    otherwise :class:`InputError` names the file and line.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(
            f"cannot read chunk file {path}: {err}", "pass a JSON-lines file of {id, text, source}"
        ) from err
    chunks: list[Chunk] = []
    seen: set[str] = set()
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise InputError(f"{path}:{lineno}: not JSON ({err.msg})", "each line must be one JSON object") from err
        if not isinstance(record, dict) or "id" not in record or "text" not in record:
            raise InputError(
                f"{path}:{lineno}: a chunk needs 'id' and 'text'", 'write {"id": ..., "text": ..., "source": ...}'
            )
        chunk = Chunk(str(record["id"]), str(record["text"]), str(record.get("source", "")))
        if chunk.id in seen:
            raise InputError(f"{path}:{lineno}: duplicate chunk id {chunk.id!r}", "chunk ids must be unique")
        seen.add(chunk.id)
        chunks.append(chunk)
    if not chunks:
        raise InputError(f"chunk file {path} holds no chunks", "export the corpus first (contextpull export-chunks)")
    return chunks


def write_chunks(chunks: Iterable[Chunk], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as fh:
        for chunk in chunks:
            fh.write(json.dumps(chunk.to_dict(), ensure_ascii=False) + "\n")


def fingerprint(chunks: Iterable[Chunk]) -> str:
    """A short stable hash of the ids and texts, in order: the corpus's identity."""
    digest = hashlib.sha256()
    for chunk in chunks:
        for part in (chunk.id, chunk.text):
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
    return digest.hexdigest()[:16]
