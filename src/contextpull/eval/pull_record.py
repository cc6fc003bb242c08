"""What one pull run did, how the three ways of counting read it, and where it is kept.

Both pull drivers (the API tool loop and Claude Code headless) reduce a
question's run to a :class:`PullRun`, so the rows, the stats and the judge see
the same fields whichever agent did the pulling. A run is stored on disk
whole, so a replay reproduces the row without calling any model.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import ContextPullError
from ..tools.schemas import TOOLS

#: how a run's tool calls become a ranked list of ids (docs/adr/008-pull-rows.md)
CountMode = Literal["read", "surfaced", "strict"]
COUNT_MODES: tuple[CountMode, ...] = ("read", "surfaced", "strict")
#: the ContextPull tools; a run that called none of them measured no pulling
TOOL_NAMES: tuple[str, ...] = tuple(tool["name"] for tool in TOOLS)


class PullRunFailed(ContextPullError):
    """A pull run counts as a miss: the model API failed, the turn limit hit, or no tool was used."""

    code = "pull_run_failed"
    exit_code = 2


@dataclass(frozen=True)
class ToolUse:
    """One tool call as the agent made it, and whether the tool refused it."""

    name: str
    arguments: dict[str, Any]
    is_error: bool = False


@dataclass
class PullRun:
    """Everything recorded for one question.

    ``read_ids`` are the ids the agent successfully called ``read`` on, in call
    order (repeats kept, so the record is faithful); ``seen_ids`` are the ids
    that ``search`` and ``grep`` results showed, in the order they appeared.
    ``read_sections`` and ``snippets`` are the evidence the agent was shown, as
    ``(id, text)`` pairs, so an answer can be judged against what was read and,
    separately, against what was merely glimpsed. ``agent_version`` is the
    release of the agent program that ran (Claude Code), empty for the API
    loop; ``loader_calls`` counts that program's calls to load deferred tools,
    which are bookkeeping and never among ``tool_calls``. ``failure`` is the
    message of a run the agent could not finish (the model API failed); such a
    run is recorded too, so every row counting it sees the same miss.
    """

    question: str
    model: str
    answer: str = ""
    read_ids: list[str] = field(default_factory=list)
    seen_ids: list[str] = field(default_factory=list)
    read_sections: list[tuple[str, str]] = field(default_factory=list)
    snippets: list[tuple[str, str]] = field(default_factory=list)
    tool_calls: list[ToolUse] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    usd: float | None = None
    turns: int = 0
    wall_s: float = 0.0
    max_turns_hit: bool = False
    agent_version: str = ""
    loader_calls: int = 0
    failure: str = ""
    #: what to do about ``failure`` (the suggestion of the error that ended the run)
    failure_suggestion: str = ""

    @property
    def no_tool_call(self) -> bool:
        """No call of a ContextPull tool (a Claude Code run may call others; they do not count)."""
        return not any(call.name in TOOL_NAMES for call in self.tool_calls)

    @property
    def error(self) -> str | None:
        """Why the run is a miss that is never judged, or None when it is an ordinary run.

        The one rule for both drivers (docs/adr/008-pull-rows.md): a run whose
        model call failed, that hit the turn limit before answering, or that
        answered without calling any ContextPull tool measured no pulling, so
        it is scored as an error (the table's ``err`` column), not as an answer.
        """
        if self.failure:
            return self.failure
        if self.max_turns_hit:
            return f"turn limit reached after {self.turns} turns without an answer"
        if self.no_tool_call:
            loaded = f" (it loaded deferred tools {self.loader_calls} times)" if self.loader_calls else ""
            return f"answered without calling any ContextPull tool{loaded}"
        return None

    @property
    def answered_without_reading(self) -> bool:
        return self.error is None and not self.read_ids

    @property
    def refused_calls(self) -> int:
        return sum(call.is_error for call in self.tool_calls)

    @property
    def refused_reads(self) -> int:
        return sum(call.is_error and call.name == "read" for call in self.tool_calls)

    def ranked(self, mode: CountMode, k: int) -> list[str]:
        """The ids this run counts as retrieved under ``mode``, best first, at most ``k``.

        ``read`` and ``strict`` count only sections actually read; ``surfaced``
        adds, after them, every id a search or grep result put in front of the
        agent. An id seen only in a search result never counts as read.
        """
        ids = self.read_ids if mode != "surfaced" else [*self.read_ids, *self.seen_ids]
        return unique(ids)[:k]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PullRun:
        calls = [ToolUse(**call) for call in data.get("tool_calls", [])]
        pairs = {name: [tuple(pair) for pair in data.get(name, [])] for name in ("read_sections", "snippets")}
        return cls(**{**data, **pairs, "tool_calls": calls})


def unique(ids: Iterable[str]) -> list[str]:
    """``ids`` in first-seen order without repeats."""
    return list(dict.fromkeys(ids))


def summarise(runs: Sequence[PullRun], *, model: str) -> dict[str, Any]:
    """The ``stats()`` of a pull row: spend, tool use and the discipline flags.

    Every run counts, failed ones included: ``run_errors`` is how many runs
    the table scores as errors (``failed`` model calls, ``max_turns_hit``,
    ``no_tool_call``). ``reads_per_query`` counts successful reads only, with
    the refused ones beside it (``refused_reads_per_query``); ``refused_calls``
    counts every tool call a tool refused. ``usd`` is ``None`` unless some run
    had a known price.
    """
    by_tool = Counter(call.name for run in runs for call in run.tool_calls)
    prices = [run.usd for run in runs if run.usd is not None]
    queries = len(runs)

    def per_query(total: int) -> float:
        return round(total / queries, 3) if queries else 0.0

    return {
        "model": model,
        "queries": queries,
        "tokens_in": sum(run.tokens_in for run in runs),
        "tokens_out": sum(run.tokens_out for run in runs),
        "tool_calls": sum(by_tool.values()),
        "by_tool": dict(sorted(by_tool.items())),
        "turns": sum(run.turns for run in runs),
        "reads_per_query": per_query(sum(len(run.read_ids) for run in runs)),
        "refused_reads_per_query": per_query(sum(run.refused_reads for run in runs)),
        "answered_without_reading": sum(run.answered_without_reading for run in runs),
        "no_tool_call": sum(run.no_tool_call and not run.failure for run in runs),
        "max_turns_hit": sum(run.max_turns_hit for run in runs),
        "failed": sum(bool(run.failure) for run in runs),
        "run_errors": sum(run.error is not None for run in runs),
        "refused_calls": sum(run.refused_calls for run in runs),
        "wall_s": round(sum(run.wall_s for run in runs), 3),
        "usd": round(sum(prices), 6) if prices else None,
    }


def cache_key(**parts: Any) -> str:
    """A stable hash of everything that can change a run's outcome."""
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def text_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class RunCache:
    """Recorded runs on disk, one JSON file per key, failed runs included.

    Writes go to a temporary file that is renamed into place, so a crash or a
    concurrent writer never leaves a half-written entry that a replay would trust.
    """

    def __init__(self, directory: Path | str | None) -> None:
        self.directory = Path(directory) if directory is not None else None

    def get(self, key: str) -> PullRun | None:
        if self.directory is None:
            return None
        path = self.directory / f"{key}.json"
        try:
            return PullRun.from_json(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            return None

    def put(self, key: str, run: PullRun) -> None:
        if self.directory is None:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(run.to_json(), out, ensure_ascii=False)
        os.replace(tmp, self.directory / f"{key}.json")


def observe(run: PullRun, name: str, arguments: dict[str, Any], payload: Any, is_error: bool) -> None:
    """Add one tool call and what its result showed to ``run``.

    Only the id ``read`` was asked for counts as read (context sections shown
    around it are evidence, not reads); ``search`` and ``grep`` hits and the
    sections ``neighbours`` returned count as seen. A refused call (unknown id,
    bad pattern) adds nothing but the call itself.
    """
    run.tool_calls.append(ToolUse(name, dict(arguments), is_error))
    if is_error:
        return
    if name == "read":
        # The id asked for counts even when the result does not parse (a large
        # result truncated or redirected to a file by the host): the model read it.
        read_id = payload.get("id") if isinstance(payload, dict) else None
        run.read_ids.append(str(read_id or arguments.get("id", "")))
        if isinstance(payload, dict):
            views = [payload, *payload.get("before", []), *payload.get("after", [])]
            run.read_sections.extend((view["id"], view["text"]) for view in views if "text" in view)
        return
    if not isinstance(payload, dict):
        return
    if name == "search":
        for hit in payload.get("hits", []):
            run.seen_ids.append(hit["id"])
            if hit.get("snippet"):
                run.snippets.append((hit["id"], hit["snippet"]))
    elif name == "grep":
        for match in payload.get("matches", []):
            run.seen_ids.append(match["id"])
            run.snippets.append((match["id"], match.get("line", "")))
    elif name == "neighbours":
        header = payload.get("table_header_section")
        views = [*payload.get("before", []), *payload.get("after", []), *([header] if header else [])]
        for view in views:
            run.seen_ids.append(view["id"])
            run.snippets.append((view["id"], view.get("text", "")))
