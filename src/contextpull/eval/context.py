"""What a bench run is given, and what each of its row builders may use.

Apart from :mod:`.bench` so the row builders (push, search, pull) can be
typed against it without importing the bench that calls them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pushpull.chunks import Chunk
from pushpull.pipeline import Rows
from pushpull.questions import SHAPES

from ..paths import bench_dir


@dataclass
class BenchOptions:
    corpus: Path
    k: int = 5
    shapes: Sequence[str] = SHAPES
    model: str = "none"
    judge: str | None = None  # None: judge with ``model``; "none": no judging
    sample: int | None = None
    out: Path | None = None
    store: Path | None = None  # None: DIR/.contextpull/store.sqlite (a read-only corpus needs one elsewhere)
    push: Sequence[str] | None = None  # None: every push config
    n: int = 200
    seed: int = 0
    reranker: str | None = None
    pull: Sequence[str] = ()  # pull agents: provider:model or claude-code[:model]

    @property
    def out_dir(self) -> Path:
        return self.out if self.out is not None else bench_dir(self.corpus)


@dataclass
class BenchContext:
    """What every row builder may use: the options, the store, the chunks, the model."""

    options: BenchOptions
    store_path: Path
    chunks: list[Chunk]
    provider: Any | None
    cache_dir: Path


RowBuilder = Callable[[BenchContext], Rows]
