"""The index: the corpus's table of contents that stays in the model's context.

It must fit a token budget (``contextpull.analysis.tokens.estimate_tokens``) whatever
the corpus size, header included. Forms are tried from most to least
informative and the first that fits is kept:

1. ``full``: one line per document with its summary (title + first sentence);
2. ``summaries+titles``: every document's title, and the summary instead for
   as many documents as the budget has room for, in path order;
3. ``titles``: one line per document with its title only;
4. ``titles+compact``: every document's path, and its title too for as
   many documents as fit;
5. ``compact``: one line per document, path and section count only;
6. ``hierarchical``: documents grouped by folder, as deep as still fits,
   with the instruction to expand a folder with ``index(prefix="dir/")``;
7. ``truncated``: the top-level grouping cut off with a count of what is left
   (or, for absurdly small budgets, the header alone, shortened).

A form short of ``full`` says in a legend line what its lines show, and
the header names the summary source only where summaries are shown. The
same text is produced for the same documents and budget, so an unchanged
corpus yields a byte-identical index.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain

from ..analysis.tokens import estimate_tokens
from ..errors import BadFilter
from ..store.connection import DocumentEntry, Store
from ..syntax import TOOL, Syntax
from .summaries import META_KEY as SUMMARIES_META_KEY
from .summaries import OFFLINE

DEFAULT_BUDGET = 3000
SUMMARY_SOURCE = OFFLINE
_SUMMARY_CHARS = 160
_TITLE_CHARS = 80
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class IndexText:
    text: str
    mode: str  # full | summaries+titles | titles | titles+compact | compact | hierarchical | truncated
    tokens: int


@dataclass(frozen=True)
class _Header:
    """The first line: what is listed, the corpus, and the summary source where summaries are shown."""

    counts: str
    corpus: str = ""
    summaries: str = ""

    def line(self, *, with_summaries: bool) -> str:
        notes = [self.corpus, f"summaries: {self.summaries}" if with_summaries and self.summaries else ""]
        shown = "; ".join(note for note in notes if note)
        return f"{self.counts} ({shown})" if shown else self.counts


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
    header = _Header(
        f"Corpus index: {_count(len(documents), 'document')}, {_count(sections, 'section')}",
        f"corpus {fingerprint[:12]}",
        summaries,
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
        summaries = store.meta(SUMMARIES_META_KEY) or SUMMARY_SOURCE
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
    header = _Header(f"Documents under {shown}: {_count(len(documents), 'document')}, {_count(sections, 'section')}")
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
_TITLES_LEGEND = "One line per document: path — title (sections)."


def _folder_legend(syntax: Syntax) -> str:
    return f"Folders are collapsed: {syntax.verb} {syntax.expand('folder/')} to list one."


def _render(
    documents: Sequence[DocumentEntry], header: _Header, *, base: str, budget: int, syntax: Syntax
) -> IndexText:
    plain = header.line(with_summaries=False)
    fits = _within(chain([header.line(with_summaries=True)], map(_full_line, documents)), budget)
    if fits is not None:
        return IndexText("\n".join(fits[0]), "full", fits[1])
    upgrades = (
        ("summaries+titles", "titles", _TITLES_LEGEND, _title_line, _full_line, "their summary", "their title"),
        ("titles+compact", "compact", _COMPACT_LEGEND, _compact_line, _title_line, "their title", "path (sections)"),
    )
    for mixed, mode, legend, lower, upper, better, worse in upgrades:
        fits = _within(chain([plain, legend], map(lower, documents)), budget)
        if fits is None:
            continue
        lines = _upgraded(documents, fits[0][2:], upper, budget - fits[1])
        if not lines:
            return IndexText("\n".join(fits[0]), mode, fits[1])
        top = header.line(with_summaries=mixed == "summaries+titles")
        text = [top, _told(len(lines), len(documents), better, worse), *lines, *fits[0][2 + len(lines) :]]
        while _tokens(text) > budget and lines:  # the legend's numbers or the header's note cost more: give one back
            lines.pop()
            text = [top, _told(len(lines), len(documents), better, worse), *lines, *fits[0][2 + len(lines) :]]
        if lines and _tokens(text) <= budget:
            return IndexText("\n".join(text), mixed, _tokens(text))
        return IndexText("\n".join(fits[0]), mode, fits[1])
    fitting = _deepest_grouping(documents, plain, base=base, budget=budget, syntax=syntax)
    if fitting is not None:
        return IndexText("\n".join(fitting), "hierarchical", _tokens(fitting))
    lines = _truncated(documents, plain, base=base, budget=budget, syntax=syntax)
    return IndexText("\n".join(lines), "truncated", _tokens(lines))


def _told(first: int, total: int, better: str, worse: str) -> str:
    """The legend of a mixed form: which documents get the richer line."""
    leading = "The first document" if first == 1 else f"The first {first:,} documents"
    rest = "the other one" if total - first == 1 else f"the other {total - first:,}"
    return f"{leading} with {better}, {rest} with {worse}."


def _upgraded(
    documents: Sequence[DocumentEntry], lower: Sequence[str], upper: Callable[[DocumentEntry], str], room: int
) -> list[str]:
    """The ``upper`` lines of the leading documents whose extra tokens over ``lower`` fit in ``room``.

    In path order and contiguous, so a reader sees where the richer lines
    stop; it stops at the first document that does not fit, so it renders
    no more lines than the budget can show.
    """
    kept: list[str] = []
    for doc, plain in zip(documents, lower):
        line = upper(doc)
        extra = estimate_tokens(line) - estimate_tokens(plain)
        if extra > room:
            break
        kept.append(line)
        room -= extra
    return kept


def _grouped(documents: Sequence[DocumentEntry], *, base: str, depth: int) -> list[str]:
    """Entries with folders ``depth`` levels below ``base`` collapsed into one line each."""
    return [line for _, line, _ in _entries(documents, base=base, depth=depth)]


def _entries(
    documents: Sequence[DocumentEntry], *, base: str, depth: int
) -> list[tuple[str, str, Sequence[DocumentEntry]]]:
    """``(path or folder, line, documents collapsed in it)`` in path order; a document's own line collapses none."""
    folders: dict[str, list[DocumentEntry]] = {}
    entries: list[tuple[str, str, Sequence[DocumentEntry]]] = []
    for doc in documents:
        parts = doc.path[len(base) :].split("/")
        if len(parts) - 1 < depth:
            entries.append((doc.path, _compact_line(doc), ()))
            continue
        folders.setdefault(base + "/".join(parts[:depth]) + "/", []).append(doc)
    for key, inside in folders.items():
        line = f"- {key} — {_count(len(inside), 'document')}, {_count(sum(d.section_count for d in inside), 'section')}"
        entries.append((key, line, inside))
    return sorted(entries, key=lambda entry: entry[0])


def _deepest_grouping(
    documents: Sequence[DocumentEntry], header: str, *, base: str, budget: int, syntax: Syntax
) -> list[str] | None:
    """The deepest folder grouping that fits, then each collapsed folder opened one level while room is left."""
    head = [header, _COMPACT_LEGEND, _folder_legend(syntax)]
    deepest = max(d.path[len(base) :].count("/") for d in documents)
    best: list[tuple[str, str, Sequence[DocumentEntry]]] | None = None
    for depth in range(1, deepest + 1):
        entries = _entries(documents, base=base, depth=depth)
        if _within([*head, *(line for _, line, _ in entries)], budget) is None:
            break
        best = entries
    if best is None:
        return None
    room = budget - _tokens([*head, *(line for _, line, _ in best)])
    opened: list[str] = []
    for key, line, inside in best:
        if inside:
            children = _grouped(inside, base=key, depth=1)
            extra = _tokens(children) - estimate_tokens(line)
            if extra <= room:
                opened += children
                room -= extra
                continue
        opened.append(line)
    return [*head, *opened]


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
