"""Sectioning: heading paths, splitting, table headers, merges, kinds, summaries, bad input."""

from __future__ import annotations

import pytest

from contextpull.parse import plaintext
from contextpull.parse.formats import format_for
from contextpull.parse.sections import parse_document
from contextpull.settings import SectionSettings

LOOSE = SectionSettings(max_depth=3, max_chars=3000, min_chars=0)


def parse(text: str, settings: SectionSettings = LOOSE, path: str = "guide/install.md", fmt: str = "markdown"):
    doc = parse_document(path, text, settings, format=fmt)  # type: ignore[arg-type]
    assert "".join(s.text for s in doc.sections) == text
    assert [s.ordinal for s in doc.sections] == list(range(len(doc.sections)))
    return doc


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/b.md", "markdown"),
        ("X.MDX", "markdown"),
        ("c.markdown", "markdown"),
        ("n.txt", "text"),
        ("n.text", "text"),
        ("guide.adoc", "text"),
        ("guide.asciidoc", "text"),
        ("x.rst", "rst"),
        ("manual.PDF", "pdf"),
        ("site/index.htm", "html"),
        ("x.doc", None),
        ("Makefile", None),
    ],
)
def test_format_for(path: str, expected: str | None) -> None:
    assert format_for(path) == expected


def test_heading_paths_and_depth() -> None:
    text = "Intro.\n\n# Guide\n\n## Install\n\n### Windows `x`\n\n#### Deep\n\nbody\n\n## Use {#use}\n\nx\n"
    doc = parse(text)
    assert [s.heading_path for s in doc.sections] == [
        (),
        ("Guide",),
        ("Guide", "Install"),
        ("Guide", "Install", "Windows x", "Deep"),  # it starts at the deeper heading: named by it too
        ("Guide", "Use"),
    ]
    assert "#### Deep" in doc.sections[3].text
    assert doc.title == "Guide"


def test_front_matter_title_roots_paths_when_no_h1() -> None:
    doc = parse("---\ntitle: Setup\n---\n\nLead sentence here. More.\n\n## Install\n\nx\n")
    assert doc.title == "Setup"
    assert [s.heading_path for s in doc.sections] == [("Setup",), ("Setup", "Install")]
    assert doc.summary == "Setup: Lead sentence here."


def test_title_falls_back_to_first_heading_then_file_name() -> None:
    assert parse("## Second level\n\nx\n").title == "Second level"
    assert parse("no headings\n", path="docs/getting-started.md").title == "Getting started"
    assert parse("", path="docs/cli_ref/index.md").title == "Cli ref"


def test_headings_in_code_and_containers_do_not_start_sections() -> None:
    text = '# A\n\n```md\n# not\n```\n\n!!! note\n    # not either\n\n=== "Tab"\n\n    ## nor\n\n# B\n'
    assert [s.heading_path for s in parse(text).sections] == [("A",), ("B",)]


def test_long_section_splits_at_blocks_then_sentences_then_words_then_hard() -> None:
    settings = SectionSettings(max_chars=200, min_chars=0)
    paragraphs = "\n\n".join(f"Paragraph {n} " + "word " * 20 for n in range(6))
    doc = parse(f"# T\n\n{paragraphs}\n", settings)
    assert all(len(s.text) <= 200 for s in doc.sections)
    assert all(s.text.startswith(("# T", "Paragraph")) for s in doc.sections)
    sentences = " ".join(f"Sentence {n} has some words." for n in range(30))
    doc = parse(sentences, settings)
    assert all(len(s.text) <= 200 and s.text.rstrip().endswith(".") for s in doc.sections)
    giant = "x" * 50_000
    doc = parse(giant, settings)
    assert len(doc.sections) == 250 and {len(s.text) for s in doc.sections} == {200}


def test_fenced_code_is_never_split() -> None:
    settings = SectionSettings(max_chars=200, min_chars=0)
    fence = "```python\n" + "print('hello world')\n" * 40 + "```\n"
    doc = parse(f"# T\n\nBefore.\n\n{fence}\nAfter.\n", settings)
    holder = [s for s in doc.sections if "```python" in s.text]
    assert len(holder) == 1 and fence in holder[0].text and holder[0].kind == "code"


def test_fence_nested_in_a_tab_is_never_split() -> None:
    settings = SectionSettings(max_chars=200, min_chars=0)
    body = "\n".join(f"    line number {n} of the example" for n in range(20))
    text = '=== "uv"\n\n    Intro paragraph.\n\n    ```console\n' + body + "\n    ```\n\n    After text.\n"
    doc = parse(text, settings)
    fence_start = text.index("    ```console")
    fence_end = text.index("    ```\n", fence_start + 5) + 8
    assert not any(fence_start < s.start < fence_end for s in doc.sections)


def test_table_split_between_rows_carries_header() -> None:
    settings = SectionSettings(max_chars=200, min_chars=0)
    header = "| Name | Value |\n|------|-------|\n"
    rows = "".join(f"| row{n} | value number {n} |\n" for n in range(30))
    doc = parse(f"# T\n\nSome intro.\n\n{header}{rows}", settings)
    parts = [s for s in doc.sections if s.table_header]
    assert parts and all(s.table_header == header for s in parts)
    assert all(s.text.startswith("| row") for s in parts)
    holder = doc.sections[parts[0].header_ordinal]
    assert holder.text.startswith(header) and holder.ordinal == 1  # an oversize block starts a new part
    assert all(s.header_ordinal == 1 and s.kind == "table" for s in parts)


def test_table_edge_cases() -> None:
    parse("| a | b |\n|---|---|\n")  # no body rows
    doc = parse("Text.\n\n| a | b |\n|---|---|\n| 1 | 2 |")  # at end of file, no newline
    assert doc.sections[0].kind == "mixed"


def test_empty_heading_merges_forward_and_is_named_by_the_heading_it_starts_at() -> None:
    settings = SectionSettings(max_chars=1000, min_chars=50)
    text = "# Guide\n\n## Install\n\n### Windows\n\n" + "Use the installer. " * 10 + "\n\n## Next\n\n" + "x " * 40
    doc = parse(text, settings)
    assert [s.heading_path for s in doc.sections] == [("Guide", "Install", "Windows"), ("Guide", "Next")]
    assert doc.sections[0].text.startswith("# Guide\n\n## Install\n\n### Windows")


def test_a_heading_with_a_body_keeps_its_own_path_when_its_child_joins_it() -> None:
    settings = SectionSettings(max_chars=1000, min_chars=50)
    text = "# Guide\n\nRead on.\n\n## Install\n\n" + "Use the installer. " * 10
    doc = parse(text, settings)
    assert [s.heading_path for s in doc.sections] == [("Guide",)]


def test_a_bare_heading_before_small_settings_names_every_setting_it_covers() -> None:
    """A reference page: a group heading, then short entries; labels and comments are not a body."""
    settings = SectionSettings(max_chars=1000, min_chars=120)
    text = (
        "Settings\n========\n\n"
        + "Every setting of the server, with its flag and its default. " * 3
        + "\n\nServer Mechanics\n----------------\n\n.. _reload:\n\n"
        + "``reload``\n~~~~~~~~~~\n\n**Default:** ``False``\n\nRestart workers when code changes.\n\n"
        + ".. _preload-app:\n\n``preload_app``\n~~~~~~~~~~~~~~~\n\n**Default:** ``False``\n\nLoad code early.\n\n"
        + "Logging\n-------\n\n"
        + "Where the server writes its access and error logs, and in what format. " * 3
    )
    doc = parse(text, settings, path="settings.rst", fmt="rst")
    assert [s.heading_path for s in doc.sections] == [
        ("Settings",),
        ("Settings", "Server Mechanics", "reload; preload_app"),
        ("Settings", "Logging"),
    ]


def test_naming_a_section_by_its_deeper_heading_never_moves_a_boundary() -> None:
    """The label follows the heading a section starts at; where sections begin is decided as before.

    ``## Options`` is bare, so it would be named ``--foo`` alone; ``--foo`` is
    short, so the options after it still join it, as siblings under ``Options``.
    """
    settings = SectionSettings(max_chars=1000, min_chars=80)
    text = (
        "# Tool\n\n"
        + "What the tool does. " * 6
        + "\n\n## Options\n\n"
        + "".join(f"### --{name}\n\nThe {name} flag.\n\n" for name in ("foo", "bar", "baz"))
    )
    doc = parse(text, settings)
    assert [s.heading_path for s in doc.sections] == [("Tool",), ("Tool", "Options", "--foo; --bar; --baz")]


def test_tiny_tail_merges_backward_into_its_sibling() -> None:
    settings = SectionSettings(max_chars=1000, min_chars=50)
    text = "# A\n\n" + "Long text here. " * 10 + "\n\n# B\n\nshort\n"
    doc = parse(text, settings)
    assert [s.heading_path for s in doc.sections] == [("A; B",)]  # the merged heading is listed


def test_merged_siblings_list_every_heading_they_cover() -> None:
    settings = SectionSettings(max_chars=1000, min_chars=80)
    text = (
        "# Install\n\n"
        + "Ways to install. " * 8
        + "\n\n## PyPI\n\n"
        + "pip install it. " * 6
        + "\n\n"
        + "".join(f"## {name}\n\n{name.lower()} install it\n\n" for name in ("Homebrew", "MacPorts", "WinGet"))
    )
    doc = parse(text, settings)
    assert ("Install", "PyPI; Homebrew; MacPorts; WinGet") in [s.heading_path for s in doc.sections]


def test_preamble_merges_forward_and_takes_the_heading() -> None:
    settings = SectionSettings(max_chars=1000, min_chars=50)
    doc = parse("Hi.\n\n# Guide\n\n" + "Body text. " * 10, settings)
    assert [s.heading_path for s in doc.sections] == [("Guide",)]


def test_kinds() -> None:
    doc = parse(
        "# P\n\nJust prose here.\n\n# C\n\n```\n"
        + "code line\n" * 20
        + "```\n\n# M\n\nSome prose words.\n\n```\ncode here\n```\n"
    )
    assert [s.kind for s in doc.sections] == ["prose", "code", "mixed"]


def test_summary_strips_markup_and_caps() -> None:
    doc = parse("# Tool\n\nUse **`uv run`** to [run](x.md) things. Then more.\n")
    assert doc.summary == "Tool: Use uv run to run things."
    long = parse("# T\n\n" + "word " * 100 + "\n")
    assert len(long.summary) <= 200 and long.summary.endswith("…")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\n\t\n",
        "x" * 50_000,
        "# A\n\n```py\nunclosed\n# B\n",
        "####### x\n",
        "---\ntitle: Only\n---\n",
        "# A\n## B\n### C\n",
        "Ünïcödé 漢字 😀\n\n# Ü\n",
        "\n\n# A",
        "---\n: bad: [\n---\n",
    ],
)
def test_bad_input_does_not_crash(text: str) -> None:
    doc = parse(text, SectionSettings(max_chars=300, min_chars=50))
    assert doc.title
    if not text:
        assert doc.sections == ()


def test_unclosed_fence_runs_to_end() -> None:
    doc = parse("# A\n\n```py\nunclosed\n# B\n")
    assert [s.heading_path for s in doc.sections] == [("A",)]


def test_plain_text_headings() -> None:
    text = (
        "INTRODUCTION\n\nThis explains things. More text.\n\n1.2 Scope\n\nScope text.\n\n"
        "Setup Guide\n===========\nFirst body line.\n\nInstalling The Tool\n\nnot a heading because lowercase words follow.\n"
    )
    doc = parse(text, path="notes.txt", fmt="text")
    assert [s.heading_path for s in doc.sections] == [
        ("INTRODUCTION",),
        ("INTRODUCTION", "1.2 Scope"),
        ("Setup Guide",),
        ("Setup Guide", "Installing The Tool"),
    ]
    assert doc.summary == "INTRODUCTION: This explains things."
    assert doc.format == "text"


def test_plain_text_underlines_go_as_deep_as_asciidoc_sources() -> None:
    # git's manual pages as their asciidoc sources: a page title over ===, sections over ---, each hook over ~~~
    text = (
        "githooks(5)\n===========\n\nHOOKS\n-----\n\nHooks run at points of Git's work.\n\n"
        "pre-receive\n~~~~~~~~~~~\n\nThis hook is invoked when the server reacts to a push.\n\n"
        "Options\n^^^^^^^\n\nIts standard input lists the refs.\n\n"
        "post-receive\n~~~~~~~~~~\n\nIt runs once after all the refs have been updated.\n\n"
        "print(value\n      ^^^\n"
    )
    doc = parse(text, path="githooks.txt", fmt="text")
    assert [s.heading_path for s in doc.sections] == [
        ("githooks(5)",),
        ("githooks(5)", "HOOKS"),
        ("githooks(5)", "HOOKS", "pre-receive"),
        # an underline two short still underlines; a caret marking a column of code does not
        ("githooks(5)", "HOOKS", "post-receive"),
    ]
    # ^^^ is a level-4 heading: below the levels that start sections, it stays in its hook's
    assert "Options\n^^^^^^^" in doc.sections[2].text
    headings = [(block.level, block.heading) for block in plaintext.outline(text).blocks if block.kind == "heading"]
    assert (4, "Options") in headings and not any(title.startswith("print") for _, title in headings)


def test_plain_text_reads_asciidoc_titles_and_delimited_blocks() -> None:
    # git's user manual as its asciidoc source: one-line titles under anchors, a listing block whose
    # last line the closing delimiter would "underline", a literal block, and a rule no line closes
    text = (
        "= Git User Manual\n\nGit is a fast version control system.\n\n"
        "[[detached-head]]\n=== Examining an old version\n\nCheck out a tag:\n\n"
        "------------------------------------------------\n$ git switch --detach v2.6.17\n\n"
        "HEAD is now at 427abfa Linux v2.6.17\n------------------------------------------------\n\n"
        "The HEAD then refers to the commit.\n\n"
        "[source,sh]\n----\n$ make\n----\n\n"
        ".Options\n|===\n|Name |Default\n\n|cache\n|none\n|===\n\n"
        "....\nStatus\n------\n....\n\n"
        "----------\n\nA paragraph after a rule.\n\n"
        "Notes\n-----\n\nLast words.\n"
    )
    outline = plaintext.outline(text)
    headings = [(block.level, block.heading) for block in outline.blocks if block.kind == "heading"]
    assert headings == [(1, "Git User Manual"), (3, "Examining an old version"), (2, "Notes")]
    listing = text.index("------------------------------------------------\n$ git")
    literal = text.index("....\nStatus")
    # a block's attribute line ([source,sh]) and title (.Options) begin it: neither is underlined
    attributed = text.index("[source,sh]")
    assert [start for start, _ in outline.code] == [listing, attributed, literal]
    table = next(block for block in outline.blocks if block.start == text.index(".Options"))
    assert text[table.start : table.end].rstrip().endswith("|none\n|===")
    doc = parse(text, path="user-manual.txt", fmt="text")
    assert [s.heading_path for s in doc.sections][-1] == ("Git User Manual", "Notes")
    assert "[[detached-head]]" not in " ".join(title for s in doc.sections for title in s.heading_path)


@pytest.mark.parametrize(
    ("opening", "title"),
    [
        # a licence's centred title over its version: the title, not the first ALL CAPS line further down
        (
            "        GNU GENERAL PUBLIC LICENSE\n           Version 2, June 1991\n",
            "GNU GENERAL PUBLIC LICENSE Version 2, June 1991",
        ),
        ("Mozilla Public License\nVersion 1.1\n", "Mozilla Public License Version 1.1"),
        # prose, a long line or four lines is no title block
        ("Thanks for the report.\nWe will look at it.\n", "NO WARRANTY"),
        ("Apache License\n" + "Version 2.0 of the licence, as published by the foundation in 2004\n", "NO WARRANTY"),
        ("Apache License\nVersion 2.0\nJanuary 2004\nhttp://www.apache.org/licenses/\n", "NO WARRANTY"),
        ("TODO\n- renew the lease\n- call the bank\n", "NO WARRANTY"),  # a heading over list items
    ],
)
def test_a_plain_text_title_block_names_the_document(opening: str, title: str) -> None:
    text = f"{opening}\nEveryone may copy this text.\n\nNO WARRANTY\n\nThere is no warranty for the program.\n"
    doc = parse(text, path="LICENSE.txt", fmt="text")
    assert doc.title == title
    assert "".join(s.text for s in doc.sections) == text


def test_the_parts_of_a_divided_section_are_named_by_the_deeper_heading_they_start_or_continue() -> None:
    """A chapter used to list "Memory and Allocation" for every part although each began at its own ####."""
    body = "".join(f"#### {name}\n\n{(sentence + ' ') * 40}\n\n" for name, sentence in _SUBSECTIONS)
    text = "# Book\n\nAbout the book. " + "Words here. " * 20 + "\n\n### Memory and Allocation\n\n" + body
    doc = parse_document(
        "book.md", text, SectionSettings(max_depth=3, max_chars=1200, min_chars=100), format="markdown"
    )
    memory = [s.heading_path for s in doc.sections if "Memory and Allocation" in s.heading_path]
    assert memory[0] == ("Book", "Memory and Allocation", "The stack")
    assert ("Book", "Memory and Allocation", "The heap") in memory and memory[-1][-1] == "Freeing"
    assert "".join(s.text for s in doc.sections) == text


_SUBSECTIONS = (
    ("The stack", "The stack holds frames."),
    ("The heap", "The heap holds objects."),
    ("Freeing", "Memory is freed."),
)


@pytest.mark.parametrize(
    ("between", "path"),
    [
        (".. setting:: ADMINS\n\n", ("Settings", "ADMINS")),  # an index entry: nothing to read
        (".. contents::\n   :local:\n\n", ("Settings", "ADMINS")),  # a table of contents with options only
        (".. note:: Back up the list first.\n\n", ("Settings",)),  # a note on the directive's own line
    ],
)
def test_an_rst_directive_with_nothing_to_read_leaves_its_heading_bare(between: str, path: tuple[str, ...]) -> None:
    settings = SectionSettings(max_chars=1000, min_chars=100)
    text = "Settings\n========\n\n" + between + "ADMINS\n------\n\n" + "People who get error mail. " * 5
    doc = parse(text, settings, path="settings.rst", fmt="rst")
    assert [s.heading_path for s in doc.sections] == [path]


REFERENCE = (
    """Settings
========

Every setting the server reads.

Options
-------

"""
    + "".join(
        f""".. confval:: {name}
             {name.lower()}_alias

   :type: string

   What {name} sets, in some detail. {"Long text about it. " * 12}

   .. versionadded:: 2.{index}

      Added with a longer note on what changed in this release.

"""
        for index, name in enumerate(("BIND", "WORKERS", "TIMEOUT", "KEEPALIVE"))
    )
    + """.. note:: One more thing.

   Read the changelog.
"""
)


def test_rst_reference_entries_name_the_parts_of_a_long_section() -> None:
    """A directive that names a thing and describes it is an entry: it names the part it starts, as a deep heading."""
    doc = parse(REFERENCE, SectionSettings(max_chars=600, min_chars=50), path="settings.rst", fmt="rst")
    paths = [s.heading_path for s in doc.sections]
    assert paths[0] == ("Settings",)
    entries = [path[-1] for path in paths[1:]]
    assert entries[:4] == ["BIND", "WORKERS", "TIMEOUT", "KEEPALIVE"]  # not the alias, the option, nor the version
    assert all(path[:2] == ("Settings", "Options") for path in paths[1:])
    assert "One more thing." not in entries  # a note is not an entry


def _entries_under(titles: str) -> str:
    return titles + "".join(
        f".. confval:: {name}\n\n   What {name} sets: {'a fair amount of detail. ' * 6}\n\n"
        for name in ("BIND", "WORKERS", "TIMEOUT")
    )


def test_an_rst_entry_under_a_shallow_title_is_a_section_of_its_own() -> None:
    # One level below "Options" (level 2) is 3, the default max_depth: each entry is cited alone, as a
    # Markdown reference's `###` setting is (until 2026-12-07 they shared one section, named by the first).
    text = _entries_under("Settings\n========\n\nOptions\n-------\n\n")
    doc = parse(text, SectionSettings(max_chars=3000, min_chars=50), path="settings.rst", fmt="rst")
    assert [s.heading_path for s in doc.sections] == [
        ("Settings", "Options", "BIND"),  # a bare title merges forward into its first entry (ADR 022)
        ("Settings", "Options", "WORKERS"),
        ("Settings", "Options", "TIMEOUT"),
    ]


def test_an_rst_entry_under_a_deep_title_stays_inside_its_section() -> None:
    text = _entries_under("Settings\n========\n\nOptions\n-------\n\nNetwork\n~~~~~~~\n\n")
    doc = parse(text, SectionSettings(max_chars=3000, min_chars=50), path="settings.rst", fmt="rst")
    assert [s.heading_path for s in doc.sections] == [("Settings", "Options", "Network", "BIND")]


def test_rst_targets_above_a_title_belong_to_its_section() -> None:
    """``.. _label:`` and ``.. setting:: NAME`` name what follows them, as Sphinx reads them (Django's settings)."""
    body = "Default: ``False``. " + "What the setting does, at some length. " * 8
    text = (
        "Settings\n========\n\n"
        ".. setting:: ADMINS\n\nADMINS\n------\n\n" + body + "\n\n"
        ".. _debug-setting:\n\n.. setting:: DEBUG\n\nDEBUG\n-----\n\n" + body + "\n\n"
        ".. note:: The end.\n\n.. _not-a-title:\n\nA paragraph follows the last target.\n"
    )
    doc = parse(text, SectionSettings(max_chars=3000, min_chars=50), path="settings.rst", fmt="rst")
    assert [s.heading_path[-1] for s in doc.sections] == ["ADMINS", "DEBUG"]
    admins, debug = doc.sections
    assert admins.text.startswith("Settings\n========\n\n.. setting:: ADMINS\n")
    assert ".. setting:: DEBUG" not in admins.text and "debug-setting" not in admins.text
    assert debug.text.startswith(".. _debug-setting:\n\n.. setting:: DEBUG\n\nDEBUG\n-----\n")
    assert debug.text.endswith("A paragraph follows the last target.\n")


def test_rst_directives_with_content_of_their_own_stay_above_a_title() -> None:
    """``.. autofunction::`` and ``.. image::`` bring an entry or a picture of their own: not targets of the title below."""
    body = "What the helpers do, at some length. " * 8
    text = (
        "API\n===\n\nHelpers\n-------\n\n" + body + "\n\n.. autofunction:: flash\n\n.. image:: flow.png\n\n"
        ".. index:: flashing\n\nMessage Flashing\n----------------\n\n" + body + "\n"
    )
    doc = parse(text, SectionSettings(max_chars=3000, min_chars=50), path="api.rst", fmt="rst")
    helpers, flashing = doc.sections
    assert helpers.text.endswith(".. autofunction:: flash\n\n.. image:: flow.png\n\n")
    assert flashing.text.startswith(".. index:: flashing\n\nMessage Flashing\n")
