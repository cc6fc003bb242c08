"""Parse + section throughput on one core: the uv docs corpus and a synthetic corpus.

Prints MB/s and sections/s for each, over CPU time of this process (the
machine may be shared; wall time is printed too). The synthetic corpus is Markdown made of
~400-character sections (a heading and a paragraph or two each), the size the
ingest target of 10,000 sections/s is stated for.

    python benchmarks/parse_speed.py [--corpus PATH] [--repeat N]
"""

from __future__ import annotations

import argparse
import random
import time
from pathlib import Path

from contextpull.parse.formats import format_for
from contextpull.parse.sections import parse_document
from contextpull.settings import SectionSettings

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "uv-docs"
WORDS = "the cache lock resolver wheel index python project install sync tool version build".split()


def synthetic(documents: int = 200, sections: int = 25, seed: int = 7) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    docs = []
    for d in range(documents):
        parts = [f"# Document {d}\n\n"]
        for s in range(sections):
            body = " ".join(rng.choice(WORDS) for _ in range(55))
            parts.append(f"## Section {s}\n\n{body.capitalize()}.\n\n")
        docs.append((f"synthetic/doc{d}.md", "".join(parts)))
    return docs


def measure(name: str, docs: list[tuple[str, str]], repeat: int) -> None:
    settings = SectionSettings()
    size = sum(len(text.encode()) for _, text in docs)
    count = 0
    began, cpu_began = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        for path, text in docs:
            count += len(parse_document(path, text, settings, format=format_for(path) or "text").sections)
    wall = time.perf_counter() - began
    elapsed = time.process_time() - cpu_began
    print(
        f"{name:10} {len(docs):5} docs {size * repeat / 1e6:7.2f} MB {count:7} sections "
        f"{size * repeat / 1e6 / elapsed:6.2f} MB/s {count / elapsed:9.0f} sections/s "
        f"({count / repeat / len(docs):.1f} sections/doc, {size / max(1, count / repeat):.0f} bytes/section, "
        f"cpu {elapsed:.2f}s wall {wall:.2f}s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.corpus.is_dir():
        docs = [
            (p.relative_to(args.corpus).as_posix(), p.read_text(encoding="utf-8"))
            for p in sorted(args.corpus.rglob("*"))
            if p.is_file() and format_for(p.name)
        ]
        measure(args.corpus.name, docs, args.repeat)
    measure("synthetic", synthetic(), args.repeat)


if __name__ == "__main__":
    main()
