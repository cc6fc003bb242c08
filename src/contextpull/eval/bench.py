"""``contextpull bench DIR``: one command from a folder to the one table.

Ingest the folder (incremental), export its sections as chunks, build or
reuse the eval set for that exact corpus, run every row, print the table and
write the results under ``DIR/.contextpull/bench/``. Rows are a list of small
builders, each turning the shared :class:`~.context.BenchContext` into named
configurations (or skip reasons), so another kind of row — the pull loops —
is one more builder in :data:`ROW_BUILDERS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pushpull.chunks import Chunk
from pushpull.errors import HarnessError
from pushpull.evalset import EvalSet
from pushpull.models.base import ModelError
from pushpull.pipeline import (
    Rows,
    evalset_for,
    progress_bars,
    push_rows,
    require_model,
    require_push_libraries,
    score,
    spend,
)
from pushpull.provenance import provenance
from pushpull.questions import Question
from pushpull.scoring.runner import RunResult, RunRow

from ..errors import ContextPullError
from ..ingestion.run import IngestOptions, IngestReport, ingest_with
from ..ops.operations import Ops
from ..paths import default_store_path
from . import fingerprint, reexecute, replay
from .context import BenchContext, BenchOptions, RowBuilder
from .pull_rows import leakage_lines, pull_row_builder
from .reexecute import QuestionRerun
from .replay import Replay, ReplayRefused
from .search_adapter import ContextPullSearch


class BenchError(ContextPullError):
    """The harness refused the run (bad options, a model that cannot run, a stale eval set)."""

    code = "bench_error"

    def __init__(self, message: str, suggestion: str = "", exit_code: int = 1) -> None:
        super().__init__(message, suggestion)
        self.exit_code = exit_code


def push_row_builder(ctx: BenchContext) -> Rows:
    """bm25 / dense / hybrid / rerank over the exported chunks (pushpull's push configs)."""
    reranker = ctx.options.reranker
    provider = None
    if ctx.replay is not None and reranker and reranker.startswith("llm:"):
        # a replay answers the reranker's calls from the run's cache, as it does the pull rows'
        provider = ctx.replay.provider(reranker.removeprefix("llm:"), ctx.cache_dir / "push")
    return push_rows(
        ctx.chunks,
        ctx.options.push,
        ctx.cache_dir,
        embedder=ctx.options.embedder,
        reranker=reranker,
        reranker_provider=provider,
    )


def search_row_builder(ctx: BenchContext) -> Rows:
    """ContextPull ``search`` taken once, top k: the no-model baseline of the pull side."""
    return Rows([RunRow(ContextPullSearch.name, ContextPullSearch(ctx.store_path))])


ROW_BUILDERS: tuple[RowBuilder, ...] = (push_row_builder, search_row_builder, pull_row_builder)


@dataclass
class BenchResult:
    run: RunResult
    ingest: IngestReport
    evalset: EvalSet
    paths: dict[str, Path]
    spend_line: str
    spend: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from pushpull.scoring.report import results_json

        return {
            **results_json(self.run, self.spend),
            "ingest": self.ingest.to_dict(),
            "outputs": {name: str(path) for name, path in self.paths.items()},
            "spend_line": self.spend_line,
        }


def export_chunks(store_path: Path) -> list[Chunk]:
    """The store's sections as harness chunks (what ``export-chunks`` writes)."""
    with Ops.open(store_path) as ops:
        return [Chunk(c["id"], c["text"], c["source"]) for c in ops.chunks()]


def _ingest(corpus: Path, store: Path | None) -> IngestReport:
    with progress_bars() as progress:
        task = progress.add_task("ingesting", total=None)
        follow = IngestOptions(progress=lambda done, total: progress.update(task, completed=done, total=total))
        return ingest_with(corpus, store, follow)


def run_bench(options: BenchOptions, row_builders: Sequence[RowBuilder] = ROW_BUILDERS) -> BenchResult:
    """Ingest, export, build or reuse the eval set, run every row, write the outputs.

    Raises the ContextPull error family: ingest and store errors as they are,
    harness and model refusals as :class:`BenchError`.
    """
    with harness_errors():
        return _run(options, row_builders)


@contextmanager
def harness_errors() -> Iterator[None]:
    """Raise the harness's refusals as :class:`BenchError`, so every surface shows one error family."""
    try:
        yield
    except HarnessError as err:
        raise BenchError(err.message, err.suggestion, err.exit_code) from err
    except ModelError as err:
        raise BenchError(str(err), "pass --model none to run the computed shapes only") from err


def _run(options: BenchOptions, row_builders: Sequence[RowBuilder]) -> BenchResult:
    if options.push != [] and push_row_builder in row_builders:
        require_push_libraries()
    out_dir = options.out_dir
    started = provenance(exclude=[out_dir])
    report = _ingest(options.corpus, options.store)
    store_path = Path(report.store) if report.store else options.store or default_store_path(options.corpus)
    behaviour, shown = fingerprint.of_store(store_path)
    if options.re_execute and options.replay is None:
        raise BenchError("--re-execute goes with --replay RUN_DIR", "name the recorded run to execute again")
    recorded = (
        replay.load(
            options.replay, behaviour, allow_stale=options.allow_stale, shown=shown, re_execute=options.re_execute
        )
        if options.replay
        else None
    )
    if recorded is not None:
        options = options.replaying(recorded.options)
        replay.copy_caches(recorded.run_dir, out_dir, pull_runs=not recorded.re_execute)
    chunks = export_chunks(store_path)
    identities: dict[str, dict[str, Any]] = {}
    provider = _open_model(options.model, out_dir, recorded, identities)
    judge = provider if options.judge is None else _open_model(options.judge, out_dir, recorded, identities)
    evalset = evalset_for(chunks, out_dir, shapes=options.shapes, provider=provider, n=options.n, seed=options.seed)
    if not evalset.questions:
        reasons = "; ".join(f"{s}: {why}" for s, why in evalset.skipped.items())
        raise HarnessError(
            f"the corpus supports no eval questions ({reasons})",
            "add a model (--model) or documents with tables or identifier families",
        )
    ctx = BenchContext(options, store_path, chunks, provider, out_dir, recorded, identities)
    rows = Rows()
    for build in row_builders:
        rows.extend(build(ctx))
    meta: dict[str, Any] = {
        "provenance": started,
        "options": options.recorded(),
        "behaviour": behaviour.to_dict(),
        "shown": shown,
        "models": identities,
    }
    if recorded is not None:
        meta["replay"] = {"of": str(recorded.run_dir), "stale": [] if recorded.re_execute else recorded.changes}
    try:
        result, paths = score(
            chunks,
            evalset,
            rows,
            out_dir,
            k=options.k,
            sample=options.sample,
            seed=options.seed,
            judge=judge,
            meta=meta,
            finish=lambda run: _finish(run, recorded, rows, evalset.questions),
        )
    finally:
        for row in rows.rows:
            close = getattr(row.adapter, "close", None)
            if callable(close):
                close()
    if recorded is not None and recorded.re_execute:
        _check_reexecution(rows)
    elif recorded is not None:
        _check_replay(recorded, rows, paths["table"])
    line, figures = spend()
    return BenchResult(result, report, evalset, paths, line, figures)


def _open_model(
    spec: str | None, out_dir: Path, recorded: Replay | None, identities: dict[str, dict[str, Any]]
) -> Any | None:
    """The provider for ``spec`` (the recorded one in a replay), noting its identity for results.json."""
    if spec in (None, "", "none"):
        return None
    provider = recorded.provider(spec, out_dir / "models") if recorded else require_model(spec, out_dir)
    if provider is not None:
        identities[provider.spec] = provider.identity()
    return provider


def _finish(run: RunResult, recorded: Replay | None, rows: Rows, questions: Sequence[Question]) -> None:
    """Before the files are written: the timings (recorded ones in a replay, the agent's own for pull
    rows otherwise, not the time taken to fetch a run from the cache), and the notes under the table."""
    agent = _agent_timing(rows, questions)
    if recorded is None:
        _retime(run, agent)
    else:
        as_recorded = replay.recorded_timing(recorded.recorded)
        again = {(row.name, q.id) for row in rows.rows for q in questions if q.q in _run_again(row.adapter)}
        _retime(run, lambda row, qid: agent(row, qid) if (row, qid) in again else as_recorded(row, qid))
    notes = recorded.note_lines() if recorded else []
    if recorded is not None and recorded.re_execute:
        notes = reexecute.summary_lines(recorded, _reruns(rows))
        run.meta[replay.REEXECUTED_KEY] = {
            "of": str(recorded.run_dir),
            "made_at": reexecute.made_at(recorded.recorded),
            "changes": recorded.changes,
            "reproduced": sorted({q for rerun in _reruns(rows) for q in rerun.reproduced}),
            "run_again": sorted({q for rerun in _reruns(rows) for q in rerun.run_again}),
            "lines": notes,
        }
    run.notes = [*leakage_lines(run), *driver_lines(rows), *notes]


def _reruns(rows: Rows) -> list[QuestionRerun]:
    """The re-execution state of each pull driver among ``rows`` (siblings share one), in row order."""
    found: list[QuestionRerun] = []
    for row in rows.rows:
        rerun = getattr(row.adapter, "rerun", None)
        if isinstance(rerun, QuestionRerun) and all(rerun is not seen for seen in found):
            found.append(rerun)
    return found


def _run_again(adapter: Any) -> set[str]:
    """The questions a re-executed pull adapter ran again with the model (timed anew); none otherwise."""
    rerun = getattr(adapter, "rerun", None)
    return rerun.run_again if isinstance(rerun, QuestionRerun) else set()


def driver_lines(rows: Rows) -> list[str]:
    """One line per pull driver that warned (an older Claude Code) or stopped after identical failures."""
    lines: list[str] = []
    for row in rows.rows:
        adapter = row.adapter
        name = getattr(adapter, "model", "pull")
        said = [getattr(adapter, "warning", "")]
        reason = getattr(adapter, "stopped", None)
        if reason:
            fix = getattr(adapter, "stop_suggestion", "")
            said.append(f"stopped, {reason}" + (f" — {fix}" if fix else ""))
        for line in (f"{name}: {text}" for text in said if text):
            if line not in lines:  # siblings share one driver's runs
                lines.append(line)
    return lines


def _agent_timing(rows: Rows, questions: Sequence[Question]) -> Callable[[str, str], float | None]:
    """``(row name, question id) -> ms`` the agent took, for rows whose adapter knows it (pull rows)."""
    text_of = {question.id: question.q for question in questions}
    agent_ms = {row.name: getattr(row.adapter, "agent_ms", None) for row in rows.rows}

    def timing(row: str, qid: str) -> float | None:
        of_row = agent_ms.get(row)
        return of_row(text_of.get(qid, "")) if callable(of_row) else None

    return timing


def _retime(run: RunResult, timing: Callable[[str, str], float | None]) -> None:
    """Set each question's ``ms`` to ``timing``'s where it gives one, and summarise the rows again."""
    for row in run.rows:
        for result in row.results:
            ms = timing(row.name, result.qid)
            if ms is not None:
                result.ms = ms
        row.summarize()


def _check_reexecution(rows: Rows) -> None:
    """Refuse a re-execution in which a pull run could not be reproduced (no model here to run it again)."""
    missing = sorted({q for rerun in _reruns(rows) for q in rerun.not_reproduced})
    if missing:
        raise ReplayRefused(
            f"re-execution incomplete: today's code asks the model something new on {len(missing)} questions"
            f" (first: {missing[0]!r})",
            "install the recorded model (pushpull models install-local --with-runtime) so they can run again",
        )


def _check_replay(recorded: Replay, rows: Rows, table: Path) -> None:
    """Refuse a replay that needed an unrecorded run, or whose table is not the recorded one.

    A stale replay (--allow-stale) is not compared: its table says it is stale.
    """
    missing = sorted({q for row in rows.rows for q in getattr(row.adapter, "unrecorded", [])})
    if missing:
        raise ReplayRefused(
            f"replay incomplete: {len(missing)} questions have no recorded pull run (first: {missing[0]!r})",
            "re-make the run; its pull_runs folder does not match these questions",
        )
    difference = None if recorded.stale else replay.compare_tables(recorded.run_dir, table)
    if difference is not None:
        raise ReplayRefused(
            f"replayed table differs from {recorded.run_dir / 'table.txt'}: {difference}",
            f"compare it with {table}",
        )
