"""Tool schemas, the argument validator, the dispatcher and the instructions."""

from __future__ import annotations

import json

import pytest

from contextpull import tools
from contextpull.errors import (
    BadFilter,
    MissingArgument,
    OutOfRange,
    PatternRejected,
    UnknownArgument,
    UnknownSection,
    UnknownTool,
    WrongType,
)
from contextpull.ops.operations import Ops
from contextpull.tools.instructions import claude_md, pull_discipline, server_instructions
from ops_support import examples_store

NAMES = ["index", "search", "read", "grep", "neighbours"]


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    with Ops.open(examples_store(tmp_path_factory.mktemp("tools"))) as opened:
        yield opened


def test_five_tools_in_anthropic_shape() -> None:
    assert [tool["name"] for tool in tools.TOOLS] == NAMES
    for tool in tools.TOOLS:
        schema = tool["input_schema"]
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert set(schema["required"]) <= set(schema["properties"])
        assert "[guides/install.md#3]" in tool["description"] and "pointers" in tool["description"]
    json.dumps(tools.TOOLS)


def test_openai_shape_wraps_the_same_schemas() -> None:
    converted = tools.openai_tools()
    assert [t["type"] for t in converted] == ["function"] * 5
    assert [t["function"]["parameters"] for t in converted] == [t["input_schema"] for t in tools.TOOLS]


def test_tools_version_is_a_short_stable_hash() -> None:
    assert len(tools.TOOLS_VERSION) == 12 and int(tools.TOOLS_VERSION, 16) >= 0


def test_bounds_in_schemas_match_the_operations() -> None:
    search = tools.TOOLS[1]["input_schema"]["properties"]
    assert (search["limit"]["minimum"], search["limit"]["maximum"]) == (1, 50)
    grep = tools.TOOLS[3]["input_schema"]["properties"]
    assert (grep["limit"]["minimum"], grep["limit"]["maximum"]) == (1, 100)
    assert (grep["pattern"]["minLength"], grep["pattern"]["maxLength"]) == (1, 200)


@pytest.mark.parametrize(
    ("name", "arguments", "error", "words"),
    [
        ("fetch", {}, UnknownTool, "'fetch'"),
        ("search", {}, MissingArgument, "'query'"),
        ("read", {"context": 1}, MissingArgument, "'id'"),
        ("search", {"query": "x", "limt": 3}, UnknownArgument, "'limt'"),
        ("index", {"path": "a"}, UnknownArgument, "'path'"),
        ("search", {"query": 3}, WrongType, "query must be a string"),
        ("search", {"query": "x", "limit": "3"}, WrongType, "limit must be an integer"),
        ("search", {"query": "x", "limit": True}, WrongType, "limit must be an integer"),
        ("search", {"query": "x", "limit": 2.5}, WrongType, "limit must be an integer"),
        ("grep", {"pattern": "x", "regex": "true"}, WrongType, "regex must be a boolean"),
        ("search", {"query": "x", "in": 4}, WrongType, "in must be a string or an array"),
        ("search", {"query": "x", "in": ["ok", 4]}, WrongType, "in[1] must be a string"),
        ("search", {"query": "x", "limit": 0}, OutOfRange, "limit value must be 1 to 50, got 0"),
        ("search", {"query": "x", "limit": 51}, OutOfRange, "got 51"),
        ("search", {"query": ""}, OutOfRange, "query length"),
        ("grep", {"pattern": "x" * 201}, OutOfRange, "pattern length"),
        ("grep", {"pattern": "x", "limit": 101}, OutOfRange, "limit"),
        ("read", {"id": "a.md#0", "context": 6}, OutOfRange, "context"),
        ("neighbours", {"id": "a.md#0", "before": -1}, OutOfRange, "before"),
        ("search", {"query": "x", "in": ["a"] * 21}, OutOfRange, "number of items"),
        ("search", None, MissingArgument, "'query'"),
        ("search", ["x"], WrongType, "JSON object"),
    ],
)
def test_validation_errors_name_the_problem(ops: Ops, name: str, arguments: object, error: type, words: str) -> None:
    with pytest.raises(error) as caught:
        tools.call(ops, name, arguments)  # type: ignore[arg-type]
    assert type(caught.value) is error
    assert words in caught.value.message


@pytest.mark.parametrize(
    ("name", "arguments", "error"),
    [
        ("search", {"query": "x", "in": ""}, BadFilter),
        ("search", {"query": "x", "in": []}, BadFilter),
        ("search", {"query": "x", "in": "nowhere/*"}, BadFilter),
        ("read", {"id": "nope"}, UnknownSection),
        ("grep", {"pattern": "(?=x)", "regex": True}, PatternRejected),
    ],
)
def test_operation_errors_pass_through(ops: Ops, name: str, arguments: dict, error: type) -> None:
    with pytest.raises(error):
        tools.call(ops, name, arguments)


def test_call_runs_each_tool_and_returns_json_ready_dicts(ops: Ops) -> None:
    assert "Corpus index" in tools.call(ops, "index", {})["text"]
    assert tools.call(ops, "index", {"prefix": "guides/"})["prefix"] == "guides/"
    hits = tools.call(ops, "search", {"query": "TX-4419", "in": ["reference"], "limit": 3.0, "snippet": 40})["hits"]
    assert hits[0]["id"] == "reference/error-codes.md#2"
    read = tools.call(ops, "read", {"id": hits[0]["id"], "context": 1})
    assert "TX-4419" in read["text"] and read["before"][0]["context"] is True
    grep = tools.call(ops, "grep", {"pattern": "tx-44", "in": "reference/*", "limit": 2})
    assert grep["truncated"] is True and len(grep["matches"]) == 2
    near = tools.call(ops, "neighbours", {"id": "reference/spec-sheet.md#2", "before": 0, "after": 0})
    assert near["table_header_section"]["id"] == "reference/spec-sheet.md#1"
    for payload in (hits, read, grep, near):
        json.dumps(payload)


def test_call_json_gives_the_error_object_and_a_flag(ops: Ops) -> None:
    payload, is_error = tools.call_json(ops, "read", {"id": "reference/error-codes.md#99"})
    assert is_error and payload["error"] == "unknown_id" and "reference/error-codes.md#6" in payload["suggestion"]
    payload, is_error = tools.call_json(ops, "nope", {})
    assert is_error and payload["error"] == "unknown_tool"
    payload, is_error = tools.call_json(ops, "search", {"query": "terminal"})
    assert not is_error and payload["hits"]


def test_instructions_share_one_discipline() -> None:
    discipline = pull_discipline()
    for words in ("search", "pointers", "read", "grep", "`in`", "[guides/install.md#3]"):
        assert words in discipline
    combined = server_instructions("Corpus index: 2 documents\n- a.md\n")
    assert combined.startswith(discipline)
    assert combined.rstrip().endswith("<corpus_index>\nCorpus index: 2 documents\n- a.md\n</corpus_index>")
    assert discipline in claude_md() and "contextpull search" in claude_md()
