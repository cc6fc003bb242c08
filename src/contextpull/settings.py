"""Settings that change section boundaries, and so section ids.

They are recorded in the store; a re-ingest with other settings re-sections
every document instead of trusting unchanged bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class SectionSettings:
    #: headings at this depth or shallower start a new section (1..6)
    max_depth: int = 3
    #: a section longer than this is split at block, sentence, then word boundaries
    max_chars: int = 3000
    #: a fragment shorter than this merges with a neighbour
    min_chars: int = 200

    def __post_init__(self) -> None:
        if not 1 <= self.max_depth <= 6:
            raise ValueError("max_depth must be between 1 and 6")
        if self.min_chars < 0 or self.max_chars < 200 or self.min_chars * 2 > self.max_chars:
            raise ValueError("need max_chars >= 200 and 0 <= min_chars <= max_chars / 2")

    def fingerprint(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)
