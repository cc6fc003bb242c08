"""The questions a change moved: two ``search_quality.py --questions`` files compared, question by question.

    python benchmarks/search_quality.py --rows search,hybrid-search --questions before.json
    (change the code)
    python benchmarks/search_quality.py --rows search,hybrid-search --questions after.json
    python benchmarks/question_diff.py before.json after.json [--json]

A ranking rule is judged on the questions it moves, not on an average that
hides a gain and a loss: this prints every question whose recall@k or
reciprocal rank changed, with both first-k lists and the gold, then each
eval set's mean recall@k before and after where one moved, and how many
first-k lists changed without moving either figure. Questions are matched by
corpus, eval set, row and id; a question in one file only is named too.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

Key = tuple[str, str, str, str]  # corpus, eval set, row, question id


def load(path: Path) -> dict[Key, dict[str, Any]]:
    """The records of a ``--questions`` file by key; a clear error (SystemExit) for a missing or foreign file."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
        return {(r["corpus"], r["evalset"], r["row"], r["qid"]): r for r in records}
    except (OSError, ValueError, TypeError, KeyError) as err:
        raise SystemExit(f"question_diff: {path} is not a search_quality.py --questions file ({err})") from None


def compare(before: dict[Key, dict[str, Any]], after: dict[Key, dict[str, Any]]) -> dict[str, Any]:
    """What moved between ``before`` and ``after``: the questions, the eval sets' means, the reordered lists."""
    moved, reordered = [], 0
    sums: dict[tuple[str, str, str], list[float]] = defaultdict(lambda: [0, 0.0, 0.0])
    for key in sorted(before.keys() & after.keys()):
        old, new = before[key], after[key]
        total = sums[key[:3]]
        total[0] += 1
        total[1] += old["recall"]
        total[2] += new["recall"]
        if (old["recall"], old["rr"]) != (new["recall"], new["rr"]):
            moved.append(
                {
                    "key": list(key),
                    "question": new["question"],
                    "shape": new["shape"],
                    "gold": new["gold"],
                    "before": {k: old[k] for k in ("recall", "rr", "retrieved")},
                    "after": {k: new[k] for k in ("recall", "rr", "retrieved")},
                }
            )
        elif old["retrieved"] != new["retrieved"]:
            reordered += 1
    sets = [
        {"corpus": c, "evalset": e, "row": r, "questions": n, "before": round(x / n, 4), "after": round(y / n, 4)}
        for (c, e, r), (n, x, y) in sorted(sums.items())
        if round(x, 6) != round(y, 6)
    ]
    only = {
        "before": sorted(map(list, before.keys() - after.keys())),
        "after": sorted(map(list, after.keys() - before.keys())),
    }
    return {
        "moved": moved,
        "sets": sets,
        "reordered": reordered,
        "compared": len(before.keys() & after.keys()),
        "only": only,
    }


def render(diff: dict[str, Any]) -> str:
    lines = []
    for item in diff["moved"]:
        corpus, evalset, row, qid = item["key"]
        old, new = item["before"], item["after"]
        lines.append(f"{corpus} · {evalset} · {row} · {qid} ({item['shape']}): {item['question']}")
        lines.append(f"  R@k {old['recall']:.3f} -> {new['recall']:.3f}, RR {old['rr']:.3f} -> {new['rr']:.3f}")
        lines.append(f"  before {', '.join(old['retrieved'])}")
        lines.append(f"  after  {', '.join(new['retrieved'])}")
        lines.append(f"  gold   {', '.join(dict.fromkeys(item['gold']))}")
    for s in diff["sets"]:
        lines.append(
            f"{s['corpus']} · {s['evalset']} · {s['row']} ({s['questions']}): {s['before']:.3f} -> {s['after']:.3f}"
        )
    lines.append(
        f"{len(diff['moved'])} of {diff['compared']} question results moved; "
        f"{diff['reordered']} more changed their first hits without moving either figure"
    )
    for side, keys in diff["only"].items():
        if keys:
            lines.append(f"{len(keys)} only {side}: " + ", ".join(" · ".join(key) for key in keys[:10]))
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path, help="a search_quality.py --questions file")
    parser.add_argument("after", type=Path, help="another, from the code after the change")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON")
    args = parser.parse_args(argv)
    diff = compare(load(args.before), load(args.after))
    print(json.dumps(diff, indent=2) if args.json else render(diff), end="\n" if args.json else "")
    return 0


if __name__ == "__main__":
    sys.exit(main())
