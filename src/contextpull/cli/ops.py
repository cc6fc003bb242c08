"""The operation commands: ``index``, ``search``, ``read``, ``grep``, ``neighbours``,
plus ``export-chunks``, ``tools-json`` and ``claude-md``.

Each command opens the store read-only, makes one library call and renders
the result (readable text, or the result's ``to_dict()`` with ``--json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from ..ops.hybrid import MODES
from ..ops.operations import DEFAULT_GREP_LIMIT, DEFAULT_SEARCH_LIMIT, Ops
from ..ops.results import GrepLine, GrepResult, NeighboursResult, ReadResult, SearchResult, SectionView
from ..syntax import CLI
from ..tools.budget import DEFAULT_MAX_RESULT_CHARS, fit, read_from
from .common import add_json_option, add_store_option, emit, resolve_store_path

Handler = Callable[[Ops, argparse.Namespace], Any]
#: matching lines per section the CLI shows by default; a person reads them all, a model's tool shows one
CLI_GREP_LINES = 10


def register(subparsers: argparse._SubParsersAction) -> None:
    index = _store_command(subparsers, "index", "print the corpus index (table of contents)", _index)
    index.add_argument(
        "--prefix",
        metavar="P",
        help="only the documents under this folder or path prefix; a document's path lists its sections",
    )

    search = _store_command(subparsers, "search", "ranked pointers to matching sections (no bodies)", _search)
    search.add_argument("query", metavar="QUERY", help="words to look for")
    _add_filter(search)
    search.add_argument("--limit", type=int, default=DEFAULT_SEARCH_LIMIT, metavar="N", help="hits at most (1-50)")
    search.add_argument("--snippet", type=int, metavar="N", help="snippet width in characters; 0 for headings only")
    search.add_argument(
        "--mode",
        choices=MODES,
        default="auto",
        help="lexical (words), hybrid (words + section vectors), auto: hybrid when the store has vectors",
    )

    read = _store_command(subparsers, "read", "print a section verbatim", _read)
    read.add_argument("id", metavar="ID", help="section id, like guides/install.md#3")
    read.add_argument("--context", type=int, default=0, metavar="N", help="neighbouring sections on each side (0-5)")
    read.add_argument(
        "--offset", type=int, default=0, metavar="N", help="start the text at this character (truncated.offset)"
    )

    grep = _store_command(subparsers, "grep", "sections containing an exact string or RE2 regex", _grep)
    grep.add_argument("pattern", metavar="PATTERN", help="text to find (case-insensitive)")
    _add_filter(grep)
    grep.add_argument("--regex", action="store_true", help="treat PATTERN as an RE2 regular expression")
    grep.add_argument(
        "--limit", type=int, default=DEFAULT_GREP_LIMIT, metavar="N", help="matching sections at most (1-100)"
    )
    grep.add_argument(
        "--lines",
        type=int,
        default=CLI_GREP_LINES,
        metavar="N",
        help=f"matching lines shown per section (1-50, default {CLI_GREP_LINES})",
    )

    neighbours = _store_command(subparsers, "neighbours", "the sections around a section", _neighbours)
    neighbours.add_argument("id", metavar="ID", help="section id, like guides/install.md#3")
    neighbours.add_argument("--before", type=int, default=1, metavar="N", help="sections before (0-5)")
    neighbours.add_argument("--after", type=int, default=1, metavar="N", help="sections after (0-5)")

    export = subparsers.add_parser(
        "export-chunks",
        help="write every section as JSON lines {id, text, source}",
        description="Every section in document order as one JSON object per line: id, text (as "
        "`read` shows it, so continued tables carry their header) and source (the document path).",
    )
    add_store_option(export)
    export.add_argument("--out", type=Path, metavar="FILE", help="write here instead of stdout")
    add_json_option(export, "with --out: print what was written as JSON (the chunks are JSON lines either way)")
    export.set_defaults(func=_export_chunks)

    tools_json = subparsers.add_parser(
        "tools-json",
        help="print the five tool schemas as JSON",
        description="Print the schemas of index, search, read, grep and neighbours, for a tool loop "
        "in any language: the Anthropic tool shape, or with --format openai the OpenAI function shape.",
    )
    tools_json.add_argument(
        "--format", choices=("anthropic", "openai"), default="anthropic", help="schema shape (default: anthropic)"
    )
    tools_json.set_defaults(func=_tools_json)

    claude = subparsers.add_parser(
        "claude-md",
        help="print a CLAUDE.md snippet about the tools",
        description="Print the instructions that tell a model to pull (index, search, then read and cite) "
        "instead of guessing; append them to a project's CLAUDE.md: contextpull claude-md >> CLAUDE.md",
    )
    claude.set_defaults(func=_claude_md)


def _store_command(
    subparsers: argparse._SubParsersAction, name: str, help_text: str, handler: Handler
) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".")
    add_store_option(parser)
    add_json_option(parser)
    parser.add_argument(
        "--max-chars",
        type=int,
        default=DEFAULT_MAX_RESULT_CHARS,
        metavar="N",
        help=f"cap --json at N characters as the tools do, saying where to go on (default {DEFAULT_MAX_RESULT_CHARS:,};"
        " 0: no cap)",
    )

    def run(args: argparse.Namespace) -> int:
        if args.max_chars < 0:
            parser.error("--max-chars must be 0 or more")
        with Ops.open(resolve_store_path(args), syntax=CLI) as ops:
            result = handler(ops, args)
            data = result.to_dict()
            if args.json and args.max_chars:
                data = fit(data, args.max_chars, name, vars(args), CLI)
            emit(args, data, lambda _: _RENDER[name](result))
        return 0

    parser.set_defaults(func=run)
    return parser


def _add_filter(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--in",
        dest="in_",
        action="append",
        metavar="GLOB",
        help="only documents matching this path glob or folder (repeatable)",
    )


@dataclass(frozen=True)
class _IndexView:
    """The index text, and for ``--json`` the documents it covers with their titles, summaries and counts."""

    result: Any
    documents: list[dict[str, Any]]

    @property
    def text(self) -> str:
        return str(self.result.text)

    def to_dict(self) -> dict[str, Any]:
        return {**self.result.to_dict(), "documents": self.documents}


def _index(ops: Ops, args: argparse.Namespace) -> Any:
    result = ops.index(args.prefix)
    documents = [asdict(entry) for entry in ops.store.documents(args.prefix or "")]
    return _IndexView(result, documents)


def _search(ops: Ops, args: argparse.Namespace) -> Any:
    return ops.search(args.query, args.in_, args.limit, args.snippet, args.mode)


@dataclass(frozen=True)
class _ReadView:
    """A read from character ``offset`` on (``--offset``, to go on after a capped ``--json``)."""

    result: ReadResult
    offset: int
    #: ``read_from`` of the result's JSON, made once: it refuses an offset past the end before anything prints
    payload: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.payload

    def shown(self) -> ReadResult:
        section = self.result.section
        return replace(self.result, section=replace(section, text=section.text[self.offset :]))


def _read(ops: Ops, args: argparse.Namespace) -> Any:
    result = ops.read(args.id, args.context)
    return _ReadView(result, args.offset, read_from(result.to_dict(), args.offset))


def _grep(ops: Ops, args: argparse.Namespace) -> Any:
    return ops.grep(args.pattern, args.in_, args.regex, args.limit, args.lines)


def _neighbours(ops: Ops, args: argparse.Namespace) -> Any:
    return ops.neighbours(args.id, args.before, args.after)


def _export_chunks(args: argparse.Namespace) -> int:
    store_path = resolve_store_path(args)
    with Ops.open(store_path) as ops:
        if args.out is None:
            _write_chunks(ops, sys.stdout)
            return 0
        with open(args.out, "w", encoding="utf-8") as out:
            count = _write_chunks(ops, out)
    written = {"out": str(args.out), "chunks": count, "store": str(store_path)}
    emit(args, written, lambda data: f"wrote {data['chunks']:,} chunks to {data['out']}")
    return 0


def _write_chunks(ops: Ops, out: Any) -> int:
    count = 0
    for count, chunk in enumerate(ops.chunks(), 1):
        out.write(json.dumps(chunk, ensure_ascii=False) + "\n")
    out.flush()
    return count


def _tools_json(args: argparse.Namespace) -> int:
    from ..tools.schemas import TOOLS, openai_tools  # here: the other commands need no schemas

    return _write(json.dumps(TOOLS if args.format == "anthropic" else openai_tools(), indent=2, ensure_ascii=False))


def _claude_md(args: argparse.Namespace) -> int:
    from ..tools.instructions import claude_md

    return _write(claude_md())


def _write(text: str) -> int:
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()
    return 0


# --- readable rendering -------------------------------------------------------
def _heading(view_id: str, heading_path: tuple[str, ...], kind: str, pages: tuple[int, int] | None = None) -> str:
    where = ""
    if pages is not None:
        where = f", page {pages[0]}" if pages[0] == pages[1] else f", pages {pages[0]}-{pages[1]}"
    return f"[{view_id}] {' > '.join(heading_path)} ({kind}{where})"


def _render_search(result: SearchResult) -> str:
    lines = []
    for hit in result.hits:
        lines.append(f"{_heading(hit.id, hit.heading_path, hit.kind, hit.pages)}  score {hit.score:g}")
        if hit.snippet:
            lines.append(f"    {hit.snippet}")
    if result.hint:
        lines.append(f"({result.hint})" if result.hits else f"(no hits: {result.hint})")
    return "\n".join(lines)


def _render_view(view: SectionView) -> str:
    label = "context " if view.context else ""
    note = " [table header added]" if view.table_header_added else ""
    return f"--- {label}{_heading(view.id, view.heading_path, view.kind, view.pages)}{note}\n{view.text.rstrip()}"


def _render_read(result: ReadResult) -> str:
    parts = [_render_view(v) for v in (*result.before, result.section, *result.after)]
    parts.append(f"(previous: {result.prev_id or 'none'}; next: {result.next_id or 'none'})")
    return "\n".join(parts)


def _render_neighbours(result: NeighboursResult) -> str:
    parts = []
    if result.table_header_section is not None:
        parts.append("table header section:\n" + _render_view(result.table_header_section))
    parts += [_render_view(v) for v in result.before]
    parts.append(f"--- ({result.id} itself: use read)")
    parts += [_render_view(v) for v in result.after]
    return "\n".join(parts)


def _render_grep(result: GrepResult) -> str:
    lines = []
    for match in result.matches:
        lines.append(f"[{match.id}] {' > '.join(match.heading_path)}")
        for shown in (GrepLine(match.line_number, match.line), *match.more_lines):
            lines.append(f"  {match.doc}:{shown.line_number}: {shown.line}")
    if result.truncated:
        lines.append("(truncated: more sections match; raise --limit or narrow with --in)")
    if result.hint:
        lines.append(f"({result.hint})")
    return "\n".join(lines)


_RENDER: dict[str, Callable[[Any], str]] = {
    "index": lambda result: result.text,
    "search": _render_search,
    "read": lambda view: _render_read(view.shown()),
    "grep": _render_grep,
    "neighbours": _render_neighbours,
}
