"""Index summaries from a model, through the official SDKs against loopback fakes, and the offline default."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contextpull import Ops
from contextpull.analysis.terms import ANALYSIS_VERSION
from contextpull.contents.summaries import OFFLINE
from contextpull.ingestion.run import ingest
from contextpull.settings import SectionSettings
from contextpull.store import Store
from fakes import anthropic_server, openai_server
from fakes.scripted import Request
from ops_support import written_by_an_older_analysis

CLI = [sys.executable, "-m", "contextpull"]
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "corpus"


def run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != "CONTEXTPULL_STORE"} | env
    return subprocess.run([*CLI, *args], capture_output=True, text=True, env=environment, timeout=180)


def summary_for(reply: Callable[[str], dict[str, Any]]) -> Callable[[Request], dict[str, Any]]:
    """A script that answers each summary request with a line naming the document's path."""

    def answer(request: Request) -> dict[str, Any]:
        path = re.search(r"Path: ([^\s\\]+)", json.dumps(request.body)).group(1)  # type: ignore[union-attr]
        return reply(f"Covers {path} in one line.")

    return answer


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    return shutil.copytree(EXAMPLES, tmp_path / "corpus", ignore=shutil.ignore_patterns(".contextpull"))


@pytest.mark.parametrize(
    ("provider", "fake_class", "reply", "key_env", "url_env"),
    [
        (
            "anthropic",
            anthropic_server.AnthropicFake,
            anthropic_server.text_reply,
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
        ),
        ("openai", openai_server.OpenAIFake, openai_server.text_reply, "OPENAI_API_KEY", "OPENAI_BASE_URL"),
    ],
)
def test_model_summaries_are_cached_by_document_and_model_and_named_in_the_header(
    corpus: Path, tmp_path: Path, provider: str, fake_class: Any, reply: Any, key_env: str, url_env: str
) -> None:
    spec = f"{provider}:fake-model"
    with fake_class(script=summary_for(reply)) as fake:
        env = {key_env: fake.api_key, url_env: fake.base_url, "XDG_CACHE_HOME": str(tmp_path / "cache")}
        done = run("ingest", str(corpus), "--summarizer", spec, "--json", env=env)
        assert done.returncode == 0, done.stderr
        documents = json.loads(done.stdout)["documents"]
        assert len(fake.requests) == documents
        index = run("index", "--store", str(corpus / ".contextpull" / "store.sqlite"), env=env).stdout
        assert f"summaries: {spec}" in index.splitlines()[0]
        assert "- guides/install.md — Installing the Ledgerline agent: Covers guides/install.md in one line." in index
        # another store of the same documents: every line comes from the cache, no call
        again = run("ingest", str(corpus), "--summarizer", spec, "--store", str(tmp_path / "b.sqlite"), env=env)
        assert again.returncode == 0 and len(fake.requests) == documents
        # a small budget still fits: the budget logic drops summaries first
        small = run("ingest", str(corpus), "--summarizer", spec, "--index-budget", "150", "--json", env=env)
        assert small.returncode == 0 and json.loads(small.stdout)["index_tokens"] <= 150


def test_a_failing_model_is_one_line_and_writes_nothing(corpus: Path, tmp_path: Path) -> None:
    script = [anthropic_server.error_reply(401, "bad key")] * 5
    with anthropic_server.AnthropicFake(script=script) as fake:
        env = {"ANTHROPIC_API_KEY": fake.api_key, "ANTHROPIC_BASE_URL": fake.base_url}
        env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
        done = run("ingest", str(corpus), "--summarizer", "anthropic:fake-model", env=env)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "summarise" in line
    assert not (corpus / ".contextpull" / "store.sqlite").exists()


def test_offline_summaries_are_the_default_and_named(corpus: Path, tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    ingest(corpus, store)
    with Store.open(store) as opened:
        assert f"summaries: {OFFLINE}" in opened.index_text.splitlines()[0]
        assert opened.meta("summaries") == OFFLINE


def test_an_ingest_without_the_model_keeps_its_lines_and_says_which_are_offline(corpus: Path, tmp_path: Path) -> None:
    with anthropic_server.AnthropicFake(script=summary_for(anthropic_server.text_reply)) as fake:
        env = {"ANTHROPIC_API_KEY": fake.api_key, "ANTHROPIC_BASE_URL": fake.base_url}
        env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
        assert run("ingest", str(corpus), "--summarizer", "anthropic:fake-model", env=env).returncode == 0
    (corpus / "guides" / "new.md").write_text("# New guide\n\nIt explains something new.\n", encoding="utf-8")
    ingest(corpus)
    with Store.open(corpus / ".contextpull" / "store.sqlite") as opened:
        header, *lines = opened.index_text.splitlines()
    assert "summaries: anthropic:fake-model, offline for documents changed since" in header
    assert any("Covers guides/install.md" in line for line in lines)
    assert any("New guide: It explains something new." in line for line in lines)


def _summarised_by_the_fake_model(corpus: Path, tmp_path: Path, *extra: str) -> Path:
    with anthropic_server.AnthropicFake(script=summary_for(anthropic_server.text_reply)) as fake:
        env = {"ANTHROPIC_API_KEY": fake.api_key, "ANTHROPIC_BASE_URL": fake.base_url}
        env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
        assert run("ingest", str(corpus), "--summarizer", "anthropic:fake-model", *extra, env=env).returncode == 0
    return corpus / ".contextpull" / "store.sqlite"


def test_resectioning_keeps_the_models_lines(corpus: Path, tmp_path: Path) -> None:
    store = _summarised_by_the_fake_model(corpus, tmp_path)
    report = ingest(corpus, settings=SectionSettings(max_depth=1))  # every document is sectioned again
    assert report.changed == report.documents > 0
    with Store.open(store) as opened:
        header, *lines = opened.index_text.splitlines()
    assert "summaries: anthropic:fake-model" in header and "offline" not in header
    assert sum("Covers " in line for line in lines) == report.documents


def test_a_rebuild_for_a_new_analysis_keeps_the_models_lines_and_the_links(corpus: Path, tmp_path: Path) -> None:
    store = _summarised_by_the_fake_model(corpus, tmp_path, "--base-url", "https://docs.example.org/")
    written_by_an_older_analysis(store)
    (corpus / "guides" / "new.md").write_text("# New guide\n\nIt explains something new.\n", encoding="utf-8")
    report = ingest(corpus)  # neither the model nor the base URL again
    assert report.wrote and report.sections_written == report.sections
    with Store.open(store) as opened:
        header, *lines = opened.index_text.splitlines()
        assert opened.meta("analysis_version") == ANALYSIS_VERSION
    assert "summaries: anthropic:fake-model, offline for documents changed since" in header
    assert any("Covers guides/install.md" in line for line in lines)
    assert any("New guide: It explains something new." in line for line in lines)
    with Ops.open(store) as ops:
        assert ops.search("Ledgerline agent").hits[0].url.startswith("https://docs.example.org/")
