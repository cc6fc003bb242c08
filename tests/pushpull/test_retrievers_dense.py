"""Dense push config with the real offline MiniLM model and a real OpenAI-wire stand-in."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from contextpull_vec.minilm import MiniLMOnnxEmbedder
from contextpull_vec.openai_endpoint import OpenAIEmbedder
from embeddings_endpoint import EmbeddingsHandler, letter_vector, serve_embeddings
from pushpull.chunks import Chunk
from pushpull.retrievers.dense import DenseRetriever

CORPUS = [
    Chunk("install#1", "Install uv with the standalone installer script or with pip.", "install.md"),
    Chunk("cache#1", "uv keeps downloaded wheels in a global cache; `uv cache clean` deletes it.", "cache.md"),
    Chunk("python#1", "uv can download and manage Python interpreters for you.", "python.md"),
    Chunk("lock#1", "The lockfile records exact resolved versions so builds are reproducible.", "lock.md"),
    Chunk("docker#1", "Use the official image in a Dockerfile to build container images with uv.", "docker.md"),
    Chunk("auth#1", "Credentials for private package indexes come from keyring or environment variables.", "auth.md"),
]


class CountingMiniLM(MiniLMOnnxEmbedder):
    """The real embedder, counting how many texts it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.texts_embedded = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts_embedded += len(texts)
        return super().embed(texts)


@pytest.fixture(scope="module")
def minilm() -> CountingMiniLM:
    return CountingMiniLM()


def test_paraphrase_query_ranks_the_right_chunk_first(minilm: CountingMiniLM) -> None:
    dense = DenseRetriever(CORPUS, embedder=minilm)
    assert dense.name == "dense (minilm)"
    assert dense.retrieve("how do I remove stored downloads to free disk space", 3)[0] == "cache#1"
    assert dense.retrieve("pin dependency versions so every build is identical", 3)[0] == "lock#1"
    assert dense.retrieve("where does login information for a private registry come from", 3)[0] == "auth#1"


def test_vectors_are_unit_length_and_independent_of_batch_padding(minilm: CountingMiniLM) -> None:
    short = "uv cache clean"
    alone = minilm.embed([short])[0]
    batched = minilm.embed([CORPUS[0].text * 5, short, CORPUS[3].text])
    assert batched.dtype == np.float32 and batched.shape == (3, 384)
    assert np.allclose(np.linalg.norm(batched, axis=1), 1.0, atol=1e-5)
    assert float(alone @ batched[1]) > 0.9999


def test_second_build_reuses_the_disk_cache(minilm: CountingMiniLM, tmp_path: Path) -> None:
    before = minilm.texts_embedded
    first = DenseRetriever(CORPUS, embedder=minilm, cache_dir=tmp_path)
    assert minilm.texts_embedded - before == len(CORPUS) and first.embedded == len(CORPUS)

    before = minilm.texts_embedded
    second = DenseRetriever(CORPUS, embedder=minilm, cache_dir=tmp_path)
    assert minilm.texts_embedded == before and second.embedded == 0
    assert np.array_equal(first.matrix, second.matrix)

    edited = [*CORPUS[:-1], Chunk("auth#1", "Tokens for private indexes are read from the keyring.", "auth.md")]
    third = DenseRetriever(edited, embedder=minilm, cache_dir=tmp_path)
    assert minilm.texts_embedded - before == 1 and third.embedded == 1


class LetterEmbedder:
    """A real, cheap Embedder: normalised letter counts."""

    name = "letters"
    dim = 26

    def __init__(self) -> None:
        self.texts_embedded = 0

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts_embedded += len(texts)
        vectors = np.array([letter_vector(t) for t in texts], dtype=np.float32).reshape(len(texts), 26)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)


def test_cache_survives_hashes_ending_in_zero_bytes(tmp_path: Path) -> None:
    # numpy byte strings drop trailing NULs; the cache key must not depend on that
    zero_tail = next(t for t in (f"text {i}" for i in range(100_000)) if hashlib.sha256(t.encode()).digest()[-1] == 0)
    chunks = [Chunk("z#1", zero_tail, "z.md"), Chunk("y#1", "other text", "y.md")]
    embedder = LetterEmbedder()
    DenseRetriever(chunks, embedder=embedder, cache_dir=tmp_path)
    assert DenseRetriever(chunks, embedder=embedder, cache_dir=tmp_path).embedded == 0
    assert embedder.texts_embedded == 2


def test_unreadable_cache_is_rebuilt(minilm: CountingMiniLM, tmp_path: Path) -> None:
    DenseRetriever(CORPUS[:2], embedder=minilm, cache_dir=tmp_path)
    [cache_file] = tmp_path.glob("embeddings-*.npz")
    cache_file.write_bytes(b"not a numpy archive")
    rebuilt = DenseRetriever(CORPUS[:2], embedder=minilm, cache_dir=tmp_path)
    assert rebuilt.embedded == 2 and rebuilt.retrieve("clear the cache", 1) == ["cache#1"]


def test_empty_query_and_empty_corpus(minilm: CountingMiniLM) -> None:
    assert DenseRetriever(CORPUS, embedder=minilm).retrieve("  ", 3) == []
    assert DenseRetriever([], embedder=minilm).retrieve("cache", 3) == []


def test_e5_dense_row_embeds_the_query_as_a_query() -> None:
    import contextpull_vec

    e5 = contextpull_vec.get_embedder("e5-small")
    dense = DenseRetriever(CORPUS, embedder=e5)
    assert dense.name == "dense (e5-small)"
    query = "how do I remove stored downloads to free disk space"
    assert dense.retrieve(query, 3)[0] == "cache#1"
    # the chunks were embedded as passages, the question with e5's query prefix
    by_query = dense.matrix @ contextpull_vec.embed_queries(e5, [query])[0]
    assert [CORPUS[i].id for i in np.argsort(-by_query)[:3]] == dense.retrieve(query, 3)


# --- OpenAI-compatible endpoint (the embedder's own tests: tests/vec/test_contextpull_vec.py) ---------


@pytest.fixture()
def endpoint() -> Iterator[str]:
    with serve_embeddings() as url:
        yield url


def test_dense_retriever_over_openai_endpoint(endpoint: str, tmp_path: Path) -> None:
    embedder = OpenAIEmbedder("letters", base_url=endpoint, api_key="sk-test")
    dense = DenseRetriever(CORPUS, embedder=embedder, cache_dir=tmp_path)
    assert dense.name == "dense (openai:letters)"
    assert dense.retrieve(CORPUS[4].text, 1) == ["docker#1"]
    calls = len(EmbeddingsHandler.requests)
    DenseRetriever(CORPUS, embedder=embedder, cache_dir=tmp_path)
    assert len(EmbeddingsHandler.requests) == calls  # corpus came from the cache
