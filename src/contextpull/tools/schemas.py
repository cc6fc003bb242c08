"""The five tools' schemas, declared once, and the one dispatcher that serves them.

:data:`TOOLS` is in Anthropic's shape; :func:`openai_tools` wraps the same
schemas for OpenAI-style APIs. :func:`call` validates arguments against the
schema with a small validator for the JSON Schema subset used here (types,
required, ``additionalProperties: false``, bounds, ``enum``, ``anyOf``), so a bad call
gets a precise :class:`ToolError` naming the argument, then runs the
operation and returns its JSON-ready dict. :func:`call_json` is what the MCP
server and the API loop use: every error looks the same everywhere.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..errors import ContextPullError, MissingArgument, OutOfRange, UnknownArgument, UnknownTool, WrongType
from ..ops.grep import PATTERN_MAX
from ..ops.hybrid import MODES
from ..ops.library import Library
from ..ops.operations import (
    CONTEXT,
    DEFAULT_GREP_LIMIT,
    DEFAULT_SEARCH_LIMIT,
    FILTER_PATTERNS,
    GREP_LIMIT,
    ID_LENGTH,
    PREFIX_LENGTH,
    QUERY_LENGTH,
    SEARCH_LIMIT,
    SNIPPET_WIDTH,
    Ops,
)
from ..ops.snippets import DEFAULT_SNIPPET
from .budget import DEFAULT_MAX_RESULT_CHARS, fit, read_from
from .instructions import CITE

Schema = dict[str, Any]
#: bounds of read's ``offset``: the size cap of a stored section is the file size limit
READ_OFFSET = (0, 1 << 30)


def _integer(bounds: tuple[int, int], default: int, description: str) -> Schema:
    low, high = bounds
    return {"type": "integer", "minimum": low, "maximum": high, "default": default, "description": description}


def _string(bounds: tuple[int, int], description: str) -> Schema:
    return {"type": "string", "minLength": bounds[0], "maxLength": bounds[1], "description": description}


def _tool(name: str, description: str, properties: Schema, required: list[str]) -> Schema:
    return {
        "name": name,
        "description": f"{description} {CITE}",
        "input_schema": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }


_SECTION_ID = _string(ID_LENGTH, "A section id from search, grep or the index, like guides/install.md#3.")
_PATH_FILTER: Schema = {
    "anyOf": [
        {"type": "string", "maxLength": 1000},
        {
            "type": "array",
            "items": {"type": "string", "maxLength": 1000},
            "maxItems": FILTER_PATTERNS,
        },
    ],
    "description": "Optional. Only documents whose path matches this glob, folder or file "
    "(or any of a list), taken from the index; omit it to cover the whole corpus.",
}

TOOLS: list[Schema] = [
    _tool(
        "index",
        "The corpus table of contents: documents with titles and section counts. "
        "Without prefix, the stored index; with prefix, the documents under that folder or path.",
        {"prefix": _string(PREFIX_LENGTH, "A folder or path prefix, e.g. 'guides/'.")},
        [],
    ),
    _tool(
        "search",
        "Ranked pointers to the sections that match some words: id, document, heading path, kind, "
        "pages (PDF only), how it matched (phrase, all, any or vector) and a snippet with matched terms in "
        "**bold**, never the full text. Ordered by relevance: rare words count most, a heading or title match "
        "more than the text, an exact phrase or identifier gets a bonus. weak: true means no strong match (the "
        "corpus lacks the query's key words): rephrase or grep rather than read these hits as the answer.",
        {
            "query": _string(
                QUERY_LENGTH,
                "Words to look for; an identifier (an environment variable, a flag, an error code, a dotted "
                "key) works as a word, and a prefix ending in * (like ERR_* or config.*) finds every identifier "
                "that starts with it.",
            ),
            "in": _PATH_FILTER,
            "limit": _integer(SEARCH_LIMIT, DEFAULT_SEARCH_LIMIT, "How many hits at most."),
            "snippet": _integer(SNIPPET_WIDTH, DEFAULT_SNIPPET, "Snippet width in characters; 0 for headings only."),
            "mode": {
                "type": "string",
                "enum": list(MODES),
                "default": "auto",
                "description": "lexical ranks by the words; hybrid also ranks by meaning (section vectors, "
                "when the store has them) and fuses both; auto is hybrid when the store has vectors.",
            },
        },
        ["query"],
    ),
    _tool(
        "read",
        "One section's text verbatim, with its heading path, kind, pages (PDF only) and the ids of the "
        "previous and next sections. A continued table part starts with its header row. context adds that many "
        "neighbouring sections on each side, marked as context. A very long text is cut; the result's "
        "truncated.offset says where to read on.",
        {
            "id": _SECTION_ID,
            "context": _integer(CONTEXT, 0, "Neighbouring sections to add on each side."),
            "offset": _integer(READ_OFFSET, 0, "Start the text at this character (from truncated.offset)."),
        },
        ["id"],
    ),
    _tool(
        "grep",
        "Sections that contain an exact string (case-insensitive, Unicode-aware), one matching line "
        "each, in document order; truncated is true when there are more. Use it for codes, flags, "
        "numbers and error messages. regex=true takes an RE2 regular expression (no backreferences or lookaround).",
        {
            "pattern": _string((1, PATTERN_MAX), "The text (or RE2 regex) to find."),
            "in": _PATH_FILTER,
            "regex": {"type": "boolean", "default": False, "description": "Treat pattern as a regular expression."},
            "limit": _integer(GREP_LIMIT, DEFAULT_GREP_LIMIT, "How many matching sections at most."),
        },
        ["pattern"],
    ),
    _tool(
        "neighbours",
        "The sections just before and after a section in its document, text verbatim, stopping at the "
        "document's edges; for a continued table part, also the section holding the table's header.",
        {
            "id": _SECTION_ID,
            "before": _integer(CONTEXT, 1, "Sections before."),
            "after": _integer(CONTEXT, 1, "Sections after."),
        },
        ["id"],
    ),
]

#: short hash of the schemas alone (names, descriptions, arguments). What the tools *return* is
#: not in it: pull-run caches are keyed on the behaviour fingerprint (contextpull/eval/fingerprint.py)
TOOLS_VERSION = hashlib.sha256(json.dumps(TOOLS, sort_keys=True).encode("utf-8")).hexdigest()[:12]

_BY_NAME = {tool["name"]: tool for tool in TOOLS}
#: the tools that take ``collection`` when several collections are served
SCOPED = ("index", "search", "grep")


def _scoped(arguments: Mapping[str, Any]) -> dict[str, Any]:
    return {"collection": arguments["collection"]} if "collection" in arguments else {}


_DISPATCH: dict[str, Callable[..., Any]] = {
    "index": lambda ops, a: ops.index(a.get("prefix"), **_scoped(a)),
    "search": lambda ops, a: ops.search(
        a["query"],
        a.get("in"),
        a.get("limit", DEFAULT_SEARCH_LIMIT),
        a.get("snippet"),
        a.get("mode", "auto"),
        **_scoped(a),
    ),
    "read": lambda ops, a: read_from(ops.read(a["id"], a.get("context", 0)).to_dict(), a.get("offset", 0)),
    "grep": lambda ops, a: ops.grep(
        a["pattern"], a.get("in"), a.get("regex", False), a.get("limit", DEFAULT_GREP_LIMIT), **_scoped(a)
    ),
    "neighbours": lambda ops, a: ops.neighbours(a["id"], a.get("before", 1), a.get("after", 1)),
}


def library_tools(collections: Sequence[str]) -> list[Schema]:
    """The five tools for several collections: ``index``, ``search`` and ``grep`` take ``collection``.

    One store is served with :data:`TOOLS` exactly (no ``collection``), so
    what a model sees of a single corpus does not change with this feature.
    """
    names = ", ".join(collections)
    collection: Schema = {
        "type": "string",
        "enum": list(collections),
        "description": f"Optional. Only this collection ({names}); omit it to cover them all.",
    }
    tools = copy.deepcopy(TOOLS)
    for tool in tools:
        if tool["name"] in SCOPED:
            tool["input_schema"]["properties"]["collection"] = collection
    return tools


def openai_tools() -> list[Schema]:
    """The same tools in OpenAI's function-calling shape."""
    return [
        {
            "type": "function",
            "function": {"name": t["name"], "description": t["description"], "parameters": t["input_schema"]},
        }
        for t in TOOLS
    ]


def call(
    ops: Ops | Library,
    name: str,
    arguments: Mapping[str, Any] | None,
    *,
    max_chars: int = DEFAULT_MAX_RESULT_CHARS,
    tools: Sequence[Schema] | None = None,
) -> dict[str, Any]:
    """Validate ``arguments`` for tool ``name``, run it, return the JSON-ready result.

    ``tools`` are the schemas to validate against: :data:`TOOLS` for one
    store, :func:`library_tools` for a :class:`Library`.

    The result's JSON is at most ``max_chars`` characters (:func:`~contextpull.tools.budget.fit`).
    Raises :class:`UnknownTool`, the :class:`BadArgument` family
    (:class:`MissingArgument`, :class:`UnknownArgument`, :class:`WrongType`,
    :class:`OutOfRange`) or whatever the operation raises.
    """
    by_name = _BY_NAME if tools is None else {tool["name"]: tool for tool in tools}
    tool = by_name.get(name)
    if tool is None:
        raise UnknownTool(f"there is no tool {name!r}", f"use one of: {', '.join(_BY_NAME)}")
    args = validate(tool["input_schema"], {} if arguments is None else arguments, name)
    result: Any = _DISPATCH[name](ops, args)
    return fit(dict(result if isinstance(result, dict) else result.to_dict()), max_chars, name, args)


def call_json(
    ops: Ops | Library,
    name: str,
    arguments: Mapping[str, Any] | None,
    *,
    max_chars: int = DEFAULT_MAX_RESULT_CHARS,
    tools: Sequence[Schema] | None = None,
) -> tuple[dict[str, Any], bool]:
    """``(payload, is_error)``: the result, or the error's ``to_dict()`` for any :class:`ContextPullError`."""
    try:
        return call(ops, name, arguments, max_chars=max_chars, tools=tools), False
    except ContextPullError as err:
        return err.to_dict(), True


def validate(schema: Schema, arguments: object, tool: str) -> dict[str, Any]:
    """Check ``arguments`` against a tool's object schema; returns them with integral floats as ints."""
    if not isinstance(arguments, Mapping):
        raise WrongType(
            f"{tool}: arguments must be a JSON object, got {_json_type(arguments)}",
            "pass arguments as an object of name: value",
        )
    properties: dict[str, Schema] = schema["properties"]
    unknown = sorted(set(arguments) - set(properties))
    if unknown:
        raise UnknownArgument(
            f"{tool}: unknown argument {unknown[0]!r}",
            f"{tool} takes: {', '.join(properties) or 'no arguments'}",
        )
    for required in schema.get("required", []):
        if required not in arguments:
            raise MissingArgument(f"{tool}: missing required argument {required!r}", f"pass {required}")
    return {key: _check(properties[key], value, f"{tool}: {key}") for key, value in arguments.items()}


def _check(schema: Schema, value: Any, where: str) -> Any:
    if "anyOf" in schema:
        for option in schema["anyOf"]:
            try:
                _coerce(option["type"], value, where)
            except WrongType:
                continue
            return _check(option, value, where)
        kinds = " or ".join(_article(option["type"]) for option in schema["anyOf"])
        raise WrongType(f"{where} must be {kinds}, got {_json_type(value)}", "see the tool's input schema")
    expected = schema["type"]
    value = _coerce(expected, value, where)
    if "enum" in schema and value not in schema["enum"]:
        raise OutOfRange(
            f"{where} must be one of {', '.join(map(str, schema['enum']))}, got {value!r}",
            "see the tool's input schema",
        )
    if expected == "string":
        _bounds(len(value), schema.get("minLength"), schema.get("maxLength"), where, "length")
    elif expected == "integer":
        _bounds(value, schema.get("minimum"), schema.get("maximum"), where, "value")
    elif expected == "array":
        _bounds(len(value), schema.get("minItems"), schema.get("maxItems"), where, "number of items")
        value = [_check(schema["items"], item, f"{where}[{i}]") for i, item in enumerate(value)]
    return value


def _coerce(expected: str, value: Any, where: str) -> Any:
    if expected == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    ok = {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
        "array": isinstance(value, list),
    }[expected]
    if not ok:
        raise WrongType(f"{where} must be {_article(expected)}, got {_json_type(value)}", "see the tool's input schema")
    return value


def _bounds(measure: int, low: int | None, high: int | None, where: str, what: str) -> None:
    if (low is not None and measure < low) or (high is not None and measure > high):
        span = f"{low if low is not None else 0} to {high}" if high is not None else f"at least {low}"
        raise OutOfRange(f"{where} {what} must be {span}, got {measure}", "see the tool's input schema")


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def _article(kind: str) -> str:
    return {"integer": "an integer", "array": "an array"}.get(kind, f"a {kind}")
