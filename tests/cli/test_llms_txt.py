"""``contextpull export-llms-txt``: the index and the full text in the llms.txt convention."""

from __future__ import annotations

import json
import re
from pathlib import Path

from cli_support import run
from ops_support import examples_store

LINK = re.compile(r"^- \[(?P<title>[^\]]+)\]\((?P<url>[^)]+)\)(?::\s(?P<note>.+))?$")


def test_llms_txt_lists_every_document_by_folder_and_llms_full_holds_every_section(tmp_path: Path) -> None:
    store = examples_store(tmp_path)
    out = tmp_path / "out"
    proc = run(
        "export-llms-txt", "--store", str(store), "--out", str(out), "--base-url", "https://d.example/x/", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    written = json.loads(proc.stdout)
    index = (out / "llms.txt").read_text(encoding="utf-8").splitlines()
    assert index[0].startswith("# ") and index[2].startswith("> ")
    links = [LINK.match(line) for line in index if line.startswith("- ")]
    assert all(links) and len(links) == written["documents"] == 10
    headings = [line for line in index if line.startswith("## ")]
    assert headings == ["## Documents", "## guides", "## policies", "## reference"]
    install = next(m for m in links if m and m["url"].endswith("guides/install.md"))
    assert (
        install["url"] == "https://d.example/x/guides/install.md"
        and install["title"] == "Installing the Ledgerline agent"
    )
    assert install["note"] and not install["note"].startswith(install["title"])  # the summary, not the title again
    full = (out / "llms-full.txt").read_text(encoding="utf-8")
    chunks = run("export-chunks", "--store", str(store))
    for line in chunks.stdout.splitlines():
        chunk = json.loads(line)
        first = next((row for row in chunk["text"].splitlines() if row.strip()), "")
        assert first in full, chunk["id"]
    assert full.count("\nSource: https://d.example/x/") == 10


def test_relative_links_without_a_base_url_and_a_missing_store_is_one_line(tmp_path: Path) -> None:
    store = examples_store(tmp_path)
    proc = run("export-llms-txt", "--store", str(store), "--out", str(tmp_path), "--title", "Ledgerline")
    assert proc.returncode == 0, proc.stderr
    text = (tmp_path / "llms.txt").read_text(encoding="utf-8")
    assert text.startswith("# Ledgerline\n") and "](guides/install.md)" in text
    missing = run("export-llms-txt", "--store", str(tmp_path / "none.sqlite"), "--out", str(tmp_path / "o"))
    assert (
        missing.returncode != 0 and "Traceback" not in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
    )
