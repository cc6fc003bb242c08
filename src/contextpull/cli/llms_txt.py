"""``contextpull export-llms-txt``: the corpus as ``llms.txt`` and ``llms-full.txt`` (the llms.txt convention).

``llms.txt`` is the index in the convention's Markdown: an H1 title, a
one-line summary as a block quote, then one H2 per top-level folder listing
each document as ``- [title](url): summary``, the same line the index shows.
``llms-full.txt`` holds every document's text after a ``Source:`` line, in
index order, as the sections store it (verbatim for Markdown and text; the
rendering ingest reads for converted formats). A URL is the document's path,
joined to ``--base-url`` when one is given, so the files can be served beside
the site they describe.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from ..ops.operations import Ops
from .common import add_json_option, add_store_option, emit, resolve_store_path

if TYPE_CHECKING:
    from ..store.connection import DocumentEntry
    from ..store.queries import SectionRow

#: the H2 of documents at the corpus root
ROOT_SECTION = "Documents"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "export-llms-txt",
        help="write llms.txt and llms-full.txt for the corpus",
        description="Write llms.txt (the index: a title, a summary and one linked line per document, by "
        "top-level folder) and llms-full.txt (every document's text) in the llms.txt convention.",
    )
    add_store_option(parser)
    parser.add_argument(
        "--out", type=Path, default=Path("."), metavar="DIR", help="folder to write both files in (default: here)"
    )
    parser.add_argument("--title", help="the H1 title (default: the corpus folder's name)")
    parser.add_argument("--description", help="the one-line summary under the title (default: what the corpus holds)")
    parser.add_argument(
        "--base-url", metavar="URL", help="prefix each document's path with this URL (default: relative paths)"
    )
    add_json_option(parser, "print what was written as JSON")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store_path = resolve_store_path(args)
    with Ops.open(store_path) as ops:
        store = ops.store
        documents = store.documents()
        title = args.title or _corpus_name(store.meta("corpus_root"), store_path)
        description = args.description or f"{len(documents):,} documents, indexed by ContextPull."
        index = llms_txt(title, description, documents, args.base_url)
        with store.snapshot():
            texts = _document_texts(store.sections_in_order())
        full = llms_full_txt(title, description, documents, texts, args.base_url)
    args.out.mkdir(parents=True, exist_ok=True)
    written = {}
    for name, text in (("llms.txt", index), ("llms-full.txt", full)):
        target = args.out / name
        _write_whole(target, text)
        written[name] = str(target)
    data = {"store": str(store_path), "documents": len(documents), "files": written}
    emit(
        args,
        data,
        lambda d: f"wrote {d['files']['llms.txt']} and {d['files']['llms-full.txt']} ({d['documents']:,} documents)",
    )
    return 0


def llms_txt(title: str, description: str, documents: Iterable[DocumentEntry], base_url: str | None) -> str:
    """The index as llms.txt: title, summary, then the documents under an H2 per top-level folder."""
    groups: dict[str, list[DocumentEntry]] = {}
    for doc in documents:
        folder = doc.path.split("/", 1)[0] if "/" in doc.path else ROOT_SECTION
        groups.setdefault(folder, []).append(doc)
    lines = [f"# {_one_line(title)}", "", f"> {_one_line(description)}", ""]
    for folder, docs in groups.items():
        lines += [f"## {folder}", ""]
        for doc in docs:
            summary = _one_line(doc.summary).removeprefix(f"{_one_line(doc.title)}: ")
            note = f": {summary}" if summary and summary != _one_line(doc.title) else ""
            lines.append(f"- [{_link_text(doc.title or doc.path)}]({_url(doc.path, base_url)}){note}")
        lines.append("")
    return "\n".join(lines)


def llms_full_txt(
    title: str,
    description: str,
    documents: Iterable[DocumentEntry],
    texts: dict[str, str],
    base_url: str | None,
) -> str:
    """Every document's text after a ``Source:`` line, in index order."""
    parts = [f"# {_one_line(title)}\n\n> {_one_line(description)}\n"]
    for doc in documents:
        parts.append(f"Source: {_url(doc.path, base_url)}\n\n{texts.get(doc.path, '').strip()}\n")
    return "\n".join(parts)


def _document_texts(rows: Iterable[SectionRow]) -> dict[str, str]:
    """Each document's text: its sections joined (they are contiguous and lossless)."""
    texts: dict[str, list[str]] = {}
    for row in rows:
        texts.setdefault(row.path, []).append(row.text or "")
    return {path: "".join(parts) for path, parts in texts.items()}


def _url(path: str, base_url: str | None) -> str:
    quoted = quote(path)
    return f"{base_url.rstrip('/')}/{quoted}" if base_url else quoted


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _link_text(text: str) -> str:
    return _one_line(text).replace("[", "(").replace("]", ")")


def _corpus_name(root: str | None, store_path: Path) -> str:
    if root:
        return Path(root).name
    return store_path.parent.parent.name if store_path.parent.name == ".contextpull" else store_path.stem


def _write_whole(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` through a temporary file, so a reader never sees half of it."""
    tmp = target.with_name(f".{target.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
