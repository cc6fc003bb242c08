"""Latency of the five operations on one store: p50 and p95 per operation, in milliseconds.

    python benchmarks/latency.py STORE [--rounds N] [--json]
    python benchmarks/scale.py 100000 --latency      # on a synthetic 100k-section store

Queries are drawn from the store itself (seeded, so two runs measure the same
calls): rare identifiers (compound terms found in at most a few sections),
prefixes (an identifier typed in part, ``UV_CACHE``, or with ``*``: ``tool.uv.*``,
``--no-*``, and the first piece of each rare identifier with ``*``), the two
most common content words, ten-word questions (the first ten distinct words
of sampled sections), comparisons (the first five of one sampled section and
of another around ``and``, content words only, kept when they name two things:
each ranks three times, ``ops/sides.py``), random section ids, top-level folders, rare and common
literals for grep. Targets at 100,000 sections (issue 9 for search):
identifier and prefix search p50 <= 2 ms, common-word search p50 <= 25 ms,
a ten-word question p50 <= 40 ms, literal grep over the whole corpus p50 <= 15
ms, read and neighbours p50 < 0.2 ms.
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import re
import sqlite3
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from contextpull.analysis.terms import STOPWORDS, analyse_query, index_terms, is_compound, tokens
from contextpull.ops.operations import Ops
from contextpull.ops.sides import named_things
from contextpull.store.queries import fts_quote

SAMPLE = 200
RARE_MAX = 5
QUESTION_WORDS = 10
#: prefixes typed as a user would, beside those derived from the store
PREFIXES = ["UV_CACHE", "tool.uv.*", "--no-*", "PIP_*"]
TARGETS_MS = {
    "search_identifier": ("p50", 2.0),
    "search_prefix": ("p50", 2.0),
    "search_two_common_words": ("p50", 25.0),
    "search_ten_word_question": ("p50", 40.0),
    "grep_literal_rare": ("p50", 15.0),
    "grep_literal_common": ("p50", 15.0),
    "read": ("p50", 0.2),
    "neighbours": ("p50", 0.2),
}


def _document_frequency(conn: sqlite3.Connection, term: str) -> int:
    sql = "SELECT count(*) FROM sections_fts WHERE sections_fts MATCH ?"
    return int(conn.execute(sql, (fts_quote(term),)).fetchone()[0])


def _question(text: str) -> str | None:
    """The first ten distinct words of ``text`` (letters only, three or more), or None."""
    words = dict.fromkeys(t.casefold() for t in tokens(text) if t.isalpha() and len(t) >= 3)
    chosen = list(words)[:QUESTION_WORDS]
    return " ".join(chosen) if len(chosen) == QUESTION_WORDS else None


def _workload(store: Path, rng: random.Random) -> dict[str, list[Any]]:
    """Arguments for each measured call, drawn from the store."""
    conn = sqlite3.connect(f"file:{store}?mode=ro", uri=True)
    try:
        # Drawn from the ids there are: a store ingested more than once has gaps where files changed
        # (a fresh store's ids are 1..n, so the draw is the same as by count).
        every = [rowid for (rowid,) in conn.execute("SELECT id FROM sections ORDER BY id")]
        rowids = sorted(rng.sample(every, min(SAMPLE, len(every))))
        rows = [
            conn.execute("SELECT sid, path, heading_path, text FROM sections WHERE id = ?", (rowid,)).fetchone()
            for rowid in rowids
        ]
        identifiers: list[str] = []
        words: dict[str, int] = {}
        for _, _, heading_path, text in rows:
            terms = index_terms(" ".join(json.loads(heading_path)) + "\n" + text)
            for term in dict.fromkeys(terms):
                if is_compound(term) and len(identifiers) < 50 and _document_frequency(conn, term) <= RARE_MAX:
                    identifiers.append(term)
                elif term.isalpha() and len(term) >= 5:
                    words[term] = words.get(term, 0) + 1
        common = [w for w, _ in sorted(words.items(), key=lambda item: (-item[1], item[0]))[:2]]
        questions = [q for q in (_question(text) for _, _, _, text in rows) if q][:50]
        tops = sorted({path.split("/")[0] for (path,) in conn.execute("SELECT path FROM documents")})
    finally:
        conn.close()
    ids = [row[0] for row in rows]
    filters = [top for top in tops if "." not in top] or tops
    return {
        "search_identifier": identifiers or [common[0]],
        "search_prefix": PREFIXES + [_first_piece(term) + "*" for term in identifiers],
        "search_two_common_words": [" ".join(common)],
        "search_ten_word_question": questions or [" ".join(common)],
        "search_comparison": _comparisons(questions) or [" and ".join(common)],
        "read": ids,
        "neighbours": ids,
        "index_prefix": [top + "/" if "." not in top else top for top in tops],
        "grep_literal_rare": identifiers or ids,
        "grep_literal_common": common[:1],
        "grep_with_filter": [(common[0], filters[i % len(filters)]) for i in range(len(filters))],
    }


def _comparisons(questions: list[str]) -> list[str]:
    """The content words of one question and of the next around ``and``, those that name two things
    (``ops/sides.py``): each such query ranks three times."""
    half = QUESTION_WORDS // 2
    out = []
    for a, b in itertools.pairwise(questions):
        left, right = ([word for word in text.split() if word not in STOPWORDS][:half] for text in (a, b))
        query = f"{' '.join(left)} and {' '.join(right)}"
        if named_things(analyse_query(query)) is not None:
            out.append(query)
    return out


def _first_piece(identifier: str) -> str:
    """``2550.`` for ``2550.13``, ``--no-`` for ``--no-cache``: an identifier cut after its first word piece."""
    match = re.match(r"[-/_]*[^\W_]+[._/-]", identifier)
    return match.group() if match else identifier


def _calls(ops: Ops) -> dict[str, Callable[[Any], object]]:
    return {
        "search_identifier": lambda q: ops.search(q),
        "search_prefix": lambda q: ops.search(q),
        "search_two_common_words": lambda q: ops.search(q),
        "search_ten_word_question": lambda q: ops.search(q),
        "search_comparison": lambda q: ops.search(q),
        "read": lambda sid: ops.read(sid),
        "neighbours": lambda sid: ops.neighbours(sid),
        "index_prefix": lambda prefix: ops.index(prefix),
        "grep_literal_rare": lambda pattern: ops.grep(pattern),
        "grep_literal_common": lambda pattern: ops.grep(pattern),
        "grep_with_filter": lambda args: ops.grep(args[0], in_=args[1]),
    }


def _percentile(samples: list[float], share: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def run(store_path: Path, rounds: int = 50, seed: int = 7) -> dict[str, Any]:
    """p50/p95 milliseconds per operation on ``store_path``, with the target verdicts."""
    workload = _workload(Path(store_path), random.Random(seed))
    figures: dict[str, Any] = {}
    with Ops.open(store_path) as ops:
        sections = sum(ops.store.section_count(path) or 0 for path in ops.store.document_paths())
        for name, call in _calls(ops).items():
            arguments = workload[name]
            for argument in arguments[:3]:
                call(argument)  # warm the page cache and statement cache
            samples = []
            for i in range(max(rounds, len(arguments))):
                argument = arguments[i % len(arguments)]
                started = time.perf_counter()
                call(argument)
                samples.append((time.perf_counter() - started) * 1000)
            entry: dict[str, Any] = {
                "p50_ms": round(statistics.median(samples), 3),
                "p95_ms": round(_percentile(samples, 0.95), 3),
                "calls": len(samples),
                "example": arguments[0] if not isinstance(arguments[0], tuple) else list(arguments[0]),
            }
            if name in TARGETS_MS:
                stat, limit = TARGETS_MS[name]
                entry["target"] = f"{stat} <= {limit} ms"
                entry["met"] = entry[f"{stat}_ms"] <= limit
            figures[name] = entry
    return {"store": str(store_path), "sections": sections, "operations": figures}


def render(result: dict[str, Any]) -> str:
    lines = [
        f"{result['store']}: {result['sections']} sections",
        f"{'operation':26} {'p50 ms':>9} {'p95 ms':>9}  target",
    ]
    for name, entry in result["operations"].items():
        verdict = f"{entry['target']} {'met' if entry['met'] else 'MISSED'}" if "target" in entry else ""
        lines.append(f"{name:26} {entry['p50_ms']:9.3f} {entry['p95_ms']:9.3f}  {verdict}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path, help="a store written by `contextpull ingest`")
    parser.add_argument("--rounds", type=int, default=50, help="calls per operation (default 50)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    result = run(args.store, rounds=args.rounds)
    print(json.dumps(result, indent=2) if args.json else render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
