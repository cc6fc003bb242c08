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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pushpull.models.base import Provider
from pushpull.models.recorded import RecordedFirst, live_provider, recorded_provider

from ..errors import ContextPullError
from .fingerprint import Fingerprint

#: the folders of a run dir that hold what a replay reuses
CACHE_FOLDERS = ("evalsets", "models", "pull", "push")
#: the recorded pull runs, which a re-execution makes again rather than reuses
PULL_RUNS = Path("pull") / "pull_runs"
#: the results.json key describing a re-execution (its lines are repeated by a replay of the folder)
REEXECUTED_KEY = "re_executed"


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
    #: every row computed again by the code running now, the model answered from the record
    #: (:mod:`.reexecute`), rather than the recorded pull runs re-scored
    re_execute: bool = False

    @property
    def stale(self) -> bool:
        return bool(self.changes)

    @property
    def options(self) -> dict[str, Any]:
        return dict(self.recorded.get("options") or {})

    def provider(self, spec: str, cache_dir: Path) -> Provider:
        """The recorded provider for ``spec``, answering from ``cache_dir`` only; under a re-execution, a
        :class:`RecordedFirst` that asks the model itself (when it is the recorded one) what is new."""
        identity = (self.recorded.get("models") or {}).get(spec)
        if identity is None:
            raise ReplayRefused(
                f"{self.run_dir}/results.json records no identity for model {spec!r}", "re-make the run"
            )
        recorded = recorded_provider(spec, identity, cache_dir)
        if not self.re_execute:
            return recorded
        return RecordedFirst(recorded, *live_provider(spec, cache_dir, identity))

    def run_keys(self, row: str) -> dict[str, str]:
        """question → the key of its recorded pull run, for the row named ``row``."""
        for recorded_row in self.recorded.get("rows", []):
            if recorded_row.get("name") == row:
                return dict((recorded_row.get("stats") or {}).get("run_keys") or {})
        return {}

    def note_lines(self) -> list[str]:
        """What the table says about this replay: that it is stale, when the fingerprint changed; and the
        lines of the re-execution that made the run, if one did (a re-execution writes its own lines)."""
        if self.re_execute:
            return []
        carried = list((self.recorded.get(REEXECUTED_KEY) or {}).get("lines") or [])
        if not self.changes:
            return carried
        return [
            *carried,
            (
                "STALE REPLAY (--allow-stale): pull runs were recorded by other code or another store index; "
                f"changed since: {', '.join(self.changes)}"
            ),
        ]


def load(
    run_dir: Path,
    current: Fingerprint,
    *,
    allow_stale: bool,
    shown: dict[str, str] | None = None,
    re_execute: bool = False,
) -> Replay:
    """The replay of ``run_dir`` under the code running now; refuses a changed fingerprint unless
    ``allow_stale`` or ``re_execute`` (which checks the code by running it, not by its hash).

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
    if changes and not (allow_stale or re_execute):
        named = ", ".join(changes[:8]) + (f" and {len(changes) - 8} more" if len(changes) > 8 else "")
        raise ReplayRefused(
            f"replay refused: the code or store changed since {run_dir} was made: {named}",
            "re-make the run, or pass --allow-stale to replay the old pull runs anyway (the table says so)",
        )
    return Replay(run_dir, recorded, behaviour, changes, re_execute)


_SHOWN = {"index": "the index text", "instructions": "the instructions", "tools": "the tool schemas"}


def _shown_changes(recorded: dict[str, str], now: dict[str, str]) -> list[str]:
    """One phrase per thing shown to the model whose hash differs (a run that recorded none is not checked)."""
    return [
        f"{_SHOWN.get(name, name)} shown to the model"
        for name in sorted(set(recorded) & set(now))
        if recorded[name] != now[name]
    ]


def copy_caches(run_dir: Path, out_dir: Path, *, pull_runs: bool = True) -> None:
    """Copy the run's caches into ``out_dir`` (never replay into the recorded folder itself); without
    ``pull_runs`` (a re-execution) the recorded pull runs stay behind."""
    if out_dir.resolve() == run_dir.resolve():
        raise ReplayRefused("a replay must write elsewhere than the run it replays", "pass --out another folder")
    skip = None if pull_runs else shutil.ignore_patterns(PULL_RUNS.name)
    for name in CACHE_FOLDERS:
        source = run_dir / name
        if source.is_dir():
            shutil.copytree(source, out_dir / name, dirs_exist_ok=True, ignore=skip)


def recorded_timing(recorded: dict[str, Any]) -> Callable[[str, str], float | None]:
    """``(row name, question id) -> ms`` as the run recorded it: timings are measurements, not replayable."""
    by_row = {row["name"]: {q["qid"]: q.get("ms", 0.0) for q in row.get("questions", [])} for row in recorded["rows"]}
    return lambda row, qid: by_row.get(row, {}).get(qid)


def compare_tables(run_dir: Path, written: Path, *, ignore: Sequence[str] = ()) -> str | None:
    """None when ``written`` equals the recorded ``table.txt`` byte for byte, else the first differing line.

    Lines in ``ignore`` (a re-execution's notes, the recorded and the new) are left out of both first.
    """
    recorded = (run_dir / "table.txt").read_bytes() if (run_dir / "table.txt").exists() else b""
    new = written.read_bytes()
    if ignore:
        dropped = set(ignore)
        recorded, new = (
            b"".join(
                line for line in text.splitlines(keepends=True) if line.decode("utf-8").rstrip("\n") not in dropped
            )
            for text in (recorded, new)
        )
    if recorded == new:
        return None
    old_lines, new_lines = recorded.decode("utf-8").splitlines(), new.decode("utf-8").splitlines()
    for number, (was, now) in enumerate(zip(old_lines, new_lines), 1):
        if was != now:
            return f"line {number}: recorded {was.strip()!r}, replayed {now.strip()!r}"
    return f"recorded {len(old_lines)} lines, replayed {len(new_lines)}"


def outcome(meta: dict[str, Any], table: Path, run_dir: Path) -> str:
    """One line on how a replay ended: stale, reproduced, or, for a re-execution, what ran again and
    whether the table is the recorded one (its notes on re-executions aside)."""
    executed = meta.get(REEXECUTED_KEY)
    if executed is None:
        stale = (meta.get("replay") or {}).get("stale")
        return "STALE (--allow-stale), not compared" if stale else "table.txt reproduced byte for byte"
    earlier = (_recorded_results(run_dir).get(REEXECUTED_KEY) or {}).get("lines") or []
    difference = compare_tables(run_dir, table, ignore=[*executed["lines"], *earlier])
    counts = f"{len(executed['reproduced'])} questions reproduced, {len(executed['run_again'])} run again by the model"
    same = (
        "the table is the recorded one but for its note" if difference is None else f"the table differs ({difference})"
    )
    return f"re-executed: {counts}; {same}"


def _recorded_results(run_dir: Path) -> dict[str, Any]:
    try:
        return dict(json.loads((run_dir / "results.json").read_text(encoding="utf-8")))
    except (OSError, ValueError):
        return {}
