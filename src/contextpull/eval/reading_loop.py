"""The grammar that makes a small local model read: plan, search each part, read each, answer citing reads.

Left to itself under a grammar that allows any tool, Qwen2.5-Coder-1.5B made
one search per question and answered from its snippets: the published
"ids read" rows were 0.000 and 0.200. A grammar can require what a careful
agent does, turn by turn, without a word list or a rule about the corpus:

1. **plan**: the first reply gives two short search queries
   (``{"action": "plan", "arguments": {"parts": [...]}}``): one for each
   of the two things a comparison names (versions, documents, options), or
   for any other question two wordings of what it asks. Allowed one part,
   the model planned one query for a question naming two things and never
   searched the second side (comparison ids read 0.250 against search's
   1.000 on the bundled corpus); two wordings of a plain question cost one
   search more, and a read more only when the second wording's first three
   hits hold no section read for the first;
2. **search each part**: until every part has been searched, the only
   action is ``search`` with the query one of the parts not yet searched;
3. **read for each part, in each document it found**: until every
   document among a part's first two hits has a read section among the
   part's first three, the only action is ``read`` of one of those (left a
   search as well, the model repeated its search instead of reading). One
   read per part was not enough for a comparison: planned "the 2024 policy
   and the 2025 policy" as one query, the model read the 2024 section and
   let a 2025 section found by the other part stand for the second side
   (comparison strict reads 0.250 against search's 1.000, grammar v3);
   asking for a read in each document the part's best hits come from
   reads both sides without knowing which questions compare;
4. **answer**: ``{"text", "cite"}`` with ``cite`` limited to the ids read.

A question that names two documents or more by the index (their titles,
the words that tell two variants apart, their paths: the scripted policy's
rule, :func:`.scripted.named_documents`) is a comparison whose sides are
already known, so it takes no plan. Planned by the model, those sides were
missed for lack of turns or of the right section: the model read the
2024 policy's second section for a question about both policies' first,
and the projects page's neighbouring section beside the tools page's
(comparison strict reads 0.750 and 0.500 against search's 1.000 and
0.900, grammar v4). Instead:

1. **search the named documents**: the question itself, ``in`` the named
   documents, is the only action; when its hits come from one document
   only (the k8s pair of the semconv docs: ten hits of the entities page,
   none of the attributes page), it is searched once more ``in`` the named
   documents that showed no hit, so the second side is found too;
2. **read each side**: the first :data:`SIDE_READS` hits of each of the
   first :data:`SIDES` documents among its hits must be read, and until
   they are, the only action is ``read`` of one of them (each side's
   best first, then each side's second: the scripted policy's order).
   Offered a side's first two to choose one from, the model took the
   second for both policies (the booking clauses, not the editions'
   first sections that the question's gold names), and comparison went
   from 0.750 to 0.500 on the bundled sample; the question as a whole
   often ranks a side's neighbouring section first, so both are read;
3. **answer** as above, with the same free turn to read on first.

A part whose search found nothing needs no read, and once anything was
read the last turn offers only the answer (offered more reading too, the
model read on and ran out of turns with the right section read), so the
grammar never forces a turn-limit failure. The plan is a turn of the model, not a tool call: it is not among
the run's tool calls.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pushpull.models.local_provider import action_schema, answer_schema, turn_schema

from ..tools.schemas import TOOLS
from .pull_record import PullRun, unique

PLAN = "plan"
MAX_PARTS = 2
#: a part's reads are chosen among its first this many hits
READ_FROM = 3
#: each document among a part's first this many hits needs a read section
DOCS_FROM = 2
#: a question naming documents has a read in each of the first this many documents its search finds
SIDES = 2
#: the hits of each side's document that must be read: its best for the question, and the next
SIDE_READS = 2
#: bump when the grammar or its prompt changes: part of a run's cache key
VERSION = 6
PLAN_PROMPT = (
    "Work in steps. First reply with a plan: "
    '{"action": "plan", "arguments": {"parts": ["...", "..."]}}: two short search queries. When the question '
    "compares or names two things (two versions, documents, options or names), one query for each of them; "
    "for any other question, the question in a few words and then in other words. Then search each part, "
    "read a section of each document at the top of each part's hits, and answer citing the ids you read."
)
_PLAN_TOOL = {
    "name": PLAN,
    "input_schema": {
        "type": "object",
        "properties": {
            "parts": {
                "type": "array",
                "items": {"type": "string", "minLength": 2, "maxLength": 120},
                "minItems": MAX_PARTS,
                "maxItems": MAX_PARTS,
            }
        },
        "required": ["parts"],
    },
}
_BY_NAME = {tool["name"]: tool for tool in TOOLS}


@dataclass
class ReadingState:
    """What the grammar needs to know of a run: the plan's parts and which of them are done, or, for a
    question naming documents, its sides and which of them were read."""

    question: str = ""
    #: the documents the question names (two or more), or none: the model plans its parts
    documents: list[str] = field(default_factory=list)
    parts: list[str] | None = None
    #: part -> (id, document) of each hit its search showed (empty: searched, found nothing)
    hits: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    #: each side's first hits, from the search of the named documents (``None``: not searched yet)
    sides: list[list[str]] | None = None
    #: named documents that search showed no hit of, to search again (``None``: not searched yet)
    unshown: list[str] | None = None

    def planned(self, parts: list[str]) -> None:
        self.parts = list(dict.fromkeys(part.strip() for part in parts if part.strip()))[:MAX_PARTS] or ["?"]

    def searched(self, arguments: dict[str, Any], payload: dict[str, Any], is_error: bool) -> None:
        found = [] if is_error else payload.get("hits", [])
        side_filter = self.side_filter()
        if side_filter is not None and arguments.get("in") == side_filter:
            shown = unique(hit["doc"] for hit in found)
            sides = [[hit["id"] for hit in found if hit["doc"] == document][:SIDE_READS] for document in shown]
            self.sides = [*(self.sides or []), *sides][:SIDES]
            self.unshown = [] if self.unshown is not None else [doc for doc in self.documents if doc not in shown]
            return
        query = str(arguments.get("query", ""))
        if self.parts is not None and query in self.parts and query not in self.hits:
            self.hits[query] = [(hit["id"], hit["doc"]) for hit in found]

    def side_filter(self) -> list[str] | None:
        """The documents the next search must be in: all named ones first, then those it showed no hit of
        while fewer than :data:`SIDES` documents were found; ``None`` once the sides are known."""
        if not self.documents:
            return None
        if self.sides is None:
            return self.documents
        return self.unshown if self.unshown and len(self.sides) < SIDES else None

    def unread_sides(self, run: PullRun) -> list[str]:
        """The sides' sections still to read: every side's best first, then every side's second."""
        read = set(run.read_ids)
        sides = self.sides or []
        ranked = (side[rank] for rank in range(SIDE_READS) for side in sides if rank < len(side))
        return [sid for sid in ranked if sid not in read]

    def unread_hits(self, run: PullRun) -> list[str]:
        """The sections still to read: for each part, and each document among its first :data:`DOCS_FROM`
        hits that has no read section among the part's first :data:`READ_FROM`, those hits of it.

        Offered the whole hit list, the model read the fifth hit of one part
        as readily as the first; search ranks well, so the choice is among
        the first few.
        """
        read = set(run.read_ids)
        waiting: list[str] = []
        for found in self.hits.values():
            top = found[:READ_FROM]
            for document in unique(doc for _, doc in found[:DOCS_FROM]):
                of_document = [sid for sid, doc in top if doc == document]
                if not read.intersection(of_document):
                    waiting += of_document
        return unique(waiting)

    def schema(self, run: PullRun, *, last_turn: bool) -> dict[str, Any]:
        """The grammar of the next turn."""
        if self.documents:
            side_filter = self.side_filter()
            if side_filter is not None:
                return action_schema(_side_search(self.question, side_filter))
            waiting = self.unread_sides(run)
        elif self.parts is None:
            return action_schema(_PLAN_TOOL)
        else:
            unsearched = [part for part in self.parts if part not in self.hits]
            if unsearched:
                return action_schema(_with_enum(_BY_NAME["search"], "query", unsearched))
            waiting = self.unread_hits(run)
        read = unique(run.read_ids)
        if waiting and not (last_turn and read):
            return action_schema(_with_enum(_BY_NAME["read"], "id", waiting))
        if not read:  # every part's search came back empty: look again, or say so
            return turn_schema([_BY_NAME["search"], _BY_NAME["grep"]], allow_answer=last_turn)
        answer = {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "cite": {"type": "array", "items": {"enum": read}, "minItems": 1},
            },
            "required": ["text", "cite"],
            "additionalProperties": False,
        }
        if last_turn:
            return answer_schema(answer)
        seen = unique([*run.seen_ids, *read])
        tools = [_with_enum(_BY_NAME["read"], "id", seen), _BY_NAME["search"], _BY_NAME["grep"]]
        return turn_schema(tools, answer=answer)


#: the longest a free string may be when a turn is asked again after its reply was cut off at max_tokens
BOUNDED_CHARS = 600
#: the most items an open array may have then
BOUNDED_ITEMS = 8


def bounded(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every free string (no ``enum``, no ``maxLength``) at most :data:`BOUNDED_CHARS`
    long and every open array at most :data:`BOUNDED_ITEMS` long.

    The 1.5B model sometimes writes an answer that never ends (the same
    clause, or the same cited id, again and again) until ``max_tokens`` cuts
    its JSON off; asked again with a bound, it finishes.
    """
    if schema.get("type") == "string" and "maxLength" not in schema and "enum" not in schema:
        return {**schema, "maxLength": BOUNDED_CHARS}
    if schema.get("type") == "array" and "maxItems" not in schema:
        schema = {**schema, "maxItems": BOUNDED_ITEMS}
    return {key: _bounded_value(value) for key, value in schema.items()}


def _bounded_value(value: Any) -> Any:
    if isinstance(value, dict):
        return bounded(value)
    if isinstance(value, list):
        return [_bounded_value(item) for item in value]
    return value


def _side_search(question: str, documents: list[str]) -> dict[str, Any]:
    """The search tool with only one call left: the question, in the documents it names."""
    schema = {
        "type": "object",
        "properties": {"query": {"const": question}, "in": {"const": documents}},
        "required": ["query", "in"],
    }
    return {**_BY_NAME["search"], "input_schema": schema}


def _with_enum(tool: dict[str, Any], argument: str, values: list[str]) -> dict[str, Any]:
    schema = tool["input_schema"]
    properties = {**schema["properties"], argument: {"enum": values}}
    return {**tool, "input_schema": {**schema, "properties": properties}}
