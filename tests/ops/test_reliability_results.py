"""Every tool result fits its size cap and says how to read on."""

from __future__ import annotations

import json

import pytest

from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.tools.budget import DEFAULT_MAX_RESULT_CHARS, json_size
from contextpull.tools.schemas import call_json

#: an unclosed fence makes the rest of the document one indivisible section
UNCLOSED = "# Log\n\n```\n" + "".join(f"line {n}: payment TX-{n:05d} settled\n" for n in range(20_000))


@pytest.fixture
def ops(make_corpus, tmp_path):
    root = make_corpus({"log.md": UNCLOSED, "small.md": "# Small\n\nTX-00001 is also here.\n"})
    ingest(root, tmp_path / "store.sqlite")
    with Ops.open(tmp_path / "store.sqlite") as opened:
        yield opened


def test_a_huge_section_is_read_in_capped_parts_that_add_up(ops):
    sid = next(hit.id for hit in ops.search("TX-19999").hits if hit.id.startswith("log.md"))
    whole = ops.read(sid).section.text
    assert len(whole) > 3 * DEFAULT_MAX_RESULT_CHARS
    parts, offset = [], 0
    for _ in range(20):
        arguments = {"id": sid, "offset": offset} if offset else {"id": sid}
        payload, is_error = call_json(ops, "read", arguments)
        assert not is_error and json_size(payload) <= DEFAULT_MAX_RESULT_CHARS
        note = payload.get("truncated")
        parts.append(payload["text"].removesuffix("…") if note and "offset" in note else payload["text"])
        if not note or "offset" not in note:
            break
        assert str(note["offset"]) in note["next"]
        offset = note["offset"]
    assert "".join(parts) == whole


@pytest.mark.parametrize("cap", [2_000, 20_000])
def test_every_tool_respects_a_configured_cap(ops, cap):
    sid = ops.search("TX-19999").hits[0].id
    calls = [
        ("read", {"id": sid, "context": 1}),
        ("grep", {"pattern": "settled", "limit": 50}),
        ("search", {"query": "payment settled", "limit": 50, "snippet": 400}),
        ("neighbours", {"id": sid}),
        ("index", {}),
    ]
    for name, arguments in calls:
        payload, is_error = call_json(ops, name, arguments, max_chars=cap)
        assert not is_error, payload
        assert len(json.dumps(payload, ensure_ascii=False)) <= cap, name


def test_an_offset_past_the_end_is_a_tool_error(ops):
    payload, is_error = call_json(ops, "read", {"id": "small.md#0", "offset": 10_000})
    assert is_error and payload["error"] == "out_of_range"
