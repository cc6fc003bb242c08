"""Term analysis: identifiers whole and in pieces, stems, possessives, and the query's prefixes."""

from __future__ import annotations

import pytest

from contextpull.analysis.section_terms import search_fields
from contextpull.analysis.terms import analyse_query, identifiers, index_terms, stem


def test_identifiers_are_kept_whole_then_split_into_pieces() -> None:
    assert index_terms("UV_CACHE_DIR") == ["uv_cache_dir", "uv", "cache", "cach", "dir"]
    assert index_terms("--no-cache")[:4] == ["--no-cache", "no-cache", "no", "cache"]
    assert index_terms("tool.uv.sources")[:3] == ["tool.uv.sources", "tool", "uv"]
    assert index_terms("user-agent")[:3] == ["user-agent", "user", "agent"]
    assert index_terms("docs/concepts/cache.md")[:3] == ["docs/concepts/cache.md", "docs", "doc"]


@pytest.mark.parametrize(
    ("word", "pieces"),
    [
        ("autoInstallPeers", ["auto", "install", "peers"]),
        ("strictPeerDependencies", ["strict", "peer", "dependencies"]),
        ("HTTPServer", ["http", "server"]),
        ("getURL", ["get", "url"]),
        ("BaseModel", ["base", "model"]),
    ],
)
def test_camel_and_pascal_case_are_split(word: str, pieces: list[str]) -> None:
    terms = index_terms(word)
    assert terms[0] == word.casefold()
    assert [t for t in terms[1:] if t in pieces] == pieces
    assert identifiers(f"see {word} here") == [word.casefold()]


def test_a_camel_case_part_of_a_dotted_name_is_indexed_whole() -> None:
    terms = index_terms("pydantic.utils.GetterDict")
    assert terms[0] == "pydantic.utils.getterdict"
    assert "getterdict" in terms and {"getter", "dict"} <= set(terms)
    assert analyse_query("GetterDict").parts[0].term in terms  # the name typed alone finds the path
    assert "urlpath" not in index_terms("url_path")  # only a camelCase part is a name of its own


def test_a_snake_case_segment_of_a_longer_name_is_indexed_whole() -> None:
    assert "model_fields" in index_terms("Model.model_fields")
    assert "manylinux2014_aarch64" in index_terms("torch-2.4.0-cp312-cp312-manylinux2014_aarch64.whl")
    assert "no_build" in index_terms("--no_build-isolation")
    assert {"b_c", "d_e_f"} <= set(index_terms("a/b_c/d_e_f/"))
    assert analyse_query("model_fields").parts[0].term in index_terms("Model.model_fields")
    # a segment that is one word is not a name of its own; the name alone is its own whole term already
    assert "dict" in index_terms("x.__dict__") and "__dict__" not in index_terms("x.__dict__")
    assert index_terms("url_path") == ["url_path", "url", "path"]


@pytest.mark.parametrize(
    ("text", "whole", "findable_by"),
    [
        ("Put it in .env first", ".env", ["env"]),
        ("the .python-version file", ".python-version", ["python-version", "python", "version"]),
        ("read from ~/.config/uv/uv.toml", "~/.config/uv/uv.toml", ["config", "uv", "toml"]),
        ("run ./configure", "./configure", ["configure"]),
        (":data:`.request_started` is sent", ".request_started", ["request_started", "request"]),
        (":meth:`~.Flask.before_request`", "~.flask.before_request", ["flask.before_request", "before_request"]),
    ],
)
def test_a_name_opening_with_a_dot_or_a_home_path_is_indexed(text: str, whole: str, findable_by: list[str]) -> None:
    # Until analysis version 10 a token could not open with a dot, so hidden files, relative and
    # home paths and Sphinx's short references were in no term at all, and searching one failed.
    terms = index_terms(text)
    assert whole in terms and set(findable_by) <= set(terms)
    assert whole in identifiers(text)
    typed = analyse_query(whole.removeprefix("~.")).content
    assert len(typed) == 1 and set(typed[0].exact) & set(terms)


def test_a_tilde_opens_a_name_only_before_a_dot_or_a_slash() -> None:
    assert index_terms("about ~5 seconds")[:2] == ["about", "5"]
    assert identifiers("about ~5 seconds") == []


def test_plain_words_are_not_identifiers() -> None:
    assert identifiers("The Cache is fine. Python 3 and uv.") == []
    assert index_terms("Hello") == ["hello"]


def test_possessives_are_dropped() -> None:
    assert index_terms("uv's cache") == ["uv", "cache", "cach"]
    assert index_terms("uv\u2019s cache") == ["uv", "cache", "cach"]
    assert "s" not in index_terms("the project's settings")
    assert [p.term for p in analyse_query("uv's cache").parts] == ["uv", "cache"]


def test_a_word_is_followed_by_its_stem_and_inflections_share_it() -> None:
    assert index_terms("fields") == ["fields", "field"]
    assert index_terms("field") == ["field"]
    assert stem("dependencies") == stem("dependency")
    assert stem("caching") == stem("cached") == stem("caches")
    assert stem("3.12") == "3.12" and stem("uv") == "uv"


def test_sentence_punctuation_is_not_part_of_a_term() -> None:
    assert index_terms("Set it in pyproject.toml.")[-3:] == ["pyproject.toml", "pyproject", "toml"]
    assert index_terms("(see `policies/`)")[:2] == ["see", "policies/"]


def test_search_fields_carry_heading_title_path_identifiers_and_body() -> None:
    fields = search_fields(("Caching", "Cache directory"), "Caching", "docs/cache.md", "Set UV_CACHE_DIR.", None)
    assert "directori" in fields.heading.split()
    assert {"caching", "docs/cache.md", "md"} <= set(fields.title.split())
    assert fields.identifiers == "uv_cache_dir"
    assert fields.body.split()[:2] == ["set", "uv_cache_dir"]
    assert fields.folded == "set uv_cache_dir."
    header = search_fields((), "", "t.md", "| LT-350 | 1 |\n", "| Model | Weight |\n|---|---|\n")
    assert "weight" in header.body.split() and header.folded == "| lt-350 | 1 |\n"


def part(query: str):
    (only,) = analyse_query(query).parts
    return only


@pytest.mark.parametrize(
    ("query", "term"),
    [("PIP_*", "pip_"), ("PIP_", "pip_"), ("tool.uv.*", "tool.uv."), ("--no-*", "--no-"), ("--no-", "--no-")],
)
def test_wildcards_and_trailing_separators_are_prefixes(query: str, term: str) -> None:
    found = part(query)
    assert (found.term, found.prefix, found.expand) == (term, True, True)
    assert found.exact == ()


@pytest.mark.parametrize(
    ("query", "terms"),
    [("3**3**3", ["3"]), ("2**8 in Jinja", ["2", "8", "in", "jinja"]), ("a*b", ["a", "b"]), ("x * y", ["x", "y"])],
)
def test_a_star_inside_an_expression_is_not_a_wildcard(query: str, terms: list[str]) -> None:
    # `3**3**3` asked for every indexed term beginning with "3" (versions, years) and no family was meant
    found = analyse_query(query).parts
    assert [p.term for p in found] == terms
    assert not any(p.prefix for p in found)
    assert analyse_query("Which PIP_* variables?").names_family  # a wildcard still ends a token


def test_a_digit_placeholder_is_a_prefix() -> None:
    found = part("TX-44xx")
    assert (found.term, found.prefix) == ("tx-44", True)
    assert not part("4xx").prefix  # not an identifier: no placeholder


def test_an_identifier_typed_whole_also_stands_for_longer_ones() -> None:
    found = part("UV_CACHE")
    assert (found.term, found.exact, found.expand, found.prefix) == ("uv_cache", ("uv_cache", "uv-cache"), True, False)
    assert found.pieces == ("uv", "cach")


def test_sentence_end_and_folder_slash_are_not_prefixes() -> None:
    assert part("UV_CACHE_DIR.").term == "uv_cache_dir" and not part("UV_CACHE_DIR.").prefix
    assert (part("cache.").exact, part("cache.").pieces) == (("cache",), ("cach",))
    assert part("`policies/`").term == "policies/" and part("policies/").identifier
    assert part("__init__").term == "__init__" and not part("__init__").prefix


def test_stopwords_are_marked_and_dropped_from_the_content() -> None:
    query = analyse_query("What is the weight of LT-1200?")
    assert [p.term for p in query.content] == ["weight", "lt-1200"]
    assert [p.term for p in analyse_query("what is the").content] == ["what", "is", "the"]
    assert analyse_query("!!! ?").parts == ()


def test_what_a_contraction_leaves_is_a_stopword() -> None:
    """The tokeniser splits "isn't" into isn + t: both rare in prose, so they outweighed the question's topic."""
    query = analyse_query("Why isn't left-to-right the default? Don't we'll?")
    assert [p.term for p in query.content] == ["left-to-right", "default"]


@pytest.mark.parametrize(
    ("query", "spellings"),
    [
        ("manylinux-compatible", ["manylinux-compatible", "manylinux_compatible"]),
        ("--no-build-isolation", ["--no-build-isolation", "no_build_isolation"]),  # a flag and its setting
        ("UV_CACHE_DIR", ["uv_cache_dir", "uv-cache-dir"]),
        ("x86-64", ["x86-64", "x86_64"]),
        ("-g", ["-g"]),  # no inner separator: a short flag is not the letter g
        ("__init__", ["__init__"]),  # a dunder's underscores are not inner
        ("pydantic.BaseModel", ["pydantic.basemodel"]),  # dots name a path, not a spelling
    ],
)
def test_an_identifier_also_stands_for_its_other_separator_spelling(query: str, spellings: list[str]) -> None:
    (part,) = analyse_query(query).parts
    assert list(part.exact) == spellings


def test_compiled_stemmer_agrees_with_the_pure_python_one() -> None:
    """PyStemmer (a dependency, for speed) must stem exactly like snowballstemmer's own Python code:
    a store's terms must not depend on which of the two a machine loaded."""
    import re
    from pathlib import Path

    from snowballstemmer.english_stemmer import EnglishStemmer

    pure = EnglishStemmer()
    docs = Path(__file__).resolve().parents[2] / "docs"
    words = {w.casefold() for p in docs.rglob("*.md") for w in re.findall(r"[^\W\d_]{3,}", p.read_text("utf-8"))}
    words |= {"analysis", "was", "dependencies", "generously", "naïvety", "ﬁles", "straße", "caresses", "skies"}
    assert len(words) > 1000
    assert {w: stem(w) for w in words} == {w: pure.stemWord(w) if w.isalpha() else w for w in words}
