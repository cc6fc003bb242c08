"""Before the first Claude Code question: is it logged in, can it reach its API, does it connect our server?

A Claude Code that is not logged in, has a wrong key or cannot reach its API
does not fail fast: it retries ten times with backoff (about three minutes)
and then reports the error as the run's answer. Run per question, that is
half an hour of nothing on a 36-question set. So the bench sends one short
probe first, the run command with the question replaced and one turn allowed,
and reads the stream as it arrives:

- the ``init`` event must list the ``contextpull`` server as ``connected``
  (Claude Code's own view of the connection, not just ours);
- an ``api_retry`` caused by authentication, or a third retry of any kind,
  ends the probe at once with the reason Claude Code gave;
- the ``result`` must not be an error ("Not logged in · Please run /login").

The probe costs one short model call per live bench run. It lives outside
:mod:`.claudecode` because it shapes no recorded run: it only decides whether
to make them.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .claudecode import CLAUDE_ENV, SERVER, ClaudeCodeRetriever, stream_events
from .pull_record import PullRunFailed

PROBE = "Reply with the single word: ready. Do not call any tool."
#: seconds the probe may take in all (a first start of Claude Code and of the server included)
PROBE_TIMEOUT_S = 120.0
#: retries of the API call after which the probe gives up (Claude Code itself tries ten times)
RETRIES_ALLOWED = 2
_AUTH_STATUSES = {401, 403}
LOGIN_HINT = "log in to Claude Code (run `claude`, then /login) or set ANTHROPIC_API_KEY, then re-run"


def preflight(driver: ClaudeCodeRetriever) -> None:
    """Raise :class:`PullRunFailed` with one line unless ``driver``'s Claude Code can answer through our server."""
    driver.preflight()  # our side first: the server command starts and serves the five tools
    with tempfile.TemporaryDirectory(prefix="contextpull-preflight-") as scratch:
        config = Path(scratch) / "mcp.json"
        config.write_text(json.dumps(driver.mcp_config()), encoding="utf-8")
        argv = driver.command(PROBE, config)
        argv[argv.index("--max-turns") + 1] = "1"
        try:
            claude = subprocess.Popen(
                argv,
                cwd=scratch,
                env={**os.environ, **CLAUDE_ENV},
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        except OSError as err:
            raise PullRunFailed(f"cannot run {argv[0]!r}: {err}", "install Claude Code or pass its path") from err
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            claude.kill()

        timer = threading.Timer(PROBE_TIMEOUT_S, expire)
        timer.start()
        try:
            assert claude.stdout is not None
            problem = probe_problem(claude.stdout)
        finally:
            timer.cancel()
            claude.kill()
            _, stderr = claude.communicate()
    if problem is _NO_RESULT:
        if expired.is_set():
            problem = (f"no answer within {PROBE_TIMEOUT_S:.0f} s", "run `claude -p hello` by hand to see why")
        else:
            said = stderr.strip().splitlines()[-1:] or ["no output"]
            problem = (f"claude ended without a result: {said[0]}", driver.warning or "run `claude -p hello` by hand")
    if problem is not None:
        raise PullRunFailed(f"Claude Code preflight: {problem[0]}", problem[1])


Problem = tuple[str, str]
#: the stream ended before its ``result`` event (the caller knows why: a timeout, a crash)
_NO_RESULT: Problem = ("", "")


def probe_problem(lines: Iterable[str]) -> Problem | None:
    """What the probe's stream-json says is wrong, as (message, what to do), or None when it answered.

    Stops reading at the first event that settles it, so a retrying Claude
    Code is not waited for.
    """
    for event in stream_events(lines):
        kind, subtype = event.get("type"), event.get("subtype")
        if kind == "system" and subtype == "init":
            problem = _connection_problem(event)
        elif kind == "system" and subtype == "api_retry":
            problem = _retry_problem(event)
        elif kind == "result":  # a model that called a tool anyway hit the one-turn limit: it answered
            if event.get("is_error") or subtype not in ("success", "error_max_turns"):
                return str(event.get("result") or subtype)[:200], f"{LOGIN_HINT}; check the --pull model name"
            return None
        else:
            continue
        if problem is not None:
            return problem
    return _NO_RESULT


def _connection_problem(event: dict[str, Any]) -> Problem | None:
    status = next((s.get("status") for s in event.get("mcp_servers") or [] if s.get("name") == SERVER), None)
    if status == "connected":
        return None
    return (
        f"Claude Code reports the {SERVER} MCP server as {status or 'missing'}",
        "run `contextpull serve <store>` by hand to see why",
    )


def _retry_problem(event: dict[str, Any]) -> Problem | None:
    status, error, attempt = event.get("error_status"), event.get("error"), int(event.get("attempt") or 0)
    if status in _AUTH_STATUSES or error == "authentication_failed":
        return f"the model API refused the credentials (HTTP {status}, {error})", LOGIN_HINT
    if attempt > RETRIES_ALLOWED:
        where = os.environ.get("ANTHROPIC_BASE_URL") or "the Anthropic API"
        return (
            f"the model API did not answer after {attempt} tries (HTTP {status or 'none'}, {error})",
            f"check that {where} is reachable from here (proxy, firewall), then re-run",
        )
    return None
