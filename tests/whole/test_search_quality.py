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


def _scored(suite, evalset: str, results: dict[str, list[tuple[str, str, list[str]]]]):
    """A :class:`Scored` block of ``evalset`` whose rows returned ``results`` (qid, shape, first ids; gold ``g#<qid>``)."""
    from pushpull.scoring.metrics import QuestionResult
    from pushpull.scoring.runner import RowResult

    rows = [
        RowResult(name, [QuestionResult(qid, shape, [f"g#{qid}"], {}, ids) for qid, shape, ids in found], {}, False, 5)
        for name, found in results.items()
    ]
    return suite.Scored("c", evalset, len(next(iter(results.values()))), {}, rows, {})


def test_pooled_figures_count_every_hand_written_question_once_and_paraphrases_apart() -> None:
    suite = load_suite()
    first = _scored(suite, "handwritten", {"search": [("a", "comparison", ["g#a"]), ("b", "table", ["x#0"])]})
    second = _scored(suite, "handwritten 2", {"search": [("c", "comparison", ["x#0", "y#1", "g#c"])]})
    paraphrase = _scored(suite, "handwritten, paraphrase", {"search": [("b", "table", ["x#0"])]})
    computed = _scored(suite, "computed", {"search": [("d", "table", ["g#d"])]})

    figures = suite.pooled([first, second, paraphrase, computed])["search"]

    assert figures["overall"] == (3, 2 / 3, 2 / 3)  # the computed question is not pooled
    assert figures["comparison"] == (2, 1.0, 1.0) and figures["table"] == (1, 0.0, 0.0)
    assert figures[suite.PARAPHRASE] == (1, 0.0, 0.0)  # its question is in the overall figure once
    assert "overall 0.667/0.667 (3)" in suite.render_pooled([first, second, paraphrase, computed])


def test_question_records_name_each_questions_figures_and_first_hits() -> None:
    suite = load_suite()
    block = _scored(
        suite, "handwritten", {"search": [("a", "comparison", ["x#0", "g#a", *[f"y#{n}" for n in range(6)]])]}
    )

    (record,) = suite.question_records([block])

    assert (record["corpus"], record["evalset"], record["row"], record["qid"]) == ("c", "handwritten", "search", "a")
    assert (record["recall"], record["rr"]) == (1.0, 0.5) and len(record["retrieved"]) == 5
