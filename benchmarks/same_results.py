"""Record what search, read, neighbours, grep and index return on the shared corpora, to compare two versions.

    python benchmarks/same_results.py --out after.jsonl                 # ingests each corpus once into --stores
    PYTHONPATH=/path/to/old/src python benchmarks/same_results.py --out before.jsonl
    python benchmarks/same_results.py --diff before.jsonl after.jsonl

A speed change to the read side (issue 14) must not change any result: this
writes every operation's ``to_dict()`` for a few hundred queries per corpus,
one JSON line each, so two runs (the old code on ``PYTHONPATH``, the new one)
can be compared line by line. The queries are the questions and identifiers
of ``benchmarks/evalsets``, plus headings, identifier-like tokens and single
words drawn with a fixed seed from each corpus's own sections, so rare and
frequent terms are both covered. Snippets are taken at three widths.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from contextpull.errors import ContextPullError
from contextpull.ops.operations import Ops
from contextpull.syntax import CLI

CORPORA = Path("/work/shared/corpora")
EVALSETS = Path(__file__).parent / "evalsets"
#: identifier-like tokens: a letter, then word characters joined by . _ - or /
_IDENTIFIER = re.compile(r"[A-Za-z][\w]*(?:[._/-][\w]+)+")
_WORD = re.compile(r"[A-Za-z]{4,}")
SNIPPET_WIDTHS = (160, 60, 400)


def queries(ops: Ops, evalset: Path, sample: int, seed: int) -> list[str]:
    """The eval set's questions and identifiers, then headings, identifiers and words drawn from the store."""
    found: list[str] = []
    if evalset.is_file():
        for line in evalset.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            found.append(row["q"])
            if row.get("identifier"):
                found.append(row["identifier"])
    rng = random.Random(seed)
    chunks = list(ops.chunks())
    for chunk in rng.sample(chunks, min(sample, len(chunks))):
        text = chunk["text"]
        heading = text.split("\n", 1)[0].lstrip("#").strip()
        if heading:
            found.append(heading[:200])
        identifiers = _IDENTIFIER.findall(text)
        if identifiers:
            found.append(rng.choice(identifiers)[:200])
        words = _WORD.findall(text)
        if words:
            found.append(rng.choice(words))
            found.append(" ".join(rng.sample(words, min(3, len(words)))))
    return list(dict.fromkeys(q for q in found if q.strip()))


def _call(name: str, run: Any) -> dict[str, Any]:
    try:
        return {"op": name, "result": run().to_dict()}
    except ContextPullError as err:
        return {"op": name, "error": err.to_dict()}


def record(store: Path, evalset: Path, sample: int, seed: int) -> Iterator[dict[str, Any]]:
    with Ops.open(store) as ops:
        asked = queries(ops, evalset, sample, seed)
        yield {"op": "queries", "count": len(asked)}
        yield _call("index", lambda: ops.index())
        yield _call("index", lambda: Ops(ops.store, syntax=CLI).index())
        ids: list[str] = []
        for n, query in enumerate(asked):
            width = SNIPPET_WIDTHS[n % len(SNIPPET_WIDTHS)]
            line = _call("search", lambda q=query, w=width: ops.search(q, snippet=w, mode="lexical"))
            yield {**line, "query": query, "width": width}
            ids += [hit["id"] for hit in line.get("result", {}).get("hits", [])[:3]]
            yield {**_call("grep", lambda q=query: ops.grep(q, lines=3)), "query": query}
        for n, sid in enumerate(dict.fromkeys(ids)):
            yield {**_call("read", lambda s=sid, c=n % 3: ops.read(s, c)), "id": sid}
            yield {**_call("neighbours", lambda s=sid, b=n % 3: ops.neighbours(s, b, 2 - b)), "id": sid}
        for sid in dict.fromkeys(ids):
            doc = sid.split("#", 1)[0]
            yield {**_call("index", lambda d=doc: ops.index(d)), "prefix": doc}
            yield {**_call("index", lambda d=doc: ops.index(d.rsplit("/", 1)[0] + "/")), "prefix": doc}
            break


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the results here (JSON lines)")
    parser.add_argument("--stores", type=Path, default=Path("/tmp/contextpull-same-results"))
    parser.add_argument("--corpora", type=Path, default=CORPORA)
    parser.add_argument("--sample", type=int, default=80, help="sections drawn per corpus for queries")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "AFTER"), help="compare two --out files")
    args = parser.parse_args(argv)
    if args.diff:
        return _diff(*args.diff)
    if args.out is None:
        parser.error("pass --out FILE or --diff BEFORE AFTER")
    args.stores.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as out:
        for corpus in sorted(p for p in args.corpora.iterdir() if p.is_dir()):
            store = args.stores / f"{corpus.name}.sqlite"
            if not store.exists():
                from contextpull.ingestion.run import ingest

                ingest(corpus, store)
            for line in record(store, EVALSETS / corpus.name / "computed.jsonl", args.sample, args.seed):
                out.write(json.dumps({"corpus": corpus.name, **line}, ensure_ascii=False, sort_keys=True) + "\n")
    return 0


def _diff(before: Path, after: Path) -> int:
    old = before.read_text(encoding="utf-8").splitlines()
    new = after.read_text(encoding="utf-8").splitlines()
    differ = [n for n, (a, b) in enumerate(zip(old, new, strict=False)) if a != b]
    counts: dict[str, int] = {}
    for line in new:
        op = json.loads(line)["op"]
        counts[op] = counts.get(op, 0) + 1
    print(f"{len(new)} results ({', '.join(f'{k} {v}' for k, v in sorted(counts.items()))}); {len(old)} before")
    if len(old) != len(new) or differ:
        for n in differ[:5]:
            print(f"line {n + 1} differs:\n  before {old[n][:400]}\n  after  {new[n][:400]}")
        print(f"DIFFERENT: {len(differ)} lines differ, line counts {len(old)} / {len(new)}")
        return 1
    print("identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
