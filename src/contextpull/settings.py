"""Settings that change section boundaries (and so section ids) or which files are sectioned.

They are recorded in the store; a re-ingest with other settings re-sections
every document instead of trusting unchanged bytes, so a file skipped for a
limit is read again once the limit is raised.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

#: the ingest-wide time budget: files not started by then are deferred to the next ingest, which goes on
#: from what this one stored (an hour is far beyond any corpus we measured: 100,000 files took minutes).
#: Not a section setting: it changes which files one ingest reads, never how a file is sectioned.
DEFAULT_MAX_SECONDS = 3600.0


@dataclass(frozen=True)
class FileLimits:
    """Per-file limits: a file over one is skipped with a reason naming it, never the ingest.

    The defaults sit far above any real document (the largest file in the
    test corpora is under 2 MB) and far below what exhausts a machine (a
    50 MB Markdown file took 644 MB to section).
    """

    #: bytes on disk; larger files are not read at all
    max_bytes: int = 32 << 20
    #: lines of decoded text
    max_lines: int = 1_000_000
    #: sections one file may produce
    max_sections: int = 50_000
    #: seconds to decode, parse and analyse one file
    time_s: float = 120.0
    #: bytes of address space for the child that runs PDF, Office and HTML parsers (a decompression
    #: bomb in a 5 KB file stops here); the child's interpreter and parsers take about 210 MB of it
    max_memory: int = 1 << 30

    def __post_init__(self) -> None:
        if min(self.max_bytes, self.max_lines, self.max_sections, self.max_memory) < 1 or not self.time_s > 0:
            raise ValueError("file limits must be positive")


@dataclass(frozen=True)
class SectionSettings:
    #: headings at this depth or shallower start a new section (1..6)
    max_depth: int = 3
    #: a section longer than this is split at block, sentence, then word boundaries
    max_chars: int = 3000
    #: a fragment shorter than this merges with a neighbour
    min_chars: int = 200
    limits: FileLimits = field(default_factory=FileLimits)

    def __post_init__(self) -> None:
        if not 1 <= self.max_depth <= 6:
            raise ValueError("max_depth must be between 1 and 6")
        if self.min_chars < 0 or self.max_chars < 200 or self.min_chars * 2 > self.max_chars:
            raise ValueError("need max_chars >= 200 and 0 <= min_chars <= max_chars / 2")

    def fingerprint(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)
