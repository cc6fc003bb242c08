"""BM25 push config: identifiers are findable whole, ranking is deterministic."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pushpull.chunks import Chunk
from pushpull.retrievers.bm25 import BM25Retriever
from pushpull.retrievers.tokenize import terms

CORPUS = [
    Chunk("cache#1", "The cache speeds up installs. Clear it when packages look stale.", "cache.md"),
    Chunk("cli#1", "Pass --no-cache to ignore the cache for one command.", "cli.md"),
    Chunk("env#1", "Set UV_CACHE_DIR to move the cache to another directory.", "env.md"),
    Chunk("tickets#1", "The regression was tracked as TX-4419 and fixed in the next release.", "tickets.md"),
    Chunk("python#1", "The default interpreter is Python 3.12 unless pinned.", "python.md"),
    Chunk("config#1", "Local path dependencies are declared under tool.uv.sources.", "config.md"),
    Chunk("python#2", "Python versions are downloaded on demand; 3.11 works too.", "python.md"),
]


@pytest.fixture(scope="module")
def bm25() -> BM25Retriever:
    return BM25Retriever(CORPUS)


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("--no-cache", "cli#1"),
        ("UV_CACHE_DIR", "env#1"),
        ("TX-4419", "tickets#1"),
        ("3.12", "python#1"),
        ("tool.uv.sources", "config#1"),
    ],
)
def test_identifier_query_finds_its_chunk_first(bm25: BM25Retriever, query: str, expected: str) -> None:
    assert bm25.retrieve(query, 3)[0] == expected


def test_identifier_is_kept_whole_and_split_into_pieces() -> None:
    found = terms("Declare it under tool.uv.sources. Then set UV_CACHE_DIR.")
    assert {"tool.uv.sources", "tool", "uv", "sources", "uv_cache_dir", "cache", "dir"} <= set(found)
    assert "sources." not in found and "uv_cache_dir." not in found


def test_terms_are_case_folded() -> None:
    assert terms("UV_Cache_Dir") == terms("uv_cache_dir")


def test_word_piece_query_reaches_identifier_chunks(bm25: BM25Retriever) -> None:
    assert "config#1" in bm25.retrieve("sources", 5)


def test_ties_keep_corpus_order() -> None:
    twins = [Chunk(f"twin#{i}", "identical text about lockfiles", "twins.md") for i in range(5)]
    assert BM25Retriever(twins).retrieve("lockfiles", 5) == [f"twin#{i}" for i in range(5)]


def test_k_is_respected(bm25: BM25Retriever) -> None:
    assert len(bm25.retrieve("the cache", 2)) == 2
    assert bm25.retrieve("the cache", 0) == []


@pytest.mark.parametrize("query", ["", "   ", "?!", "zzzunknownterm"])
def test_query_without_indexed_terms_returns_nothing(bm25: BM25Retriever, query: str) -> None:
    assert bm25.retrieve(query, 5) == []


def test_empty_corpus_returns_nothing() -> None:
    assert BM25Retriever([]).retrieve("cache", 5) == []


def test_bm25_only_configs_never_load_the_dense_runtime() -> None:
    # a fresh interpreter, because an earlier test in this session may have loaded onnxruntime
    script = (
        "import sys\n"
        "from pushpull.chunks import Chunk\n"
        "from pushpull.retrievers import build_push_configs\n"
        "[c] = build_push_configs([Chunk('a#1', 'Pass --no-cache', 'a.md')], cache_dir=None, which=['bm25'])\n"
        "assert c.name == 'bm25' and c.retriever.retrieve('--no-cache', 1) == ['a#1']\n"
        "print(sorted(m for m in ('onnxruntime', 'tokenizers', 'openai') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
