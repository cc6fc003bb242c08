"""The API tool loop against loopback stand-ins of the Anthropic and OpenAI APIs.

The real SDKs talk to the fakes over real sockets; tool calls run against a
real store ingested from the bundled example corpus. Assertions are on what
the loop retrieved and on the requests the fake API received.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from contextpull.eval.apiloop import STRICT_RULES, ApiLoopRetriever
from contextpull.eval.pull_record import PullRunFailed, unique
from contextpull.eval.reading_loop import BOUNDED_CHARS
from contextpull.ops.operations import Ops
from contextpull.server.app import build_server
from contextpull.tools.schemas import call_json
from fakes import AnthropicFake, OpenAIFake, Request
from fakes import anthropic_server as anth
from fakes import openai_server as oai
from pull_support import hits, store  # noqa: F401 (store is a fixture)
from pushpull.models import Ledger, RetryPolicy

QUESTION = "How many days before departure must travel be booked?"


@pytest.fixture
def anthropic_env(monkeypatch: pytest.MonkeyPatch) -> Any:
    def use(fake: AnthropicFake) -> None:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.base_url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", fake.api_key)

    return use


def loop(store: Path, spec: str = "anthropic:claude-fake", **kwargs: Any) -> ApiLoopRetriever:
    kwargs.setdefault("ledger", Ledger())
    kwargs.setdefault("retry", RetryPolicy(attempts=1))
    return ApiLoopRetriever(store, spec, **kwargs)


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        block
        for message in body["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def test_ids_read_in_order_and_surfaced_after_them(store: Path, anthropic_env: Any) -> None:
    found = hits(store, "travel booking")
    first, second = found[1], found[0]
    script = [
        anth.tool_reply("search", {"query": "travel booking"}),
        anth.tool_reply("read", {"id": first}),
        anth.tool_reply("read", {"id": second}),
        anth.tool_reply("read", {"id": first, "context": 0}),  # the same id again, not an exact repeat
        anth.text_reply(f"21 days [{first}]", tokens_in=40, tokens_out=9),
    ]
    with AnthropicFake(script=script) as fake:
        anthropic_env(fake)
        read = loop(store)
        assert read.retrieve(QUESTION, 5) == [first, second]
        surfaced = read.counting("surfaced")
        assert (
            surfaced.retrieve(QUESTION, 10)
            == [first, second, *[sid for sid in found if sid not in (first, second)]][:10]
        )
        assert len(fake.requests) == 5  # the surfaced row counted the same run, no new calls
        assert read.retrieve(QUESTION, 1) == [first]
    assert read.generate(QUESTION, []) == f"21 days [{first}]"
    evidence = read.evidence(QUESTION)
    assert len(evidence["read"]) == 3 and evidence["read"][0].startswith(f"[{first}]\n")
    assert len(evidence["snippets"]) == len(found)
    stats = read.stats()
    assert stats["queries"] == 1 and stats["tool_calls"] == 4
    assert stats["by_tool"] == {"read": 3, "search": 1}
    assert stats["turns"] == 5 and stats["reads_per_query"] == 3
    assert stats["tokens_in"] == 4 * 10 + 40 and stats["tokens_out"] == 4 * 5 + 9
    assert stats["no_tool_call"] == stats["max_turns_hit"] == stats["refused_calls"] == 0
    assert stats["answered_without_reading"] == stats["run_errors"] == stats["refused_reads_per_query"] == 0
    assert stats["model"] == "anthropic:claude-fake"
    # tool results went back as tool_result blocks carrying the real payload
    last = tool_results(fake.bodies[-1])
    assert [block["is_error"] for block in last] == [False] * 4
    assert json.loads(last[1]["content"])["id"] == first


def test_search_only_ids_never_count_as_read(store: Path, anthropic_env: Any) -> None:
    script = [anth.tool_reply("search", {"query": "error codes"}), anth.text_reply("E42 means a timeout.")]
    with AnthropicFake(script=script) as fake:
        anthropic_env(fake)
        read = loop(store)
        assert read.retrieve(QUESTION, 5) == []
        assert read.counting("surfaced").retrieve(QUESTION, 3) == hits(store, "error codes")[:3]
    assert read.stats()["answered_without_reading"] == 1


def test_system_prompt_is_what_the_mcp_server_sends(store: Path, anthropic_env: Any) -> None:
    async def server_instructions() -> str | None:
        async with Client(build_server(store), mode="legacy") as client:
            return client.instructions

    sent = anyio.run(server_instructions)
    with AnthropicFake(script=[anth.text_reply("no idea")]) as fake:
        anthropic_env(fake)
        loop(store).run(QUESTION)
    assert sent and fake.bodies[0]["system"] == sent
    assert [tool["name"] for tool in fake.bodies[0]["tools"]] == ["index", "search", "read", "grep", "neighbours"]


def test_strict_mode_sends_the_strict_rules(store: Path, anthropic_env: Any) -> None:
    top = hits(store, "travel booking")[0]
    script = [
        anth.tool_reply("search", {"query": "travel booking"}),
        anth.tool_reply("read", {"id": top}),
        anth.text_reply(f"Book ahead [{top}]"),
    ]
    with AnthropicFake(script=script) as fake:
        anthropic_env(fake)
        strict = loop(store, mode="strict")
        assert strict.retrieve(QUESTION, 5) == [top]
    plain = loop(store).system
    assert all(body["system"] == f"{plain}\n{STRICT_RULES}\n" for body in fake.bodies)
    with pytest.raises(ValueError):
        strict.counting("read")


def test_a_turn_limit_run_is_an_error_never_an_answer(store: Path, anthropic_env: Any) -> None:
    script = [anth.tool_reply("grep", {"pattern": "travel"}) for _ in range(3)]
    with AnthropicFake(script=script) as fake:
        anthropic_env(fake)
        read = loop(store, max_turns=3)
        with pytest.raises(PullRunFailed, match="turn limit"):
            read.retrieve(QUESTION, 5)
        with pytest.raises(PullRunFailed, match="turn limit"):  # nothing for the judge either
            read.generate(QUESTION)
        assert len(fake.requests) == 3
    run = read.run(QUESTION)
    assert run.max_turns_hit and run.turns == 3 and run.answer == ""
    stats = read.stats()
    assert stats["max_turns_hit"] == 1 and stats["run_errors"] == 1 and stats["answered_without_reading"] == 0


def test_an_answer_without_any_tool_call_is_an_error(store: Path, anthropic_env: Any) -> None:
    with AnthropicFake(script=[anth.text_reply("From memory: 14 days.")]) as fake:
        anthropic_env(fake)
        read = loop(store)
        with pytest.raises(PullRunFailed, match="without calling any ContextPull tool"):
            read.retrieve(QUESTION, 5)
        with pytest.raises(PullRunFailed):
            read.evidence(QUESTION)
    assert read.run(QUESTION).answer == "From memory: 14 days."
    stats = read.stats()
    assert stats["no_tool_call"] == 1 and stats["run_errors"] == 1 and stats["tool_calls"] == 0
    assert stats["answered_without_reading"] == 0


def test_a_refused_tool_call_goes_back_as_a_tool_error(store: Path, anthropic_env: Any) -> None:
    top = hits(store, "travel booking")[0]
    script = [
        anth.tool_reply("read", {"id": "policies/no-such-policy.md#2"}),
        anth.tool_reply("search", {"query": "travel booking", "limit": 0}),
        anth.tool_reply("read", {"id": top}),
        anth.text_reply(f"ok [{top}]"),
    ]
    with AnthropicFake(script=script) as fake:
        anthropic_env(fake)
        read = loop(store)
        assert read.retrieve(QUESTION, 5) == [top]
    refused = tool_results(fake.bodies[1])[-1]
    assert refused["is_error"] is True
    assert json.loads(refused["content"])["error"] == "unknown_id"
    out_of_range = tool_results(fake.bodies[2])[-1]
    assert out_of_range["is_error"] is True and "limit" in json.loads(out_of_range["content"])["message"]
    stats = read.stats()
    assert stats["refused_calls"] == 2 and stats["tool_calls"] == 3
    # one read refused, one served: only the served one counts as a read
    assert stats["reads_per_query"] == 1 and stats["refused_reads_per_query"] == 1


def test_a_replay_from_cache_makes_no_model_call(store: Path, anthropic_env: Any, tmp_path: Path) -> None:
    top = hits(store, "travel booking")[0]
    script = [
        anth.tool_reply("search", {"query": "travel booking"}),
        anth.tool_reply("read", {"id": top}),
        anth.text_reply(f"ok [{top}]"),
    ]
    with AnthropicFake(script=script) as fake:
        anthropic_env(fake)
        first = loop(store, cache_dir=tmp_path)
        ids = first.retrieve(QUESTION, 5)
        again = loop(store, cache_dir=tmp_path)
        assert again.retrieve(QUESTION, 5) == ids == [top]
        assert again.counting("surfaced").retrieve(QUESTION, 5) == first.counting("surfaced").retrieve(QUESTION, 5)
        assert again.generate(QUESTION) == f"ok [{top}]"
        assert len(fake.requests) == len(script)
    assert again.stats() == first.stats()


def test_another_endpoint_serving_the_same_model_name_is_another_run(
    store: Path, anthropic_env: Any, tmp_path: Path
) -> None:
    top = hits(store, "travel booking")[0]
    script = [anth.tool_reply("read", {"id": top}), anth.text_reply("from the first server")]
    with AnthropicFake(script=script) as fake:
        anthropic_env(fake)
        assert loop(store, cache_dir=tmp_path).generate(QUESTION) == "from the first server"
    script = [anth.tool_reply("read", {"id": top}), anth.text_reply("from the second server")]
    with AnthropicFake(script=script) as other:
        anthropic_env(other)
        assert loop(store, cache_dir=tmp_path).generate(QUESTION) == "from the second server"


def test_the_cache_key_separates_strict_from_plain_runs(store: Path, anthropic_env: Any, tmp_path: Path) -> None:
    with AnthropicFake(script=[anth.text_reply("plain"), anth.text_reply("strict")]) as fake:
        anthropic_env(fake)
        assert loop(store, cache_dir=tmp_path).run(QUESTION).answer == "plain"
        assert loop(store, cache_dir=tmp_path, mode="strict").run(QUESTION).answer == "strict"
        assert loop(store, cache_dir=tmp_path, mode="surfaced").run(QUESTION).answer == "plain"
        assert len(fake.requests) == 2


def test_a_failed_run_is_remembered_and_a_later_live_run_retries_it(
    store: Path, anthropic_env: Any, tmp_path: Path
) -> None:
    with AnthropicFake(script=lambda request: anth.error_reply(500, "boom")) as failing:
        anthropic_env(failing)
        broken = loop(store, cache_dir=tmp_path)
        with pytest.raises(PullRunFailed, match="HTTP 500"):
            broken.retrieve(QUESTION, 5)
        with pytest.raises(PullRunFailed, match="HTTP 500"):  # the same failed run, not a second try
            broken.counting("surfaced").retrieve(QUESTION, 5)
        assert len(failing.requests) == 1
        assert broken.stats()["failed"] == 1 and broken.stats()["queries"] == 1
    replayed = loop(store, cache_dir=tmp_path)
    replayed.replay = True
    with pytest.raises(PullRunFailed, match="HTTP 500"):  # a replay scores the recorded failure
        replayed.retrieve(QUESTION, 5)
    top = hits(store, "travel booking")[0]
    script = [anth.tool_reply("read", {"id": top}), anth.text_reply("second try")]
    with AnthropicFake(script=script) as working:
        anthropic_env(working)
        assert loop(store, cache_dir=tmp_path).generate(QUESTION) == "second try"
        assert len(working.requests) == 2


def test_read_and_surfaced_rows_count_one_run_through_overload_then_success(store: Path, anthropic_env: Any) -> None:
    """5 × 529 then a good answer: both rows score the failure, never the later success."""
    top = hits(store, "travel booking")[0]
    replies = [anth.error_reply(529, "overloaded") for _ in range(5)]
    replies += [anth.tool_reply("read", {"id": top}), anth.text_reply(f"ok [{top}]")]
    with AnthropicFake(script=replies) as fake:
        anthropic_env(fake)
        read = loop(store, retry=RetryPolicy(attempts=5, base_delay=0.0, max_delay=0.0))
        surfaced = read.counting("surfaced")
        with pytest.raises(PullRunFailed, match="529"):
            read.retrieve(QUESTION, 5)
        with pytest.raises(PullRunFailed, match="529"):
            surfaced.retrieve(QUESTION, 5)
        assert len(fake.requests) == 5


def _reading_model(request: Request) -> dict[str, Any]:
    """A scripted model that searches for the question, reads the top hit it was shown, then answers."""
    messages = request.body["messages"]
    question = messages[0]["content"][0]["text"]
    results = [block for message in messages for block in message["content"] if block.get("type") == "tool_result"]
    if not results:
        return anth.tool_reply("search", {"query": question})
    if len(results) == 1:
        return anth.tool_reply("read", {"id": json.loads(results[0]["content"])["hits"][0]["id"]})
    return anth.text_reply("done [" + json.loads(results[1]["content"])["id"] + "]")


def test_concurrent_questions_each_use_their_own_store_connection(store: Path, anthropic_env: Any) -> None:
    questions = [
        "travel booking",
        "error codes",
        "install",
        "data retention",
        "spec sheet",
        "troubleshooting",
        "changelog",
        "hotel rates",
    ]
    with AnthropicFake(script=_reading_model) as fake:
        anthropic_env(fake)
        read = loop(store, concurrency=4)
        with ThreadPoolExecutor(max_workers=read.concurrency) as pool:  # as the runner does
            results = list(pool.map(lambda q: read.retrieve(q, 5), questions))
    assert results == [hits(store, q)[:1] for q in questions]
    stats = read.stats()
    assert stats["queries"] == len(questions) and stats["failed"] == 0
    assert stats["refused_calls"] == 0 and stats["tool_calls"] == 2 * len(questions)
    assert len(fake.requests) == 3 * len(questions)


def test_openai_loop_reads_in_order_and_marks_tool_errors(store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    found = hits(store, "travel booking")
    script = [
        oai.tool_calls_reply(("search", {"query": "travel booking"})),
        oai.tool_calls_reply(("read", {"id": found[2]}), ("read", {"id": "nope.md#0"})),
        oai.tool_calls_reply(("read", {"id": found[0]})),
        oai.text_reply(f"see [{found[2]}]"),
    ]
    with OpenAIFake(script=script) as fake:
        monkeypatch.setenv("OPENAI_BASE_URL", fake.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", fake.api_key)
        read = loop(store, "openai:gpt-fake")
        assert read.retrieve(QUESTION, 5) == [found[2], found[0]]
    tool_messages = [m for m in fake.bodies[2]["messages"] if m["role"] == "tool"]
    assert tool_messages[-1]["content"].startswith("error: ") and "unknown_id" in tool_messages[-1]["content"]
    assert fake.bodies[0]["messages"][0] == {"role": "system", "content": read.system}
    assert read.stats()["refused_calls"] == 1


TOO_LONG: dict[str, Any] = {}
RAMBLING: dict[str, Any] = {}
FILLED: dict[str, Any] = {}


class ScriptedLlama:
    """Stands in for ``llama_cpp.Llama``: replays JSON replies and keeps each turn's grammar; a reply that
    is :data:`TOO_LONG` fails as a prompt beyond the context window does, one that is :data:`RAMBLING`
    is cut off at ``max_tokens``, one that is :data:`FILLED` stops early because prompt and reply
    filled the window (llama.cpp says ``length`` for both)."""

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.schemas: list[dict[str, Any]] = []

    def create_chat_completion(self, **request: Any) -> dict[str, Any]:
        self.schemas.append(request["response_format"]["schema"])
        reply = self.replies[len(self.schemas) - 1]
        if reply is TOO_LONG:  # llama-cpp-python's refusal of a prompt beyond its context window
            raise ValueError("Requested tokens (9046) exceed context window of 8192")
        cut = reply is RAMBLING or reply is FILLED  # a reply that stops before its JSON is complete
        text = '{"action": "answer", "answer": {"text": "the same clause again and' if cut else json.dumps(reply)
        out = request["max_tokens"] if reply is RAMBLING else 10
        return {
            "choices": [{"message": {"content": text}, "finish_reason": "length" if cut else "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": out},
        }


def _options(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {option["properties"]["action"]["const"]: option for option in schema.get("oneOf", [schema])}


def _local(store: Path, replies: list[dict[str, Any]], mode: str = "read") -> tuple[ApiLoopRetriever, ScriptedLlama]:
    from pushpull.models.local_provider import LocalProvider
    from pushpull.models.metered import MeteredProvider

    llm = ScriptedLlama(replies)
    provider = MeteredProvider(LocalProvider(llm, name="scripted"), ledger=Ledger())
    return ApiLoopRetriever(store, "local:scripted", mode=mode, provider=provider), llm


def test_a_local_model_plans_searches_each_part_reads_for_each_and_cites_what_it_read(store: Path) -> None:
    first, second = hits(store, "retention period"), hits(store, "spec sheet weight")
    replies = [
        {"action": "plan", "arguments": {"parts": ["retention period", "spec sheet weight"]}},
        {"action": "search", "arguments": {"query": "retention period"}},
        {"action": "search", "arguments": {"query": "spec sheet weight"}},
        {"action": "read", "arguments": {"id": first[0]}},
        {"action": "read", "arguments": {"id": second[0]}},
        {"action": "answer", "answer": {"text": "21 days.", "cite": [first[0]]}},
    ]
    adapter, llm = _local(store, replies, mode="strict")
    assert adapter.retrieve(QUESTION, 5) == unique([first[0], second[0]])
    assert adapter.generate(QUESTION) == f"21 days. [{first[0]}]"
    plan, search_1, search_2, read_1, read_2, answer = (_options(schema) for schema in llm.schemas)
    assert set(plan) == {"plan"}  # the first turn is the plan, and nothing else
    parts = plan["plan"]["properties"]["arguments"]["properties"]["parts"]
    assert parts["minItems"] == parts["maxItems"] == 2  # one query for each side, or two wordings
    assert set(search_1) == {"search"} and set(search_2) == {"search"}
    assert search_1["search"]["properties"]["arguments"]["properties"]["query"] == {
        "enum": ["retention period", "spec sheet weight"]
    }
    assert search_2["search"]["properties"]["arguments"]["properties"]["query"] == {"enum": ["spec sheet weight"]}
    assert set(read_1) == {"read"}  # no answer, no other search, until each part has a read section
    assert read_1["read"]["properties"]["arguments"]["properties"]["id"]["enum"] == unique([*first[:3], *second[:3]])
    if first[0] not in second:
        assert set(read_2) == {"read"}
    assert answer["answer"]["properties"]["answer"]["properties"]["cite"]["items"] == {
        "enum": unique([first[0], second[0]])
    }
    stats = adapter.stats()
    assert stats["model"] == "local:scripted" and stats["tool_calls"] == 4  # the plan is no tool call
    assert "First reply with a plan" in adapter.system and STRICT_RULES in adapter.system


def test_a_part_whose_search_finds_nothing_needs_no_read(store: Path) -> None:
    found = hits(store, "retention period")
    replies = [
        {"action": "plan", "arguments": {"parts": ["retention period", "zzzqqq"]}},
        {"action": "search", "arguments": {"query": "retention period"}},
        {"action": "search", "arguments": {"query": "zzzqqq"}},
        {"action": "read", "arguments": {"id": found[0]}},
        {"action": "answer", "answer": {"text": "21 days.", "cite": [found[0]]}},
    ]
    adapter, llm = _local(store, replies)
    assert adapter.retrieve(QUESTION, 5) == [found[0]]
    assert "answer" in _options(llm.schemas[-1])


def test_a_part_whose_best_hits_come_from_two_documents_reads_a_section_of_each(store: Path) -> None:
    """Planned as one query, the two sides of a comparison are two documents at the top of its hits."""
    both = "Travel and expense policy (2024) and Travel and expense policy (2025)"
    found = hits(store, both)
    first_doc, second_doc = (sid.rpartition("#")[0] for sid in found[:2])
    assert first_doc != second_doc  # what the test is about: the best two hits are the two sides
    second_side = [sid for sid in found[:3] if sid.rpartition("#")[0] == second_doc]
    replies = [
        {"action": "plan", "arguments": {"parts": [both, "zzzqqq"]}},
        {"action": "search", "arguments": {"query": both}},
        {"action": "search", "arguments": {"query": "zzzqqq"}},
        {"action": "read", "arguments": {"id": found[0]}},
        {"action": "read", "arguments": {"id": second_side[0]}},
        {"action": "answer", "answer": {"text": "45 days.", "cite": [found[0]]}},
    ]
    adapter, llm = _local(store, replies)
    assert adapter.retrieve(QUESTION, 5) == [found[0], second_side[0]]
    second_read = _options(llm.schemas[4])
    assert set(second_read) == {"read"}  # the first side read, the part still waits for the second
    assert second_read["read"]["properties"]["arguments"]["properties"]["id"]["enum"] == second_side
    assert "answer" in _options(llm.schemas[5])


def test_a_question_naming_two_documents_searches_them_and_reads_the_best_two_of_each(store: Path) -> None:
    """The sides come from the index, not a plan: the question in the named documents, then each side's best two."""
    question = "What differs between Travel and expense policy (2024) and Travel and expense policy (2025)?"
    documents = ["policies/travel-policy-2024.md", "policies/travel-policy-2025.md"]
    with Ops.open(store) as ops:
        payload, _ = call_json(ops, "search", {"query": question, "in": documents})
    found = [(hit["id"], hit["doc"]) for hit in payload["hits"]]
    first, second = ([sid for sid, doc in found if doc == document][:2] for document in unique(d for _, d in found))
    order = [first[0], second[0], first[1], second[1]]  # each side's best, then each side's second
    replies = [
        {"action": "search", "arguments": {"query": question, "in": documents}},
        {"action": "read", "arguments": {"id": second[0]}},  # the model may take them in its own order
        *({"action": "read", "arguments": {"id": sid}} for sid in order if sid != second[0]),
        {"action": "answer", "answer": {"text": "The 2025 edition replaces 2024.", "cite": [first[0]]}},
    ]
    adapter, llm = _local(store, replies, mode="strict")
    assert adapter.retrieve(question, 5) == [second[0], *(sid for sid in order if sid != second[0])]
    search, *reads, answer = (_options(schema) for schema in llm.schemas)
    assert set(search) == {"search"}  # no plan: the only action is the search of the named documents
    assert search["search"]["properties"]["arguments"]["properties"] == {
        "query": {"const": question},
        "in": {"const": documents},
    }
    offered = [read["read"]["properties"]["arguments"]["properties"]["id"]["enum"] for read in reads]
    assert all(set(read) == {"read"} for read in reads)  # nothing else until both sides' best two are read
    assert offered == [order, [sid for sid in order if sid != second[0]], order[2:], order[3:]]
    assert set(answer) >= {"answer", "read"}
    assert adapter.stats()["tool_calls"] == 5


def test_a_named_document_the_first_search_shows_no_hit_of_is_searched_again(tmp_path: Path) -> None:
    """Ten hits of one named page, none of the other: the other is searched on its own, and read too."""
    from contextpull.ingestion.run import ingest

    corpus = tmp_path / "corpus"
    (corpus / "docs").mkdir(parents=True)
    body = "The widget rack beside the storage shelves holds {n} widgets, each in its own slot of the rack. " * 4
    crowded = "".join(f"## Widget limits {n}\n\n{body.format(n=n)}\n\n" for n in range(20))
    (corpus / "docs" / "racks.md").write_text(f"# Widget Racks\n\n{crowded}", encoding="utf-8")
    shelves = "A shelf holds one box. " + "Boxes are stacked two high on every shelf of the room. " * 6
    (corpus / "docs" / "shelves.md").write_text(f"# Storage Shelves\n\n## Sizes\n\n{shelves}\n", encoding="utf-8")
    path = tmp_path / "store.sqlite"
    ingest(corpus, path)
    question = "Widget limits per widget rack: Widget Racks, Storage Shelves?"  # both named by title
    with Ops.open(path) as ops:
        first, _ = call_json(ops, "search", {"query": question, "in": ["docs/racks.md", "docs/shelves.md"]})
        again, _ = call_json(ops, "search", {"query": question, "in": ["docs/shelves.md"]})
    assert {hit["doc"] for hit in first["hits"]} == {"docs/racks.md"}  # what the test is about
    racks = [hit["id"] for hit in first["hits"]][:2]
    shelf = again["hits"][0]["id"]
    replies = [
        {"action": "search", "arguments": {"query": question, "in": ["docs/racks.md", "docs/shelves.md"]}},
        {"action": "search", "arguments": {"query": question, "in": ["docs/shelves.md"]}},
        *({"action": "read", "arguments": {"id": sid}} for sid in [racks[0], shelf, racks[1]]),
        {"action": "answer", "answer": {"text": "Racks hold more.", "cite": [racks[0], shelf]}},
    ]
    adapter, llm = _local(path, replies)
    assert adapter.retrieve(question, 5) == [racks[0], shelf, racks[1]]
    second_search = _options(llm.schemas[1])["search"]["properties"]["arguments"]["properties"]
    assert second_search["in"] == {"const": ["docs/shelves.md"]}
    assert _options(llm.schemas[2])["read"]["properties"]["arguments"]["properties"]["id"]["enum"] == [
        racks[0],
        shelf,
        racks[1],
    ]


def test_a_question_naming_one_document_is_planned_by_the_model(store: Path) -> None:
    """One named document is no comparison: the model plans, as for any question."""
    question = "What does the Travel and expense policy (2025) say about meal allowances?"
    found = hits(store, "meal allowance")
    replies = [
        {"action": "plan", "arguments": {"parts": ["meal allowance", "zzzqqq"]}},
        {"action": "search", "arguments": {"query": "meal allowance"}},
        {"action": "search", "arguments": {"query": "zzzqqq"}},
        *({"action": "read", "arguments": {"id": sid}} for sid in found[:2]),
        {"action": "answer", "answer": {"text": "A daily allowance.", "cite": [found[0]]}},
    ]
    adapter, llm = _local(store, replies)
    assert adapter.retrieve(question, 5)[0] == found[0]
    assert set(_options(llm.schemas[0])) == {"plan"}


def test_a_read_that_fills_the_context_is_undone_and_the_model_answers_from_what_it_read(store: Path) -> None:
    """A long section read into the local model's 8,192 tokens made 5 of 30 published runs fail."""
    both = "Travel and expense policy (2024) and Travel and expense policy (2025)"
    found = hits(store, both)
    second_doc = found[1].rpartition("#")[0]
    second_side = [sid for sid in found[:3] if sid.rpartition("#")[0] == second_doc]
    replies = [
        {"action": "plan", "arguments": {"parts": [both, "zzzqqq"]}},
        {"action": "search", "arguments": {"query": both}},
        {"action": "search", "arguments": {"query": "zzzqqq"}},
        {"action": "read", "arguments": {"id": found[0]}},
        {"action": "read", "arguments": {"id": second_side[0]}},
        TOO_LONG,
        {"action": "answer", "answer": {"text": "45 days.", "cite": [found[0]]}},
    ]
    adapter, llm = _local(store, replies)
    assert adapter.retrieve(QUESTION, 5) == [found[0]]  # the read whose result never fitted is not counted
    run = adapter.run(QUESTION)
    assert run.error is None and run.answer == f"45 days. [{found[0]}]"
    assert [call.name for call in run.tool_calls] == ["search", "search", "read"]
    assert set(_options(llm.schemas[6])) == {"answer"}  # asked for the answer, from the first read
    assert llm.schemas[6] != llm.schemas[5]


def test_an_answer_stopped_by_a_full_context_is_asked_again_without_the_last_read(store: Path) -> None:
    """Seen live on the uv docs: after four long reads the answer stopped at 254 of 1,024 tokens,
    twice (asked again with bounded strings, it filled the window again), and the run failed."""
    found = hits(store, "retention period")
    replies = [
        {"action": "plan", "arguments": {"parts": ["retention period", "zzzqqq"]}},
        {"action": "search", "arguments": {"query": "retention period"}},
        {"action": "search", "arguments": {"query": "zzzqqq"}},
        {"action": "read", "arguments": {"id": found[0]}},
        {"action": "read", "arguments": {"id": found[1]}},
        FILLED,
        {"action": "answer", "answer": {"text": "21 days.", "cite": [found[0]]}},
    ]
    adapter, llm = _local(store, replies)
    run = adapter.run(QUESTION)
    assert run.error is None and run.answer == f"21 days. [{found[0]}]"
    assert [call.name for call in run.tool_calls] == ["search", "search", "read"]  # the second read undone
    assert set(_options(llm.schemas[6])) == {"answer"}


def test_an_answer_that_still_fills_the_context_rolls_back_one_read_more(store: Path) -> None:
    """The semconv k8s pair: four long reads; without the last the answer still filled the window."""
    found = hits(store, "retention period")
    replies = [
        {"action": "plan", "arguments": {"parts": ["retention period", "zzzqqq"]}},
        {"action": "search", "arguments": {"query": "retention period"}},
        {"action": "search", "arguments": {"query": "zzzqqq"}},
        {"action": "read", "arguments": {"id": found[0]}},
        {"action": "read", "arguments": {"id": found[1]}},
        {"action": "read", "arguments": {"id": found[2]}},
        FILLED,  # the turn after the third read
        FILLED,  # the answer without the third read
        {"action": "answer", "answer": {"text": "21 days.", "cite": [found[0]]}},
    ]
    adapter, llm = _local(store, replies)
    run = adapter.run(QUESTION)
    assert run.error is None and run.answer == f"21 days. [{found[0]}]"
    assert [call.name for call in run.tool_calls] == ["search", "search", "read"]  # two reads undone
    assert set(_options(llm.schemas[7])) == set(_options(llm.schemas[8])) == {"answer"}


def test_a_full_context_after_every_turn_was_rolled_back_fails_the_run(store: Path) -> None:
    replies = [{"action": "plan", "arguments": {"parts": ["retention period", "zzzqqq"]}}, *[FILLED] * 3]
    adapter, _ = _local(store, replies)
    assert "context window filled" in str(adapter.run(QUESTION).error)


def test_a_reply_cut_off_at_max_tokens_is_asked_again_with_its_strings_bounded(store: Path) -> None:
    found = hits(store, "retention period")
    replies = [
        {"action": "plan", "arguments": {"parts": ["retention period", "zzzqqq"]}},
        {"action": "search", "arguments": {"query": "retention period"}},
        {"action": "search", "arguments": {"query": "zzzqqq"}},
        {"action": "read", "arguments": {"id": found[0]}},
        RAMBLING,
        {"action": "answer", "answer": {"text": "21 days.", "cite": [found[0]]}},
    ]
    adapter, llm = _local(store, replies)
    adapter.max_turns = 5
    assert adapter.run(QUESTION).answer == f"21 days. [{found[0]}]"
    text = _options(llm.schemas[5])["answer"]["properties"]["answer"]["properties"]["text"]
    assert text == {"type": "string", "maxLength": BOUNDED_CHARS}
    assert "maxLength" not in _options(llm.schemas[4])["answer"]["properties"]["answer"]["properties"]["text"]


def test_the_last_turn_offers_only_the_answer_once_a_section_was_read(store: Path) -> None:
    """Offered more reading on its last turn, the model read on and hit the turn limit with the answer read."""
    found = hits(store, "retention period")
    replies = [
        {"action": "plan", "arguments": {"parts": ["retention period"]}},
        {"action": "search", "arguments": {"query": "retention period"}},
        {"action": "read", "arguments": {"id": found[0]}},
        {"action": "read", "arguments": {"id": found[1]}},
        {"action": "answer", "answer": {"text": "21 days.", "cite": [found[0]]}},
    ]
    adapter, llm = _local(store, replies)
    adapter.max_turns = 5
    assert adapter.retrieve(QUESTION, 5) == found[:2]
    assert set(_options(llm.schemas[3])) == {"read", "search", "grep", "answer"}  # not the last turn: free
    assert set(_options(llm.schemas[4])) == {"answer"}
    assert adapter.stats()["max_turns_hit"] == 0


def test_an_exact_repeat_of_a_call_is_refused_as_a_tool_error(store: Path, anthropic_env: Any) -> None:
    """Small models loop on one call; a repeat gets an error saying so instead of the same result again."""
    same = {"query": "travel booking"}
    script = [anth.tool_reply("search", same), anth.tool_reply("search", same), anth.text_reply("done")]
    with AnthropicFake(script=script) as fake:
        anthropic_env(fake)
        adapter = loop(store, mode="surfaced")
        adapter.retrieve(QUESTION, 5)
        first, repeat = tool_results(fake.bodies[-1])
    assert first.get("is_error") is not True and "hits" in first["content"]
    assert repeat["is_error"] is True and "already made this exact call" in repeat["content"]
    assert adapter.stats()["tool_calls"] == 2
