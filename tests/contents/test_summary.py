"""The offline summary: the first informative sentence, not the title again."""

from __future__ import annotations

from contextpull.contents.summaries import first_informative_sentence, sentences
from contextpull.parse.sections import parse_document
from contextpull.settings import SectionSettings


def test_abbreviations_do_not_end_a_sentence() -> None:
    text = "A version is an interpreter (i.e. the executable) and a library, e.g. the stdlib. Next one."
    assert sentences(text) == [
        "A version is an interpreter (i.e. the executable) and a library, e.g. the stdlib.",
        "Next one.",
    ]


def test_the_title_again_and_lead_ins_are_passed_over() -> None:
    assert first_informative_sentence("Install", "Install. Run the installer on each server.") == (
        "Run the installer on each server."
    )
    assert first_informative_sentence("Concepts", "Read the concept documents to learn more:") == ""
    assert first_informative_sentence("Changelog", "Changelog. Version 3.4.0") == "Version 3.4.0"


def test_a_document_summary_is_its_title_and_first_informative_sentence() -> None:
    text = "# Caching\n\nCaching.\n\nMore text follows here.\n"
    doc = parse_document("cache.md", text, SectionSettings(), format="markdown")
    assert doc.summary == "Caching"
    lead_in = "# Overview\n\nOverview: read these pages:\n\n- a\n- b\n"
    assert parse_document("o.md", lead_in, SectionSettings(), format="markdown").summary == "Overview"
