"""The pull tool loop over a model API: a model, the five tools, the store, no server process.

Each question runs the loop a tool-using agent runs: the model is given the
MCP server's own instructions (pull discipline plus index, from
:func:`~contextpull.tools.instructions.store_instructions`) and :data:`TOOLS`; its
tool calls are served by :func:`~contextpull.tools.call_json`, the same
dispatcher the MCP server uses, and refused calls go back to the model as
tool errors; the loop stops when the model answers or after ``max_turns``
model calls. The run is reduced to a :class:`PullRun` and counted as ids
read, ids surfaced or strict reads (docs/adr/008-pull-rows.md).

Guarantees: each worker thread serves tool calls from its own read-only
store connection, inside one read transaction per call; an API failure raises
:class:`PullRunFailed` and leaves nothing cached; a finished run is cached on
disk under a key of everything that can change it (the provider's identity,
endpoint included, and the behaviour fingerprint of the code and store:
:mod:`contextpull.eval.fingerprint`), and a replay makes no model call.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pushpull.models import Ledger, Message, ModelError, Provider, RetryPolicy, Usage, get_provider
from pushpull.models.base import ContextFull, ReplyCutOff

from ..errors import ToolError
from ..ops.operations import Ops
from ..ops.snippets import DEFAULT_SNIPPET
from ..store import Store
from ..tools.instructions import store_instructions
from ..tools.schemas import TOOLS, call_json
from . import fingerprint, reading_loop
from .pull_record import CountMode, PullRun, PullRunFailed, cache_key, observe, text_hash, unique
from .pull_retriever import PullRetriever
from .reading_loop import ReadingState
from .reexecute import QuestionRerun
from .scripted import index_entries, named_documents

MAX_TOKENS = 1024
#: the tool error a model gets for repeating a call it already made in the run
REPEATED_CALL = ToolError(
    "you already made this exact call in this conversation; its result is above and would not change",
    "change the arguments (other words, no `in` filter) or read one of the ids you were shown",
)
STRICT_RULES = (
    "Strict reading rules for this session:\n"
    "- Search snippets and grep lines are pointers, not evidence. Never answer from them.\n"
    "- Before answering, read every section you rely on with the read tool.\n"
    "- Cite only ids of sections you have read, like [guides/install.md#3]; never cite an id you did not read.\n"
    "- If nothing you read answers the question, say so rather than guess."
)
PLAN_NOTED = "Plan noted. Search each part, read a section found for each, then answer citing the ids you read."


#: the lists of a run that a turn's tool calls add to (what a roll-back truncates)
_OBSERVED = ("read_ids", "seen_ids", "read_sections", "snippets", "tool_calls")


@dataclass(frozen=True)
class _Checkpoint:
    """Where a run stood before a turn's tool calls were served: what a full context rolls back to."""

    messages: int
    observed: dict[str, int]
    made: frozenset[str]
    hits: dict[str, list[tuple[str, str]]]
    sides: list[list[str]] | None
    unshown: list[str] | None

    @classmethod
    def of(cls, run: PullRun, messages: list[Message], made: set[str], state: ReadingState) -> _Checkpoint:
        observed = {name: len(getattr(run, name)) for name in _OBSERVED}
        return cls(len(messages), observed, frozenset(made), dict(state.hits), state.sides, state.unshown)

    def restore(self, run: PullRun, messages: list[Message], made: set[str], state: ReadingState) -> None:
        del messages[self.messages :]
        for name, length in self.observed.items():
            del getattr(run, name)[length:]
        made.intersection_update(self.made)
        state.hits = dict(self.hits)
        state.sides, state.unshown = self.sides, self.unshown


class ApiLoopRetriever(PullRetriever):
    """Pull retrieval by a model driving the five tools through the model layer.

    ``mode`` is ``read`` (ids the model read), ``surfaced`` (ids read, then ids
    that search and grep showed) or ``strict`` (ids read under the strict
    reading rules). A ``local:`` model runs under the reading grammar
    (:mod:`.reading_loop`: plan, search each part, read for each, cite what
    it read) in every mode. ``snippet`` is
    the search snippet width the tools default to (0: headings only).
    ``provider`` replaces ``get_provider(model_spec)`` for a caller that has one.
    """

    def __init__(
        self,
        store_path: str | Path,
        model_spec: str,
        *,
        k: int = 5,
        mode: CountMode = "read",
        max_turns: int = 8,
        snippet: int = DEFAULT_SNIPPET,
        concurrency: int = 1,
        cache_dir: str | Path | None = None,
        ledger: Ledger | None = None,
        retry: RetryPolicy | None = None,
        provider: Provider | None = None,
    ) -> None:
        super().__init__(
            k=k, mode=mode, cache_dir=Path(cache_dir) / "pull_runs" if cache_dir else None, concurrency=concurrency
        )
        self.store_path = Path(store_path)
        self.max_turns = max_turns
        self.snippet = snippet
        with Store.open(self.store_path) as store:
            self.fingerprint = store.fingerprint
            index_text = store.index_text
            self.behaviour = fingerprint.current(store.meta(fingerprint.ANALYSIS_META_KEY))
            self.system = store_instructions(store)
        self.index_hash = text_hash(index_text)
        #: ``(path, title)`` of the documents the index lists: what tells the reading grammar a comparison's sides
        self.documents = index_entries(index_text)
        if mode == "strict":
            self.system = f"{self.system}\n{STRICT_RULES}\n"
        self.provider = provider or get_provider(
            model_spec, cache_dir=Path(cache_dir) if cache_dir else None, ledger=ledger, retry=retry
        )
        self.model = self.provider.spec
        self.reading = self.model.startswith("local:")
        if self.reading:
            self.system = f"{self.system}\n{reading_loop.PLAN_PROMPT}\n"
        #: under a re-execution (:mod:`.reexecute`): the recorded answers first, the model for what is new
        self.rerun: QuestionRerun | None = None
        self._local = threading.local()

    # --- the driver ---------------------------------------------------------
    def run_key(self, question: str) -> str:
        return cache_key(
            driver="api-loop",
            model=self.model,
            provider=self.provider.identity(),  # endpoint included: two servers may share a model name
            behaviour=self.behaviour.key,
            strict=self.mode == "strict",
            reading=reading_loop.VERSION if self.reading else 0,
            max_turns=self.max_turns,
            snippet=self.snippet,
            fingerprint=self.fingerprint,
            index=self.index_hash,
            question=question,
        )

    def execute(self, question: str) -> PullRun:
        if self.rerun is not None:
            return self.rerun.execute(question, self._loop)
        return self._loop(question, self.provider)

    def _loop(self, question: str, provider: Provider) -> PullRun:
        """One run of the tool loop on ``question``, the model's turns answered by ``provider``."""
        started = time.perf_counter()
        run = PullRun(question=question, model=self.model)
        messages = [Message("user", question)]
        usage = Usage()
        made: set[str] = set()
        state = ReadingState(question, named_documents(question, self.documents)) if self.reading else None
        #: where the run stood before each turn's calls were served, oldest first
        checkpoints: list[_Checkpoint] = []
        rolled_back = False  # one roll-back a run: a full context after it fails the run
        for turn in range(self.max_turns):
            schema = state.schema(run, last_turn=turn == self.max_turns - 1) if state is not None else None
            try:
                completion = self._complete(provider, messages, schema)
            except PullRunFailed as err:
                if state is None or schema is None:
                    raise
                completion = self._recover(err, provider, messages, schema, (run, made, state), checkpoints)
                rolled_back = rolled_back or isinstance(err.__cause__, ContextFull)
            usage += completion.usage
            run.turns += 1
            if not completion.tool_calls:
                run.answer = self._answer_text(completion.text)
                break
            if rolled_back or state is None:
                checkpoints.clear()
            else:
                checkpoints.append(_Checkpoint.of(run, messages, made, state))
            messages.append(Message("assistant", completion.text, tool_calls=completion.tool_calls))
            for call in completion.tool_calls:
                if state is not None and call.name == reading_loop.PLAN:  # a model turn, not a tool call
                    state.planned(list(call.arguments.get("parts", [])))
                    messages.append(Message("tool", PLAN_NOTED, tool_call_id=call.id))
                    continue
                payload, is_error = self._serve(call.name, call.arguments, made)
                observe(run, call.name, call.arguments, payload, is_error)
                if state is not None and call.name == "search":
                    state.searched(call.arguments, payload, is_error)
                text = json.dumps(payload, ensure_ascii=False)
                messages.append(Message("tool", text, tool_call_id=call.id, is_error=is_error))
        else:
            run.max_turns_hit = True
        run.tokens_in, run.tokens_out, run.usd = usage.tokens_in, usage.tokens_out, usage.usd
        run.wall_s = time.perf_counter() - started
        return run

    def _recover(
        self,
        err: PullRunFailed,
        provider: Provider,
        messages: list[Message],
        schema: dict[str, Any],
        where: tuple[PullRun, set[str], ReadingState],
        checkpoints: list[_Checkpoint],
    ) -> Any:
        """The turn again after a small model's two ways of failing one (or ``err`` raised again).

        A reply cut off at ``max_tokens`` (the model rambled inside its JSON)
        is asked again with every free string bounded. A request beyond the
        context window (a long section read into a small context), or a
        reply that filled what the window had left, rolls the run back to
        before the last turn's calls, as if they were never made (their
        results were never seen, so they are not counted), and asks for the
        answer from what was read by then; when that answer fills the window
        too, one turn more is rolled back, and so on while turns remain. (The
        semconv k8s pair read four long table sections: rolled back one read,
        its answer still filled the window, and the run failed.)
        """
        run, made, state = where
        cause = err.__cause__
        if isinstance(cause, ReplyCutOff):
            return self._complete(provider, messages, reading_loop.bounded(schema))
        while isinstance(cause, ContextFull) and checkpoints:
            checkpoints.pop().restore(run, messages, made, state)
            try:
                return self._complete(provider, messages, state.schema(run, last_turn=True))
            except PullRunFailed as again:
                err, cause = again, again.__cause__
        raise err

    def _serve(self, name: str, arguments: dict[str, Any], made: set[str]) -> tuple[dict[str, Any], bool]:
        """Serve a call, refusing an exact repeat of an earlier one in the same run.

        Small models loop on the same call when its result disappointed them;
        a repeat cannot return anything new, so it costs a turn and says so.
        """
        signature = json.dumps([name, arguments], sort_keys=True, ensure_ascii=False)
        if signature in made:
            return REPEATED_CALL.to_dict(), True
        made.add(signature)
        return self.call_tool(name, arguments)

    def call_tool(self, name: str, arguments: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """Serve one tool call from this thread's own store connection, in one read transaction."""
        ops: Ops | None = getattr(self._local, "ops", None)
        if ops is None:
            ops = self._local.ops = Ops.open(self.store_path, snippet=self.snippet)
        with ops.store.snapshot():
            return call_json(ops, name, arguments)

    # --- one model turn -----------------------------------------------------
    def _complete(self, provider: Provider, messages: list[Message], schema: dict[str, Any] | None) -> Any:
        try:
            return provider.complete(
                messages, system=self.system, tools=TOOLS, json_schema=schema, max_tokens=MAX_TOKENS
            )
        except ModelError as err:
            raise PullRunFailed(f"model call failed: {err}", "check the model spec, key and endpoint") from err

    def _answer_text(self, text: str) -> str:
        """The final answer; under the reading grammar, its text followed by the ids it cites."""
        if not self.reading:
            return text
        reply = json.loads(text)
        return " ".join([reply["text"].strip(), *(f"[{sid}]" for sid in unique(reply["cite"]))])
