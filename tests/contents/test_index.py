from __future__ import annotations

import pytest

from contextpull.analysis.tokens import estimate_tokens
from contextpull.contents.index import SUMMARY_SOURCE, build_index, index_for_prefix, normalise_prefix
from contextpull.errors import BadFilter
from contextpull.ingestion.run import ingest
from contextpull.store import DocumentEntry, Store

FP = "f" * 64


def entries(n: int, *, per_folder: int = 50) -> list[DocumentEntry]:
    docs = [
        DocumentEntry(
            f"area{i // (per_folder * 10):02}/topic{i // per_folder:03}/page{i:05}.md",
            f"Page {i}",
            f"Page {i}: how the {i}th widget is configured and deployed.",
            i % 7 + 1,
        )
        for i in range(n)
    ]
    return sorted(docs, key=lambda d: d.path)


def test_full_form_lists_every_document():
    docs = entries(12)
    index = build_index(docs, fingerprint=FP)
    lines = index.text.splitlines()
    assert index.mode == "full" and len(lines) == 13
    assert lines[0].startswith("Corpus index: 12 documents, ") and FP[:12] in lines[0]
    assert SUMMARY_SOURCE in lines[0]
    assert lines[1] == f"- {docs[0].path} — {docs[0].summary} (1 section)"
    assert index.tokens == estimate_tokens(index.text)


def _form_tokens(docs: list[DocumentEntry], legend: str, line) -> int:
    header = f"Corpus index: {len(docs)} documents, {sum(d.section_count for d in docs):,} sections (corpus {FP[:12]})"
    return estimate_tokens("\n".join([header, legend, *map(line, docs)]))


def test_falls_back_document_by_document_through_titles_and_compact_to_hierarchical():
    docs = entries(400)
    full = build_index(docs, fingerprint=FP, budget=100_000)
    assert full.mode == "full"
    richer = build_index(docs, fingerprint=FP, budget=full.tokens - 1)
    assert richer.mode == "summaries+titles" and SUMMARY_SOURCE in richer.text.splitlines()[0]
    told = richer.text.splitlines()[1]
    assert told.startswith("The first 3") and told.endswith(" with their title.")
    titles_tokens = _form_tokens(
        docs,
        "One line per document: path — title (sections).",
        lambda d: f"- {d.path} — {d.title} ({d.section_count} section{'s' * (d.section_count != 1)})",
    )
    titles = build_index(docs, fingerprint=FP, budget=titles_tokens)
    assert titles.mode == "titles" and f"- {docs[0].path} — {docs[0].title} (" in titles.text
    assert SUMMARY_SOURCE not in titles.text  # no line shows a summary, so the header names no summary source
    some_titles = build_index(docs, fingerprint=FP, budget=titles_tokens - 1)
    assert some_titles.mode == "titles+compact" and "documents with their title, the other " in some_titles.text
    assert f"- {docs[0].path} — {docs[0].title} (" in some_titles.text
    assert f"- {docs[-1].path} ({docs[-1].section_count})" in some_titles.text
    compact_tokens = _form_tokens(
        docs, "One line per document: path (sections).", lambda d: f"- {d.path} ({d.section_count})"
    )
    compact = build_index(docs, fingerprint=FP, budget=compact_tokens)
    assert compact.mode == "compact" and f"- {docs[0].path} ({docs[0].section_count})" in compact.text
    grouped = build_index(docs, fingerprint=FP, budget=compact.tokens - 1)
    assert grouped.mode == "hierarchical"
    assert 'index(prefix="folder/")' in grouped.text
    # the deepest grouping that fits, with the leading folders opened while the budget has room
    assert f"- {docs[0].path} ({docs[0].section_count})" in grouped.text
    assert "- area00/topic007/ — 50 documents, " in grouped.text
    assert compact.tokens * 0.8 <= grouped.tokens < compact.tokens  # short by less than one folder of 50


def test_the_index_fills_its_budget_between_the_forms():
    """Every budget between the compact and the full form is used to within two lines' worth."""
    docs = entries(120)
    full = build_index(docs, fingerprint=FP, budget=100_000).tokens
    compact = _form_tokens(docs, "One line per document: path (sections).", lambda d: f"- {d.path} ({d.section_count})")
    shown = []
    for budget in range(compact, full, 97):
        index = build_index(docs, fingerprint=FP, budget=budget)
        assert budget - 60 <= index.tokens <= budget, (budget, index.mode, index.tokens)
        shown.append(index.text.count(" — "))
    assert shown == sorted(shown)  # a larger budget never shows fewer titles or summaries


def test_ten_thousand_documents_fit_the_default_budget():
    docs = entries(10_000)
    index = build_index(docs, fingerprint=FP)
    assert index.mode in {"hierarchical", "truncated"}
    assert index.tokens == estimate_tokens(index.text) <= 3000
    assert "10,000 documents" in index.text


@pytest.mark.parametrize("budget", [0, 1, 3, 5, 8, 13, 21, 40, 80, 200, 1000])
def test_budget_is_always_honoured(budget):
    for docs in (entries(3), entries(2000), entries(10_000, per_folder=1)):
        index = build_index(docs, fingerprint=FP, budget=budget)
        assert estimate_tokens(index.text) == index.tokens <= budget


def test_truncated_form_says_what_is_left():
    docs = [DocumentEntry(f"top{i:04}.md", "", "", 1) for i in range(500)]
    index = build_index(docs, fingerprint=FP, budget=300)
    assert index.mode == "truncated" and index.tokens <= 300
    assert "more entries" in index.text.splitlines()[-1]


def test_same_input_same_text():
    docs = entries(3000)
    assert build_index(docs, fingerprint=FP) == build_index(list(docs), fingerprint=FP)


def test_empty_corpus():
    index = build_index([], fingerprint=FP)
    assert index.text.startswith("Corpus index: 0 documents, 0 sections")


def test_long_summaries_are_cut():
    doc = DocumentEntry("a.md", "A", "word " * 200, 1)
    line = build_index([doc], fingerprint=FP).text.splitlines()[1]
    assert len(line) < 200 and line.endswith("… (1 section)")


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("guides", "guides"),
        ("guides/", "guides/"),
        ("./guides/", "guides/"),
        ("/a\\b", "a/b"),
        (".", ""),
        ("", ""),
    ],
)
def test_normalise_prefix(raw, expected):
    assert normalise_prefix(raw) == expected


@pytest.fixture
def store(make_corpus, tmp_path):
    files = {f"guides/g{i}.md": f"# Guide {i}\n\nGuide number {i}.\n" for i in range(5)}
    files |= {
        "guides-old/x.md": "# Old\n\nOld guide.\n",
        "ref/api/a.md": "# API\n\nCalls.\n",
        "top.md": "# Top\n\nT.\n",
    }
    path = tmp_path / "store.sqlite"
    ingest(make_corpus(files), path)
    with Store.open(path) as opened:
        yield opened


def test_prefix_names_a_folder(store):
    texts = {index_for_prefix(store, p).text for p in ("guides", "guides/", "./guides/")}
    assert len(texts) == 1
    text = texts.pop()
    lines = text.splitlines()
    assert lines[0] == "Documents under guides/: 5 documents, 5 sections"
    assert [line.split(" — ")[0] for line in lines[1:]] == [f"- guides/g{i}.md" for i in range(5)]
    assert "guides-old" not in text


def test_prefix_falls_back_to_plain_path_prefix(store):
    text = index_for_prefix(store, "guides-o").text
    assert "- guides-old/x.md" in text and "guides/g0" not in text
    assert "- ref/api/a.md" in index_for_prefix(store, "ref/api/a.md").text


def test_empty_prefix_is_the_whole_corpus(store):
    assert index_for_prefix(store, "").text == store.index_text


def test_unknown_prefix_lists_top_level_paths(store):
    with pytest.raises(BadFilter) as info:
        index_for_prefix(store, "nowhere/")
    assert "guides/" in info.value.suggestion and "top.md" in info.value.suggestion


@pytest.mark.parametrize("budget", [0, 4, 12, 30])
def test_prefix_honours_budget(store, budget):
    index = index_for_prefix(store, "guides", budget=budget)
    assert estimate_tokens(index.text) <= budget
