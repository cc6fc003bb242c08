"""Questions and their files: ragbisect's JSON-lines format plus ``equivalent_gold``.

ragbisect's reader takes the fields it knows (``id``, ``q``, ``shape``,
``gold_chunk_ids``, ``answer``, ``source``, ``identifier``) with ``get`` and
ignores the rest, so the extra ``equivalent_gold`` list travels in the same
file and either harness can score it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .errors import InputError, UsageError

#: ragbisect's shape names, in the order the table shows them
SHAPES = ("conceptual", "exact_lookup", "comparison", "aggregation", "table")
COMPUTED_SHAPES = ("aggregation", "table")
PHRASED_SHAPES = ("conceptual", "exact_lookup", "comparison")
#: a computed shape's questions re-worded by a model are scored as a block of their own
PHRASED_SUFFIX = ", phrased"
#: the blocks the table breaks a row into, in order: each shape, a computed shape's phrased twin after it
BLOCKS = tuple(b for shape in SHAPES for b in (shape, *((shape + PHRASED_SUFFIX,) if shape in COMPUTED_SHAPES else ())))


@dataclass
class Question:
    """One eval question.

    ``gold_chunk_ids`` is the strict gold the question was built from;
    ``equivalent_gold`` adds every chunk that holds the same answer or
    identifier verbatim (always a superset of the strict gold). ``phrasing``
    says who worded a model-phrased question: ``"model"``, or ``"template"``
    when the model's wording failed the checks and a fixed template stood in
    (empty for computed shapes, ``"model"`` for a computed question re-worded
    as a person would ask it; ragbisect ignores it).
    """

    id: str
    q: str
    shape: str
    gold_chunk_ids: list[str]
    answer: str = ""
    source: str = ""
    identifier: str = ""
    equivalent_gold: list[str] = field(default_factory=list)
    phrasing: str = ""
    equivalent_of: dict[str, list[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        gold = list(dict.fromkeys(self.gold_chunk_ids))
        given = self.equivalent_of or ({gold[0]: self.equivalent_gold} if len(gold) == 1 else {})
        self.equivalent_of = {g: others for g in gold if (others := sorted(set(given.get(g, ())) - {g}))}
        mapped = {c for ids in self.equivalent_of.values() for c in ids}
        extra = [c for c in [*self.equivalent_gold, *mapped] if c not in self.gold_chunk_ids]
        self.equivalent_gold = list(self.gold_chunk_ids) + sorted(set(extra))

    @property
    def block(self) -> str:
        """The table block the question is scored in: its shape, or ``aggregation, phrased`` for a re-worded computed one."""
        if self.shape in COMPUTED_SHAPES and self.phrasing == "model":
            return self.shape + PHRASED_SUFFIX
        return self.shape

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def parse_shapes(spec: str | None) -> tuple[str, ...]:
    """``"all"``/None → every shape; else a comma list checked against :data:`SHAPES`."""
    if not spec or spec == "all":
        return SHAPES
    chosen = tuple(dict.fromkeys(s.strip() for s in spec.split(",") if s.strip()))
    unknown = [s for s in chosen if s not in SHAPES]
    if unknown or not chosen:
        raise UsageError(f"unknown shape(s): {', '.join(unknown) or spec!r}", f"choose from {', '.join(SHAPES)}")
    return chosen


def write_questions(questions: list[Question], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for question in questions:
            fh.write(json.dumps(question.to_dict(), ensure_ascii=False) + "\n")
    tmp.replace(path)


def read_questions(path: Path) -> list[Question]:
    """Questions from JSON lines; accepts ragbisect's files (no ``equivalent_gold``)."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read questions file {path}: {err}", "pass a JSON-lines questions file") from err
    questions: list[Question] = []
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
            gold = [str(g) for g in rec["gold_chunk_ids"]]
            questions.append(
                Question(
                    id=str(rec.get("id") or f"q{lineno:04d}"),
                    q=str(rec["q"]),
                    shape=str(rec.get("shape") or "conceptual"),
                    gold_chunk_ids=gold,
                    answer=str(rec.get("answer", "")),
                    source=str(rec.get("source", "")),
                    identifier=str(rec.get("identifier", "")),
                    equivalent_gold=[str(g) for g in rec.get("equivalent_gold", [])],
                    phrasing=str(rec.get("phrasing", "")),
                    equivalent_of={
                        str(g): [str(c) for c in ids] for g, ids in dict(rec.get("equivalent_of") or {}).items()
                    },
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise InputError(
                f"{path}:{lineno}: not a question record ({err})", "each line needs 'q' and 'gold_chunk_ids'"
            ) from err
    return questions
