"""The search operation: one relevance order, definitions, filters, snippets and hostile queries."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contextpull.errors import BadArgument, BadFilter, OutOfRange, WrongType
from contextpull.ingestion.run import ingest
from contextpull.ops.operations import Ops
from contextpull.ops.ranking import COMMON, FIELD_WEIGHTS, POOL
from contextpull.ops.snippets import MARK, make_snippet
from contextpull.settings import SectionSettings
from contextpull.store import queries
from ops_support import ONE_SECTION_PER_HEADING, SHARED_CORPORA, small_store, write_corpus


@pytest.fixture(scope="module")
def ops(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    with Ops.open(small_store(tmp_path_factory.mktemp("search"))) as opened:
        yield opened


def ids(result) -> list[str]:
    return [hit.id for hit in result.hits]


def test_identifier_definition_ranks_above_usage(ops: Ops) -> None:
    result = ops.search("APP_CACHE_DIR")
    # the definition, then its use; the flags section holds only its pieces (`--cache-dir`)
    assert ids(result) == ["guides/install.md#1", "guides/usage.md#0"]
    assert result.hits[0].heading_path == ("Installing", "Cache directory")
    assert result.hits[0].kind == "prose"
    assert result.hits[0].doc == "guides/install.md"


def test_pieces_stand_in_for_an_identifier_only_when_the_index_lacks_it_whole(ops: Ops) -> None:
    # Held whole: its pieces count only where it is named, so `--cache-dir` alone does not match.
    assert "guides/usage.md#1" not in ids(ops.search("APP_CACHE_DIR", limit=50))
    # Not held whole: its pieces stand in for a text that writes it apart.
    assert "guides/usage.md#1" in ids(ops.search("CACHE_DIR_PATH", limit=50))
    # A section naming it whole still scores the better of the whole and its pieces, as before.
    both = ops.search("APP_CACHE_DIR cache", limit=50)
    assert ids(both)[:2] == ["guides/install.md#1", "guides/usage.md#0"]


def test_a_gated_piece_scores_the_same_looked_up_or_scanned(ops: Ops, monkeypatch: pytest.MonkeyPatch) -> None:
    queries_ = ["APP_CACHE_DIR", "APP_CACHE_DIR travel", "TX-4501 rates"]
    monkeypatch.setattr(queries, "PROBE_MATCHES", 0)
    looked_up = [ops.search(query, limit=50).to_dict() for query in queries_]
    monkeypatch.setattr(queries, "PROBE_MATCHES", 10**9)
    assert [ops.search(query, limit=50).to_dict() for query in queries_] == looked_up


def test_an_exact_phrase_ranks_first_and_says_how_each_hit_matched(ops: Ops) -> None:
    result = ops.search("travel portal")
    assert [(hit.id, hit.match) for hit in result.hits[:2]] == [
        ("README.md#0", "phrase"),
        ("policies/travel.md#0", "all"),
    ]
    assert {hit.match for hit in result.hits[2:]} <= {"all", "any"}
    assert len(ids(result)) == len(set(ids(result)))


def test_scores_never_increase_down_the_list(ops: Ops) -> None:
    for query in ("travel portal", "cache", "numbers part", "installer upgrade python"):
        scores = [hit.score for hit in ops.search(query, limit=50).hits]
        assert scores == sorted(scores, reverse=True), query


QUERY_WORDS = [
    "cache",
    "travel",
    "portal",
    "numbered",
    "part",
    "APP_CACHE_DIR",
    "APP_*",
    "--cache-dir",
    "install",
    "the",
    "TX-45xx",
    "policy",
    "3.12",
    "numbers",
    "lives",
]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(words=st.lists(st.sampled_from(QUERY_WORDS), min_size=1, max_size=4), k=st.integers(1, 50))
def test_the_top_k_does_not_depend_on_the_limit(ops: Ops, words: list[str], k: int) -> None:
    query = " ".join(words)
    assert ops.search(query, limit=k).hits == ops.search(query, limit=50).hits[:k]


def test_ties_break_by_path_then_numeric_ordinal(ops: Ops) -> None:
    hits = ops.search("numbered", limit=50).hits  # `numbers` too: the same stem
    assert [hit.id for hit in hits] == [f"policies/numbers.md#{n}" for n in range(13)]
    assert len({hit.score for hit in hits[1:]}) == 1  # twelve parts alike: document order decides


def test_pointers_never_bodies_and_snippets_mark_terms(ops: Ops) -> None:
    hit = ops.search("cache lives").hits[0]
    data = hit.to_dict()
    assert "text" not in data
    # The tool result shows the order and how each hit matched, never the relevance score (ADR 027).
    assert "score" not in data and data["match"] in {"phrase", "all", "any"} and hit.score > 0
    assert f"{MARK}cache{MARK}" in data["snippet"] and f"{MARK}lives{MARK}" in data["snippet"]
    assert not data["snippet"].startswith("#")  # the section's own heading is left out


def test_snippet_width_is_a_parameter(ops: Ops) -> None:
    heading_only = ops.search("cache", snippet=0).to_dict()["hits"]
    assert heading_only and all("snippet" not in hit for hit in heading_only)
    short = ops.search("portal", snippet=20).hits[0].snippet
    assert short is not None and len(short.replace(MARK, "").strip("…")) <= 20
    default = Ops(ops.store, snippet=0).search("cache").hits[0]
    assert default.snippet is None


def test_filter_globs_lists_and_folders(ops: Ops) -> None:
    assert {h.doc for h in ops.search("cache", in_="guides/*").hits} == {"guides/install.md", "guides/usage.md"}
    assert {h.doc for h in ops.search("cache", in_="guides").hits} == {"guides/install.md", "guides/usage.md"}
    assert {h.doc for h in ops.search("travel", in_=["README.md", "policies/travel.md"]).hits} == {
        "README.md",
        "policies/travel.md",
    }
    assert {h.doc for h in ops.search("cache", in_="./guides/usage.md").hits} == {"guides/usage.md"}


@pytest.mark.parametrize("bad", ["", "   ", [], ["ok", ""], "nothing/*", ["nothing.md"], 5, [3], {"a": 1}])
def test_bad_filters_name_the_top_level_paths(ops: Ops, bad: object) -> None:
    with pytest.raises(BadFilter) as caught:
        ops.search("cache", in_=bad)  # type: ignore[arg-type]
    assert "README.md, guides/, policies/" in caught.value.suggestion


@pytest.mark.parametrize(
    "query",
    [
        '"',
        '""',
        "*",
        "NEAR(",
        "NEAR(a b)",
        "AND",
        "a AND b OR",
        "-x",
        "^start",
        "col:value",
        "(",
        ")",
        "a*",
        '"open',
        "heading:cache",
        "{heading}: cache",
        "x NOT y",
        "+",
        "'",
        "\\",
        "%",
        "_",
    ],
)
def test_fts_syntax_never_raises_sqlite_errors(ops: Ops, query: str) -> None:
    try:
        result = ops.search(query)
    except BadArgument as err:
        assert "grep" in err.suggestion
    else:
        assert isinstance(result.hits, tuple)


@pytest.mark.parametrize("query", ["", "   ", "...", "!!! ?", "--", "#"])
def test_empty_or_punctuation_only_query_is_refused(ops: Ops, query: str) -> None:
    with pytest.raises(BadArgument) as caught:
        ops.search(query)
    assert "grep" in caught.value.suggestion or "non-empty" in caught.value.suggestion


def test_no_hits_gives_empty_list_and_hint(ops: Ops) -> None:
    result = ops.search("zebra quagga", in_="guides")
    assert result.hits == ()
    assert "grep" in result.hint and "filter" in result.hint and "fewer" in result.hint
    assert result.to_dict() == {"query": "zebra quagga", "hits": [], "hint": result.hint}


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"limit": 0}, OutOfRange),
        ({"limit": 51}, OutOfRange),
        ({"limit": True}, WrongType),
        ({"limit": "5"}, WrongType),
        ({"snippet": -1}, OutOfRange),
        ({"snippet": 1001}, OutOfRange),
        ({"query": "x" * 501}, OutOfRange),
        ({"query": 7}, WrongType),
        ({"query": "\ud800"}, BadArgument),
    ],
)
def test_argument_bounds(ops: Ops, kwargs: dict, error: type) -> None:
    args = {"query": "cache", **kwargs}
    with pytest.raises(error):
        ops.search(**args)


def test_argument_bounds_accepted_at_the_edges(ops: Ops) -> None:
    assert len(ops.search("numbered", limit=1).hits) == 1
    assert len(ops.search("numbered", limit=50).hits) == 13
    assert ops.search("cache", snippet=1000).hits
    assert ops.search("c" * 500).hits == ()


def test_same_call_twice_is_identical(ops: Ops) -> None:
    assert ops.search("cache directory").to_dict() == ops.search("cache directory").to_dict()


def test_make_snippet_cuts_at_words_and_marks_whole_tokens() -> None:
    text = "alpha " * 40 + "the UV_CACHE_DIR variable " + "omega " * 40
    snippet = make_snippet(text, ["cache"], 60)
    assert f"{MARK}UV_CACHE_DIR{MARK}" in snippet
    assert snippet.startswith("…") and snippet.endswith("…")
    assert all(
        word in {"alpha", "omega", "the", "variable", f"{MARK}UV_CACHE_DIR{MARK}"}
        for word in snippet.strip("…").split()
    )
    assert make_snippet("# Title\n\nbody text here", ["title"], 50) == "body text here"


@pytest.mark.parametrize(
    "opening",
    [
        "# Title\n\n",
        "Title\n=====\n\n",  # Markdown setext, reStructuredText underline
        "=====\nTitle\n=====\n\n",  # reStructuredText overline
        "Group\n-----\n\n.. _reload:\n\n``reload``\n~~~~~~~~~~\n\n",  # a bare heading, a link target, a deeper one
        ".. _debug:\n\n.. setting:: DEBUG\n\n``DEBUG``\n---------\n\n",  # targets naming the title below
    ],
)
def test_a_snippet_leaves_out_the_heading_lines_a_section_opens_with_in_any_syntax(opening: str) -> None:
    assert make_snippet(opening + "Restart workers when code changes.\n", ["workers"], 80) == (
        f"Restart {MARK}workers{MARK} when code changes."
    )


@pytest.mark.parametrize("fence", ["```", "~~~"])
def test_a_snippet_keeps_a_fenced_block_a_section_opens_with(fence: str) -> None:
    text = f"{fence}\nuv sync\n{fence}\n\nThen run it.\n"
    assert make_snippet(text, ["sync"], 80) == f"{fence} uv {MARK}sync{MARK} {fence} Then run it."


def test_a_token_the_text_already_sets_in_bold_is_not_marked_twice() -> None:
    snippet = make_snippet("**Default:** ``False``. The default is safe.\n", ["default"], 80)
    assert snippet == f"**Default:** ``False``. The {MARK}default{MARK} is safe."


UV_DOCS = SHARED_CORPORA / "uv-docs"


@pytest.mark.skipif(not UV_DOCS.is_dir(), reason="shared uv-docs corpus not present")
def test_uv_cache_dir_finds_the_cache_directory_section_first(tmp_path: Path) -> None:
    store = tmp_path / "uv.sqlite"
    ingest(UV_DOCS, store)
    with Ops.open(store) as ops:
        first = ops.search("UV_CACHE_DIR").hits[0]
    assert first.doc == "docs/concepts/cache.md"
    assert first.heading_path[-1] == "Cache directory"


@pytest.mark.skipif(not UV_DOCS.is_dir(), reason="shared uv-docs corpus not present")
def test_a_wildcard_lists_every_section_holding_an_identifier_with_that_prefix(tmp_path: Path) -> None:
    store = tmp_path / "uv.sqlite"
    ingest(UV_DOCS, store)
    with Ops.open(store) as ops:
        holders = {match.id for match in ops.grep("PIP_", limit=100).matches}
        assert holders and set(ids(ops.search("PIP_*", limit=50))) == holders
        assert set(ids(ops.search("PIP_", limit=50))) == holders
        assert ids(ops.search("UV_CACHE", limit=5))[0] in {m.id for m in ops.grep("UV_CACHE_", limit=100).matches}


def test_prefixes_camel_case_and_possessives(tmp_path: Path) -> None:
    corpus = write_corpus(
        tmp_path / "c",
        {
            "flags.md": "# Flags\n\nPass `--no-cache` or `--no-build` to skip work.\n",
            "peers.md": "# Peers\n\nSet `autoInstallPeers` to true to install peer dependencies.\n",
            "tool.md": "# Tool\n\nThe tool's cache lives in `tool.cache.dir`.\n",
            "other.md": "# Other\n\nNothing to see: no flags, no peers.\n",
        },
    )
    ingest(corpus, tmp_path / "s.sqlite")
    with Ops.open(tmp_path / "s.sqlite") as ops:
        assert ids(ops.search("--no-*")) == ["flags.md#0"]
        assert ids(ops.search("tool.cache.*")) == ["tool.md#0"]
        assert ids(ops.search("auto install peers"))[0] == "peers.md#0"
        assert ids(ops.search("autoInstallPeers"))[0] == "peers.md#0"
        assert ids(ops.search("tool's"))[0] == "tool.md#0"
        assert ops.search("tool's").hits[0].match in {"phrase", "all"}


def test_very_common_words_are_ranked_over_a_bounded_pool(tmp_path: Path) -> None:
    per_doc = 20
    docs = {
        f"d{n:03}.md": f"# Doc {n}\n\n" + "".join(f"## Part {p}\n\nplain widgets text {p}\n\n" for p in range(per_doc))
        for n in range(COMMON // per_doc + 10)
    }
    docs["zz/definition.md"] = "# Parts\n\n## Widgets\n\nwhat widgets are.\n"
    docs["zz/rare.md"] = "# Animals\n\nA quokka lives here.\n"
    store = tmp_path / "common.sqlite"
    ingest(write_corpus(tmp_path / "corpus", docs), store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as ops:
        common = ops.search("widgets")
        assert common.hits[0].id == "zz/definition.md#1"
        assert common.hint and "distinctive" in common.hint
        mixed = ops.search("widgets quokka", limit=5)
        assert "zz/rare.md#0" in ids(mixed)
        assert ops.search("quokka").hint is None


def test_a_bounded_pool_leaves_out_terms_no_heading_holds_with_the_same_result(tmp_path: Path) -> None:
    per_doc = 20
    docs = {
        f"d{n:03}.md": f"# Doc {n}\n\n" + "".join(f"## Part {p}\n\nplain widgets text {p}\n\n" for p in range(per_doc))
        for n in range(COMMON // per_doc + 10)
    }
    corpus, store = write_corpus(tmp_path / "corpus", docs), tmp_path / "headed.sqlite"
    ingest(corpus, store, ONE_SECTION_PER_HEADING)
    with Ops.open(store) as ops:
        reader, terms = ops.store, ["plain", "part"]
        with reader.snapshot():
            assert queries.held_in_headings(reader._conn, terms) == {"plain": False, "part": True}
            every_term = queries.sampled_best(reader._conn, terms, FIELD_WEIGHTS, COMMON, POOL)
            assert reader.sampled_best(terms, FIELD_WEIGHTS, COMMON, POOL) == every_term
        assert ops.search("plain text").hint  # bounded, and "plain" is remembered as in no heading
        # Another connection's commit is seen: a heading now holds "plain", so its section is sampled.
        (corpus / "zz.md").write_text("# Plain\n\nplain text for once.\n", encoding="utf-8")
        ingest(corpus, store, ONE_SECTION_PER_HEADING)
        assert ops.search("plain text").hits[0].id == "zz.md#0"


def test_a_table_continuation_is_found_by_its_column_names(tmp_path: Path) -> None:
    """The header row is indexed with every part of a split table, as read shows it."""
    rows = "".join(f"| LT-{n} | {300 + n} g |\n" for n in range(100, 400))
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "spec.md").write_text("# Spec\n\n| Model | Weight |\n|---|---|\n" + rows)
    store = tmp_path / "store.sqlite"
    ingest(tmp_path / "c", store, SectionSettings(max_chars=1000, min_chars=100))
    with Ops.open(store) as ops:
        holder = ops.grep("| LT-350 |").matches[0].id
        assert holder != "spec.md#0" and ops.read(holder).section.table_header_added
        assert ops.search("Weight LT-350", limit=3).hits[0].id == holder


def test_stopwords_neither_match_nor_make_a_definition(tmp_path: Path) -> None:
    """A question is matched on what it is about: ``what is the`` in a heading is no definition."""
    corpus = write_corpus(
        tmp_path / "c",
        {"a.md": "# What is the queue\n\nPayments wait here.\n", "b.md": "# Weight\n\nThe weight of a parcel.\n"},
    )
    ingest(corpus, tmp_path / "s.sqlite")
    with Ops.open(tmp_path / "s.sqlite") as ops:
        assert ids(ops.search("what is the weight")) == ["b.md#0"]
        assert ids(ops.search("what is the")) == ["a.md#0", "b.md#0"]  # nothing but stopwords: they count


def test_a_natural_question_finds_the_row_not_a_heading_full_of_stopwords(tmp_path: Path) -> None:
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "queue.md").write_text("# What is the queue\n\nThe queue is where payments wait.\n")
    (corpus / "spec.md").write_text("# Models\n\n| Model | Weight |\n|---|---|\n| LT-1200 | 395 g |\n")
    store = tmp_path / "store.sqlite"
    ingest(corpus, store)
    with Ops.open(store) as ops:
        assert ops.search("What is the weight of LT-1200?").hits[0].id == "spec.md#0"


def test_a_name_typed_with_dashes_finds_it_spelled_with_underscores(tmp_path: Path) -> None:
    """The index holds `manylinux-compatible` whole (prose), so its pieces count only where a section names it
    whole: the section defining `manylinux_compatible` names it, in its other spelling."""
    corpus = write_corpus(
        tmp_path / "c",
        {
            "platforms.md": "# Platforms\n\nWheels are built for manylinux-compatible systems.\n",
            "enforcement.md": "# Enforcement\n\nInstallers call the `manylinux_compatible` function to opt out.\n",
            "notes.md": "# Notes\n\nThe manylinux images are compatible with most systems.\n",
        },
    )
    ingest(corpus, tmp_path / "s.sqlite")
    with Ops.open(tmp_path / "s.sqlite") as ops:
        assert sorted(ids(ops.search("manylinux-compatible"))) == ["enforcement.md#0", "platforms.md#0"]


def test_a_name_held_only_in_its_other_spelling_still_gates_its_pieces(tmp_path: Path) -> None:
    """No section writes `manylinux-compatible` as typed, but one names `manylinux_compatible`: the index holds the
    name whole, so a text that only writes its words apart is not a match for it."""
    corpus = write_corpus(
        tmp_path / "c",
        {
            "enforcement.md": "# Enforcement\n\nInstallers call the `manylinux_compatible` function to opt out.\n",
            "notes.md": "# Notes\n\nThe manylinux images are compatible with most systems.\n",
        },
    )
    ingest(corpus, tmp_path / "s.sqlite")
    with Ops.open(tmp_path / "s.sqlite") as ops:
        assert ids(ops.search("manylinux-compatible")) == ["enforcement.md#0"]


def test_a_name_written_as_the_last_part_of_a_path_is_found_by_the_name(tmp_path: Path) -> None:
    """`model_fields` is held whole (the API page), so its pieces count only where a section names it whole:
    the section writing `Model.model_fields` names it too, and a wheel's file name names its platform tag."""
    corpus = write_corpus(
        tmp_path / "c",
        {
            "api.md": "# API\n\nThe `model_fields` attribute maps names to fields.\n",
            "guide.md": "# Guide\n\nIterate over `User.model_fields` to list what a user holds.\n",
            "words.md": "# Words\n\nEvery model has fields.\n",
            "wheels.md": "# Wheels\n\n`torch-2.4.0-cp312-cp312-manylinux2014_aarch64.whl` runs on arm64 Linux.\n",
        },
    )
    ingest(corpus, tmp_path / "s.sqlite")
    with Ops.open(tmp_path / "s.sqlite") as ops:
        assert sorted(ids(ops.search("model_fields"))) == ["api.md#0", "guide.md#0"]
        assert ids(ops.search("Which identifiers of the form manylinux2014_* are documented?"))[:1] == ["wheels.md#0"]


def test_a_word_as_typed_outranks_other_inflections_of_its_stem(tmp_path: Path) -> None:
    # both sections hold the stem `resolv`; only the first holds the word the question typed
    corpus = write_corpus(
        tmp_path / "corpus",
        {
            "hooks.md": "# Hooks\n\nThe resolvers run first.\n",
            "events.md": "# Events\n\nOnce resolved, resolved packages are resolved again and stay resolved.\n",
            "other.md": "# Other\n\nNothing about that here.\n",
        },
    )
    ingest(corpus, tmp_path / "store.sqlite")
    with Ops.open(tmp_path / "store.sqlite") as ops:
        assert ids(ops.search("resolvers"))[:2] == ["hooks.md#0", "events.md#0"]
        assert ids(ops.search("resolved"))[0] == "events.md#0"


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Ops:
    from ops_support import examples_store

    with Ops.open(examples_store(tmp_path_factory.mktemp("weak"))) as opened:
        yield opened


@pytest.mark.parametrize(
    ("query", "missing"),
    [
        ("How do I configure Kubernetes autoscaling?", ("kubernetes", "autoscaling")),
        ("agent kubernetes", ("kubernetes",)),
    ],
)
def test_a_query_about_what_the_corpus_lacks_is_flagged_weak(examples: Ops, query: str, missing: tuple) -> None:
    result = examples.search(query)
    assert result.hits and result.weak
    assert result.hint and result.hint.startswith("no strong match: no section uses ")
    assert all(repr(word) in result.hint for word in missing)
    assert result.to_dict()["weak"] is True


@pytest.mark.parametrize(
    "query",
    [
        "install the agent",  # every word held
        "What is the purpose of the `settlement_total_mismatch` alert?",  # "purpose" is absent, the rare code is the topic
        "Which identifiers of the form LEDGERLINE_* are documented?",  # a prefix names what the corpus covers
    ],
)
def test_a_query_the_corpus_covers_is_not_weak(examples: Ops, query: str) -> None:
    result = examples.search(query)
    assert result.hits and not result.weak and "weak" not in result.to_dict()
    assert not (result.hint or "").startswith("no strong match")
