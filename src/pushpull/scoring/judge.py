"""LLM judges for answers: faithfulness to the retrieved passages and correctness.

Only adapters with ``generate`` produce answers; the judge sees the question,
the passages the answer may rest on (the chunks retrieved, or what an adapter's
``evidence`` says it read) and the answer, and returns one boolean.
Calls go through the model layer (cached, counted in the spend line). A judge
failure raises ``ModelError``; the runner records that answer as unjudged,
never as faithful.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..jsonreply import parse_json_object
from ..models.base import Message, ModelError

FAITHFULNESS_SYSTEM = """You grade answers strictly. You see a question, the passages a system retrieved, and the answer it wrote.
Decide whether every factual claim in the answer is directly supported by the passages (style does not matter; an answer that says it cannot answer is supported)."""

CORRECTNESS_SYSTEM = """You grade answers strictly. You see a question, a reference answer taken from the source documents, and a system's answer.
Decide whether the system's answer states the same facts as the reference (extra correct detail is fine; a missing or contradicting key fact is not)."""

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"verdict": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["verdict", "reason"],
    "additionalProperties": False,
}


def _verdict(provider: Any, system: str, prompt: str) -> bool:
    completion = provider.complete(
        [Message(role="user", content=prompt)], system=system, json_schema=VERDICT_SCHEMA, max_tokens=200
    )
    reply = parse_json_object(completion.text)
    if not isinstance(reply.get("verdict"), bool):
        raise ModelError(f"judge reply has no boolean verdict: {completion.text[:120]!r}")
    return reply["verdict"]


def judge_faithfulness(provider: Any, question: str, passages: Sequence[tuple[str, str]], answer: str) -> bool | None:
    """True when every claim in ``answer`` is supported by ``passages`` (``(id, text)`` pairs); None without any."""
    return judge_faithfulness_to_texts(provider, question, [f"[{cid}]\n{text}" for cid, text in passages], answer)


def judge_faithfulness_to_texts(provider: Any, question: str, texts: Sequence[str], answer: str) -> bool | None:
    """True when every claim in ``answer`` is supported by ``texts``: passages the caller has
    already labelled (an adapter's ``evidence``).

    None, and no model call, when there are no texts: faithfulness to no
    evidence is undefined (a small judge shown "no passages" called every
    such answer faithful), so the answer is left unjudged rather than passed.
    """
    if not any(text.strip() for text in texts):
        return None
    context = "\n\n".join(texts)
    return _verdict(provider, FAITHFULNESS_SYSTEM, f"Question: {question}\n\nPassages:\n{context}\n\nAnswer:\n{answer}")


def judge_correctness(provider: Any, question: str, reference: str, answer: str) -> bool:
    """True when ``answer`` states the facts of ``reference``."""
    return _verdict(
        provider,
        CORRECTNESS_SYSTEM,
        f"Question: {question}\n\nReference answer:\n{reference}\n\nSystem answer:\n{answer}",
    )
