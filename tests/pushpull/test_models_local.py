"""The local provider's prompt and reply shaping, against a stand-in for ``llama_cpp.Llama``,
and the assembly of the bundled GGUF from its parts."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from pushpull.models import (
    Ledger,
    Message,
    MeteredProvider,
    ModelError,
    NoModelConfigured,
    ToolCall,
    get_provider,
    local_model,
)
from pushpull.models.base import ContextFull, ReplyCutOff
from pushpull.models.cache import CompletionCache
from pushpull.models.local_provider import LocalProvider, action_schema, tool_instructions, turn_schema

SEARCH = {
    "name": "search",
    "description": "Find sections.",
    "input_schema": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]},
}
READ = {
    "name": "read",
    "description": "Read one section.",
    "input_schema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
}


class ScriptedLlama:
    """Answers ``create_chat_completion`` like llama-cpp-python, from a list of reply texts,
    and records each call's keyword arguments. Flags overlapping calls."""

    def __init__(self, replies: list[str], *, finish_reason: str = "stop", delay: float = 0.0) -> None:
        self.replies = list(replies)
        self.finish_reason = finish_reason
        self.delay = delay
        self.calls: list[dict[str, Any]] = []
        self.active = 0
        self.overlapped = False
        self._guard = threading.Lock()

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        with self._guard:
            self.active += 1
            self.overlapped |= self.active > 1
            self.calls.append(kwargs)
            text = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        time.sleep(self.delay)
        with self._guard:
            self.active -= 1
        prompt_tokens = sum(len(m["content"].split()) for m in kwargs["messages"])
        return {
            "id": "chatcmpl-local",
            "object": "chat.completion",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": self.finish_reason}
            ],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text.split()), "total_tokens": 0},
        }


def test_tools_constrain_the_turn_to_one_action_or_the_answer() -> None:
    llm = ScriptedLlama(['{"action": "search", "arguments": {"query": "install"}}'])
    completion = LocalProvider(llm, name="fake").complete(
        [Message("user", "How to install?")], system="Docs helper.", tools=[SEARCH, READ]
    )

    assert completion.tool_calls == (ToolCall("call_1", "search", {"query": "install"}),)
    assert completion.text == "" and completion.stop_reason == "tool_use"
    call = llm.calls[0]
    schema = call["response_format"]["schema"]
    assert call["response_format"]["type"] == "json_object"
    assert [option["properties"]["action"]["const"] for option in schema["oneOf"]] == ["search", "read", "answer"]
    assert all(option["additionalProperties"] is False for option in schema["oneOf"])
    assert schema["oneOf"][0]["properties"]["arguments"]["properties"] == SEARCH["input_schema"]["properties"]
    assert call["repeat_penalty"] == 1.1 and call["temperature"] == 0.0
    system = call["messages"][0]
    assert system["role"] == "system" and system["content"].startswith("Docs helper.")
    assert "- search: Find sections." in system["content"] and '"action": "answer"' in system["content"]


def test_the_answer_action_becomes_text() -> None:
    llm = ScriptedLlama(['{"action": "answer", "answer": "Run uv add."}'])
    completion = LocalProvider(llm, name="fake").complete([Message("user", "q")], tools=[SEARCH])
    assert completion.text == "Run uv add." and completion.tool_calls == () and completion.stop_reason == "end_turn"


def test_tool_results_go_back_into_the_prompt_and_earlier_turns_replay_verbatim() -> None:
    llm = ScriptedLlama(['{"action": "answer", "answer": "done"}'])
    turns = [
        Message("user", "How to install?"),
        Message("assistant", "", tool_calls=(ToolCall("call_1", "search", {"query": "install"}),)),
        Message("tool", "guides/install.md#1 Installing uv", tool_call_id="call_1"),
        Message("assistant", "", tool_calls=(ToolCall("call_2", "read", {"id": "bogus"}),)),
        Message("tool", "unknown id bogus", tool_call_id="call_2", is_error=True),
        Message("user", "Answer now."),
    ]
    LocalProvider(llm, name="fake").complete(turns, tools=[SEARCH, READ])

    chat = llm.calls[0]["messages"]
    assert [m["role"] for m in chat] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert json.loads(chat[2]["content"]) == {"action": "search", "arguments": {"query": "install"}}
    assert chat[3]["content"] == "Result of search (call_1):\nguides/install.md#1 Installing uv"
    assert chat[5]["content"] == "Error from read (call_2):\nunknown id bogus\n\nAnswer now."


def test_call_ids_continue_the_conversation() -> None:
    llm = ScriptedLlama(['{"action": "read", "arguments": {"id": "a#1"}}'])
    turns = [
        Message("user", "q"),
        Message("assistant", "", tool_calls=(ToolCall("call_1", "search", {"query": "x"}),)),
        Message("tool", "a#1", tool_call_id="call_1"),
    ]
    assert LocalProvider(llm, name="fake").complete(turns, tools=[SEARCH, READ]).tool_calls[0].id == "call_2"


def test_a_caller_schema_narrows_the_turn() -> None:
    narrowed = turn_schema([READ], allow_answer=False)
    assert narrowed["properties"]["action"] == {"const": "read"}
    llm = ScriptedLlama(['{"action": "read", "arguments": {"id": "a#1"}}'])
    completion = LocalProvider(llm, name="fake").complete(
        [Message("user", "q")], tools=[SEARCH, READ], json_schema=narrowed
    )
    assert llm.calls[0]["response_format"]["schema"] == narrowed
    assert completion.tool_calls[0].name == "read"


def test_plain_and_json_replies_without_tools() -> None:
    llm = ScriptedLlama(["Hello there."])
    plain = LocalProvider(llm, name="fake").complete([Message("user", "hi")], max_tokens=12)
    assert plain.text == "Hello there." and "response_format" not in llm.calls[0] and llm.calls[0]["max_tokens"] == 12

    schema = {"type": "object", "properties": {"q": {"type": "string"}}}
    llm = ScriptedLlama(['{"q": "why?"}'])
    assert json.loads(LocalProvider(llm, name="fake").complete([Message("user", "hi")], json_schema=schema).text) == {
        "q": "why?"
    }
    assert llm.calls[0]["response_format"] == {"type": "json_object", "schema": schema}


def test_a_reply_cut_off_by_max_tokens_is_an_error() -> None:
    llm = ScriptedLlama(['{"action": "answer", "answer": "and th'], finish_reason="length")  # five "tokens"
    with pytest.raises(ReplyCutOff, match="cut off at max_tokens=5"):
        LocalProvider(llm, name="fake").complete([Message("user", "q")], tools=[SEARCH], max_tokens=5)


def test_a_reply_stopped_by_a_full_context_window_is_told_apart_from_one_cut_off_at_max_tokens() -> None:
    """llama.cpp ends a reply with ``length`` when prompt and reply fill the window, well before
    ``max_tokens``: seen live, a 254-token answer after four long reads into an 8,192-token context."""
    llm = ScriptedLlama(['{"action": "answer", "answer": "and th'], finish_reason="length")
    provider = LocalProvider(llm, name="fake", runtime={"n_ctx": 8192})
    with pytest.raises(ContextFull, match=r"the 8,192-token context window filled .*reply 5 when it stopped"):
        provider.complete([Message("user", "q")], tools=[SEARCH], max_tokens=1024)


def test_a_raw_newline_or_tab_inside_a_reply_string_is_still_the_models_text() -> None:
    """The 1.5B model writes table rows into its answer with real tabs and newlines; strict JSON refused two."""
    llm = ScriptedLlama(['{"action": "answer", "answer": "| a |\tb |\n| 1 | 2 |"}'])
    completion = LocalProvider(llm, name="fake").complete([Message("user", "q")], tools=[SEARCH])
    assert completion.text == "| a |\tb |\n| 1 | 2 |"


class TooLong:
    """llama-cpp-python's own refusal of a prompt longer than its context window."""

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        raise ValueError("Requested tokens (9046) exceed context window of 8192")


def test_a_prompt_beyond_the_context_window_is_told_apart_from_other_failures() -> None:
    with pytest.raises(ContextFull, match="exceed context window of 8192"):
        LocalProvider(TooLong(), name="fake").complete([Message("user", "q")], tools=[SEARCH])


def test_a_reply_that_is_not_an_action_is_an_error() -> None:
    llm = ScriptedLlama(['{"tool": "search"}'])
    with pytest.raises(ModelError, match="expected an action object"):
        LocalProvider(llm, name="fake").complete([Message("user", "q")], tools=[SEARCH])


def test_calls_into_one_model_never_overlap() -> None:
    llm = ScriptedLlama(['{"action": "answer", "answer": "x"}'], delay=0.01)
    provider = LocalProvider(llm, name="fake")
    threads = [
        threading.Thread(target=provider.complete, args=([Message("user", f"q{n}")],), kwargs={"tools": [SEARCH]})
        for n in range(6)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(llm.calls) == 6 and not llm.overlapped


def test_local_calls_are_free_and_cached(tmp_path: Path) -> None:
    llm = ScriptedLlama(['{"action": "answer", "answer": "x"}'])
    ledger = Ledger()
    provider = MeteredProvider(LocalProvider(llm, name="fake"), ledger=ledger, cache=CompletionCache(tmp_path))
    first = provider.complete([Message("user", "q")], tools=[SEARCH])
    again = provider.complete([Message("user", "q")], tools=[SEARCH])
    assert first.usage.usd == 0.0 and again.cached and len(llm.calls) == 1
    assert ledger.total()["calls"] == 1 and ledger.total()["cached_calls"] == 1


def test_missing_local_models_are_not_configured(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with pytest.raises(NoModelConfigured, match="pushpull models install-local --with-runtime"):
        get_provider("local:qwen2.5-coder-1.5b")
    with pytest.raises(NoModelConfigured, match="no such GGUF file"):
        get_provider(f"local:{tmp_path / 'missing.gguf'}")


def _parts(tmp_path: Path) -> tuple[list[Path], bytes]:
    pieces = [b"GGUF" + bytes(range(256)) * 3, b"middle" * 1000, b"end"]
    files = []
    for n, piece in enumerate(pieces, start=1):
        path = tmp_path / f"part{n:02d}.bin"
        path.write_bytes(piece)
        files.append(path)
    return files, b"".join(pieces)


def test_assembly_joins_parts_in_order_and_verifies(tmp_path: Path) -> None:
    files, joined = _parts(tmp_path)
    target = tmp_path / "models" / "m.gguf"
    seen: list[int] = []
    digest = hashlib.sha256(joined).hexdigest()
    local_model.assemble(files, target, expected_bytes=len(joined), expected_sha256=digest, progress=seen.append)
    assert target.read_bytes() == joined and sum(seen) == len(joined)
    assert not list(target.parent.glob("*.partial"))


@pytest.mark.parametrize("wrong", ["size", "sha256"])
def test_assembly_that_fails_verification_leaves_nothing(tmp_path: Path, wrong: str) -> None:
    files, joined = _parts(tmp_path)
    target = tmp_path / "models" / "m.gguf"
    size = len(joined) + (1 if wrong == "size" else 0)
    digest = hashlib.sha256(joined + (b"x" if wrong == "sha256" else b"")).hexdigest()
    with pytest.raises(ModelError, match=wrong if wrong == "sha256" else "bytes"):
        local_model.assemble(files, target, expected_bytes=size, expected_sha256=digest)
    assert not target.exists() and not list(target.parent.iterdir())


def test_the_grammar_offers_only_required_arguments() -> None:
    """Optional arguments are left to their defaults: a small model fills them badly under a grammar."""
    tool = {
        "name": "search",
        "description": "find sections",
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "minLength": 1},
                "in": {"type": "string"},
                "limit": {"type": "integer"},
            },
            "required": ["query"],
            "additionalProperties": False,
        },
    }
    arguments = action_schema(tool)["properties"]["arguments"]
    assert arguments["properties"] == {"query": {"type": "string", "minLength": 1}}
    assert arguments["required"] == ["query"] and arguments["additionalProperties"] is False
    assert '"in"' not in tool_instructions([tool]) and '"query"' in tool_instructions([tool])


def test_a_models_own_failure_is_cached_like_an_answer_and_a_replay_meets_it_again(tmp_path: Path) -> None:
    """A prompt beyond the context window fails the same way every time: a replay must fail there too."""
    ledger = Ledger()
    provider = MeteredProvider(LocalProvider(TooLong(), name="fake"), ledger=ledger, cache=CompletionCache(tmp_path))
    for _ in range(2):
        with pytest.raises(ContextFull, match="exceed context window"):
            provider.complete([Message("user", "q")], tools=[SEARCH])
    assert ledger.total()["failures"] == 1  # the second call was answered by the recorded failure
    assert len(CompletionCache(tmp_path)) == 1


def test_a_recorded_cut_off_keeps_its_length_and_one_recorded_without_it_is_asked_again(tmp_path: Path) -> None:
    """Recorded before a full context window was told apart from a cut-off (both stop with ``length``),
    a cut-off replayed as one would fail a run this code rescues: such a record is not an answer."""
    llm = ScriptedLlama(['{"action": "answer", "answer": "and th'], finish_reason="length")
    cache = CompletionCache(tmp_path)
    provider = MeteredProvider(LocalProvider(llm, name="fake"), ledger=Ledger(), cache=cache)
    for _ in range(2):
        with pytest.raises(ReplyCutOff) as raised:
            provider.complete([Message("user", "q")], tools=[SEARCH], max_tokens=5)
        assert raised.value.tokens_out == 5
    assert len(llm.calls) == 1  # the second was the recorded failure, with its length
    old = {"failure": {"kind": "ReplyCutOff", "message": "local:fake: bad output: ... max_tokens=5"}}
    with sqlite3.connect(cache.path) as db:  # the record as the code before tokens_out wrote it
        (key,) = [row[0] for row in db.execute("SELECT key FROM completions")]
        db.execute("UPDATE completions SET value = ? WHERE key = ?", (json.dumps(old), key))
    assert cache.get(key) is None
    with pytest.raises(ReplyCutOff):
        provider.complete([Message("user", "q")], tools=[SEARCH], max_tokens=5)
    assert len(llm.calls) == 2  # asked the model again


class Unreachable:
    """A backend whose every call fails on the way to the model (not the model's answer)."""

    def create_chat_completion(self, **kwargs: Any) -> dict[str, Any]:
        raise RuntimeError("connection reset")


def test_a_failure_on_the_way_to_the_model_is_never_cached(tmp_path: Path) -> None:
    provider = MeteredProvider(
        LocalProvider(Unreachable(), name="fake"), ledger=Ledger(), cache=CompletionCache(tmp_path)
    )
    with pytest.raises(ModelError, match="connection reset"):
        provider.complete([Message("user", "q")], tools=[SEARCH])
    assert len(CompletionCache(tmp_path)) == 0
