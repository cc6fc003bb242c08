from __future__ import annotations

import os
from pathlib import Path

import pytest

from contextpull.errors import UnreadableCorpus
from contextpull.ingestion.discover import (
    OUTSIDE_ROOT,
    SEEN_FOLDER,
    SOURCE_COPY,
    UNSUPPORTED,
    discover,
)


def paths(root: Path) -> list[str]:
    return [f.path for f in discover(root).files]


def test_recursive_sorted_and_hidden_left_out(make_corpus):
    root = make_corpus(
        {
            "b.md": "# B",
            "a/z.md": "# Z",
            "a/b/c.txt": "C",
            "a-b.md": "# dash",
            ".hidden.md": "# no",
            ".git/config.md": "# no",
            "a/.cache/x.md": "# no",
        }
    )
    assert paths(root) == ["a-b.md", "a/b/c.txt", "a/z.md", "b.md"]


def test_unsupported_types_reported_with_reason(make_corpus):
    root = make_corpus({"LICENSE": "MIT", "img.png": b"\x89PNG", "doc.md": "# Doc"})
    found = discover(root)
    assert [f.path for f in found.files] == ["doc.md"]
    assert found.skipped == [("LICENSE", UNSUPPORTED), ("img.png", UNSUPPORTED)]


def test_same_basename_in_different_folders_are_distinct(make_corpus):
    root = make_corpus({"one/README.md": "# 1", "two/README.md": "# 2", "README.md": "# 0"})
    assert paths(root) == ["README.md", "one/README.md", "two/README.md"]


def test_unicode_and_spaces_in_names(make_corpus):
    root = make_corpus({"naïve café/ünïcödé notes.md": "# U", "日本語.md": "# J", "a b.md": "# S"})
    assert paths(root) == sorted(["naïve café/ünïcödé notes.md", "日本語.md", "a b.md"])


def test_ignore_file_gitignore_semantics(make_corpus):
    root = make_corpus(
        {
            ".contextpullignore": "*.txt\n!keep.txt\nbuild/\n/top-only.md\n",
            "a.txt": "x",
            "keep.txt": "x",
            "sub/keep.txt": "x",
            "sub/b.txt": "x",
            "build/out.md": "# no",
            "sub/build/out.md": "# no",
            "top-only.md": "# no",
            "sub/top-only.md": "# yes",
            "doc.md": "# yes",
        }
    )
    assert paths(root) == ["doc.md", "keep.txt", "sub/keep.txt", "sub/top-only.md"]


def test_nested_ignore_applies_to_its_subtree_and_overrides(make_corpus):
    root = make_corpus(
        {
            ".contextpullignore": "drafts/\n*.tmp.md\n",
            "sub/.contextpullignore": "!*.tmp.md\nlocal.md\n",
            "x.tmp.md": "# ignored at the top",
            "sub/y.tmp.md": "# re-included below",
            "sub/local.md": "# ignored in sub",
            "local.md": "# not ignored at the top",
            "drafts/d.md": "# ignored folder",
        }
    )
    assert paths(root) == ["local.md", "sub/y.tmp.md"]


def test_negation_cannot_reinclude_inside_an_ignored_folder(make_corpus):
    root = make_corpus(
        {
            ".contextpullignore": "private/\n!private/public.md\n",
            "private/public.md": "# still ignored, as in git",
            "ok.md": "# ok",
        }
    )
    assert paths(root) == ["ok.md"]


def test_symlink_outside_root_is_refused(tmp_path, make_corpus):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("# secret")
    root = make_corpus({"in.md": "# in"})
    (root / "escape").symlink_to(outside, target_is_directory=True)
    (root / "escape.md").symlink_to(outside / "secret.md")
    found = discover(root)
    assert [f.path for f in found.files] == ["in.md"]
    assert sorted(found.skipped) == [("escape", OUTSIDE_ROOT), ("escape.md", OUTSIDE_ROOT)]


def test_symlink_loop_ends(make_corpus):
    root = make_corpus({"a/doc.md": "# A"})
    (root / "a" / "loop").symlink_to(root / "a", target_is_directory=True)
    (root / "self").symlink_to(root, target_is_directory=True)
    found = discover(root)
    assert [f.path for f in found.files] == ["a/doc.md"]
    assert sorted(found.skipped) == [("a/loop/", SEEN_FOLDER), ("self/", SEEN_FOLDER)]


def test_symlink_inside_root_is_followed(make_corpus):
    root = make_corpus({"real/doc.md": "# R"})
    (root / "alias.md").symlink_to(root / "real" / "doc.md")
    assert paths(root) == ["alias.md", "real/doc.md"]


def test_excluded_files_are_passed_over_silently(make_corpus):
    root = make_corpus({"doc.md": "# D", "store.md": "# pretend store"})
    found = discover(root, exclude=[root / "store.md"])
    assert [f.path for f in found.files] == ["doc.md"]
    assert found.skipped == []


def test_an_excluded_file_is_passed_over_by_any_route(tmp_path, make_corpus):
    """By a symlink of another name, through a linked folder, and with the root or the file named through a link."""
    root = make_corpus({"doc.md": "# D", "db/store.md": "# pretend store"})
    (root / "alias.md").symlink_to(root / "db" / "store.md")
    (root / "a-link").symlink_to(root / "db", target_is_directory=True)  # walked before db/ itself
    via = tmp_path / "via"
    via.symlink_to(root, target_is_directory=True)
    for named, excluded in ((root, via / "db" / "store.md"), (via, root / "db" / "store.md")):
        found = discover(named, exclude=[excluded])
        assert [f.path for f in found.files] == ["doc.md"]
        assert found.skipped == []


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_unreadable_corpus(tmp_path, kind):
    target = tmp_path / "corpus"
    if kind == "file":
        target.write_text("not a folder")
    with pytest.raises(UnreadableCorpus) as info:
        discover(target)
    assert str(target) in info.value.message


@pytest.mark.skipif(os.geteuid() == 0, reason="root can list any folder")
def test_unlistable_folders(make_corpus):
    root = make_corpus({"ok.md": "# ok", "locked/doc.md": "# hidden"})
    (root / "locked").chmod(0)
    try:
        found = discover(root)
        assert [f.path for f in found.files] == ["ok.md"]
        assert found.skipped == [("locked/", "folder cannot be listed")]
        root.chmod(0)
        with pytest.raises(UnreadableCorpus):
            discover(root)
    finally:
        root.chmod(0o755)
        (root / "locked").chmod(0o755)


def test_the_source_copy_of_a_page_built_beside_it_is_left_out(make_corpus):
    # a Sphinx build: every page's source copied under _sources/, one source whose page is missing
    root = make_corpus(
        {
            "index.html": "<h1>Policy</h1>",
            "ch/files.html": "<h1>Files</h1>",
            "_sources/index.rst.txt": "Policy\n======\n",
            "_sources/ch/files.rst.txt": "Files\n=====\n",
            "_sources/ch/notes.md.txt": "# Notes",
            "guide/_sources/intro.txt": "Intro",
            "guide/intro.html": "<h1>Intro</h1>",
        }
    )
    found = discover(root)
    assert [f.path for f in found.files] == [
        "_sources/ch/notes.md.txt",
        "ch/files.html",
        "guide/intro.html",
        "index.html",
    ]
    assert found.skipped == [
        ("_sources/ch/files.rst.txt", SOURCE_COPY),
        ("_sources/index.rst.txt", SOURCE_COPY),
        ("guide/_sources/intro.txt", SOURCE_COPY),
    ]
