"""The one table's layout: names are never cut, and answer correctness sits beside faithfulness."""

from __future__ import annotations

from pushpull.evalset import build_evalset
from pushpull.scoring.report import render_table
from pushpull.scoring.runner import RunRow, run
from pushpull_support import CHUNKS

EVALSET = build_evalset(CHUNKS, shapes=["table", "aggregation"], n=20)
LONG = "pull, strict reads (local:qwen2.5-coder-1.5b)"
SHORT = "bm25"


class Gold:
    def retrieve(self, query: str, k: int) -> list[str]:
        return next(q.gold_chunk_ids for q in EVALSET.questions if q.q == query)[:k]


def test_the_name_column_fits_the_longest_name() -> None:
    table = render_table(
        run([RunRow(SHORT, Gold()), RunRow(LONG, Gold(), sampled=True)], EVALSET, CHUNKS, k=5, sample=3)
    )
    lines = table.splitlines()
    header, rule = lines[0], lines[1]
    long_line = next(line for line in lines if line.startswith(LONG))
    assert long_line.startswith(f"{LONG} (sample 3)  ")  # whole, with the sample note, then a gap
    numbers = [line for line in lines[2:] if line and not line.startswith(("eval set", "rec≡", "err", "faith"))]
    assert {len(line) for line in numbers} == {len(header)} == {len(rule)}  # every column lines up
    short_line = next(line for line in lines if line.startswith(f"{SHORT} "))
    recall_end = header.index("recall@5") + len("recall@5")
    assert long_line.index("1.000") + 5 == short_line.index("1.000") + 5 == recall_end  # figures under their heading


def test_faith_and_correct_columns_side_by_side() -> None:
    table = render_table(run([RunRow(SHORT, Gold())], EVALSET, CHUNKS, k=5))
    header, _, row = table.splitlines()[:3]
    columns = header.split()
    assert columns[columns.index("faith") + 1] == "correct"
    cells = row.split()
    assert cells[columns.index("faith")] == cells[columns.index("correct")] == "—"  # no judge, no figures
    assert header.startswith("config ")
    assert "correct = answers stating the reference answer's facts" in table
