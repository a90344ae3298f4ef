"""The hand-checked cells of five real ASX annual reports, and how a reading is scored.

`asx_cells.jsonl` holds statement and note cells checked by hand on the printed page:
label, column group, period end, value, unit and printed page. `score` reads each report
as ingestion does and says, per cell, whether a fact with that label, period, value and
unit was read on that page. Run as a script it prints the misses.
"""

import json
import re
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from domain.reports.figures import Cell, table_cells, unit_spec
from ingestion.pdf import read_pdf

HERE = Path(__file__).resolve().parent.parent / "tests" / "realdocs"  # the data stay with the tests
REPORTS = HERE / "asx"
CELLS = HERE / "asx_cells.jsonl"


@dataclass(frozen=True)
class Expected:
    report: str
    file: str
    page: int
    label: str
    group: str
    period_end: str
    value: float
    unit: str
    scale: float
    column: str

    @property
    def amount(self) -> float:
        return self.value * self.scale


def expected_cells() -> list[Expected]:
    out = []
    for line in CELLS.read_text(encoding="utf-8").splitlines():
        c = json.loads(line)
        out.append(
            Expected(
                c["report"],
                c["file"],
                c["printed_page"] or c["pdf_page"],
                c["label"],
                c.get("group", ""),
                c["period_end"],
                float(c["value"]),
                c["unit"],
                float(c["scale"]),
                c.get("column", ""),
            )
        )
    return out


def _norm(text: str) -> str:
    text = text.lower().replace("’", "'")
    return " ".join(re.sub(r"[^a-z0-9%]+", " ", text).split())


def read_cells(path: Path) -> list[tuple[int, Cell]]:
    read = read_pdf(path, "A$", year_end="06-30")
    return [(b.page, c) for b in read.blocks if b.is_table for c in table_cells(b.text)]


def _amount(cell: Cell) -> tuple[float, str] | None:
    if cell.unit is None:
        return None
    spec = unit_spec(cell.unit)
    if spec.kind == "money":
        return cell.value * spec.factor * 1e6, "A$"
    if spec.kind == "per_share":
        return cell.value * (spec.factor if spec.base.endswith("cents") else 1), "A cents"
    return cell.value, cell.unit


def matches(want: Expected, page: int, cell: Cell) -> bool:
    if page != want.page or cell.period is None:
        return False
    label = _norm(cell.label)
    if label != _norm(want.label) and not label.endswith(" " + _norm(want.label)):
        return False
    if want.column and _norm(want.column) not in _norm(cell.header):
        return False
    if (cell.period.end.isoformat() if cell.period.end else "") != want.period_end:
        return False
    if cell.period.parent_only != (want.group.lower() in ("parent", "company")):
        return False
    amount = _amount(cell)
    if amount is None:
        return False
    value, unit = amount
    return unit == want.unit and abs(value - want.amount) <= 1e-6 * max(1.0, abs(want.amount))


def score(files: list[str] | None = None) -> tuple[list[Expected], list[Expected]]:
    """The hand-checked cells read right, and those missed."""
    wanted = [c for c in expected_cells() if files is None or c.file in files]
    by_file: dict[str, list[Expected]] = defaultdict(list)
    for c in wanted:
        by_file[c.file].append(c)
    hits: list[Expected] = []
    misses: list[Expected] = []
    for name, cells in by_file.items():
        read = read_cells(REPORTS / name)
        for want in cells:
            (hits if any(matches(want, p, c) for p, c in read) else misses).append(want)
    return hits, misses


if __name__ == "__main__":
    chosen = sys.argv[1:] or None
    files = (
        None
        if chosen is None
        else [f.name for f in REPORTS.glob("*.pdf") if any(k in f.name for k in chosen)]
    )
    hits, misses = score(files)
    for m in misses:
        where = f"{m.report} p{m.page} {m.label!r} [{m.column or m.group}]"
        print(f"MISS {where} {m.period_end} {m.value} {m.unit}x{m.scale:g}")
    print(f"{len(hits)} of {len(hits) + len(misses)} read right")
