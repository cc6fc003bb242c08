"""benchmarks/question_diff.py names the questions a change moved, from two search_quality.py --questions files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from script_support import load_script


def _record(qid: str, recall: float, rr: float, retrieved: list[str], row: str = "search") -> dict[str, object]:
    return {
        "corpus": "uv-docs",
        "evalset": "handwritten",
        "row": row,
        "qid": qid,
        "shape": "comparison",
        "question": f"question {qid}?",
        "recall": recall,
        "rr": rr,
        "retrieved": retrieved,
        "gold": [f"g#{qid}", f"g#{qid}"],
    }


def _write(path: Path, records: list[dict[str, object]]) -> Path:
    path.write_text(json.dumps(records), encoding="utf-8")
    return path


def test_a_moved_question_is_named_with_both_first_hits_and_its_sets_means(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    diff = load_script("benchmarks/question_diff.py", "question_diff")
    before = _write(
        tmp_path / "before.json",
        [_record("q1", 0.0, 0.0, ["x#0"]), _record("q2", 1.0, 1.0, ["g#q2", "y#0"]), _record("q3", 1.0, 1.0, ["g#q3"])],
    )
    after = _write(
        tmp_path / "after.json",
        [
            _record("q1", 1.0, 0.5, ["x#0", "g#q1"]),
            _record("q2", 1.0, 1.0, ["g#q2", "z#0"]),
            _record("q4", 1.0, 1.0, []),
        ],
    )

    assert diff.main([str(before), str(after)]) == 0
    text = capsys.readouterr().out
    assert "uv-docs · handwritten · search · q1 (comparison): question q1?" in text
    assert "R@k 0.000 -> 1.000, RR 0.000 -> 0.500" in text and "gold   g#q1\n" in text  # a passage's repeats once
    assert "uv-docs · handwritten · search (2): 0.500 -> 1.000" in text
    assert "1 of 2 question results moved; 1 more changed their first hits" in text
    assert "1 only before: uv-docs · handwritten · search · q3" in text and "1 only after" in text

    assert diff.main([str(before), str(after), "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [item["key"][3] for item in found["moved"]] == ["q1"] and found["reordered"] == 1


def test_a_file_that_is_not_a_questions_file_is_refused_in_one_line(tmp_path: Path) -> None:
    diff = load_script("benchmarks/question_diff.py", "question_diff")
    wrong = tmp_path / "wrong.json"
    wrong.write_text('{"k": 5}', encoding="utf-8")
    with pytest.raises(SystemExit, match=r"wrong\.json is not a search_quality\.py --questions file"):
        diff.main([str(wrong), str(wrong)])
    with pytest.raises(SystemExit, match="is not a search_quality.py --questions file"):
        diff.main([str(tmp_path / "absent.json"), str(wrong)])
