"""The search-quality suite guards search: recall@5 on the bundled corpus never falls below the committed figure."""

from __future__ import annotations

import json
from pathlib import Path

from script_support import load_script

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "results" / "search-quality.json"


def load_suite():
    return load_script("benchmarks/search_quality.py", "search_quality")


def test_search_recall_on_the_bundled_corpus_holds_the_committed_figure(tmp_path: Path) -> None:
    suite = load_suite()
    sample = next(corpus for corpus in suite.CORPORA if corpus.name == "sample-corpus")
    scored = suite.run([sample], ["search"], progress=False, cache=tmp_path)
    committed = {
        (block["corpus"], block["evalset"]): block["rows"][suite.SEARCH_ROW]
        for block in json.loads(COMMITTED.read_text(encoding="utf-8"))["blocks"]
    }
    published = {f"published {path.stem}" for path in sample.published_sets()}
    assert len(published) == 1 and {block.evalset for block in scored} == {"computed", *published}
    for block in scored:
        figures = committed[(block.corpus, block.evalset)]
        search = block.row(suite.SEARCH_ROW)
        assert search is not None and block.questions > 0
        assert search.overall.recall >= figures["overall"]["recall"] - 1e-9, block.evalset
        for shape, summary in search.by_shape.items():
            assert summary.recall >= figures["by_shape"][shape]["recall"] - 1e-9, (block.evalset, shape)


def test_a_hand_written_passage_is_credited_once_at_its_first_holder() -> None:
    from pushpull.scoring.metrics import QuestionResult
    from pushpull.scoring.runner import RowResult

    suite = load_suite()
    holders = {"docs/a.md#1": ["v10/a.md#1", "v9/a.md#1"], "docs/b.md#2": ["v10/b.md#2"]}
    shown_late = QuestionResult("q1", "comparison", list(holders), holders, ["x#0", "v10/a.md#1", "docs/a.md#1"])
    copy_only = QuestionResult("q2", "comparison", list(holders), holders, ["v9/a.md#1", "v10/a.md#1", "y#0"])
    row = RowResult("search", [shown_late, copy_only], {}, False, 5)
    assert row.overall.recall == 0.25  # only the gold ids count before

    suite.credit_by_passage(row)

    # the first holder takes the gold id, the gold section shown later the holder's: nothing grows or shrinks
    assert shown_late.retrieved == ["x#0", "docs/a.md#1", "v10/a.md#1"]
    # two copies of one passage credit it once; the other passage, never shown, stays a miss
    assert copy_only.retrieved == ["docs/a.md#1", "v10/a.md#1", "y#0"]
    assert row.overall.recall == 0.5 and row.overall.mrr == 0.75
