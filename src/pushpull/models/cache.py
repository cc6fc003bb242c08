"""A disk cache of model answers, so a rerun of the eval costs nothing.

The key is a SHA-256 over everything that changes an answer: the provider's
identity (name, model, endpoint, its own sampling settings), the system
prompt, the messages, the tools, the JSON schema, ``max_tokens``,
``temperature`` and CACHE_VERSION (bumped when the stored format or a
provider's prompt shaping changes). Successful answers are stored, and the
failures that are the model's own answer (:attr:`ModelError.recorded`: a reply
cut off or not what its grammar asked for, a prompt beyond the context
window), so a replay fails where the run failed; a failed request or network
error is never stored.

Storage is one SQLite file in WAL mode with one connection per thread, so the
runner's worker threads can read and write it at the same time.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from .base import RECORDED_FAILURES, Completion, Message, ModelError, ReplyCutOff, ToolCall, Usage

CACHE_VERSION = 1
CACHE_FILE = "completions.sqlite3"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS completions (
    key TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    value TEXT NOT NULL,
    created REAL NOT NULL
)
"""


def request_key(
    identity: dict[str, Any],
    messages: list[Message],
    *,
    system: str,
    tools: list[dict[str, Any]] | None,
    json_schema: dict[str, Any] | None,
    max_tokens: int,
    temperature: float,
) -> str:
    """The cache key of one call: stable across processes and dict orderings."""
    payload = {
        "cache_version": CACHE_VERSION,
        "provider": identity,
        "system": system,
        "messages": [asdict(message) for message in messages],
        "tools": tools,
        "json_schema": json_schema,
        "max_tokens": max_tokens,
        "temperature": temperature,
    }
    canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _encode(completion: Completion) -> str:
    value = asdict(completion)
    value.pop("cached")
    return json.dumps(value, ensure_ascii=False)


def _decode(text: str) -> Completion | ModelError | None:
    """A stored answer or recorded failure; ``None`` for a failure this code would not record as it is.

    A reply cut off at ``max_tokens`` recorded without its length dates from
    before a full context window was told apart from it (both stop with
    ``length``): replayed as a cut-off it would make the run fail where this
    code rolls back and answers, so the call counts as not recorded.
    """
    value = json.loads(text)
    if "failure" in value:
        failure = value["failure"]
        kind = RECORDED_FAILURES.get(failure["kind"], ModelError)
        if kind is ReplyCutOff:
            if "tokens_out" not in failure:
                return None
            return ReplyCutOff(failure["message"], failure["tokens_out"])
        return kind(failure["message"])
    return Completion(
        text=value["text"],
        tool_calls=tuple(ToolCall(**call) for call in value["tool_calls"]),
        usage=Usage(**value["usage"]),
        stop_reason=value["stop_reason"],
        cached=True,
    )


class CompletionCache:
    """Answers by request key in ``<cache_dir>/completions.sqlite3``; safe across threads."""

    def __init__(self, cache_dir: Path) -> None:
        self.path = Path(cache_dir) / CACHE_FILE
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()
        self._connect()  # create the file and table now, so a bad path fails early

    def _connect(self) -> sqlite3.Connection:
        connection: sqlite3.Connection | None = getattr(self._local, "connection", None)
        if connection is None:
            connection = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            connection.execute(_SCHEMA)
            self._local.connection = connection
        return connection

    def get(self, key: str) -> Completion | ModelError | None:
        """The stored answer with ``cached=True``, the recorded failure (to raise), or None (see :func:`_decode`)."""
        row = self._connect().execute("SELECT value FROM completions WHERE key = ?", (key,)).fetchone()
        return _decode(row[0]) if row else None

    def put(self, key: str, spec: str, completion: Completion) -> None:
        self._connect().execute(
            "INSERT OR REPLACE INTO completions (key, spec, value, created) VALUES (?, ?, ?, ?)",
            (key, spec, _encode(completion), time.time()),
        )

    def put_failure(self, key: str, spec: str, failure: ModelError) -> None:
        """Store a failure that is the model's own answer (``failure.recorded``)."""
        recorded: dict[str, Any] = {"kind": type(failure).__name__, "message": str(failure)}
        if isinstance(failure, ReplyCutOff):
            recorded["tokens_out"] = failure.tokens_out
        value = json.dumps({"failure": recorded}, ensure_ascii=False)
        self._connect().execute(
            "INSERT OR REPLACE INTO completions (key, spec, value, created) VALUES (?, ?, ?, ?)",
            (key, spec, value, time.time()),
        )

    def __len__(self) -> int:
        return int(self._connect().execute("SELECT COUNT(*) FROM completions").fetchone()[0])
