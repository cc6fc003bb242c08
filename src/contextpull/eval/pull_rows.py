"""The pull rows of the bench table: one agent, three ways to count what it retrieved.

For a model spec the bench gets ``pull, ids read (<model>)`` and ``pull, ids
surfaced (<model>)``, which count the same run per question, and ``pull,
strict reads (<model>)``, a run of its own under the strict reading rules.
``claude-code[:<model>]`` gets the first two through Claude Code headless.
Beside them, ``pull baseline: read top search hits`` reads what search ranks
first with no model at all, so the table shows what the model adds, and
``--pull scripted`` adds the scripted policy (:mod:`.scripted`): the five
tools driven with no model the way a careful agent would, the reference
for what pulling with them can do. The
distance between the surfaced and the read rows is the snippet leakage:
recall that only counts because a snippet showed an id the agent never read
(docs/adr/008-pull-rows.md).
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pushpull.models import NoModelConfigured, Provider
from pushpull.pipeline import Rows
from pushpull.scoring.runner import RunResult, RunRow

from ..ops.operations import Ops
from ..tools.schemas import call_json
from . import claude_preflight, scripted
from .apiloop import ApiLoopRetriever
from .claudecode import ClaudeCodeRetriever
from .context import BenchContext
from .pull_record import CountMode, PullRunFailed
from .pull_retriever import PullRetriever
from .reexecute import rerun_for
from .replay import Replay

CLAUDE_CODE = "claude-code"
BASELINE_ROW = "pull baseline: read top search hits"
_ROW_NAMES: dict[CountMode, str] = {
    "read": "pull, ids read ({model})",
    "surfaced": "pull, ids surfaced ({model})",
    "strict": "pull, strict reads ({model})",
}


def row_name(mode: CountMode, model: str) -> str:
    return _ROW_NAMES[mode].format(model=model)


def pull_driver(
    spec: str, store_path: Path, mode: CountMode = "read", *, provider: Provider | None = None, **options: Any
) -> PullRetriever:
    """The agent for ``spec``: Claude Code headless for ``claude-code[:model]``, else the API tool loop.

    ``options`` are the drivers' shared keywords (``k``, ``max_turns``,
    ``cache_dir``, ``concurrency``); ``mode`` and ``provider`` apply to the
    API loop only. Raises :class:`NoModelConfigured` or :class:`PullRunFailed`
    when the agent cannot run here.
    """
    kind, _, model = spec.partition(":")
    if kind == CLAUDE_CODE:
        return ClaudeCodeRetriever(store_path, model=model or None, **options)
    return ApiLoopRetriever(store_path, spec, mode=mode, provider=provider, **options)


def pull_rows(
    spec: str,
    store_path: Path,
    *,
    k: int = 5,
    cache_dir: Path | None = None,
    concurrency: int = 1,
    max_turns: int = 8,
    provider: Provider | None = None,
    replay: Replay | None = None,
) -> Rows:
    """The named pull rows for ``spec`` (``provider:model`` or ``claude-code[:model]``).

    A spec that cannot run here (no key, no model file, no runtime) becomes a
    skipped row with the reason, as the push side does. Pull rows are
    ``sampled``: they see the ``--sample`` questions only. Under ``replay``
    the rows answer from the recorded runs only, found by the run keys the
    replayed results.json lists (a stale replay could not recompute them).
    """
    kind = spec.partition(":")[0]
    names = [row_name(mode, spec) for mode in _ROW_NAMES][: 2 if kind == CLAUDE_CODE else None]
    if kind == CLAUDE_CODE and replay is not None:
        return Rows(skipped={name: "replaying Claude Code runs is not supported yet" for name in names})
    if kind == CLAUDE_CODE and shutil.which("claude") is None:
        return Rows(skipped={name: "claude (Claude Code) is not on PATH" for name in names})
    options: dict[str, Any] = {"k": k, "max_turns": max_turns, "cache_dir": cache_dir, "concurrency": concurrency}
    try:
        shared = pull_driver(spec, store_path, provider=provider, **options)
        strict = None if kind == CLAUDE_CODE else pull_driver(spec, store_path, "strict", provider=provider, **options)
        if isinstance(shared, ClaudeCodeRetriever):  # logged in, API reachable, our server connected
            claude_preflight.preflight(shared)
    except (NoModelConfigured, PullRunFailed) as err:  # no key, no model file; a claude that does not run
        return Rows(skipped={name: str(err) for name in names})
    for retriever in (shared, strict):
        if retriever is None or replay is None:
            continue
        name = row_name(retriever.mode, retriever.model)
        if replay.re_execute and isinstance(retriever, ApiLoopRetriever):  # run again, answered from the record
            retriever.rerun = rerun_for(retriever.provider, replay, name)
        else:
            retriever.replay = True
            retriever.recorded_keys = replay.run_keys(name)
    adapters = [shared, shared.counting("surfaced"), *([strict] if strict else [])]
    rows = Rows()
    for adapter in adapters:
        rows.rows.append(RunRow(row_name(adapter.mode, shared.model), adapter, sampled=True))
    return rows


def pull_row_builder(ctx: BenchContext) -> Rows:
    """The bench's pull rows: with any ``--pull`` spec, the no-model baseline, then each spec's rows."""
    if not ctx.options.pull:
        return Rows()
    rows = Rows([RunRow(BASELINE_ROW, ReadTopHits(ctx.store_path))])
    cache_dir = ctx.cache_dir / "pull"
    for spec in ctx.options.pull:
        if spec == scripted.SPEC:  # no model: run by this code, in a replay as in the run
            rows.rows.append(RunRow(scripted.ROW_NAME, scripted.ScriptedPull(ctx.store_path)))
            continue
        kind = spec.partition(":")[0]
        provider = ctx.replay.provider(spec, cache_dir) if ctx.replay and kind != CLAUDE_CODE else None
        found = pull_rows(
            spec, ctx.store_path, k=ctx.options.k, cache_dir=cache_dir, provider=provider, replay=ctx.replay
        )
        for row in found.rows:
            if isinstance(row.adapter, ApiLoopRetriever):
                ctx.identities[row.adapter.model] = row.adapter.provider.identity()
        rows.extend(found)
    return rows


class ReadTopHits:
    """The no-model pull baseline: search the question as asked, read the top ``k`` hits.

    Every id goes through the same ``search`` and ``read`` tools a model
    would call, and counts only when its read succeeded; the ids are then
    what search ranks first, so this row sets the floor the pull rows are
    measured against.
    """

    concurrency = 1

    def __init__(self, store_path: str | Path) -> None:
        self._ops = Ops.open(Path(store_path))
        self._reads = self._queries = 0

    def retrieve(self, query: str, k: int) -> list[str]:
        with self._ops.store.snapshot():
            found, is_error = call_json(self._ops, "search", {"query": query, "limit": k, "snippet": 0})
            if is_error:
                raise PullRunFailed(found["message"], found.get("suggestion", ""))
            read = [hit["id"] for hit in found["hits"] if not call_json(self._ops, "read", {"id": hit["id"]})[1]]
        self._queries += 1
        self._reads += len(read)
        return read

    def stats(self) -> dict[str, Any]:
        queries = self._queries
        return {
            "queries": queries,
            "tool_calls": queries + self._reads,
            "tokens_in": 0,
            "tokens_out": 0,
            "reads_per_query": round(self._reads / queries, 3) if queries else 0.0,
            "model": "none",
        }

    def close(self) -> None:
        self._ops.close()


def snippet_leakage(run: RunResult) -> dict[str, float]:
    """Surfaced recall minus read recall, per pull model run in both ways.

    Positive values are recall a row would claim only because search or grep
    showed an id in a snippet; the read row is the honest figure.
    """
    by_name = {row.name: row for row in run.rows}
    prefix, leakage = "pull, ids read (", {}
    for name, row in by_name.items():
        model = name[len(prefix) : -1] if name.startswith(prefix) else None
        surfaced = by_name.get(row_name("surfaced", model)) if model else None
        if model and surfaced is not None:
            leakage[model] = round(surfaced.overall.recall - row.overall.recall, 3)
    return leakage


def leakage_lines(run: RunResult) -> Sequence[str]:
    """One line per pull model: its snippet leakage, for under the table."""
    return [
        f"snippet leakage ({model}): {value:+.3f} recall@{run.k} (surfaced minus read)"
        for model, value in snippet_leakage(run).items()
    ]
