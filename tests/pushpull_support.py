"""A small handmade corpus and a scripted model for the pushpull tests."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fakes import AnthropicFake, Request
from fakes.anthropic_server import tool_reply
from pushpull.chunks import Chunk, write_chunks
from pushpull.models.anthropic_provider import JSON_TOOL


def filler(tag: str, words: int = 30) -> str:
    """Padding unique to ``tag``, so chunks reach the phrasing length without resembling each other."""
    return " ".join(f"{tag}{i}" for i in range(words))


CHUNKS = [
    Chunk("errors.md#0", "# Errors\n\nTX-4401 means the card was declined by the issuer.", "errors.md"),
    Chunk(
        "errors.md#1", "## More\n\nTX-4419 is returned when the account is frozen. See payment_declined.", "errors.md"
    ),
    Chunk("codes.md#0", "# Codes\n\nTX-4420 signals a timeout. payment_expired happens after 30 days.", "codes.md"),
    # a table split between rows; the continuation carries no header
    Chunk(
        "fees.md#0",
        "# Fees\n\n| Plan | Monthly fee | Seats |\n|------|-------------|-------|\n| Starter | $10 | 3 |\n| Team | $45 | 20 |\n",
        "fees.md",
    ),
    Chunk("fees.md#1", "| Enterprise | $900 | 500 |\n| Nonprofit | $5 | 10 |\n", "fees.md"),
    # a table split the way ContextPull exports it: the header repeated on the continuation
    Chunk("limits.md#0", "# Limits\n\n| Region | Daily cap |\n|---|---|\n| Tokyo | 250 |\n", "limits.md"),
    Chunk("limits.md#1", "| Region | Daily cap |\n|---|---|\n| Lisbon | 180 |\n", "limits.md"),
    Chunk("faq.md#0", "# FAQ\n\nThe Tokyo daily cap is 250 per traveller. " + filler("faq"), "faq.md"),
    Chunk(
        "policy-2024.md#0",
        "# Travel 2024\n\nBook flights 14 days ahead. Hotels up to 150 per night. Meals are covered up to 40 per day for every trip abroad. "
        + filler("travel", 10),
        "policy-2024.md",
    ),
    Chunk(
        "policy-2025.md#0",
        "# Travel 2025\n\nBook flights 21 days ahead. Hotels up to 180 per night. Meals are covered up to 40 per day for every trip abroad. "
        + filler("travel", 10),
        "policy-2025.md",
    ),
    Chunk(
        "other.md#0",
        "# Other\n\nThe retry budget is set by MAX_RETRY_BUDGET and resets hourly. " + filler("other"),
        "other.md",
    ),
]


def chunk_file(folder: Path) -> Path:
    path = folder / "chunks.jsonl"
    write_chunks(CHUNKS, path)
    return path


#: identifiers the scripted model never quotes (template fallback) or quotes only when told twice (retry)
NEVER_QUOTED = "TX-4420"
QUOTED_ON_RETRY = "TX-4419"


def _phrasing_reply(system: str, prompt: str) -> dict[str, Any]:
    """What a diligent (and, for two identifiers, a careless) model writes for the eval-set builder."""
    if "two documents" in system:
        return {"q": "How did the hotel limit change between the 2024 and 2025 travel policies?", "a": "150 to 180"}
    if "whole list" in system:  # re-wording an aggregation question: the payment family keeps its notation
        names = re.match(r"Names: (.+)", prompt)
        listed = names.group(1) if names else ""
        if "TX-" in listed:
            return {"q": "Which error codes can a declined or failed card payment return?", "a": listed}
        return {"q": "Which payment_ events are there?", "a": listed}
    ident = re.match(r"Identifier: (.+)", prompt)
    if ident:
        name = ident.group(1)
        quoted = name != NEVER_QUOTED and (name != QUOTED_ON_RETRY or "character for character" in prompt)
        return {
            "q": f"What does {name} control?" if quoted else "What does that error code mean?",
            "a": "as the passage says",
        }
    heading = re.search(r"^# (.+)$", prompt, re.MULTILINE)
    topic = heading.group(1) if heading else "the product"
    return {"q": f"How does {topic} work for a new customer?", "a": "as described"}


def _passage_reply(body: dict[str, Any]) -> dict[str, Any]:
    """The scripted reply to one request, as the forced JSON tool call."""
    prompt = body["messages"][-1]["content"]
    prompt = prompt if isinstance(prompt, str) else prompt[0]["text"]
    system = body.get("system", "")
    system = system if isinstance(system, str) else " ".join(block["text"] for block in system)
    if "grade answers" in system:
        return tool_reply(JSON_TOOL, {"verdict": "Tokyo" in prompt, "reason": "scripted"})
    return tool_reply(JSON_TOOL, _phrasing_reply(system, prompt))


def scripted_model(request: Request) -> dict[str, Any]:
    return _passage_reply(request.body)


__all__ = ["CHUNKS", "NEVER_QUOTED", "QUOTED_ON_RETRY", "AnthropicFake", "chunk_file", "scripted_model"]
