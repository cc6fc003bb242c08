"""Index summaries written by a model: the :class:`~contextpull.contents.summaries.Summariser` the CLI hands to ingest.

The core never imports the harness, so the model call lives here, through
``pushpull.models`` (``local:…``, ``anthropic:…``, ``openai:…``). Each line
is cached on disk by the document's sha256 and the model spec, so
re-ingesting, or ingesting the same document into another store, asks the
model only about text it has not summarised before.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from pushpull.models import Message, ModelError, get_provider

from ..errors import ContextPullError

#: characters of a document the model sees (its opening: title, lead, first sections)
EXCERPT_CHARS = 6000
PROMPT_VERSION = 1
SYSTEM = (
    "You write the one-line summary of a document for a table of contents that an AI agent reads to decide "
    "which document to open. Reply with one sentence of at most 25 words saying what the document covers "
    "and what a reader can find in it. No preamble, no quotes, no markdown, do not repeat the title."
)


class SummaryFailed(ContextPullError):
    """The summarising model could not be used or did not answer."""

    code = "summary_failed"


def summaries_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/contextpull/contents/summaries`` (default ``~/.cache/contextpull/contents/summaries``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "contextpull" / "summaries"


class ModelSummariser:
    """``summarise(path, title, text)``: one line from the model ``spec``, cached by text hash and spec."""

    def __init__(self, spec: str, cache_dir: Path | None = None) -> None:
        try:
            self._provider = get_provider(spec)
        except ModelError as err:
            raise SummaryFailed(f"cannot summarise with {spec}: {err}", "check the model spec and its key") from None
        self.name = spec
        self.cache_dir = cache_dir if cache_dir is not None else summaries_cache_dir()
        #: model calls made (cache misses), for tests and reports
        self.calls = 0

    def __call__(self, path: str, title: str, text: str) -> str:
        digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        key = hashlib.sha256(f"{self.name}\0{PROMPT_VERSION}\0{digest}".encode()).hexdigest()[:32]
        cached = self._read(key)
        if cached is not None:
            return cached
        prompt = f"Title: {title}\nPath: {path}\n\n{text[:EXCERPT_CHARS]}"
        try:
            reply = self._provider.complete([Message(role="user", content=prompt)], system=SYSTEM, max_tokens=80)
        except ModelError as err:
            raise SummaryFailed(
                f"the model {self.name} failed to summarise {path}: {err}",
                "run again (nothing was written), or ingest without --summarizer",
            ) from None
        self.calls += 1
        line = " ".join(reply.text.split()).strip().strip('"')
        self._write(key, line)
        return line

    def _read(self, key: str) -> str | None:
        try:
            return str(json.loads((self.cache_dir / f"{key}.json").read_text(encoding="utf-8"))["summary"])
        except (OSError, ValueError, KeyError):
            return None

    def _write(self, key: str, line: str) -> None:
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.cache_dir, prefix=".summary-")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump({"summary": line, "model": self.name}, out)
            os.replace(tmp, self.cache_dir / f"{key}.json")
        except OSError:
            return  # a cache that cannot be written costs a call next time, never the ingest
