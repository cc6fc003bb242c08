"""Search quality: ContextPull ``search`` beside the push rows, per corpus and per question shape.

    python benchmarks/search_quality.py                       # every corpus found, every row
    python benchmarks/search_quality.py --corpus sample-corpus --rows search,tantivy
    python benchmarks/search_quality.py --write               # also rewrite the committed results
    python benchmarks/search_quality.py --corpus uv-docs --corpus pydantic-docs --write --write-as search-quality-dev
    python benchmarks/search_quality.py --rows search,tantivy --misses   # the questions search loses to the best push row
    python benchmarks/search_quality.py --rows search,hybrid-search --pooled --questions after.json
    python benchmarks/question_diff.py before.json after.json             # the questions a change moved

Corpora: the bundled ``examples/corpus``, the shared corpora under
``../shared/corpora``, and the documentation sets fetched from the Debian
archive and PyPI by ``benchmarks/fetch_corpus.py`` (the Rust book, Django,
HAProxy, Debian Policy, licences, Jinja, Click, gnuplot, Flask, git, and
Django again as its reStructuredText sources, scored on the Django set's
questions with passages as the sources write them; each skipped, with a
printed reason, where absent). Eval
sets, all committed under ``benchmarks/evalsets/<corpus>/``:

* ``computed``: the shapes pushpull builds with no model (aggregation, table),
  built once by pushpull's eval-set builder (200 questions asked for, seed 0,
  as ``contextpull bench DIR`` does) and committed, so every run scores the
  same questions; a corpus whose sections changed is refused by fingerprint
  (rebuild with ``--rebuild-evalsets``);
* ``published``: the model-phrased sets of the published bench runs
  (``benchmarks/results/<corpus>/evalsets``), read in place;
* ``handwritten``: questions written by hand by reading the uv, pydantic,
  pnpm and semconv docs and the Rust book
  (``benchmarks/evalsets/<corpus>/handwritten.jsonl``, all five shapes,
  natural wording). Their gold is passages of text, not section ids, found
  in the sections of the store being scored, so the set does not depend on
  how the sections are cut (a passage found in several sections makes them
  equivalent gold, and the first of them a row shows is credited: see
  :func:`credit_by_passage`); the questions marked ``paraphrase`` (the
  wording shares few words with the passage) are also scored on their own.
  The pnpm and semconv sets were written after the ranking rules of their
  day and first scored before anything changed for them (``RESULTS.md``,
  2026-12-07); each has since informed one rule, so neither is held out.
  A later set of a corpus (``handwritten-2.jsonl``, uv: 20 questions written
  on 2026-12-07 after the table-vocabulary rule) is scored as its own block,
  ``handwritten 2``; no rule has been changed for it. The Rust book's set
  was written on 2026-12-07 after the rule it was first scored against
  (copies on a gathering page, ADR 029) was designed on that book; Django's
  set was held out until its first sight and has since informed one rule
  (ADR 026); HAProxy's (a server's configuration reference, HTML) was
  written on 2026-12-07 after every rule of that day and is held out; the
  Debian Policy Manual's (normative clauses, HTML with its reStructuredText
  sources beside it; no tables, so four shapes) was written then too, and
  its first sight prompted one rule (Sphinx's source copies left out, ADR
  029), so it is not. The licence texts' set (Debian's common licences,
  plain text: sibling versions sharing most clauses; four shapes) was
  written in session 6 of 2026-12-07 before any search over them; its
  first sight prompted one rule (a plain-text title block, ADR 004), so it
  is not held out either.

Rows: the floor (``bm25``: bare terms), ``bm25s`` with the Snowball English
stemmer and stopwords, ``tantivy`` (a real engine: English analyzer, title
field boosted), ``dense (minilm)`` and ``hybrid rrf (tantivy bm25+dense)``
are pushpull's push configurations over the store's exported sections, and
``dense (static)`` and ``dense (e5-small)`` (row keys ``dense-static`` and
``dense-e5``) the other offline embedders as dense rows (dense vectors are
cached under ``.cache/search-quality/``; the committed vectors of the
published runs seed that cache); ``contextpull search`` is ``Ops.search``
taken once, top k, no model; ``contextpull search (hybrid, static)``,
``(hybrid, minilm)`` and ``(hybrid, e5-small)`` (row keys ``hybrid-search``,
``hybrid-minilm`` and ``hybrid-e5``) are the same over stores of the corpus
ingested with ``--embed static`` (the shipped vectors), ``--embed minilm`` or
``--embed e5-small``, cached beside the lexical store, in hybrid mode. The
MiniLM and e5 rows embed every corpus at a few sections a second on 2 cores
(about an hour for all five corpora, once; then cached). :func:`search_rows` is the one place where search rows join.

Printed per corpus and eval set: recall@k and MRR@k overall and per shape,
then the targets checked against the figures (search ≥ the best push row on
every shape, the best chosen per shape as in the bench's verdict; aggregation
recall ≥ 0.6; hybrid search ≥ every push row overall, and hybrid search ≥
lexical search overall). ``--write``
stores the text in ``benchmarks/results/search-quality.txt`` and the figures
in ``search-quality.json``; ``tests/whole/test_search_quality.py`` fails when
search recall on the bundled corpus falls below the committed figure.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contextpull import ingest
from contextpull.eval.bench import export_chunks
from contextpull.eval.search_adapter import ContextPullSearch
from pushpull.chunks import Chunk
from pushpull.errors import FingerprintMismatch
from pushpull.evalset import EvalSet, build_evalset, load_evalset, save_evalset
from pushpull.evalset.build import fingerprint
from pushpull.pipeline import push_rows
from pushpull.questions import BLOCKS, SHAPES, Question
from pushpull.retrievers import push_row_name
from pushpull.scoring.metrics import (
    QuestionResult,
    equivalents_by_gold,
    reciprocal_rank_at_k,
    summarize,
    summarize_by_shape,
)
from pushpull.scoring.runner import RowResult, RunRow, run_row
from pushpull.scoring.verdict import best_push_row

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "corpora"
EVALSETS = ROOT / "benchmarks" / "evalsets"
RESULTS = ROOT / "benchmarks" / "results"
CACHE = ROOT / ".cache" / "search-quality"
FETCHED = ROOT / ".cache" / "corpora"  # benchmarks/fetch_corpus.py
K = 5
#: what ``contextpull bench DIR`` asks the builder for; computed shapes take their share
COMPUTED_N = 200
COMPUTED_SEED = 0
SEARCH_ROW = ContextPullSearch.name
#: the push rows, by key: the floor, the two deployed lexical rows, dense, and their hybrid
PUSH_KEYS = ("bm25", "bm25s", "tantivy", "dense", "hybrid")
#: the other offline embedders measured as dense push rows, by key: the static table distilled from
#: MiniLM, and multilingual-e5-small (docs/adr/010-embeddings.md, decision 7)
DENSE_EMBEDS = {"dense-static": "static", "dense-e5": "e5-small"}
PUSH_ROWS = (
    *(push_row_name(key) for key in PUSH_KEYS),
    *(push_row_name("dense", embedder=embed) for embed in DENSE_EMBEDS.values()),
)
#: hybrid search rows by key: the embedder each store is ingested with
HYBRID_EMBEDS = {"hybrid-search": "static", "hybrid-minilm": "minilm", "hybrid-e5": "e5-small"}
AGGREGATION_TARGET = 0.6
ROW_KEYS = (*PUSH_KEYS, *DENSE_EMBEDS, "search", *HYBRID_EMBEDS)


@dataclass(frozen=True)
class Corpus:
    """One corpus the suite scores: where its folder is and which published run it has."""

    name: str
    folder: Path
    published: str | None = None  # folder name under benchmarks/results
    fetch: str = ""  # the command that brings the folder, when no shared folder holds it

    def published_sets(self) -> list[Path]:
        if self.published is None:
            return []
        return sorted((RESULTS / self.published / "evalsets").glob("evalset-*.jsonl"))


CORPORA = (
    Corpus("sample-corpus", ROOT / "examples" / "corpus", "sample-corpus"),
    Corpus("uv-docs", SHARED / "uv-docs", "uv-docs"),
    Corpus("pydantic-docs", SHARED / "pydantic-docs"),
    Corpus("semconv-docs", SHARED / "semconv-docs"),
    Corpus("pnpm-docs", SHARED / "pnpm-docs"),
    Corpus("rust-book", FETCHED / "rust-book", fetch="python benchmarks/fetch_corpus.py rust-book"),
    Corpus("django-docs", FETCHED / "django-docs", fetch="python benchmarks/fetch_corpus.py django-docs"),
    Corpus("haproxy-docs", FETCHED / "haproxy-docs", fetch="python benchmarks/fetch_corpus.py haproxy-docs"),
    Corpus("debian-policy", FETCHED / "debian-policy", fetch="python benchmarks/fetch_corpus.py debian-policy"),
    Corpus("common-licenses", FETCHED / "common-licenses", fetch="python benchmarks/fetch_corpus.py common-licenses"),
    Corpus("jinja-docs", FETCHED / "jinja-docs", fetch="python benchmarks/fetch_corpus.py jinja-docs"),
    Corpus("click-docs", FETCHED / "click-docs", fetch="python benchmarks/fetch_corpus.py click-docs"),
    Corpus("gnuplot-manual", FETCHED / "gnuplot-manual", fetch="python benchmarks/fetch_corpus.py gnuplot-manual"),
    Corpus("flask-docs", FETCHED / "flask-docs", fetch="python benchmarks/fetch_corpus.py flask-docs"),
    Corpus("git-docs", FETCHED / "git-docs", fetch="python benchmarks/fetch_corpus.py git-docs"),
    Corpus("django-rst", FETCHED / "django-rst", fetch="python benchmarks/fetch_corpus.py django-rst"),
)


@dataclass
class Scored:
    """One eval set on one corpus: every row's results."""

    corpus: str
    evalset: str
    questions: int
    counts: dict[str, int]
    rows: list[RowResult]
    skipped_rows: dict[str, str]
    texts: dict[str, str] = field(default_factory=dict)  # question id → question, for --misses

    def row(self, name: str) -> RowResult | None:
        return next((row for row in self.rows if row.name == name), None)


def store_for(corpus: Corpus, cache: Path = CACHE, embed: str | None = None) -> Path:
    """Ingest ``corpus`` (incrementally, with ``embed``'s section vectors) into a store under ``cache``."""
    store = cache / corpus.name / (f"store-{embed}.sqlite" if embed else "store.sqlite")
    ingest(corpus.folder, store, workers=0, embed=embed)
    return store


def hybrid_row_name(embed: str) -> str:
    return f"contextpull search (hybrid, {embed})"


def computed_set(corpus: Corpus, chunks: Sequence[Chunk], rebuild: bool) -> EvalSet:
    """The committed computed-shape set for ``corpus``, built and saved on first use."""
    path = EVALSETS / corpus.name / "computed.jsonl"
    if path.exists() and not rebuild:
        return load_evalset(path, chunks)
    evalset = build_evalset(chunks, shapes=SHAPES, provider=None, n=COMPUTED_N, seed=COMPUTED_SEED)
    path.parent.mkdir(parents=True, exist_ok=True)
    save_evalset(evalset, path)
    return evalset


def handwritten_sets(corpus: Corpus, chunks: Sequence[Chunk]) -> list[tuple[str, EvalSet]]:
    """Each hand-written set of ``corpus`` (``handwritten*.jsonl``), gold passages found in ``chunks``, and its paraphrases alone.

    A later set of a corpus (``handwritten-2.jsonl``) is scored on its own,
    labelled ``handwritten 2``: questions written after the rules that the
    first set informed, so its figures stay readable as a held-out check.
    """
    texts = [(chunk.id, " ".join(chunk.text.split())) for chunk in chunks]
    built = []
    for path in sorted((EVALSETS / corpus.name).glob("handwritten*.jsonl")):
        label = path.stem.replace("-", " ")
        built += _handwritten_set(path, label, texts, chunks)
    return built


def _handwritten_set(
    path: Path, label: str, texts: Sequence[tuple[str, str]], chunks: Sequence[Chunk]
) -> list[tuple[str, EvalSet]]:
    """One hand-written set and its paraphrases alone, under ``label`` and ``label, paraphrase``."""
    questions, paraphrases = [], []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        gold: list[str] = []
        equivalent: dict[str, list[str]] = {}
        for passage in row["gold_text"]:
            wanted = " ".join(passage.split())
            holders = [cid for cid, text in texts if wanted in text]
            if not holders:
                raise SystemExit(
                    f"search_quality: {path.name} {row['id']}: no section holds {passage!r}; fix the passage"
                )
            gold.append(holders[0])
            equivalent.setdefault(holders[0], []).extend(holders[1:])
        question = Question(row["id"], row["q"], row["shape"], gold, equivalent_of=equivalent)
        questions.append(question)
        if row.get("paraphrase"):
            paraphrases.append(question)
    built = []
    for name, chosen in ((label, questions), (f"{label}, paraphrase", paraphrases)):
        counts = dict(Counter(question.shape for question in chosen))
        built.append(
            (name, EvalSet(chosen, fingerprint(chunks), SHAPES, len(chosen), 0, "hand-written", counts=counts))
        )
    return built


def seed_vector_cache(corpus: Corpus, cache_dir: Path) -> None:
    """Copy the published run's committed vectors into the cache: the same texts are not embedded twice."""
    if corpus.published is None:
        return
    for published in (RESULTS / corpus.published / "push").glob("embeddings-*.npz"):
        target = cache_dir / "push" / published.name
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(published, target)


def search_rows(store: Path | None, vectors_stores: dict[str, Path] | None = None) -> list[RunRow]:
    """ContextPull's own search rows: lexical over ``store``, hybrid over each of ``vectors_stores``.

    ``vectors_stores`` maps an embedder to the same corpus ingested with its
    section vectors; those rows run ``mode="hybrid"`` so a failing embedder
    is an error, never a silent lexical fallback.
    """
    rows = [RunRow(SEARCH_ROW, ContextPullSearch(store))] if store is not None else []
    for embed, vectors_store in (vectors_stores or {}).items():
        name = hybrid_row_name(embed)
        rows.append(RunRow(name, ContextPullSearch(vectors_store, mode="hybrid", name=name)))
    return rows


def score_corpus(corpus: Corpus, rows: Sequence[str], rebuild: bool, progress: bool, cache: Path) -> list[Scored]:
    """Every requested row on every eval set of ``corpus``."""
    store = store_for(corpus, cache)
    chunks = export_chunks(store)
    cache_dir = cache / corpus.name
    seed_vector_cache(corpus, cache_dir)
    sets = [("computed", computed_set(corpus, chunks, rebuild))]
    sets += [(f"published {path.stem}", load_evalset(path, chunks)) for path in corpus.published_sets()]
    sets += handwritten_sets(corpus, chunks)
    push_keys = [key for key in rows if key in PUSH_KEYS]
    built = push_rows(chunks, push_keys, cache_dir) if push_keys else None
    for key in rows:
        if key in DENSE_EMBEDS:
            dense = push_rows(chunks, ["dense"], cache_dir, embedder=DENSE_EMBEDS[key])
            if built is None:
                built = dense
            else:
                built.extend(dense)
    run_rows = list(built.rows) if built else []
    skipped = dict(built.skipped) if built else {}
    vectors_stores = {
        HYBRID_EMBEDS[key]: store_for(corpus, cache, HYBRID_EMBEDS[key]) for key in rows if key in HYBRID_EMBEDS
    }
    run_rows += search_rows(store if "search" in rows else None, vectors_stores)
    scored = []
    try:
        for label, evalset in sets:
            if not evalset.questions:
                continue
            results = []
            for row in run_rows:
                started = time.perf_counter()
                result = run_row(row, evalset.questions, K)
                results.append(credit_by_passage(result) if label.startswith("handwritten") else result)
                if progress:
                    elapsed = time.perf_counter() - started
                    print(f"  {corpus.name} {label}: {row.name} {elapsed:.1f} s", file=sys.stderr)
            texts = {question.id: question.q for question in evalset.questions}
            scored.append(
                Scored(corpus.name, label, len(evalset.questions), dict(evalset.counts), results, skipped, texts)
            )
    finally:
        for row in run_rows:
            close = getattr(row.adapter, "close", None)
            if callable(close):
                close()
    return scored


def credit_by_passage(row: RowResult) -> RowResult:
    """``row`` scored by passage: the first section holding a gold passage counts as that passage's gold section.

    A hand-written question names its answer by a passage of text, and
    :func:`handwritten_sets` records the first section holding it as gold and
    every other holder (a versioned copy of the page, a release note quoting
    it) as equivalent (``equivalents_by_gold``, as the harness's rec≡ reads
    them). Recall and MRR count gold ids, so without this a row
    showing the pnpm 10 copy of a page the pnpm 11 copy also holds would
    score nothing. Each passage is credited once, at the rank of its first
    holder: that holder is given the gold id, and the gold section itself,
    if shown further down, the holder's id, so no list grows or shrinks.
    """
    for result in row.results:
        for gold, holders in equivalents_by_gold(result.gold, result.equivalent).items():
            retrieved = result.retrieved
            first = next((rank for rank, cid in enumerate(retrieved) if cid in holders), None)
            if first is None or retrieved[first] == gold:
                continue
            if gold in retrieved:
                later = retrieved.index(gold)
                retrieved[first], retrieved[later] = gold, retrieved[first]
            else:
                retrieved[first] = gold
    row.summarize()
    return row


def _cell(recall: float, mrr: float) -> str:
    return f"{recall:.3f} {mrr:.3f}"


def _blocks(block: Scored) -> list[str]:
    """The question blocks ``block`` scored, in :data:`BLOCKS` order: the shapes, and a phrased twin where the set has one."""
    return [name for name in BLOCKS if any(name in row.by_shape for row in block.rows)]


def render(scored: Sequence[Scored]) -> str:
    """The table: one block per corpus and eval set, a row per configuration, R@k and MRR@k per question block."""
    lines: list[str] = []
    for block in scored:
        counts = ", ".join(f"{shape} {block.counts[shape]}" for shape in SHAPES if shape in block.counts)
        shapes = _blocks(block)
        lines.append(f"{block.corpus} · {block.evalset} · {block.questions} questions ({counts})")
        width = max([28, *(len(row.name) for row in block.rows)])
        header = f"{'row':{width}} {'overall':>13}" + "".join(
            f" {shape.replace('aggregation', 'agg.'):>13}" for shape in shapes
        )
        lines.append(header)
        lines.append(f"{'':{width}} {'R@5   MRR@5':>13}" + "".join(f" {'R@5   MRR@5':>13}" for _ in shapes))
        for row in block.rows:
            cells = [_cell(row.overall.recall, row.overall.mrr)]
            cells += [_cell(row.by_shape[s].recall, row.by_shape[s].mrr) if s in row.by_shape else "—" for s in shapes]
            errors = f"  ({row.overall.errors} errors: counted as misses)" if row.overall.errors else ""
            lines.append(f"{row.name:{width}}" + "".join(f" {cell:>13}" for cell in cells) + errors)
        for name, reason in block.skipped_rows.items():
            lines.append(f"  skipped {name}: {reason}")
        lines.append("")
    lines += render_targets(scored)
    return "\n".join(lines).rstrip() + "\n"


def check_targets(block: Scored) -> list[tuple[str, bool, str]]:
    """Issue 9's and 26's targets on one block: ``(target, met, figures)``; only those the block has rows for.

    Each hybrid search row must reach every push row and lexical search
    overall, and pass lexical search on a block of paraphrases.
    """
    checks = _lexical_targets(block)
    search = block.row(SEARCH_ROW)
    for embed in HYBRID_EMBEDS.values():
        hybrid_search = block.row(hybrid_row_name(embed))
        if hybrid_search is None:
            continue
        ours = hybrid_search.overall.recall
        label = f"hybrid search ({embed})"
        push = [(name, row.overall.recall) for name in PUSH_ROWS if (row := block.row(name)) is not None]
        if push:
            best_name, best = best_push(block, "overall") or push[0]
            checks.append(
                (f"{label} ≥ every push row (overall)", ours >= best, f"{ours:.3f} vs {best:.3f} ({best_name})")
            )
        if search is not None:
            lexical = search.overall.recall
            checks.append((f"{label} ≥ search (overall)", ours >= lexical, f"{ours:.3f} vs {lexical:.3f}"))
            if "paraphrase" in block.evalset:
                checks.append((f"{label} > search (paraphrase)", ours > lexical, f"{ours:.3f} vs {lexical:.3f}"))
    return checks


def best_push(block: Scored, shape: str) -> tuple[str, float] | None:
    """The strongest push row of ``block`` on ``shape`` (or ``overall``), chosen as the bench's verdict does."""
    scored = []
    for name in PUSH_ROWS:
        row = block.row(name)
        summary = None if row is None else row.overall if shape == "overall" else row.by_shape.get(shape)
        if summary is not None:
            scored.append((name, summary))
    found = best_push_row(scored)
    return None if found is None else (found[0], found[1].recall)


def _lexical_targets(block: Scored) -> list[tuple[str, bool, str]]:
    search = block.row(SEARCH_ROW)
    if search is None:
        return []
    checks: list[tuple[str, bool, str]] = []
    for shape in ["overall", *_blocks(block)]:
        best = best_push(block, shape)
        if best is None:
            continue
        name, theirs = best
        ours = search.overall.recall if shape == "overall" else search.by_shape[shape].recall
        checks.append((f"search ≥ the best push row ({shape})", ours >= theirs, f"{ours:.3f} vs {theirs:.3f} ({name})"))
    if block.evalset == "computed" and "aggregation" in search.by_shape:
        recall = search.by_shape["aggregation"].recall
        checks.append((f"aggregation ≥ {AGGREGATION_TARGET}", recall >= AGGREGATION_TARGET, f"{recall:.3f}"))
    return checks


def render_misses(scored: Sequence[Scored]) -> str:
    """Every question where search does worse than the best push row overall (recall@k, then reciprocal rank).

    What ``--misses`` prints.

    The targets are per shape, so a shape's miss is one or two questions;
    this names them, with both rows' top k, so a ranking change can be
    judged on the questions themselves rather than on the averages.
    """
    lines: list[str] = []
    for block in scored:
        best = best_push(block, "overall")
        search, push = block.row(SEARCH_ROW), block.row(best[0]) if best else None
        if search is None or push is None:
            continue
        for ours, theirs in zip(search.results, push.results, strict=True):
            mine = (ours.recall(K), reciprocal_rank_at_k(ours.gold, ours.retrieved, K))
            other = (theirs.recall(K), reciprocal_rank_at_k(theirs.gold, theirs.retrieved, K))
            if mine >= other:
                continue
            lines.append(f"{block.corpus} · {block.evalset} · {ours.shape}: {block.texts.get(ours.qid, ours.qid)}")
            lines.append(f"  gold   {', '.join(ours.gold)}")
            for name, (recall, rr), result in (("search", mine, ours), (push.name, other, theirs)):
                lines.append(f"  {name}: R@{K} {recall:.2f} RR {rr:.2f}: {', '.join(result.retrieved[:K])}")
    return "\n".join(lines) + "\n" if lines else "search does at least as well as the best push row on every question\n"


def render_targets(scored: Sequence[Scored]) -> list[str]:
    lines = ["targets, recall@5 (search against the best push row of each shape; hybrid search against every row):"]
    missed = 0
    for block in scored:
        for target, met, figures in check_targets(block):
            missed += not met
            lines.append(f"  {'met   ' if met else 'MISSED'} {block.corpus} · {block.evalset}: {target}: {figures}")
    lines.append(f"{missed} target(s) missed")
    return lines


#: the pooled figures' paraphrase line: the questions of every ``…, paraphrase`` set (each also in its own set)
PARAPHRASE = "paraphrase"


def pooled(scored: Sequence[Scored]) -> dict[str, dict[str, tuple[int, float, float]]]:
    """Each row's ``(questions, recall@k, hit@k)`` over every hand-written question, overall and per shape.

    What ``--pooled`` prints. The hand-written sets are the ones written by
    reading a corpus, and the figure the issue's targets name is the pool
    of them all, not any one set's. A paraphrase set repeats questions of its
    own set, so it is pooled apart, under :data:`PARAPHRASE`; computed and
    published sets are left out.
    """
    results: dict[str, tuple[list[QuestionResult], list[QuestionResult]]] = {}
    for block in scored:
        if not block.evalset.startswith("handwritten"):
            continue
        paraphrase = block.evalset.endswith(PARAPHRASE)
        for row in block.rows:
            asked, paraphrases = results.setdefault(row.name, ([], []))
            (paraphrases if paraphrase else asked).extend(row.results)
    figures = {}
    for row_name, (asked, paraphrases) in results.items():
        summaries = {"overall": summarize(asked, K), **summarize_by_shape(asked, K)} if asked else {}
        if paraphrases:
            summaries[PARAPHRASE] = summarize(paraphrases, K)
        figures[row_name] = {name: (s.n, s.recall, s.hit_rate) for name, s in summaries.items()}
    return figures


def render_pooled(scored: Sequence[Scored]) -> str:
    """The :func:`pooled` figures, a line per row: ``recall@k / hit@k (questions)`` per question block."""
    figures = pooled(scored)
    if not figures:
        return "no hand-written set was scored\n"
    names = ["overall", *SHAPES, PARAPHRASE]
    width = max(len(row) for row in figures)
    lines = [f"pooled over the hand-written sets, recall@{K} / hit@{K} (questions); paraphrase sets apart:"]
    for row, by_block in figures.items():
        cells = [
            f"{name} {by_block[name][1]:.3f}/{by_block[name][2]:.3f} ({by_block[name][0]})"
            for name in names
            if name in by_block
        ]
        lines.append(f"  {row:{width}}  " + "  ".join(cells))
    return "\n".join(lines) + "\n"


def question_records(scored: Sequence[Scored]) -> list[dict[str, Any]]:
    """Every question's result for every row: what ``--questions`` writes and ``question_diff.py`` compares.

    The averages hide which questions a ranking change moved; these records
    name them, with the first k ids each row returned.
    """
    return [
        {
            "corpus": block.corpus,
            "evalset": block.evalset,
            "row": row.name,
            "qid": result.qid,
            "shape": result.shape,
            "question": block.texts.get(result.qid, ""),
            "recall": round(result.recall(K), 4),
            "rr": round(reciprocal_rank_at_k(result.gold, result.retrieved, K), 4),
            "retrieved": result.retrieved[:K],
            "gold": result.gold,
        }
        for block in scored
        for row in block.rows
        for result in row.results
    ]


def figures(scored: Sequence[Scored]) -> dict[str, Any]:
    """The JSON the committed results and the regression test read."""
    out: dict[str, Any] = {"k": K, "blocks": []}
    for block in scored:
        rows = {}
        for row in block.rows:
            rows[row.name] = {
                "overall": {"recall": round(row.overall.recall, 4), "mrr": round(row.overall.mrr, 4)},
                "by_shape": {
                    shape: {"recall": round(s.recall, 4), "mrr": round(s.mrr, 4)} for shape, s in row.by_shape.items()
                },
            }
        out["blocks"].append(
            {
                "corpus": block.corpus,
                "evalset": block.evalset,
                "questions": block.questions,
                "counts": block.counts,
                "rows": rows,
            }
        )
    return out


def run(
    corpora: Sequence[Corpus],
    rows: Sequence[str],
    *,
    rebuild: bool = False,
    progress: bool = True,
    cache: Path = CACHE,
) -> list[Scored]:
    """Score ``rows`` on every corpus present; stores and vectors are kept under ``cache``."""
    scored: list[Scored] = []
    for corpus in corpora:
        if not corpus.folder.is_dir():
            how = f" (fetch it: {corpus.fetch})" if corpus.fetch else ""
            print(f"skipped {corpus.name}: {corpus.folder} is absent{how}", file=sys.stderr)
            continue
        scored += score_corpus(corpus, rows, rebuild, progress, cache)
    return scored


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--corpus", action="append", choices=[c.name for c in CORPORA], help="corpus to score (repeatable; default all)"
    )
    parser.add_argument("--rows", default=",".join(ROW_KEYS), help=f"comma list of {', '.join(ROW_KEYS)} (default all)")
    parser.add_argument("--rebuild-evalsets", action="store_true", help="rebuild the committed computed sets")
    parser.add_argument("--cache", type=Path, default=CACHE, help=f"stores and vectors (default {CACHE})")
    parser.add_argument("--write", action="store_true", help="write benchmarks/results/search-quality.{txt,json}")
    parser.add_argument(
        "--write-as",
        metavar="NAME",
        default="search-quality",
        help="with --write: the results' file name (default %(default)s)",
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument(
        "--misses", action="store_true", help="also list the questions search loses to the best push row"
    )
    parser.add_argument(
        "--pooled", action="store_true", help="also print each row pooled over every hand-written question"
    )
    parser.add_argument(
        "--questions",
        metavar="FILE",
        type=Path,
        help="write every question's result to FILE (JSON), for benchmarks/question_diff.py",
    )
    args = parser.parse_args(argv)
    rows = [key.strip() for key in args.rows.split(",") if key.strip()]
    unknown = [key for key in rows if key not in ROW_KEYS]
    if unknown:
        parser.error(f"unknown row(s) {', '.join(unknown)}; choose from {', '.join(ROW_KEYS)}")
    chosen = [c for c in CORPORA if not args.corpus or c.name in args.corpus]
    try:
        scored = run(chosen, rows, rebuild=args.rebuild_evalsets, cache=args.cache)
    except FingerprintMismatch as err:
        # A parser change re-cut the corpus: the committed computed set names sections that moved.
        print(f"search_quality: {err.message} (rebuild it with --rebuild-evalsets)", file=sys.stderr)
        return 1
    text = render(scored)
    print(json.dumps(figures(scored), indent=2) if args.json else text, end="" if not args.json else "\n")
    if args.misses:
        print("\nquestions search loses to the best push row:\n" + render_misses(scored), end="")
    if args.pooled:
        print("\n" + render_pooled(scored), end="")
    if args.questions:
        args.questions.write_text(json.dumps(question_records(scored), indent=1) + "\n", encoding="utf-8")
    if args.write:
        (RESULTS / f"{args.write_as}.txt").write_text(text, encoding="utf-8")
        (RESULTS / f"{args.write_as}.json").write_text(json.dumps(figures(scored), indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
