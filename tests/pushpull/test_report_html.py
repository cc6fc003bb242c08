"""``contextpull report``: one static HTML page over recorded runs, checked as markup and in real headless Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path

from browser_support import browser, screenshots  # noqa: F401 - the fixture
from cli_support import one_line_error, run
from pushpull.questions import BLOCKS

REPO = Path(__file__).resolve().parents[2]
#: every published run, drawn in one page
RUNS = sorted(path.parent for path in (REPO / "benchmarks" / "results").glob("*/results.json"))


def expected_charts(folder: Path) -> int:
    """Bars per block the run scored, two cost scatters, reads per query, and leakage when it ran."""
    results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
    blocks = {block for row in results["rows"] for block in row["by_shape"]}
    reads = any((row.get("stats") or {}).get("reads_per_query") is not None for row in results["rows"])
    leakage = (folder / "leakage" / "leakage.json").is_file()
    return 1 + len([b for b in BLOCKS if b in blocks]) + 2 + reads + leakage


def write_report(tmp_path: Path) -> tuple[Path, str]:
    out = tmp_path / "report.html"
    proc = run("report", *map(str, RUNS), "--out", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["runs"] == [str(folder) for folder in RUNS]
    return out, out.read_text(encoding="utf-8")


def test_the_report_is_one_offline_file_that_marks_the_best_push_row_of_every_block(tmp_path: Path) -> None:
    _, page = write_report(tmp_path)
    assert "<script" not in page and not re.search(r"(src|href)=['\"]https?:", page)  # nothing to fetch
    assert page.count("<figure class='chart'>") == sum(expected_charts(folder) for folder in RUNS)
    for folder in RUNS:
        results = json.loads((folder / "results.json").read_text(encoding="utf-8"))
        assert f"{max(len(row['questions']) for row in results['rows'])} questions; k=" in page  # scored, not asked
        verdict = results["verdict"]["all"]
        for block in verdict:
            assert f"{block['best_push'][:49]}" in page and " ★</text>" in page
    misses = [json.loads(line) for line in (RUNS[0] / "misses.jsonl").read_text(encoding="utf-8").splitlines()]
    assert misses and misses[0]["q"].replace("'", "&#x27;") in page  # a missed question and its gold text
    assert misses[0]["missing_text"][0][:60].strip().replace("'", "&#x27;").split("\n")[0] in page


def test_the_verdict_sets_every_row_against_the_best_push_row_on_the_same_questions(tmp_path: Path) -> None:
    _, page = write_report(tmp_path)
    tables = re.findall(r"<table class='verdict'>.*?</table>", page, re.DOTALL)
    assert len(tables) == 1 + len(RUNS)  # the overview, then one per run
    lines = 0
    for folder in RUNS:
        verdict = json.loads((folder / "results.json").read_text(encoding="utf-8"))["verdict"]
        blocks = verdict.get("sample") or verdict["all"]  # where rows were sampled, every row on the sample
        lines += len(blocks)
        for v in blocks:  # every recorded cell, shaded by the sign of its margin over the best push row
            for recall in v["recall"].values():
                margin = recall - v["best_push_recall"]
                kind, mark = ("even", "=") if abs(margin) < 0.0005 else ("ahead" if margin > 0 else "behind", "")
                assert f"<td class='{kind}'>{recall:.3f} ({mark or f'{margin:+.3f}'})</td>" in tables[0]
    assert tables[0].count("<tr>") == 1 + lines  # the heading and a line per run and shape


def test_a_folder_without_results_is_one_line(tmp_path: Path) -> None:
    error = one_line_error(run("report", str(tmp_path), "--out", str(tmp_path / "r.html")), status=2)
    assert "not a bench output folder" in error


def test_every_chart_renders_in_chromium_without_console_errors(browser, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By

    out, _ = write_report(tmp_path)
    browser.get(out.as_uri())
    charts = browser.find_elements(By.CSS_SELECTOR, "figure.chart svg")
    assert len(charts) == sum(expected_charts(folder) for folder in RUNS)
    for chart in charts:
        size = chart.size
        assert size["width"] > 0 and size["height"] > 0
        assert chart.find_elements(By.CSS_SELECTOR, "rect, circle")  # something was drawn in it
    assert browser.find_elements(By.CSS_SELECTOR, "table.misses tbody tr")
    assert all(cell.size["width"] > 0 for cell in browser.find_elements(By.CSS_SELECTOR, "table.verdict td"))
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    assert not errors, errors
    shot = screenshots(tmp_path) / "report.png"
    browser.set_window_size(1400, 2400)
    assert browser.save_screenshot(str(shot)) and shot.stat().st_size > 10_000
