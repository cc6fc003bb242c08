"""One static HTML page over one or more runs: who wins each shape, at what cost, and what each row missed.

Made from what a run leaves behind (``results.json``, ``misses.jsonl`` and,
where the snippet-leakage experiment ran, ``leakage/leakage.json``), so any
published run renders without a model. The page is one file: its styles are
inline, its charts are SVG drawn here (no script, no network), and it opens
from disk in any browser. Over several runs it opens with one verdict table
(per run and shape: the best push row, and every other row's recall with its
margin over it, on the questions every row answered). Per run: that verdict,
recall@k per shape as bars with the best push row marked, recall against
tokens per query and against ms per query, reads per query of the pull rows,
the leakage gap, and a table of misses (question, the gold text a row left
out, and what each row returned instead).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from ..questions import BLOCKS
from .verdict import recorded_verdict

#: the kinds of row, by how they retrieve, and the colour each is drawn in
COLOURS = {"push": "#8a94a6", "best": "#d9822b", "search": "#2b6cb0", "pull": "#2f855a"}
#: misses shown per run (the questions with the most rows missing them first)
MAX_MISSES = 30
MAX_GOLD_CHARS = 400
_BAR_WIDTH = 180
_LABEL_WIDTH = 330
#: a longer row name is cut in the chart (the whole name is in the bar's tooltip and the tables)
_LABEL_CHARS = 50
_ROW_HEIGHT = 20


def row_kind(row: dict[str, Any]) -> str:
    """``push``, ``search`` or ``pull``: a push row is marked by the run, search and pull by name."""
    if row.get("push"):
        return "push"
    return "pull" if row["name"].startswith("pull") else "search"


def render_report(runs: Sequence[Path]) -> str:
    """The page for ``runs`` (run folders, each with a ``results.json``)."""
    loaded = [(folder, json.loads((folder / "results.json").read_text(encoding="utf-8"))) for folder in runs]
    sections = [_run_section(folder, results, index) for index, (folder, results) in enumerate(loaded)]
    overview = ""
    if len(loaded) > 1:
        overview = "<section class='overview'><h2>at a glance</h2>" + _verdict_table(loaded) + "</section>"
    names = ", ".join(escape(folder.name) for folder in runs)
    return (
        "<!doctype html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>push versus pull: {names}</title><style>{_STYLE}</style></head><body>"
        f"<h1>Push versus pull</h1><p class='lead'>{_LEGEND}</p>" + overview + "".join(sections) + "</body></html>\n"
    )


def _verdict_table(runs: Sequence[tuple[Path, dict[str, Any]]]) -> str:
    """The recorded verdicts of ``runs`` as one table: a line per run and shape, a column per compared row.

    Each cell is the row's recall@k with its margin over that shape's best
    push row, shaded by sign, on the questions every row answered (the
    sample, where the run sampled rows), so a sampled pull row is never set
    against push rows scored on other questions.
    """
    found = [(folder, results, *recorded_verdict(results)) for folder, results in runs]
    names = list(dict.fromkeys(name for _, _, blocks, _ in found for v in blocks for name in v["recall"]))
    if not names:
        return ""
    head = "".join(f"<th>{escape(name)}</th>" for name in names)
    lines = []
    for folder, results, blocks, sampled in found:
        where = "sampled questions" if sampled else "every question"
        for i, v in enumerate(blocks):
            run = f"<td rowspan='{len(blocks)}'>{escape(folder.name)}<br><small>{where}</small></td>" if i == 0 else ""
            cells = "".join(_margin_cell(v["recall"].get(name), v["best_push_recall"]) for name in names)
            lines.append(
                f"<tr>{run}<td>{escape(v['shape'])}</td><td>{v['n']}</td>"
                f"<td>{escape(v['best_push'])}</td><td>{v['best_push_recall']:.3f}</td>{cells}</tr>"
            )
    k = runs[0][1].get("k", "k")
    return (
        f"<table class='verdict'><caption>recall@{k} per shape against the best push row of that shape "
        "(margin in brackets; = a tie)</caption><thead><tr><th>run</th><th>shape</th><th>n</th>"
        f"<th>best push row</th><th>its recall</th>{head}</tr></thead><tbody>{''.join(lines)}</tbody></table>"
    )


def _margin_cell(recall: float | None, best: float) -> str:
    if recall is None:
        return "<td>—</td>"
    margin = recall - best
    kind, mark = ("even", "=") if abs(margin) < 0.0005 else ("ahead" if margin > 0 else "behind", f"{margin:+.3f}")
    return f"<td class='{kind}'>{recall:.3f} ({mark})</td>"


def _question_count(evalset: dict[str, Any], rows: list[dict[str, Any]]) -> int:
    """The questions the run scored: the most any row answered (``evalset["n"]`` is how many were asked for)."""
    return max((len(row.get("questions", [])) for row in rows), default=0) or int(evalset.get("n") or 0)


def _run_section(folder: Path, results: dict[str, Any], index: int) -> str:
    rows = results["rows"]
    k = results["k"]
    provenance = results.get("provenance") or {}
    evalset = results.get("evalset") or {}
    parts = [f"<section class='run' id='run-{index}'><h2>{escape(folder.name)}</h2>"]
    parts.append(
        "<p class='meta'>"
        + escape(
            f"{_question_count(evalset, rows)} questions; k={k}; "
            f"commit {str(provenance.get('commit', '?'))[:12]}; "
            f"models: {', '.join(sorted(results.get('models') or {})) or 'none'}"
        )
        + "</p>"
    )
    parts.append("<h3>who wins each shape</h3>" + _verdict_table([(folder, results)]))
    best = _best_push(results)
    parts.append("<h3>recall@" + str(k) + " per shape (best push row marked ★)</h3><div class='grid'>")
    for block in ("overall", *BLOCKS):
        items = _recall_items(rows, block, best.get(block))
        if items:
            parts.append(_bars(block, items, k))
    parts.append("</div><h3>what it costs</h3><div class='grid'>")
    parts.append(_scatter("recall against tokens per query", rows, "tokens_per_query", log=False))
    parts.append(_scatter("recall against ms per query (log scale)", rows, "ms_per_query", log=True))
    reads = [
        (row["name"], float(row["stats"]["reads_per_query"]), row_kind(row), False)
        for row in rows
        if row.get("stats") and row["stats"].get("reads_per_query") is not None
    ]
    if reads:
        parts.append(_bars("reads per query (pull rows)", reads, None))
    parts.append("</div>")
    parts.append(_leakage(folder / "leakage" / "leakage.json"))
    parts.append(_misses(folder / "misses.jsonl", rows))
    parts.append("</section>")
    return "".join(parts)


def _best_push(results: dict[str, Any]) -> dict[str, str]:
    """block → the best push row's name, as the run's verdict named it (over every question)."""
    verdict = results.get("verdict") or {}
    return {v["shape"]: v["best_push"] for v in verdict.get("all", [])}


def _recall_items(rows: list[dict[str, Any]], block: str, best: str | None) -> list[tuple[str, float, str, bool]]:
    items = []
    for row in rows:
        summary = row["overall"] if block == "overall" else (row.get("by_shape") or {}).get(block)
        if summary is None:
            continue
        suffix = f" (sample {summary['n']})" if row.get("sampled") else ""
        items.append((row["name"] + suffix, float(summary["recall"]), row_kind(row), row["name"] == best))
    return items


def _bars(title: str, items: Sequence[tuple[str, float, str, bool]], k: int | None) -> str:
    """A horizontal bar per item: ``(label, value, kind, best)``; values of recall (k given) run 0..1."""
    top = 1.0 if k is not None else max([value for _, value, _, _ in items] + [1.0])
    height = _ROW_HEIGHT * len(items) + 10
    width = _LABEL_WIDTH + _BAR_WIDTH + 60
    shapes = []
    for i, (label, value, kind, best) in enumerate(items):
        y = 5 + i * _ROW_HEIGHT
        length = 0 if top == 0 else _BAR_WIDTH * min(value, top) / top
        colour = COLOURS["best"] if best else COLOURS[kind]
        mark = " ★" if best else ""
        shown = label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 1] + "…"
        shapes.append(
            f"<text x='{_LABEL_WIDTH - 6}' y='{y + 14}' text-anchor='end'>{escape(shown)}{mark}</text>"
            f"<rect x='{_LABEL_WIDTH}' y='{y + 3}' width='{length:.1f}' height='{_ROW_HEIGHT - 6}' fill='{colour}'>"
            f"<title>{escape(label)}: {value:.3f}</title></rect>"
            f"<text x='{_LABEL_WIDTH + length + 4:.1f}' y='{y + 14}'>{value:.3f}</text>"
        )
    return (
        f"<figure class='chart'><figcaption>{escape(title)}</figcaption>"
        f"<svg role='img' width='{width}' height='{height}' viewBox='0 0 {width} {height}'>{''.join(shapes)}</svg>"
        "</figure>"
    )


def _scatter(title: str, rows: list[dict[str, Any]], field: str, *, log: bool) -> str:
    """Recall (y) against a cost (x) for every row that reports it; each point lettered, a legend beside."""
    points = []
    for row in rows:
        value = row.get(field) if field != "ms_per_query" else row["overall"].get("ms_per_query")
        if value is None:
            continue
        points.append((row["name"], float(value), float(row["overall"]["recall"]), row_kind(row)))
    width, height, pad = 420, 260, 40
    if not points:
        return f"<figure class='chart'><figcaption>{escape(title)}</figcaption><p>no row reports it</p></figure>"
    lows, highs = min(p[1] for p in points), max(p[1] for p in points)

    def x_of(value: float) -> float:
        low, high = lows, highs
        if log:
            value, low, high = math.log10(max(value, 0.01)), math.log10(max(low, 0.01)), math.log10(max(high, 0.01))
        return pad + (width - 2 * pad) * (0.5 if high == low else (value - low) / (high - low))

    shapes = [
        (
            f"<line x1='{pad}' y1='{height - pad}' x2='{width - pad}' y2='{height - pad}' class='axis'/>"
            f"<line x1='{pad}' y1='{pad / 2}' x2='{pad}' y2='{height - pad}' class='axis'/>"
            f"<text x='{pad - 4}' y='{pad / 2 + 4}' text-anchor='end'>1</text>"
            f"<text x='{pad - 4}' y='{height - pad}' text-anchor='end'>0</text>"
            f"<text x='{pad}' y='{height - pad + 16}'>{lows:,.1f}</text>"
            f"<text x='{width - pad}' y='{height - pad + 16}' text-anchor='end'>{highs:,.1f}</text>"
        )
    ]
    legend = []
    for i, (name, cost, recall, kind) in enumerate(points):
        letter = chr(ord("A") + i)
        x, y = x_of(cost), height - pad - (height - 1.5 * pad) * recall
        shapes.append(
            f"<circle cx='{x:.1f}' cy='{y:.1f}' r='6' fill='{COLOURS[kind]}'>"
            f"<title>{escape(name)}: recall {recall:.3f}, {cost:,.1f}</title></circle>"
            f"<text x='{x + 8:.1f}' y='{y + 4:.1f}'>{letter}</text>"
        )
        legend.append(f"<li><b>{letter}</b> {escape(name)}: {recall:.3f} at {cost:,.1f}</li>")
    return (
        f"<figure class='chart'><figcaption>{escape(title)}</figcaption>"
        f"<svg role='img' width='{width}' height='{height}' viewBox='0 0 {width} {height}'>{''.join(shapes)}</svg>"
        f"<ul class='legend'>{''.join(legend)}</ul></figure>"
    )


def _leakage(path: Path) -> str:
    """The snippet-leakage experiment: ids read and ids surfaced per snippet mode, and their gap."""
    if not path.is_file():
        return ""
    table = json.loads(path.read_text(encoding="utf-8")).get("table") or {}
    items = []
    for mode, figures in table.items():
        items.append((f"{mode}: ids surfaced", float(figures["ids_surfaced_recall"]), "search", False))
        items.append((f"{mode}: ids read", float(figures["ids_read_recall"]), "pull", False))
    if not items:
        return ""
    gaps = "; ".join(f"{escape(mode)} {figures['gap']:+.3f}" for mode, figures in table.items())
    return (
        "<h3>snippet leakage</h3><p>recall from the ids a snippet showed against the ids the model read;"
        f" the gap is what snippets answered without a read: {gaps}</p><div class='grid'>"
        + _bars("snippet leakage", items, 1)
        + "</div>"
    )


def _misses(path: Path, rows: list[dict[str, Any]]) -> str:
    """The questions rows missed: the question, the gold text left out, and what each row returned instead."""
    if not path.is_file():
        return ""
    by_question: dict[str, dict[str, Any]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        miss = json.loads(line)
        entry = by_question.setdefault(miss["id"], {"q": miss["q"], "shape": miss["shape"], "gold": {}, "rows": {}})
        for gold_id, text in zip(miss.get("missing", []), miss.get("missing_text", [])):
            entry["gold"][gold_id] = text
        entry["rows"][miss["config"]] = miss.get("retrieved", [])
    if not by_question:
        return ""
    order = sorted(by_question.items(), key=lambda item: (-len(item[1]["rows"]), item[0]))[:MAX_MISSES]
    body = []
    for qid, entry in order:
        gold = "".join(
            f"<div class='gold'><code>{escape(gid)}</code> {escape(text[:MAX_GOLD_CHARS])}"
            f"{'…' if len(text) > MAX_GOLD_CHARS else ''}</div>"
            for gid, text in entry["gold"].items()
        )
        returned = "".join(
            f"<li><b>{escape(name)}</b>: {escape(', '.join(ids) or '(nothing)')}</li>"
            for name, ids in entry["rows"].items()
        )
        body.append(
            f"<tr><td><code>{escape(qid)}</code><br>{escape(entry['shape'])}</td><td>{escape(entry['q'])}</td>"
            f"<td>{gold}</td><td><ul>{returned}</ul></td></tr>"
        )
    shown = f" (the {len(order)} missed by most rows)" if len(by_question) > len(order) else ""
    return (
        f"<h3>misses{shown}</h3><table class='misses'><thead><tr><th>id</th><th>question</th>"
        "<th>gold text a row left out</th><th>what each row returned instead</th></tr></thead><tbody>"
        + "".join(body)
        + "</tbody></table>"
    )


_LEGEND = (
    f"<span style='color:{COLOURS['push']}'>■</span> push rows "
    f"<span style='color:{COLOURS['best']}'>■</span> the best push row of the shape "
    f"<span style='color:{COLOURS['search']}'>■</span> search "
    f"<span style='color:{COLOURS['pull']}'>■</span> pull rows. Recall is over each block's questions; "
    "a row scored on a sample says so beside its name."
)
_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1a202c;max-width:1400px}
h1{font-size:22px}h2{font-size:19px;border-bottom:1px solid #cbd5e0;padding-bottom:4px;margin-top:36px}
h3{font-size:15px;margin:20px 0 6px}.meta,.lead{color:#4a5568}
.grid{display:flex;flex-wrap:wrap;gap:18px}.chart{margin:0;border:1px solid #e2e8f0;padding:8px;border-radius:6px}
figcaption{font-weight:600;margin-bottom:4px}svg text{font-size:12px;fill:#2d3748}.axis{stroke:#a0aec0}
.legend{margin:4px 0 0;padding-left:18px;font-size:12px;max-width:420px}
table.misses{border-collapse:collapse;width:100%;font-size:12.5px}
.misses td,.misses th{border:1px solid #e2e8f0;padding:6px;vertical-align:top;text-align:left}
.misses ul{margin:0;padding-left:16px}.gold{margin-bottom:4px;white-space:pre-wrap}code{font-size:12px}
table.verdict{border-collapse:collapse;font-size:12.5px;margin-bottom:8px}
.verdict td,.verdict th{border:1px solid #e2e8f0;padding:4px 6px;text-align:left;vertical-align:top}
.verdict caption{text-align:left;color:#4a5568;margin-bottom:4px}.verdict th{max-width:150px}
.verdict .ahead{background:#c6f6d5}.verdict .behind{background:#fed7d7}.verdict .even{background:#edf2f7}
"""
