"""``contextpull bench … --replay RUN_DIR``: reproduce a recorded run's table without any model.

A replay reads the run's ``results.json``, refuses when the code or the
store behind the pull runs changed since (the behaviour fingerprint, naming
what changed) unless ``--allow-stale`` is given, copies the run's caches
(eval set, model calls, pull runs, embeddings) into a fresh output folder,
and runs the bench again with the recorded options. Model calls are answered
from the caches under the recorded provider identities
(:mod:`pushpull.models.recorded`), pull runs from their records, push rows
and search are recomputed. Timings cannot be replayed: ``ms/query`` is taken
from the record, every other figure is recomputed. The table written is then
compared with the recorded ``table.txt`` byte for byte.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pushpull.models.base import Provider
from pushpull.models.recorded import recorded_provider

from ..errors import ContextPullError
from .fingerprint import Fingerprint

#: the folders of a run dir that hold what a replay reuses
CACHE_FOLDERS = ("evalsets", "models", "pull", "push")


class ReplayRefused(ContextPullError):
    """A recorded run cannot be replayed as asked (missing files, or made by other code)."""

    code = "replay_refused"


@dataclass
class Replay:
    """A recorded run, and how the code and store running now differ from the ones that made it."""

    run_dir: Path
    recorded: dict[str, Any]
    behaviour: Fingerprint
    changes: list[str] = field(default_factory=list)

    @property
    def stale(self) -> bool:
        return bool(self.changes)

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.recorded.get("options") or {})

    def provider(self, spec: str, cache_dir: Path) -> Provider:
        """The recorded provider for ``spec``, answering from ``cache_dir`` only."""
        identity = (self.recorded.get("models") or {}).get(spec)
        if identity is None:
            raise ReplayRefused(
                f"{self.run_dir}/results.json records no identity for model {spec!r}", "re-make the run"
            )
        return recorded_provider(spec, identity, cache_dir)

    def run_keys(self, row: str) -> dict[str, str]:
        """question → the key of its recorded pull run, for the row named ``row``."""
        for recorded_row in self.recorded.get("rows", []):
            if recorded_row.get("name") == row:
                return dict((recorded_row.get("stats") or {}).get("run_keys") or {})
        return {}

    def stale_lines(self) -> list[str]:
        """What the table says about a stale replay; nothing when the fingerprint matched."""
        if not self.changes:
            return []
        return [
            (
                "STALE REPLAY (--allow-stale): pull runs were recorded by other code or another store index; "
                f"changed since: {', '.join(self.changes)}"
            )
        ]


def load(run_dir: Path, current: Fingerprint, *, allow_stale: bool, shown: dict[str, str] | None = None) -> Replay:
    """The replay of ``run_dir`` under the code running now; refuses a changed fingerprint unless ``allow_stale``.

    ``shown`` holds the hashes of what the model would be shown now
    (:func:`.fingerprint.shown`); any that differs from the recorded ones is
    a change too, named as "the index text shown to the model" and so on.
    """
    path = run_dir / "results.json"
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ReplayRefused(f"cannot read {path}: {err}", "pass the --out folder of a bench run") from err
    if "behaviour" not in recorded or "options" not in recorded:
        raise ReplayRefused(
            f"{run_dir} records no behaviour fingerprint (made before fingerprints were recorded)",
            "re-make the run with this version; its pull runs cannot be matched to any code",
        )
    behaviour = Fingerprint.from_dict(recorded["behaviour"])
    changes = current.changes_since(behaviour) + _shown_changes(recorded.get("shown") or {}, shown or {})
    if changes and not allow_stale:
        named = ", ".join(changes[:8]) + (f" and {len(changes) - 8} more" if len(changes) > 8 else "")
        raise ReplayRefused(
            f"replay refused: the code or store changed since {run_dir} was made: {named}",
            "re-make the run, or pass --allow-stale to replay the old pull runs anyway (the table says so)",
        )
    return Replay(run_dir, recorded, behaviour, changes)


_SHOWN = {"index": "the index text", "instructions": "the instructions", "tools": "the tool schemas"}


def _shown_changes(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    """One phrase per thing shown to the model whose hash differs (a run that recorded none is not checked)."""
    return [
        f"{_SHOWN.get(name, name)} shown to the model"
        for name in sorted(set(recorded) & set(now))
        if recorded[name] != now[name]
    ]


def copy_caches(run_dir: Path, out_dir: Path) -> None:
    """Copy the run's caches into ``out_dir`` (never replay into the recorded folder itself)."""
    if out_dir.resolve() == run_dir.resolve():
        raise ReplayRefused("a replay must write elsewhere than the run it replays", "pass --out another folder")
    for name in CACHE_FOLDERS:
        source = run_dir / name
        if source.is_dir():
            shutil.copytree(source, out_dir / name, dirs_exist_ok=True)


def recorded_timing(recorded: dict[str, Any]) -> Callable[[str, str], float | None]:
    """``(row name, question id) -> ms`` as the run recorded it: timings are measurements, not replayable."""
    by_row = {row["name"]: {q["qid"]: q.get("ms", 0.0) for q in row.get("questions", [])} for row in recorded["rows"]}
    return lambda row, qid: by_row.get(row, {}).get(qid)


def compare_tables(run_dir: Path, written: Path) -> str | None:
    """None when ``written`` equals the recorded ``table.txt`` byte for byte, else the first differing line."""
    recorded = (run_dir / "table.txt").read_bytes() if (run_dir / "table.txt").exists() else b""
    new = written.read_bytes()
    if recorded == new:
        return None
    old_lines, new_lines = recorded.decode("utf-8").splitlines(), new.decode("utf-8").splitlines()
    for number, (was, now) in enumerate(zip(old_lines, new_lines), 1):
        if was != now:
            return f"line {number}: recorded {was.strip()!r}, replayed {now.strip()!r}"
    return f"recorded {len(old_lines)} lines, replayed {len(new_lines)}"
