"""Where fetched sources live: one folder each under the user data folder, named for people and keyed for machines."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..paths import data_home

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def safe_name(text: str) -> str:
    """``text`` with every run of characters a file name should not hold made one ``-``, trimmed."""
    return _UNSAFE.sub("-", text).strip("-.")


def source_folder(name: str, identity: str) -> Path:
    """``sources/<name>-<hash of identity>/`` in the user data folder: readable, and one per source."""
    key = hashlib.sha256(identity.encode()).hexdigest()[:16]
    return data_home() / "sources" / f"{safe_name(name) or 'source'}-{key}"
