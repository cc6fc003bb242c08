"""BM25 push config: identifiers are findable whole, ranking is deterministic."""

from __future__ import annotations

import subprocess
import sys

import pytest

from pushpull.chunks import Chunk
from pushpull.retrievers.bm25 import BM25Retriever, snowball_english
from pushpull.retrievers.tantivy_bm25 import TantivyBM25, title_of
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
        "assert c.name == 'bm25 floor (bare terms)' and c.retriever.retrieve('--no-cache', 1) == ['a#1']\n"
        "print(sorted(m for m in ('onnxruntime', 'tokenizers', 'openai') if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


STEMMED = [
    Chunk("a#0", "## Installing plugins\n\nPlugins extend the agent.", "a.md"),
    Chunk("b#0", "## Removal\n\nThe agent installs plugins from a folder when asked about installing.", "b.md"),
    Chunk("c#0", "## Logging\n\nLogs rotate daily.", "c.md"),
]


@pytest.fixture(scope="module", params=["tantivy", "bm25s"])
def deployed(request: pytest.FixtureRequest) -> object:
    """The two lexical rows a practitioner would deploy: a real engine with an English analyzer, and bm25s stemmed."""
    if request.param == "tantivy":
        return TantivyBM25(STEMMED)
    return BM25Retriever(STEMMED, analyzer=snowball_english, name="bm25s")


def test_deployed_lexical_rows_stem_and_drop_stopwords(deployed: BM25Retriever) -> None:
    assert set(deployed.retrieve("install", 5)) == {"a#0", "b#0"}  # installing, installs → install
    assert deployed.retrieve("logged", 5) == ["c#0"]
    assert deployed.retrieve("the of and", 5) == []  # stopwords only: nothing to match
    assert deployed.retrieve("install", 0) == []


def test_the_floor_matches_words_only_as_typed() -> None:
    floor = BM25Retriever(STEMMED)
    assert floor.name == "bm25 floor (bare terms)"
    assert floor.retrieve("install", 5) == []


def test_tantivy_counts_a_title_match_above_the_same_word_in_the_body() -> None:
    tantivy = TantivyBM25(STEMMED)
    assert tantivy.retrieve("installing", 2)[0] == "a#0"  # the heading says it; b#0 says it twice in the body
    assert title_of(STEMMED[0].text) == "Installing plugins" and title_of("plain text\n# late") == ""


def test_tantivy_reads_query_syntax_as_words_and_is_deterministic() -> None:
    tantivy = TantivyBM25(CORPUS)
    for query in ("what does --no-cache do?", "tool.uv.sources:", '"unbalanced', "a AND (b OR", "-x +y ~z^2"):
        assert isinstance(tantivy.retrieve(query, 5), list)  # never a query-syntax error
    assert tantivy.retrieve("UV_CACHE_DIR", 1) == ["env#1"]
    assert tantivy.retrieve("cache", 7) == tantivy.retrieve("cache", 7)
    assert TantivyBM25([]).retrieve("cache", 5) == []
