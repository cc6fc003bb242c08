"""The search-quality suite guards search: recall@5 on the bundled corpus never falls below the committed figure."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "benchmarks" / "results" / "search-quality.json"


def load_suite():
    spec = importlib.util.spec_from_file_location("search_quality", ROOT / "benchmarks" / "search_quality.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["search_quality"] = module
    spec.loader.exec_module(module)
    return module


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
