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
2. **named documents**: when the question names two documents or more
   (variants told apart by words it uses, such as ``2024`` and ``2025``;
   a title it quotes; a file name or a whole path it uses; titles come from
   the index, or, when a large corpus's index is compact and shows none,
   from ``index(prefix=…)`` of the folders its best hits are in), the question is searched
   within each of them (``in``) and the best two sections of each are
   read: every side's best first, then every side's second (the question
   as a whole often ranks a side's neighbouring section first);
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
#: sections read of each named document: its best for the question first on every side, then its second
SIDE_READS = 2
#: sections a family's grep looks at: enough to see which documents list it
FAMILY_GREP_LIMIT = 100
_FAMILY = re.compile(r"(?<![\w*])([A-Za-z][\w.-]*?)(\*|(?<=\d)x+\b)")
_WORD = re.compile(r"\w+")
_COUNT = re.compile(r" \(\d[\d,]*(?: sections?)?\)$")
#: a document path written out in a question: folders and a file name with its extension
_PATH = re.compile(r"(?<![\w/.-])[\w.-]+(?:/[\w.-]+)+\.\w+(?![\w/])")
#: folders of the question's best hits listed with ``index(prefix=…)`` when the index shows no titles
TITLE_FOLDERS = 3


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
    """``(path, title)`` of each document line of the index text, as a model reads them: ``- path — Title:
    summary (N sections)``, or ``- path (N)`` in a compact index (no title: ``""``). A folder collapsed
    into one line (``- folder/ — N documents``) names no document."""
    entries = []
    for line in index_text.splitlines():
        if not line.lstrip().startswith("- "):
            continue
        path, _, rest = _COUNT.sub("", line.strip()[2:]).partition(" — ")
        if path and not path.endswith("/"):
            entries.append((path, rest.split(": ", 1)[0] if rest else ""))
    return entries


def written_paths(question: str) -> list[str]:
    """Document paths the question writes out in full (``docs/registry/attributes/k8s.md``)."""
    return list(dict.fromkeys(_PATH.findall(question)))


def _folder(path: str) -> str:
    return path.rsplit("/", 1)[0] + "/" if "/" in path else ""


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text)}


def _sequence(text: str) -> list[str]:
    return [word.casefold() for word in _WORD.findall(text)]


def _contains(words: Sequence[str], phrase: Sequence[str]) -> bool:
    width = len(phrase)
    return any(list(words[start : start + width]) == list(phrase) for start in range(len(words) - width + 1))


def _stem(path: str) -> str:
    return path.rsplit("/", 1)[-1].rsplit(".", 1)[0].casefold()


def named_documents(question: str, documents: Iterable[tuple[str, str]]) -> list[str]:
    """Paths of the documents a comparison names, each side by what tells it apart, or none.

    ``documents`` are ``(path, title)`` pairs from the index. A document is
    named by the question in one of two ways:

    - **variants**: two documents whose titles and paths differ only by
      words the question uses, one on each side ("… in 2025 compared to
      2024?" names the 2024 and the 2025 policy): everything that tells
      them apart is in the question;
    - **by name**: its title of two words or more appears in the question
      as a phrase ("… between Running commands in projects and Using
      tools?"), or its file name is a word of the question that names no
      other document ("… in Dependabot and Renovate?"; ``index`` names
      many documents, so it names none).

    A question that writes out two paths in full names those documents and
    no others (their folders' words would pair other documents by the
    first rule). Only documents listed with a title take part in the two
    rules. Only a question that names two documents or more compares them;
    one named document is left to the plain search.
    """
    written = written_paths(question)
    if len(written) >= 2:
        return sorted(written)
    entries = [(path, title, _words(f"{title} {path}")) for path, title in dict.fromkeys(documents) if title]
    asked, sequence = _words(question), _sequence(question)
    named: set[str] = set()
    for position, (path_a, _, words_a) in enumerate(entries):
        for path_b, _, words_b in entries[position + 1 :]:
            only_a, only_b = words_a - words_b, words_b - words_a
            if only_a and only_b and only_a <= asked and only_b <= asked:
                named.update((path_a, path_b))
    stems = Counter(_stem(path) for path, _, _ in entries)
    for path, title, _ in entries:
        phrase = _sequence(title)
        if (len(phrase) >= 2 and _contains(sequence, phrase)) or (stems[_stem(path)] == 1 and _stem(path) in asked):
            named.add(path)
    named.update(written)
    return sorted(named) if len(named) >= 2 else []


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
        members: list[str] = []
        for pattern in family_patterns(question):
            found = self.call("grep", pattern=pattern, regex=True, limit=FAMILY_GREP_LIMIT)
            members += by_listing_document((found or {}).get("matches", []))
        found = self.call("search", query=question, limit=self.k, snippet=0)
        hits = [hit["id"] for hit in (found or {}).get("hits", [])]
        documents = index_entries(str((self.call("index") or {}).get("text", "")))
        if not any(title for _, title in documents):  # a compact index: titles of the folders search points at
            folders = unique(_folder(str(hit["doc"])) for hit in (found or {}).get("hits", []))
            for folder in [folder for folder in folders if folder][:TITLE_FOLDERS]:
                documents += index_entries(str((self.call("index", prefix=folder) or {}).get("text", "")))
        sides = [self._best_in(question, path) for path in named_documents(question, documents)]
        if members:  # search ranks where a family is documented; grep finds the members it missed
            listed = set(members)
            self.plan += [sid for sid in hits if sid in listed] + members
        self.plan += [side[rank] for rank in range(SIDE_READS) for side in sides if rank < len(side)]
        self.plan += hits
        for sid in unique(self.plan)[: self.max_reads]:
            self._read(sid)

    def _best_in(self, question: str, path: str) -> list[str]:
        found = self.call("search", query=question, **{"in": [path]}, limit=SIDE_READS, snippet=0)
        return [hit["id"] for hit in (found or {}).get("hits", [])]

    def _read(self, sid: str) -> None:
        shown = self.call("read", id=sid)
        if shown is not None and shown.get("table_header_added"):
            self.call("neighbours", id=sid, before=0, after=0)
