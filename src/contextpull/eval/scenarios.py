"""Live scenarios: multi-section tasks an agent must pull for, each with pass criteria.

The bench scores one question against one gold list. A scenario is a task
whose answer needs several sections, read in the right order: two versions
of a policy, every member of a code family, a row behind a split table, the
next step of a procedure, a spreadsheet cell, a fact that leads to another.
It passes when the agent read every section it must (an entry that is a
list passes with any one of its ids) and its answer holds every string it
must (case-insensitive). The scripted policy writes no answer, so for it the
strings are looked for in what it read.

A corpus's scenarios live in ``DIR/.contextpull-scenarios.json`` (hidden, so
never ingested) or any file given with ``--file``.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import ContextPullError
from .pull_record import PullRun

if TYPE_CHECKING:
    from .pull_retriever import PullRetriever
    from .scripted import ScriptedPull

SCENARIO_FILE = ".contextpull-scenarios.json"


class ScenarioError(ContextPullError):
    """The scenario file is missing or malformed, or the agent cannot run here."""

    code = "scenario_error"


@dataclass(frozen=True)
class Scenario:
    name: str
    task: str
    #: each entry an id, or a list of ids any one of which will do
    must_read: tuple[tuple[str, ...], ...]
    answer_contains: tuple[str, ...] = ()

    @classmethod
    def from_json(cls, data: Any, where: str) -> Scenario:
        if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not isinstance(data.get("task"), str):
            raise ScenarioError(f"{where}: a scenario needs a name and a task (strings)", "see examples/corpus")
        must = data.get("must_read", [])
        contains = data.get("answer_contains", [])
        if not isinstance(must, list) or not isinstance(contains, list) or not (must or contains):
            raise ScenarioError(
                f"{where}: scenario {data['name']!r} needs must_read and/or answer_contains lists",
                "list the section ids that must be read and the strings the answer must contain",
            )
        entries = tuple(tuple(entry) if isinstance(entry, list) else (str(entry),) for entry in must)
        return cls(data["name"], data["task"], entries, tuple(str(text) for text in contains))


@dataclass
class Outcome:
    """One scenario played by one agent."""

    scenario: str
    agent: str
    passed: bool
    missing_reads: list[str] = field(default_factory=list)
    missing_strings: list[str] = field(default_factory=list)
    reads: int = 0
    tool_calls: int = 0
    turns: int = 0
    tokens: int = 0
    seconds: float = 0.0
    error: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def load(path: Path) -> list[Scenario]:
    """The scenarios of ``path``; raises :class:`ScenarioError` with the reason."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ScenarioError(
            f"cannot read scenarios {path} ({err.strerror or err})",
            f"write {SCENARIO_FILE} in the corpus folder, or pass --file",
        ) from None
    except ValueError as err:
        raise ScenarioError(f"{path} is not valid JSON ({err})", "fix the file") from None
    items = data.get("scenarios") if isinstance(data, dict) else None
    if not isinstance(items, list) or not items:
        raise ScenarioError(f"{path} has no scenarios list", 'write {"scenarios": [{"name", "task", ...}]}')
    return [Scenario.from_json(item, f"{path} scenario {number}") for number, item in enumerate(items, 1)]


def judge(scenario: Scenario, run: PullRun, agent: str, *, writes_answers: bool) -> Outcome:
    """Score one run against ``scenario``'s criteria."""
    read = set(run.read_ids)
    missing_reads = [" or ".join(entry) for entry in scenario.must_read if not read.intersection(entry)]
    answer = run.answer if writes_answers else "\n".join(text for _, text in run.read_sections)
    folded = answer.casefold()
    missing_strings = [text for text in scenario.answer_contains if text.casefold() not in folded]
    error = run.error or ""
    return Outcome(
        scenario=scenario.name,
        agent=agent,
        passed=not (missing_reads or missing_strings or error),
        missing_reads=missing_reads,
        missing_strings=missing_strings,
        reads=len(run.read_ids),
        tool_calls=len(run.tool_calls),
        turns=run.turns,
        tokens=run.tokens_in + run.tokens_out,
        seconds=round(run.wall_s, 2),
        error=error,
    )


class Player:
    """Who plays: ``scripted``, ``claude-code[:model]`` or a model spec (``local:…``, ``anthropic:…``)."""

    def __init__(self, spec: str, store_path: Path, *, k: int = 5, max_turns: int = 8) -> None:
        self.spec = spec
        self.k = k
        self.writes_answers = spec != "scripted"
        self._scripted: ScriptedPull | None = None
        self._driver: PullRetriever | None = None
        if spec == "scripted":
            from .scripted import ScriptedPull

            self._scripted = ScriptedPull(store_path)
            return
        from pushpull.models import NoModelConfigured

        from .pull_record import PullRunFailed
        from .pull_rows import pull_driver

        try:
            self._driver = pull_driver(spec, store_path, k=k, max_turns=max_turns)
        except (NoModelConfigured, PullRunFailed) as err:
            raise ScenarioError(f"agent {spec} cannot run here: {err}", "pick another --agent") from None

    def play(self, scenario: Scenario) -> Outcome:
        started = time.perf_counter()
        if self._scripted is not None:
            run = self._scripted.run(scenario.task, self.k)
        else:
            assert self._driver is not None
            run = self._driver.run(scenario.task)  # no cache folder: always played now
        if not run.wall_s:
            run.wall_s = time.perf_counter() - started
        return judge(scenario, run, self.spec, writes_answers=self.writes_answers)

    def close(self) -> None:
        closer = getattr(self._scripted or self._driver, "close", None)
        if closer is not None:
            closer()


def play_all(scenarios: list[Scenario], agents: list[str], store_path: Path) -> list[Outcome]:
    """Every scenario by every agent, in order."""
    outcomes = []
    for spec in agents:
        player = Player(spec, store_path)
        try:
            outcomes += [player.play(scenario) for scenario in scenarios]
        finally:
            player.close()
    return outcomes
