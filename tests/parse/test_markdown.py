"""The Markdown outline: blocks, containers, headings and front matter."""

from __future__ import annotations

from itertools import pairwise

from contextpull.parse.markdown import outline
from contextpull_mdinline import plain_text


def kinds(text: str) -> list[tuple[str, str]]:
    return [(b.kind, text[b.start : b.end]) for b in outline(text).blocks]


def test_blocks_tile_the_text() -> None:
    text = "\n\nIntro.\n\n# Head\n\n- a\n- b\n\n```py\nx\n```\n"
    blocks = outline(text).blocks
    assert blocks[0].start == 0 and blocks[-1].end == len(text)
    assert all(a.end == b.start for a, b in pairwise(blocks))
    assert [b.kind for b in blocks] == ["paragraph", "heading", "list", "code"]


def test_front_matter_title_and_metadata() -> None:
    result = outline("---\ntitle: Hello\ndate: 2024-01-02\ntags: [a, b]\n---\n\nBody.\n")
    assert result.title == "Hello"
    assert result.metadata == {"title": "Hello", "date": "2024-01-02", "tags": ["a", "b"]}
    assert result.blocks[0].kind == "front_matter"


def test_invalid_front_matter_is_recorded_not_raised() -> None:
    result = outline("---\ntitle: [unclosed\n---\n\n# Real\n")
    assert "front_matter_error" in result.metadata and result.title is None
    assert [b.kind for b in result.blocks] == ["front_matter", "heading"]


def test_mkdocs_admonition_and_tabs_are_one_container() -> None:
    text = (
        '!!! note "Title"\n    Body.\n\n    ## Not a heading\n\n    ```toml title="x"\n    a = 1\n    ```\n\n'
        '=== "uv"\n\n    ```console\n    $ uv sync\n    ```\n\n'
        "??? tip\n    hidden\n\nAfter.\n"
    )
    result = outline(text)
    assert [b.kind for b in result.blocks] == ["container", "container", "container", "paragraph"]
    first = result.blocks[0]
    assert text[first.start : first.end].endswith("    ```\n\n")
    # paragraph breaks outside the fence are the only places a container may be cut
    assert [text[c : c + 10] for c in first.cuts] == ["    ## Not", "    ```tom"]
    fence = text.index("    ```toml")
    assert any(start == fence for start, _ in result.code)


def test_docusaurus_admonition_hides_headings_and_nests() -> None:
    text = ":::note Title\n# hidden\n\n::::tip\ninner\n::::\n\n```\n:::\n```\n:::\n\n# Shown\n"
    result = outline(text)
    assert [(b.kind, b.heading) for b in result.blocks] == [("container", ""), ("heading", "Shown")]


def test_unclosed_docusaurus_opener_is_a_paragraph() -> None:
    assert [b.kind for b in outline(":::note\ntext\n\n# Head\n").blocks] == ["paragraph", "heading"]


def test_github_alert_is_a_quote_and_mdx_import_is_not_the_lead() -> None:
    result = outline("import Tabs from '@theme/Tabs';\n\n> [!NOTE]\n> Be careful.\n\nFirst prose.\n")
    assert [b.kind for b in result.blocks] == ["paragraph", "quote", "paragraph"]
    assert result.lead == "First prose.\n"


def test_table_header_and_row_cuts() -> None:
    text = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n"
    (table,) = outline(text).blocks
    assert text[: table.header_end] == "| a | b |\n|---|---|\n"
    assert [text[c:].split("\n")[0] for c in table.cuts] == ["| 3 | 4 |", "| 5 | 6 |"]


def test_headings_setext_atx_and_seven_hashes() -> None:
    result = outline("Title\n=====\n\nSub\n---\n\n### Deep ###\n\n####### seven\n")
    assert [(b.kind, b.level, b.heading) for b in result.blocks] == [
        ("heading", 1, "Title"),
        ("heading", 2, "Sub"),
        ("heading", 3, "Deep"),
        ("paragraph", 0, ""),
    ]


def test_plain_text_of_inline_markdown() -> None:
    assert plain_text("Install `uv` on *Windows* {#windows}") == "Install uv on Windows"
    assert plain_text("[The **guide**](x.md) and ![img](a.png) <b>x</b>") == "The guide and img x"
    assert plain_text("snake_case_name and `__init__`") == "snake_case_name and __init__"
