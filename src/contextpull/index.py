"""The index: the corpus's table of contents that stays in the model's context.

It must fit a token budget (``contextpull.tokens.estimate_tokens``) whatever
the corpus size, header included. Forms are tried from most to least
informative and the first that fits is kept:

1. ``full``: one line per document with its summary (title + first sentence);
2. ``titles``: one line per document with its title only;
3. ``compact``: one line per document, path and section count only;
4. ``hierarchical``: documents grouped by folder, as deep as still fits,
   with the instruction to expand a folder with ``index(prefix="dir/")``;
5. ``truncated``: the top-level grouping cut off with a count of what is left
   (or, for absurdly small budgets, the header alone, shortened).

The same text is produced for the same documents and budget, so an
unchanged corpus yields a byte-identical index.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from .errors import BadFilter
from .store.connection import DocumentEntry, Store
from .summaries import OFFLINE
from .syntax import TOOL, Syntax
from .tokens import estimate_tokens

DEFAULT_BUDGET = 3000
SUMMARY_SOURCE = OFFLINE
_SUMMARY_CHARS = 160
_TITLE_CHARS = 80
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class IndexText:
    text: str
    mode: str  # full | titles | compact | hierarchical | truncated
    tokens: int


def build_index(
    documents: Sequence[DocumentEntry],
    *,
    fingerprint: str,
    budget: int = DEFAULT_BUDGET,
    syntax: Syntax = TOOL,
    summaries: str = SUMMARY_SOURCE,
) -> IndexText:
    """The stored index for a whole corpus (``documents`` in path order).

    ``syntax`` spells the instruction to expand a collapsed folder: the
    stored index is for a model (:data:`~contextpull.syntax.TOOL`).
    """
    sections = sum(d.section_count for d in documents)
    header = (
        f"Corpus index: {_count(len(documents), 'document')}, {_count(sections, 'section')}"
        f" (corpus {fingerprint[:12]}; summaries: {summaries})"
    )
    return _render(documents, header, base="", budget=budget, syntax=syntax)


def index_for_prefix(store: Store, prefix: str, budget: int | None = None, syntax: Syntax = TOOL) -> IndexText:
    """The documents under ``prefix`` (a folder or path prefix), in the index's line format.

    ``"guides"`` and ``"guides/"`` both mean the folder; a prefix that names
    no folder matches paths by plain prefix. Raises :class:`BadFilter`,
    listing the valid top-level paths, when nothing matches.
    """
    if budget is None:
        budget = int(store.meta("index_budget") or DEFAULT_BUDGET)
    wanted = normalise_prefix(prefix)
    if not wanted:
        summaries = store.meta("summaries") or SUMMARY_SOURCE
        return build_index(
            store.documents(), fingerprint=store.fingerprint, budget=budget, syntax=syntax, summaries=summaries
        )
    shown = wanted if wanted.endswith("/") else wanted + "/"
    documents = store.documents(shown)
    folder = shown
    if not documents and not wanted.endswith("/"):
        documents = store.documents(wanted)
        shown, folder = wanted, wanted[: wanted.rfind("/") + 1]
    if not documents:
        tops = sorted({_top_level(d.path) for d in store.documents()})
        listed = ", ".join(tops[:20]) + (f", … ({len(tops) - 20} more)" if len(tops) > 20 else "")
        raise BadFilter(
            f"no document path starts with {prefix!r}",
            f"valid top-level paths: {listed}" if tops else "the store holds no documents",
        )
    sections = sum(d.section_count for d in documents)
    header = f"Documents under {shown}: {_count(len(documents), 'document')}, {_count(sections, 'section')}"
    return _render(documents, header, base=folder, budget=budget, syntax=syntax)


def document_outline(
    doc: DocumentEntry, sections: Sequence[tuple[str, tuple[str, ...], str]], budget: int
) -> IndexText:
    """One document's index line, then one line per section: ``id  heading > path (kind)``.

    ``sections`` are ``(id, heading path, kind)`` in document order. Sections
    that would pass ``budget`` tokens are counted in a last line instead.
    """
    lines = [f"Sections of {doc.path}: {_count(doc.section_count, 'section')}", _full_line(doc)]
    used = _tokens(lines)
    for shown, (sid, heading_path, kind) in enumerate(sections):
        line = f"  - {sid}  {' > '.join(heading_path) or '(no heading)'} ({kind})"
        more = f"  … {len(sections) - shown:,} more sections: read or neighbours from the last id shown"
        if used + estimate_tokens(line) + estimate_tokens(more) > budget and shown < len(sections) - 1:
            lines.append(more)
            break
        lines.append(line)
        used += estimate_tokens(line)
    return IndexText("\n".join(lines), "sections", _tokens(lines))


def normalise_prefix(prefix: str) -> str:
    """``./guides`` and ``/guides`` and ``guides`` are the same prefix; ``\\`` becomes ``/``."""
    text = prefix.strip().replace("\\", "/")
    while text.startswith(("./", "/")):
        text = text[2:] if text.startswith("./") else text[1:]
    return "" if text == "." else text


def _top_level(path: str) -> str:
    head, sep, _ = path.partition("/")
    return head + sep


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def _tokens(lines: Sequence[str]) -> int:
    # Token pieces never span whitespace, so line counts add up exactly.
    return sum(estimate_tokens(line) for line in lines)


def _within(lines: Iterable[str], budget: int) -> tuple[list[str], int] | None:
    """``lines`` as a list with their token count when they fit ``budget``, else ``None``.

    Stops at the first line past the budget, so lines after it are neither
    made nor counted: for a large corpus the longer forms overshoot within a
    few hundred lines, and rendering and counting the rest was most of the
    time ``contextpull index`` took (issue 14).
    """
    kept, used = [], 0
    for line in lines:
        used += estimate_tokens(line)
        if used > budget:
            return None
        kept.append(line)
    return kept, used


def _described_line(doc: DocumentEntry, about: str, limit: int) -> str:
    about = _SPACE.sub(" ", about).strip()
    if len(about) > limit:
        about = about[: limit - 1].rstrip() + "…"
    tail = f" ({_count(doc.section_count, 'section')})"
    return f"- {doc.path} — {about}{tail}" if about else f"- {doc.path}{tail}"


def _full_line(doc: DocumentEntry) -> str:
    return _described_line(doc, doc.summary or doc.title, _SUMMARY_CHARS)


def _title_line(doc: DocumentEntry) -> str:
    return _described_line(doc, doc.title, _TITLE_CHARS)


def _compact_line(doc: DocumentEntry) -> str:
    return f"- {doc.path} ({doc.section_count})"


_COMPACT_LEGEND = "One line per document: path (sections)."


def _folder_legend(syntax: Syntax) -> str:
    return f"Folders are collapsed: {syntax.verb} {syntax.expand('folder/')} to list one."


def _render(documents: Sequence[DocumentEntry], header: str, *, base: str, budget: int, syntax: Syntax) -> IndexText:
    candidates: list[tuple[str, Iterable[str]]] = [
        ("full", chain([header], map(_full_line, documents))),
        ("titles", chain([header], map(_title_line, documents))),
        ("compact", chain([header, _COMPACT_LEGEND], map(_compact_line, documents))),
    ]
    for mode, lines in candidates:
        fits = _within(lines, budget)
        if fits is not None:
            return IndexText("\n".join(fits[0]), mode, fits[1])
    fitting = _deepest_grouping(documents, header, base=base, budget=budget, syntax=syntax)
    if fitting is not None:
        return IndexText("\n".join(fitting), "hierarchical", _tokens(fitting))
    lines = _truncated(documents, header, base=base, budget=budget, syntax=syntax)
    return IndexText("\n".join(lines), "truncated", _tokens(lines))


def _grouped(documents: Sequence[DocumentEntry], *, base: str, depth: int) -> list[str]:
    """Entries with folders ``depth`` levels below ``base`` collapsed into one line each."""
    folders: dict[str, list[int]] = {}
    lines: list[tuple[str, str]] = []
    for doc in documents:
        parts = doc.path[len(base) :].split("/")
        if len(parts) - 1 < depth:
            lines.append((doc.path, _compact_line(doc)))
            continue
        key = base + "/".join(parts[:depth]) + "/"
        counts = folders.setdefault(key, [0, 0])
        counts[0] += 1
        counts[1] += doc.section_count
    for key, (docs, sections) in folders.items():
        lines.append((key, f"- {key} — {_count(docs, 'document')}, {_count(sections, 'section')}"))
    return [line for _, line in sorted(lines)]


def _deepest_grouping(
    documents: Sequence[DocumentEntry], header: str, *, base: str, budget: int, syntax: Syntax
) -> list[str] | None:
    deepest = max(d.path[len(base) :].count("/") for d in documents)
    best: list[str] | None = None
    for depth in range(1, deepest + 1):
        lines = [
            header,
            _COMPACT_LEGEND,
            _folder_legend(syntax),
            *_grouped(documents, base=base, depth=depth),
        ]
        if _within(lines, budget) is None:
            break
        best = lines
    return best


def _truncated(documents: Sequence[DocumentEntry], header: str, *, base: str, budget: int, syntax: Syntax) -> list[str]:
    entries = _grouped(documents, base=base, depth=1)
    head = [header, _COMPACT_LEGEND, _folder_legend(syntax)]
    if _tokens(head) > budget:
        return _shortened(header, budget)
    lines = list(head)
    used = _tokens(lines)
    for shown, entry in enumerate(entries):
        rest = len(entries) - shown
        more = f"… {rest:,} more entries: {syntax.verb} {syntax.expand('…')} with a folder or path prefix."
        cost = estimate_tokens(entry)
        if used + cost + estimate_tokens(more) > budget:
            if used + estimate_tokens(more) <= budget:
                lines.append(more)
            break
        lines.append(entry)
        used += cost
    return lines


def _shortened(header: str, budget: int) -> list[str]:
    """The header cut at a word boundary to ``budget`` tokens (possibly empty)."""
    words = header.split(" ")
    while words and estimate_tokens(" ".join(words)) > budget:
        words.pop()
    return [" ".join(words)] if words else []
