"""Section vectors in the store and hybrid search, with the real embedders and real stores."""

from __future__ import annotations

import itertools
import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from contextpull.analysis.vectors import VectorIndex, to_blobs
from contextpull.errors import BadArgument, EmbeddingFailed, MixedModels
from contextpull.ingestion.run import ingest
from contextpull.ops.hybrid import (
    CONFIDENT_SHARE,
    DEPTH,
    TIE_SHARE,
    VECTOR_SLOT,
    confident_count,
    fuse,
    ties_by_vector,
    vectors_can_change,
)
from contextpull.ops.operations import Ops
from contextpull.ops.ranking import RankedSection
from contextpull.settings import SectionSettings
from contextpull.store.connection import Store
from contextpull.store.queries import SectionRow
from contextpull.tools.schemas import TOOLS, call_json
from contextpull_vec.static import STATIC_NAME, StaticEmbedder
from embeddings_endpoint import EmbeddingsHandler, serve_embeddings
from ops_support import write_corpus, written_by_an_older_analysis

SETTINGS = SectionSettings(max_depth=3, max_chars=3000, min_chars=0)
CORPUS = {
    "ops/containers.md": (
        "# Containers\n\n## Docker images\n\nBuild a Dockerfile into a container image and push it to the registry.\n\n"
        "## Kubernetes\n\nPods are scheduled onto nodes by the control plane.\n"
    ),
    "ops/storage.md": (
        "# Storage\n\n## Disk cleanup\n\nDelete downloaded wheels and archives to free disk space.\n\n"
        "## Backups\n\nSnapshots are taken nightly and kept for thirty days.\n"
    ),
    "money/payments.md": (
        "# Payments\n\n## Refunds\n\nA refund returns money to the card that paid; it takes five days.\n\n"
        "## Chargebacks\n\nA cardholder can dispute a payment with their bank.\n"
    ),
    "money/travel.md": "# Travel\n\n## Hotels\n\nHotel rooms are booked through the portal, up to 120 EUR a night.\n",
}


class CountingStatic(StaticEmbedder):
    """The real default embedder, remembering every text it was asked to embed."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.seen.extend(texts)
        return super().embed(texts)


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    return write_corpus(tmp_path / "corpus", CORPUS)


@pytest.fixture()
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    with serve_embeddings() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        yield url


def _vector_rows(store: Path) -> dict[str, bytes]:
    with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as conn:
        rows = conn.execute(
            "SELECT s.sid, v.vector FROM section_vectors v JOIN sections s ON s.id = v.section_id"
        ).fetchall()
    return dict(rows)


# --- ingest ---------------------------------------------------------------------------------------


def test_every_section_gets_one_vector_and_the_model_is_recorded(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    report = ingest(corpus, store, SETTINGS, embed="static")
    assert report.embed_model == STATIC_NAME and report.vectors == report.sections == report.vectors_embedded
    with Store.open(store) as opened:
        meta = opened.all_meta()
    assert (meta["embed_model"], meta["embed_dim"], meta["embed_dtype"]) == (STATIC_NAME, "256", "float16")
    assert len(_vector_rows(store)) == report.sections
    assert all(len(blob) == 256 * 2 for blob in _vector_rows(store).values())


def test_only_changed_sections_are_embedded_again(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    embedder = CountingStatic()
    first = ingest(corpus, store, SETTINGS, embed=embedder)
    assert len(embedder.seen) == first.sections
    before = _vector_rows(store)

    embedder.seen.clear()
    assert not ingest(corpus, store, SETTINGS, embed=embedder).wrote  # unchanged: nothing written or embedded
    assert embedder.seen == []

    storage = corpus / "ops" / "storage.md"
    storage.write_text(storage.read_text().replace("thirty days", "ninety days"), encoding="utf-8")
    second = ingest(corpus, store, SETTINGS, embed=embedder)
    assert second.changed == 1 and second.vectors_embedded == 1 and len(embedder.seen) == 1
    assert "ninety days" in embedder.seen[0] and embedder.seen[0].startswith("Storage > Backups\n\n## Backups")
    assert second.vectors_reused == 2  # the file's other sections kept theirs
    after = _vector_rows(store)
    assert after.keys() == before.keys()
    assert [sid for sid in after if after[sid] != before[sid]] == ["ops/storage.md#2"]


def test_a_store_with_vectors_keeps_them_current_without_embed(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    (corpus / "money" / "tax.md").write_text("# Tax\n\n## VAT\n\nInvoices show VAT separately.\n", encoding="utf-8")
    report = ingest(corpus, store, SETTINGS)  # no embed: the store's own model is used
    assert report.embed_model == STATIC_NAME and report.vectors_embedded == 2 and report.vectors == report.sections


def test_resectioning_reuses_vectors_of_identical_sections(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    report = ingest(corpus, store, SectionSettings(max_depth=3, max_chars=2999, min_chars=0))
    assert report.vectors_embedded == 0 and report.vectors_reused == report.sections


def test_a_store_rebuilt_for_a_new_analysis_keeps_its_model_and_vectors(corpus: Path, tmp_path: Path) -> None:
    """An upgrade re-indexes the words; it neither re-embeds the corpus nor, without --embed, drops the vectors."""
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    before = _vector_rows(store)
    written_by_an_older_analysis(store)
    storage = corpus / "ops" / "storage.md"
    storage.write_text(storage.read_text().replace("thirty days", "ninety days"), encoding="utf-8")
    embedder = CountingStatic()
    report = ingest(corpus, store, SETTINGS)  # no --embed: the old store's model is kept
    assert report.embed_model == STATIC_NAME and report.vectors == report.sections
    assert (report.vectors_embedded, report.vectors_reused) == (1, report.sections - 1)
    after = _vector_rows(store)
    assert [sid for sid in after if after[sid] != before[sid]] == ["ops/storage.md#2"]
    with Store.open(store) as opened:
        assert (opened.meta("embed_model"), opened.meta("embed_dim")) == (STATIC_NAME, "256")
    written_by_an_older_analysis(store)
    again = ingest(corpus, store, SETTINGS, embed=embedder)
    assert embedder.seen == [] and again.vectors_reused == again.sections


def test_a_rebuild_keeps_no_vector_of_another_model_or_encoding(corpus: Path, tmp_path: Path, endpoint: str) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    written_by_an_older_analysis(store)
    with pytest.raises(MixedModels):
        ingest(corpus, store, SETTINGS, embed="openai:letters")
    report = ingest(corpus, store, SETTINGS, embed="openai:letters", reembed=True)
    assert report.vectors_embedded == report.sections and report.vectors_reused == 0
    with closing(sqlite3.connect(store)) as conn, conn:
        conn.execute("UPDATE meta SET value = 'float32' WHERE key = 'embed_dtype'")
    written_by_an_older_analysis(store)
    report = ingest(corpus, store, SETTINGS)  # vectors of another encoding are not read as ours: embedded again
    assert report.embed_model == "openai:letters" and report.vectors_embedded == report.sections


def test_another_model_is_refused_until_reembed(corpus: Path, tmp_path: Path, endpoint: str) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    with pytest.raises(MixedModels, match="minilm-static-256 vectors .256-d.; embedding with openai:letters") as caught:
        ingest(corpus, store, SETTINGS, embed="openai:letters")
    assert "--reembed" in caught.value.suggestion
    assert _vector_rows(store) and Store.open(store).meta("embed_model") == STATIC_NAME  # untouched

    report = ingest(corpus, store, SETTINGS, embed="openai:letters", reembed=True)
    assert report.embed_model == "openai:letters" and report.vectors_embedded == report.sections
    with Store.open(store) as opened:
        assert (opened.meta("embed_model"), opened.meta("embed_dim")) == ("openai:letters", "26")
    assert all(len(blob) == 26 * 2 for blob in _vector_rows(store).values())


def test_a_failing_endpoint_leaves_the_store_as_it_was(corpus: Path, tmp_path: Path, endpoint: str) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS)
    with pytest.raises(EmbeddingFailed, match="invalid api key"):
        ingest(corpus, store, SETTINGS, embed="openai:locked-model")
    with Store.open(store) as opened:
        assert opened.meta("embed_model") is None
    assert _vector_rows(store) == {}


# --- search ---------------------------------------------------------------------------------------


def test_modes_auto_lexical_hybrid(corpus: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain.sqlite"
    ingest(corpus, plain, SETTINGS)
    with Ops.open(plain) as ops:
        assert ops.search("refund").mode == "lexical"  # auto without vectors
        with pytest.raises(BadArgument, match="no section vectors"):
            ops.search("refund", mode="hybrid")
        with pytest.raises(BadArgument, match="mode must be one of auto, lexical, hybrid"):
            ops.search("refund", mode="semantic")

    store = tmp_path / "vectors.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    with Ops.open(store) as ops:
        auto = ops.search("container image Dockerfile", limit=5)
        assert auto.mode == "hybrid" and auto.to_dict()["mode"] == "hybrid"
        assert auto.hits[0].id == "ops/containers.md#1"
        assert [h.id for h in auto.hits] == [
            h.id for h in ops.search("container image Dockerfile", limit=5, mode="hybrid").hits
        ]
        lexical = ops.search("container image Dockerfile", limit=5, mode="lexical")
        assert lexical.mode == "lexical" and "mode" not in lexical.to_dict()
        scores = [h.score for h in auto.hits]
        assert scores == sorted(scores, reverse=True)


def test_hybrid_finds_what_the_words_miss(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    with Ops.open(store) as ops:
        query = "remove cached packages to reclaim storage"
        lexical = [h.id for h in ops.search(query, mode="lexical").hits]
        hybrid = ops.search(query, mode="hybrid")
        assert "ops/storage.md#1" in [h.id for h in hybrid.hits[:3]]
        vector_only = [h for h in hybrid.hits if h.id not in lexical]
        assert vector_only and all(h.match == "vector" for h in vector_only)


class TwoSidedStatic(StaticEmbedder):
    """The real default embedder, made asymmetric as e5 is: queries go through ``embed_queries``."""

    def __init__(self) -> None:
        super().__init__()
        self.queries: list[str] = []
        self.texts: list[str] = []

    def embed(self, texts: list[str]) -> np.ndarray:
        self.texts.extend(texts)
        return super().embed(texts)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        self.queries.extend(texts)
        return super().embed(texts)


def test_sections_are_embedded_as_passages_and_the_query_as_a_query(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    embedder = TwoSidedStatic()
    report = ingest(corpus, store, SETTINGS, embed=embedder)
    assert len(embedder.texts) == report.sections and embedder.queries == []
    embedder.texts.clear()
    with Ops.open(store, embedder=embedder) as ops:
        assert ops.search("remove cached packages to reclaim storage", mode="hybrid").hits
    assert embedder.queries == ["remove cached packages to reclaim storage"] and embedder.texts == []


def test_e5_vectors_find_a_paraphrase_the_words_miss(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    report = ingest(corpus, store, SETTINGS, embed="e5-small")
    assert report.embed_model == "e5-small" and report.vectors == report.sections
    with Ops.open(store) as ops:  # the embedder is rebuilt from the name the store records
        found = {}
        for query in ("reimbursed for an order I sent back", "where to sleep on a business trip"):
            assert not ops.search(query, mode="lexical").hits  # no word of the question is in the corpus
            found[query] = [(h.id, h.match) for h in ops.search(query, mode="hybrid").hits[:1]]
    assert found == {
        "reimbursed for an order I sent back": [("money/payments.md#1", "vector")],
        "where to sleep on a business trip": [("money/travel.md#1", "vector")],
    }


class Marker:
    """A real, cheap embedder: sections holding the marker point one way, the rest the other, every query the first.

    So the section nearest by vector is chosen by the test, whatever the words say.
    """

    name = "marker"
    dim = 2
    MARK = "stores Python packages"

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.array([[1.0, 0.0] if self.MARK in text else [0.0, 1.0] for text in texts], dtype=np.float32)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        return np.array([[1.0, 0.0] for _ in texts], dtype=np.float32)


def test_the_vector_slot_moves_a_side_of_a_comparison_down_never_out(tmp_path: Path) -> None:
    # Six AWS sections crowd the first hits; Google's answer comes in by the side rule (ops/sides.py), and
    # Google's overview, nearest by vector and a word hit, takes the vector slot. Placed first, the slot
    # showed Google's document, so the side rule left Google's answer out.
    corpus = write_corpus(
        tmp_path / "corpus",
        {
            "aws.md": "# AWS CodeArtifact\n\nAWS CodeArtifact is a package index.\n\n"
            + "".join(
                f"## {name}\n\nThe username for the AWS CodeArtifact index is aws when you {name.lower()}.\n\n"
                for name in ("Publish", "Install", "Lock", "Sync", "Login", "Rotate")
            ),
            **{
                f"notes/{n}.md": f"# Registries {n}\n\nGoogle Artifact Registry and Google Cloud are named in note {n}.\n"
                for n in range(6)
            },
            "google.md": f"# Google Artifact Registry\n\nGoogle Artifact Registry {Marker.MARK}.\n\n"
            "## Access\n\nThe username for Google Artifact Registry is oauth2accesstoken.\n",
        },
    )
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed=Marker())
    query = (
        "What is the difference between the username for the index in AWS CodeArtifact and Google Artifact Registry?"
    )
    with Ops.open(store, embedder=Marker()) as ops:
        hits = [h.id for h in ops.search(query, mode="hybrid").hits]
    assert hits[VECTOR_SLOT - 1] == "google.md#0" and "google.md#1" in hits[:5], hits
    assert hits[0].startswith("aws.md#")


def test_sections_tied_by_their_words_are_ordered_by_their_vectors(tmp_path: Path) -> None:
    # Four sibling sections use the question's words alike; the one the question is about says so in words
    # it does not use. By words the four tie and go in document order, so it came fourth (third, the vector
    # slot, at best); a section the words clearly prefer keeps its place above them.
    siblings = "".join(
        f"## Step {n}\n\nThe cache directory can be moved with a setting; it {tail}.\n\n"
        for n, tail in enumerate(("keeps red wheels", "keeps blue wheels", "keeps green wheels", Marker.MARK))
    )
    corpus = write_corpus(
        tmp_path / "corpus",
        {
            "cache.md": f"# Cache\n\n{siblings}",
            "guide.md": "# Moving the cache directory with a setting\n\nThe cache directory moves.\n",
        },
    )
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed=Marker())
    query = "How can the cache directory be moved with a setting?"
    with Ops.open(store, embedder=Marker()) as ops:
        words = [(h.id, h.score) for h in ops.search(query, mode="lexical").hits]
        hybrid = [h.id for h in ops.search(query, mode="hybrid").hits]
    assert words[0][0] == "guide.md#0" and words[1][1] < words[0][1] * (1 - TIE_SHARE), words
    assert [sid for sid, score in words if score >= words[1][1] * (1 - TIE_SHARE)][1:] == [
        "cache.md#1",
        "cache.md#2",
        "cache.md#3",
        "cache.md#4",
    ], words
    assert hybrid[:2] == ["guide.md#0", "cache.md#4"], hybrid


def _hit(rowid: int, score: float) -> RankedSection:
    return RankedSection(SectionRow(rowid, f"p.md#{rowid}", "p.md", rowid, ("P",), "prose"), "P", score, "all")


@given(
    st.lists(st.floats(min_value=0.01, max_value=100.0), max_size=30).map(lambda s: sorted(s, reverse=True)),
    st.integers(0, 2**32 - 1),
)
def test_only_hits_tied_by_their_words_change_places_and_scores_still_fall(scores: list[float], seed: int) -> None:
    ranked = [_hit(rowid, score) for rowid, score in enumerate(scores)]
    rng = np.random.default_rng(seed)
    nearness = {rowid: float(rng.integers(0, 3)) for rowid in range(len(scores)) if rng.random() < 0.8}
    out = ties_by_vector(ranked, nearness)
    assert [hit.score for hit in out] == scores  # each hit takes the score of its place
    assert sorted(hit.section.rowid for hit in out) == list(range(len(scores)))
    position = {hit.section.rowid: at for at, hit in enumerate(out)}
    for a, b in itertools.pairwise(ranked):
        if b.score < a.score * (1 - TIE_SHARE) or nearness.get(a.section.rowid, -1) == nearness.get(
            b.section.rowid, -1
        ):
            # not tied by words (a run ends between them at the latest), or equally near: word order stands
            assert position[a.section.rowid] < position[b.section.rowid]
    for above, below in itertools.combinations(out, 2):
        if above.section.rowid > below.section.rowid:  # it passed a hit ranked above it by words...
            assert scores[above.section.rowid] >= scores[below.section.rowid] * (1 - TIE_SHARE)  # ...that it ties


def test_the_path_filter_applies_to_vectors(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    with Ops.open(store) as ops:
        unfiltered = ops.search("container image Dockerfile", mode="hybrid", limit=50)
        assert any(h.doc.startswith("ops/") for h in unfiltered.hits)
        filtered = ops.search("container image Dockerfile", in_="money/*", mode="hybrid", limit=50)
        assert filtered.hits and all(h.doc.startswith("money/") for h in filtered.hits)
        assert any(h.match == "vector" for h in filtered.hits)  # the vector side was filtered, not dropped


def test_top_hits_do_not_depend_on_limit(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    with Ops.open(store) as ops:
        for query in ("payment card", "disk space backups", "hotel portal booking"):
            many = [h.id for h in ops.search(query, mode="hybrid", limit=50).hits]
            assert [h.id for h in ops.search(query, mode="hybrid", limit=3).hits] == many[:3]


def test_a_reingest_is_seen_by_an_open_handle(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    with Ops.open(store) as ops:
        assert ops.search("tax invoices VAT", mode="hybrid").hits[0].doc != "money/tax.md"
        (corpus / "money" / "tax.md").write_text("# Tax\n\n## VAT\n\nInvoices show VAT separately.\n", encoding="utf-8")
        ingest(corpus, store, SETTINGS)
        assert ops.search("tax invoices VAT", mode="hybrid").hits[0].doc == "money/tax.md"


def test_openai_compatible_endpoint_for_sections_and_queries(corpus: Path, tmp_path: Path, endpoint: str) -> None:
    store = tmp_path / "s.sqlite"
    report = ingest(corpus, store, SETTINGS, embed="openai:letters")
    assert report.embed_model == "openai:letters" and report.vectors == report.sections
    calls = len(EmbeddingsHandler.requests)
    assert calls >= 1 and all(r["model"] == "letters" for r in EmbeddingsHandler.requests)
    with Ops.open(store) as ops:  # the query embedder is rebuilt from the model the store records
        result = ops.search("hotel rooms", mode="hybrid")
    assert result.mode == "hybrid" and result.hits
    assert EmbeddingsHandler.requests[-1]["input"] == ["hotel rooms"] and len(EmbeddingsHandler.requests) == calls + 1


def test_auto_falls_back_to_lexical_when_the_query_cannot_be_embedded(
    corpus: Path, tmp_path: Path, endpoint: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="openai:letters")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens on the discard port
    monkeypatch.setenv("OPENAI_MAX_RETRIES", "0")
    with Ops.open(store) as ops:
        result = ops.search("hotel rooms")
        assert result.mode == "lexical" and result.hits and "vector search is unavailable" in (result.hint or "")
        with pytest.raises(EmbeddingFailed):
            ops.search("hotel rooms", mode="hybrid")


# --- tools, CLI -----------------------------------------------------------------------------------


def test_the_tool_schema_offers_mode_and_validates_it(corpus: Path, tmp_path: Path) -> None:
    [search] = [tool for tool in TOOLS if tool["name"] == "search"]
    assert search["input_schema"]["properties"]["mode"]["enum"] == ["auto", "lexical", "hybrid"]
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS)
    with Ops.open(store) as ops:
        payload, is_error = call_json(ops, "search", {"query": "refund", "mode": "fuzzy"})
        assert is_error and payload["error"] == "out_of_range" and "auto, lexical, hybrid" in payload["message"]
        payload, is_error = call_json(ops, "search", {"query": "refund", "mode": "hybrid"})
        assert is_error and payload["error"] == "bad_argument" and "--embed" in payload["suggestion"]
        payload, is_error = call_json(ops, "search", {"query": "refund", "mode": "lexical"})
        assert not is_error and payload["hits"]


def _cli(*args: str, pre: str = "") -> subprocess.CompletedProcess[str]:
    script = f"{pre}import sys\nfrom contextpull.cli import main\nsys.exit(main({list(args)!r}))\n"
    env = {k: v for k, v in os.environ.items() if k != "CONTEXTPULL_STORE"}
    return subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True, env=env, timeout=120
    )


def test_cli_ingest_embed_and_search_mode(corpus: Path, tmp_path: Path) -> None:
    store = str(tmp_path / "s.sqlite")
    done = _cli("ingest", str(corpus), "--store", store, "--embed", "static", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["embed_model"] == STATIC_NAME
    text = _cli("ingest", str(corpus), "--store", store)
    assert "vectors: 4 (minilm-static-256)" in text.stdout
    found = _cli("search", "container image", "--store", store, "--mode", "hybrid", "--json")
    assert json.loads(found.stdout)["mode"] == "hybrid"
    refused = _cli("ingest", str(corpus), "--store", store, "--embed", "minilm")
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1 and "--reembed" in refused.stderr
    bad = _cli("search", "x", "--store", store, "--mode", "fuzzy")
    assert bad.returncode == 2


def test_without_the_extra_embed_fails_with_one_line(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    failed = _cli(
        "ingest",
        str(corpus),
        "--store",
        str(store),
        "--embed",
        "static",
        pre="import sys; sys.modules['numpy'] = None\n",
    )
    assert failed.returncode == 2
    assert failed.stderr.strip().splitlines() == [
        'contextpull: error: embedding needs numpy, which is not installed — pip install "contextpull[embed]"'
    ]
    assert not store.exists()  # nothing half-written


def test_auto_without_numpy_on_a_store_with_vectors_falls_back_with_a_hint(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    found = _cli("search", "refund", "--store", str(store), "--json", pre="import sys; sys.modules['numpy'] = None\n")
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    assert "mode" not in result and result["hits"] and 'pip install "contextpull[embed]"' in result["hint"]


# --- the fusion rule ------------------------------------------------------------------------------

_scores = st.lists(st.floats(min_value=0.01, max_value=100.0), max_size=DEPTH).map(lambda s: sorted(s, reverse=True))


@st.composite
def _rankings(draw: st.DrawFn) -> tuple[list[tuple[int, float]], list[int]]:
    """A lexical ranking (row ids 0.., scores falling) and a vector ranking sharing some of its ids."""
    scores = draw(_scores)
    lexical = list(enumerate(scores))
    pool = list(range(len(scores) + DEPTH))
    vector = draw(st.permutations(pool).map(lambda ids: ids[: draw(st.integers(0, DEPTH))]))
    return lexical, vector


@given(_rankings())
def test_confident_word_hits_lead_in_their_order_for_a_family_query(rankings: tuple) -> None:
    lexical, vector = rankings
    fused = [rowid for rowid, _ in fuse(lexical, vector, exact=True)]
    confident = confident_count([score for _, score in lexical])
    assert fused[:confident] == [rowid for rowid, _ in lexical[:confident]]
    if lexical:
        best = lexical[0][1]
        assert all(score >= best * CONFIDENT_SHARE for _, score in lexical[:confident])
        assert all(score < best * CONFIDENT_SHARE for _, score in lexical[confident:])


@given(_rankings())
def test_the_nearest_word_hit_takes_the_vector_slot(rankings: tuple) -> None:
    lexical, vector = rankings
    fused = [rowid for rowid, _ in fuse(lexical, vector)]
    if vector and vector[0] in {rowid for rowid, _ in lexical}:
        assert fused.index(vector[0]) <= VECTOR_SLOT - 1


@given(_rankings())
def test_a_family_query_keeps_every_word_hit_above_the_sections_only_vectors_found(rankings: tuple) -> None:
    """A family's members are named in the text: a section holding none of the query's words holds none."""
    lexical, vector = rankings
    found = [rowid for rowid, _ in lexical]
    fused = [rowid for rowid, _ in fuse(lexical, vector, exact=True)]
    assert fused == found + [rowid for rowid in vector if rowid not in set(found)]


@given(_rankings(), st.booleans())
def test_fusion_keeps_word_order_lists_each_candidate_once_and_scores_fall(rankings: tuple, exact: bool) -> None:
    lexical, vector = rankings
    fused = fuse(lexical, vector, exact)
    ids = [rowid for rowid, _ in fused]
    assert sorted(ids) == sorted({rowid for rowid, _ in lexical} | set(vector))
    found = {rowid for rowid, _ in lexical}
    moved = {vector[0]} if vector and not exact and vector[0] in found else set()
    words = found - moved
    assert [rowid for rowid in ids if rowid in words] == [rowid for rowid, _ in lexical if rowid in words]
    scores = [score for _, score in fused]
    assert scores == sorted(scores, reverse=True) and len(set(scores)) == len(scores)
    assert fuse(lexical, vector, exact) == fused  # deterministic


@given(_rankings(), st.integers(1, DEPTH), st.booleans())
def test_skipping_vectors_when_they_cannot_change_the_hits_changes_nothing(
    rankings: tuple, limit: int, exact: bool
) -> None:
    lexical, vector = rankings
    if not vectors_can_change([score for _, score in lexical], limit, exact):
        assert fuse(lexical, [], exact)[:limit] == fuse(lexical, vector, exact)[:limit]


def test_without_word_hits_the_vector_order_stands() -> None:
    assert [rowid for rowid, _ in fuse([], [7, 3, 9])] == [7, 3, 9]


def test_a_weak_word_hit_can_be_passed_by_a_vector_hit_a_strong_one_cannot() -> None:
    lexical = [(1, 10.0), (2, 9.0), (3, 1.0), (4, 0.5)]  # 3 and 4 hold under a third of the best
    fused = [rowid for rowid, _ in fuse(lexical, [8, 9])]
    assert fused == [1, 2, 3, 8, 4, 9]  # 8, nearest, passes the weak 4; the strong 1 and 2 stay on top
    assert [rowid for rowid, _ in fuse(lexical, [4, 8])] == [1, 2, 4, 3, 8]  # vectors like 4: it takes the slot
    # A family query: the weak word hit 4 names a member; 8, found by its vector alone, names none.
    assert [rowid for rowid, _ in fuse(lexical, [8, 9], exact=True)] == [1, 2, 3, 4, 8, 9]


def test_the_nearest_word_hit_earns_the_third_place_unless_the_query_names_a_family() -> None:
    lexical = [(1, 10.0), (2, 9.0), (3, 8.0), (4, 7.0), (5, 1.0)]  # 1-4 confident: a paraphrase's everyday words
    assert [rowid for rowid, _ in fuse(lexical, [5, 9])] == [1, 2, 5, 3, 4, 9]  # weak word hit, nearest: moves up
    assert [rowid for rowid, _ in fuse(lexical, [4, 9])] == [1, 2, 4, 3, 5, 9]  # a confident one moves the same way
    assert [rowid for rowid, _ in fuse(lexical, [2, 9])] == [1, 2, 3, 4, 5, 9]  # already above the slot: stays
    assert [rowid for rowid, _ in fuse(lexical, [5, 9], exact=True)] == [1, 2, 3, 4, 5, 9]


def test_a_nearest_section_the_words_did_not_find_takes_no_slot() -> None:
    lexical = [(1, 10.0), (2, 9.0), (3, 8.0), (4, 7.0)]  # a table lookup whose fourth word hit is the answer
    assert [rowid for rowid, _ in fuse(lexical, [9, 3])] == [1, 2, 3, 4, 9]


def test_a_family_query_keeps_its_word_hits_in_hybrid_search(tmp_path: Path) -> None:
    folder = write_corpus(
        tmp_path / "corpus",
        {
            "env.md": "".join(f"# PIP_{name}\n\nSets {what} for pip.\n\n" for name, what in _PIP_VARIABLES),
            # nearest to the query by vector, but not a member of the family
            "other.md": "# Pip\n\nPip reads environment variables for its settings.\n",
        },
    )
    store = tmp_path / "s.sqlite"
    ingest(folder, store, SETTINGS, embed="static")
    with Ops.open(store) as ops:
        lexical = [h.id for h in ops.search("PIP_*", mode="lexical", limit=10).hits]
        hybrid = [h.id for h in ops.search("PIP_*", mode="hybrid", limit=10).hits]
    assert len(lexical) == len(_PIP_VARIABLES)
    assert hybrid[: len(lexical)] == lexical  # no vector takes a place among them


_PIP_VARIABLES = [
    ("INDEX_URL", "the index URL"),
    ("CACHE_DIR", "the cache directory"),
    ("NO_INPUT", "no prompts"),
    ("TIMEOUT", "the socket timeout"),
]


def test_hybrid_hits_do_not_depend_on_limit_when_vectors_enter(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store, SETTINGS, embed="static")
    with Ops.open(store) as ops:
        query = "remove cached packages to reclaim storage"
        many = [(h.id, h.match) for h in ops.search(query, mode="hybrid", limit=50).hits]
        assert any(match == "vector" for _, match in many)
        for limit in range(1, len(many) + 1):
            assert [(h.id, h.match) for h in ops.search(query, mode="hybrid", limit=limit).hits] == many[:limit]


@given(st.integers(0, 2**32 - 1), st.integers(1, 60), st.sampled_from([None, [0], [1, 2], [0, 1, 2, 3]]))
def test_vector_top_is_the_exact_ranking_under_the_filter(seed: int, depth: int, docs: list[int] | None) -> None:
    rng = np.random.default_rng(seed)
    count, dim = 40, 8
    matrix = rng.integers(-2, 3, size=(count, dim)).astype(np.float32)  # small integers: many exact ties
    doc_ids = rng.integers(0, 4, size=count).tolist()
    index = VectorIndex(list(range(100, 100 + count)), doc_ids, to_blobs(matrix), dim)
    query = rng.integers(-2, 3, size=dim).astype(np.float32)
    scores = matrix @ query
    allowed = [i for i in range(count) if docs is None or doc_ids[i] in docs]
    expected = sorted(allowed, key=lambda i: (-scores[i], i))[:depth]
    got = index.top(query, depth, docs)
    assert [scores[rowid - 100] for rowid in got] == [scores[i] for i in expected]
    assert set(got) <= {100 + i for i in allowed}
    if len(allowed) <= depth:
        assert got == [100 + i for i in expected]  # nothing cut: ties in store order
    asked = [100 + i for i in allowed] + [99, 100 + count]  # and two row ids without a vector
    assert index.similarities(query, asked) == {100 + i: float(scores[i]) for i in allowed}
