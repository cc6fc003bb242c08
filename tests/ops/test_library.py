"""Several collections behind one set of operations, and the URLs results carry (ADR 024)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from contextpull.contents.links import Links, anchor, check_base_url
from contextpull.errors import BadArgument, BadFilter, UnknownSection
from contextpull.ingestion.run import ingest
from contextpull.ops.library import Library
from contextpull.ops.operations import Ops
from contextpull.tools.instructions import served_notes, server_instructions, store_instructions
from contextpull.tools.schemas import TOOLS, TOOLS_VERSION, call_json, library_tools
from ops_support import ONE_SECTION_PER_HEADING, write_corpus

CACHE = {
    "guides/cache.md": "# Cache\n\nThe cache lives in APP_CACHE_DIR.\n\n## Clearing the cache\n\nRun app cache clean.\n",
    "guides/shared.md": "# Shared page\n\nThe same path in both collections.\n",
}
HANDBOOK = {
    "policies/travel.md": "# Travel policy\n\nBook travel through the portal; the cache of receipts is kept.\n",
    "guides/shared.md": "# Shared page\n\nThe same path in both collections, in the handbook.\n",
    "handbook/only.md": "# Zebra crossings\n\nZebra crossings are described only in the handbook.\n",
}


@pytest.fixture
def library(tmp_path: Path) -> Library:
    tool = write_corpus(tmp_path / "tool", CACHE)
    handbook = write_corpus(tmp_path / "handbook", HANDBOOK)
    ingest(tool, tmp_path / "tool.sqlite", ONE_SECTION_PER_HEADING, links=Links("https://docs.example/tool/"))
    ingest(handbook, tmp_path / "handbook.sqlite", ONE_SECTION_PER_HEADING)
    return Library({"tool@1.0": Ops.open(tmp_path / "tool.sqlite"), "handbook": Ops.open(tmp_path / "handbook.sqlite")})


def test_every_id_carries_its_collection_and_reads_back(library: Library) -> None:
    found = library.search("cache")
    assert {hit.id.split(":", 1)[0] for hit in found.hits} == {"tool@1.0", "handbook"}
    for hit in found.hits:
        read = library.read(hit.id)
        assert read.section.id == hit.id and read.section.doc == hit.doc
    first = library.read("tool@1.0:guides/cache.md#0")
    assert first.next_id == "tool@1.0:guides/cache.md#1"
    around = library.neighbours("tool@1.0:guides/cache.md#1")
    assert around.id == "tool@1.0:guides/cache.md#1"
    assert [view.id for view in around.before] == ["tool@1.0:guides/cache.md#0"]


def test_the_merge_interleaves_by_rank_and_puts_weak_collections_last(library: Library) -> None:
    found = library.search("cache", limit=4)
    owners = [hit.id.split(":", 1)[0] for hit in found.hits]
    assert owners[:2] in (["tool@1.0", "handbook"], ["handbook", "tool@1.0"])
    assert [hit.score for hit in found.hits] == sorted((hit.score for hit in found.hits), reverse=True)
    zebra = library.search("zebra crossings")
    assert zebra.hits[0].id == "handbook:handbook/only.md#0" and not zebra.weak


def test_collection_and_prefixed_filters_choose_what_is_searched(library: Library) -> None:
    only = library.search("cache", collection="handbook")
    assert only.hits and all(hit.id.startswith("handbook:") for hit in only.hits)
    scoped = library.search("shared", in_="tool@1.0:guides/")
    assert [hit.id for hit in scoped.hits] == ["tool@1.0:guides/shared.md#0"]
    anywhere = library.search("travel", in_="policies/")  # a folder only one collection has
    assert [hit.doc for hit in anywhere.hits] == ["handbook:policies/travel.md"]
    with pytest.raises(BadFilter):
        library.search("cache", in_="nowhere/")
    with pytest.raises(BadArgument, match="no collection 'nope'"):
        library.search("cache", collection="nope")


def test_an_id_without_a_collection_is_read_where_only_one_holds_it(library: Library) -> None:
    assert library.read("policies/travel.md#0").section.id == "handbook:policies/travel.md#0"
    with pytest.raises(UnknownSection, match="several collections"):
        library.read("guides/shared.md#0")
    with pytest.raises(UnknownSection, match="no collection has"):
        library.read("missing.md#0")


def test_grep_goes_collection_by_collection_within_its_limit(library: Library) -> None:
    found = library.grep("same path")
    assert [match.id for match in found.matches] == ["tool@1.0:guides/shared.md#0", "handbook:guides/shared.md#0"]
    capped = library.grep("same path", limit=1)
    assert len(capped.matches) == 1 and capped.truncated
    assert library.grep("no such text anywhere").hint


def test_the_index_heads_each_collection_and_a_prefix_picks_one(library: Library) -> None:
    text = library.index().text
    assert "## Collection tool@1.0" in text and "## Collection handbook" in text
    one = library.index("handbook:policies/").text
    assert "policies/travel.md" in one and "guides/cache.md" not in one


def test_hits_reads_and_grep_matches_carry_urls_in_a_store_with_links(library: Library) -> None:
    hit = library.search("clearing", collection="tool@1.0").hits[0]
    assert hit.url == "https://docs.example/tool/guides/cache.md#clearing-the-cache"
    assert library.read(hit.id).section.url == hit.url
    assert library.grep("APP_CACHE_DIR").matches[0].url == "https://docs.example/tool/guides/cache.md#cache"
    assert library.search("zebra").hits[0].url is None  # the handbook has no links
    assert "url" not in library.search("zebra").to_dict()["hits"][0]


def test_the_library_tools_add_collection_to_three_tools_and_leave_the_five_as_they_were(library: Library) -> None:
    before = json.dumps(TOOLS, sort_keys=True)
    tools = library_tools(library.names)
    assert json.dumps(TOOLS, sort_keys=True) == before and TOOLS_VERSION
    scoped = {t["name"] for t in tools if "collection" in t["input_schema"]["properties"]}
    assert scoped == {"index", "search", "grep"}
    payload, is_error = call_json(library, "search", {"query": "cache", "collection": "handbook"}, tools=tools)
    assert not is_error and all(hit["id"].startswith("handbook:") for hit in payload["hits"])
    payload, is_error = call_json(library, "search", {"query": "cache", "collection": "other"}, tools=tools)
    assert is_error and payload["error"] == "out_of_range"
    _, is_error = call_json(library, "search", {"query": "cache", "collection": "handbook"})
    assert is_error  # one store's schemas take no collection


def test_instructions_name_the_collections_and_the_url_rule_only_when_they_apply() -> None:
    plain = server_instructions("index")
    assert server_instructions("index", served_notes()) == plain
    notes = served_notes(["tool@1.0", "handbook"], links=True)
    assert "tool@1.0, handbook" in notes and "url" in notes
    assert server_instructions("index", notes).startswith(plain.split("\n\n<")[0])


def test_one_store_gets_the_url_rule_only_when_it_has_links(library: Library) -> None:
    """The MCP server, the API loop and the fingerprint take a store's instructions from one function."""
    linked, plain = library.members["tool@1.0"].store, library.members["handbook"].store
    assert store_instructions(plain) == server_instructions(plain.index_text)
    assert store_instructions(linked) == server_instructions(linked.index_text, served_notes(links=True))


def test_anchors_base_urls_and_pages_follow_the_common_renderers() -> None:
    assert anchor("Clearing the cache (v2)!") == "clearing-the-cache-v2"
    assert anchor("Straße & more") == "straße--more"  # as GitHub: letters kept, & dropped, each space a hyphen
    assert check_base_url("https://example.org/docs") == "https://example.org/docs/"
    with pytest.raises(ValueError):
        check_base_url("example.org/docs")
    links = Links("https://example.org/", {"guide/index.html": "https://example.org/guide/"})
    assert links.url_for("guide/index.html", ("Guide", "Steps")) == "https://example.org/guide/#steps"
    assert links.url_for("manual.pdf", ("Manual",), (4, 5)) == "https://example.org/manual.pdf#page=4"
    assert links.url_for("a b.md", ()) == "https://example.org/a%20b.md"
    assert Links.from_meta(links.to_meta()) == links
    assert Links.from_meta("not json") is None and Links.from_meta(None) is None
