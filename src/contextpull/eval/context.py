"""What a bench run is given, and what each of its row builders may use.

Apart from :mod:`.bench` so the row builders (push, search, pull) can be
typed against it without importing the bench that calls them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pushpull.chunks import Chunk
from pushpull.pipeline import Rows
from pushpull.questions import SHAPES

from ..paths import bench_dir
from .replay import Replay


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
    embedder: str | None = None  # the dense push rows' embedder; None: pushpull's default (minilm)
    pull: Sequence[str] = ()  # pull agents: provider:model or claude-code[:model]
    replay: Path | None = None  # a run dir to reproduce from its records, with no model
    allow_stale: bool = False  # replay even when the behaviour fingerprint changed (the table says so)
    re_execute: bool = False  # with replay: every row again by this code, the model's answers from the record

    @property
    def out_dir(self) -> Path:
        if self.out is not None:
            return self.out
        return bench_dir(self.corpus).with_name("replay") if self.replay else bench_dir(self.corpus)

    def recorded(self) -> dict[str, Any]:
        """The options that decide the figures, as results.json records them for a replay."""
        return {
            "k": self.k,
            "shapes": list(self.shapes),
            "model": self.model,
            "judge": self.judge,
            "sample": self.sample,
            "push": None if self.push is None else list(self.push),
            "n": self.n,
            "seed": self.seed,
            "reranker": self.reranker,
            "embedder": self.embedder,
            "pull": list(self.pull),
        }

    def replaying(self, recorded: dict[str, Any]) -> BenchOptions:
        """These options with the figure-deciding ones taken from a recorded run."""
        shapes = tuple(recorded.get("shapes") or self.shapes)
        return replace(self, **{**recorded, "shapes": shapes, "pull": tuple(recorded.get("pull") or ())})


@dataclass
class BenchContext:
    """What every row builder may use: the options, the store, the chunks, the model."""

    options: BenchOptions
    store_path: Path
    chunks: list[Chunk]
    provider: Any | None
    cache_dir: Path
    replay: Replay | None = None
    #: model spec → provider identity, for results.json (a replay opens the same identities)
    identities: dict[str, dict[str, Any]] = field(default_factory=dict)


RowBuilder = Callable[[BenchContext], Rows]
