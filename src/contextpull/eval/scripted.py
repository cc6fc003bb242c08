"""The scripted pull policy: what the five tools make possible, with no model.

The model rows measure a model's habits as much as the tools (a 1.5B model
searches once and answers from snippets). This policy is the model-free
reference beside them: it drives the same tools through the same
:func:`~contextpull.tools.schemas.call_json` a model's tool calls go through,
deterministically, the way a careful agent would, and its "answer" is the
sections it read. Every step reads only the question, the corpus index and
tool results; nothing is fitted to a corpus or to the eval set's templates:

1. **families**: a token of the question written as a family (``TX-44xx``,
   ``LEDGERLINE_*``) becomes one grep for its members (``\\bTX-44\\d\\d\\b``),
   and every matching section is read: first those of the documents with
   the most matching sections (where the family is listed), in grep's order;
2. **named documents**: when the question names two variants of a document
   (titles and paths alike but for a word the question uses for each, such
   as ``2024`` and ``2025``), the question is searched within each of them
   (``in``) and the best section of each is read, one side after the other;
3. **the question**: one search as asked; its hits are read in rank order;
4. **tables**: a section that continues a table is followed by
   ``neighbours`` to see its header row, as the tool's description advises.

Reads stop at ``max_reads``; the row counts the ids read, in order.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from ..ops.operations import Ops
from ..tools.schemas import call_json
from .pull_record import PullRun, observe, summarise, unique

ROW_NAME = "pull reference: scripted policy, ids read (no model)"
SPEC = "scripted"
#: reads per question at most: enough for every member of a family, bounded for a broad one
MAX_READS = 12
#: a family token: a stem followed by ``*`` or by ``x`` placeholders after a digit (``TX-44xx``, ``V2.x``)
_FAMILY = re.compile(r"(?<![\w*])([A-Za-z][\w.-]*?)(\*|(?<=\d)x+\b)")
_WORD = re.compile(r"\w+")
_INDEX_LINE = re.compile(r"^\s*- (\S[^\n]*?) — ([^\n]*?)(?: \(\d[\d,]* sections?\))?$", re.MULTILINE)
#: two documents are variants when their title and path words, the naming ones aside, overlap this much
_SIBLING_OVERLAP = 0.5


def family_patterns(question: str) -> list[str]:
    """RE2 patterns for the families the question writes out, e.g. ``TX-44xx`` -> ``\\bTX-44\\d\\d\\b``."""
    patterns = []
    for stem, tail in _FAMILY.findall(question):
        if len(stem) < 2:
            continue
        members = r"\w+" if tail == "*" else r"\d" * len(tail)
        patterns.append(rf"\b{re.escape(stem)}{members}\b")
    return list(dict.fromkeys(patterns))


def index_entries(index_text: str) -> list[tuple[str, str]]:
    """``(path, title)`` of each document line of the index text (``- path — Title: summary (N sections)``),
    as a model reads them; a folder summarised in one line names no document."""
    entries = []
    for match in _INDEX_LINE.finditer(index_text):
        path, rest = match.groups()
        entries.append((path, rest.split(": ", 1)[0]))
    return entries


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}


def named_documents(question: str, documents: Iterable[tuple[str, str]]) -> list[str]:
    """Paths of the variants the question names, e.g. the 2024 and the 2025 policy in "… 2025 compared to 2024?".

    ``documents`` are ``(path, title)`` pairs from the index. Two documents
    are a named pair when each has a word of the question in its title or
    path that the other lacks, and what remains of their words is mostly
    shared (Jaccard at least :data:`_SIBLING_OVERLAP`): variants of one
    document, as a comparison names them. A word the two share never names
    either, and a document that merely contains some question word is no side.
    """
    entries = [(path, _words(f"{title} {path}")) for path, title in documents]
    asked = _words(question)
    named: set[str] = set()
    for position, (path_a, words_a) in enumerate(entries):
        for path_b, words_b in entries[position + 1 :]:
            only_a, only_b = (words_a - words_b) & asked, (words_b - words_a) & asked
            rest_a, rest_b = words_a - only_a, words_b - only_b
            overlap = len(rest_a & rest_b) / max(1, len(rest_a | rest_b))
            if only_a and only_b and overlap >= _SIBLING_OVERLAP:
                named.update((path_a, path_b))
    return sorted(named)


def by_listing_document(matches: Sequence[dict[str, Any]]) -> list[str]:
    """Grep's section ids, those of the documents with the most matching sections first (grep order within)."""
    per_document = Counter(match["doc"] for match in matches)
    ranked = sorted(enumerate(matches), key=lambda pair: (-per_document[pair[1]["doc"]], pair[0]))
    return [match["id"] for _, match in ranked]


class ScriptedPull:
    """The scripted policy as a bench adapter: ``retrieve`` runs it, ``stats`` gives the pull columns."""

    concurrency = 1
    model = "none"

    def __init__(self, store_path: str | Path, *, max_reads: int = MAX_READS) -> None:
        self._ops = Ops.open(Path(store_path))
        self.max_reads = max_reads
        self.runs: dict[str, PullRun] = {}

    def run(self, question: str, k: int) -> PullRun:
        """One question, start to finish: the tool calls it made and what they showed and returned."""
        started = time.perf_counter()
        record = PullRun(question=question, model=ROW_NAME)
        with self._ops.store.snapshot():
            _Policy(self._ops, record, k, self.max_reads).answer(question)
        record.wall_s = time.perf_counter() - started
        record.answer = " ".join(f"[{sid}]" for sid in unique(record.read_ids))
        return record

    def retrieve(self, query: str, k: int) -> list[str]:
        record = self.run(query, k)
        self.runs[query] = record
        return record.ranked("read", k)

    def stats(self) -> dict[str, Any]:
        return {**summarise(list(self.runs.values()), model=self.model), "mode": "read"}

    def close(self) -> None:
        self._ops.close()


class _Policy:
    """One question's tool calls; ``plan`` is the ids to read, in order."""

    def __init__(self, ops: Ops, record: PullRun, k: int, max_reads: int) -> None:
        self.ops = ops
        self.record = record
        self.k = k
        self.max_reads = max_reads
        self.plan: list[str] = []

    def call(self, name: str, **arguments: Any) -> dict[str, Any] | None:
        payload, is_error = call_json(self.ops, name, arguments)
        observe(self.record, name, arguments, payload, is_error)
        return None if is_error else payload

    def answer(self, question: str) -> None:
        for pattern in family_patterns(question):
            found = self.call("grep", pattern=pattern, regex=True, limit=self.max_reads)
            self.plan += by_listing_document((found or {}).get("matches", []))
        documents = index_entries(str((self.call("index") or {}).get("text", "")))
        sides = [self._best_in(question, path) for path in named_documents(question, documents)]
        self.plan += [sid for sid in sides if sid]
        found = self.call("search", query=question, limit=self.k, snippet=0)
        self.plan += [hit["id"] for hit in (found or {}).get("hits", [])]
        for sid in unique(self.plan)[: self.max_reads]:
            self._read(sid)

    def _best_in(self, question: str, path: str) -> str | None:
        found = self.call("search", query=question, **{"in": [path]}, limit=1, snippet=0)
        hits = (found or {}).get("hits", [])
        return hits[0]["id"] if hits else None

    def _read(self, sid: str) -> None:
        shown = self.call("read", id=sid)
        if shown is not None and shown.get("table_header_added"):
            self.call("neighbours", id=sid, before=0, after=0)
