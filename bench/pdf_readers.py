"""Three PDF table readers on five real ASX annual reports: which reads the statements?

    .venv/bin/pip install pymupdf        # bench-only; not a dependency of the project
    .venv/bin/python -m bench.pdf_readers

The truth is the 411 hand-checked cells of `tests/realdocs/asx_cells.jsonl` (five FY2022
reports in `tests/realdocs/asx/`). Each reader reads every page of every report, timed,
and is scored on the cells' pages:

- ours: `ingestion.pdf.read_pdf` then `domain.reports.figures.table_cells`, scored exactly as
  `testkit/asx_suite.py` does (`matches`: label, period, column group, value and
  unit on the printed page). Its lenient figure drops period, group and unit: a cell of
  that label on that page holding the printed number.
- pdfplumber 0.11 `page.extract_tables()`, with the text strategy and with the (default)
  lines strategy; PyMuPDF `page.find_tables()`, with its default (lines) strategy and
  with `strategy="text"`.

A cell counts as read by pdfplumber or PyMuPDF when, on its PDF page, some table has a
row whose label (its first non-empty cell, lower-cased, non-alphanumerics to spaces)
equals the printed label or one starts with the other (wrapped labels), and a later cell
of that row holds the printed number ("(1,234)" is -1234, "-" is 0, "$" and "," dropped;
a cell holding anything more does not count). Strict also asks that the number's column
is headed by the period's year: a cell in that column in a row above it with no number
but years (PyMuPDF's header found above the table counts too). For the 31 cells of
statements of changes in equity, whose period is in the row label ("Balance at 30 June
2022"), the column header must name the cell's column ("Issued capital") instead, as the
suite asks of ours. Lenient drops the header condition. The starred columns compare
labels with every space removed (PyMuPDF's table cells drop the spaces between words on
these reports: "Totalcurrentassets"); ours' strict* is its strict. Seconds are wall
time for the five reports, all pages, one reader at a time, on whatever else the machine
is doing. It prints the table, then strict/lenient per report.

PyMuPDF is not in pyproject (there is no bench extra); `pip install pymupdf` above brings
it (2.0 also pulls pymupdf-layout and onnxruntime).
"""

import json
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pdfplumber

try:  # bench-only: not a dependency of the project (see the docstring)
    import pymupdf
except ImportError:  # pragma: no cover - the other readers are still compared
    pymupdf = None

from domain.reports.figures import Cell
from testkit.asx_suite import REPORTS, Expected, expected_cells, matches, read_cells

CELLS = REPORTS.parent / "asx_cells.jsonl"
TEXT = {"vertical_strategy": "text", "horizontal_strategy": "text"}
LINES = {"vertical_strategy": "lines", "horizontal_strategy": "lines"}
YEAR = re.compile(r"(19|20)\d\d")
MEASURES = ("strict", "lenient", "strict, no spaces", "lenient, no spaces")
NUMBER = re.compile(r"(\()?([-−]?\d+(?:\.\d+)?)(\))?")


@dataclass(frozen=True)
class Want:
    """A hand-checked cell as the table readers are scored on it."""

    report: str
    file: str
    pdf_page: int
    label: str
    year: str
    number: float
    column: str
    expected: Expected


@dataclass(frozen=True)
class Table:
    rows: list[list[str]]
    above: list[str] = field(default_factory=list)
    """A header the reader found above the table's own rows (PyMuPDF), or none."""


@dataclass
class Score:
    """Cells read per report, by measure (`MEASURES`), and the seconds the reading took."""

    read: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    seconds: float = 0.0

    def add(self, report: str, *hits: bool) -> None:
        for measure, hit in zip(MEASURES, hits, strict=True):
            self.read[measure][report] += hit


Pages = dict[int, list[Table]]


def norm(text: str, squash: bool = False) -> str:
    """Lower case, non-alphanumerics to spaces; with `squash`, no spaces at all."""
    return (" " if not squash else "").join(re.sub(r"[^a-z0-9]+", " ", text.lower()).split())


def number(text: str) -> float | None:
    """The one number a cell holds as printed, or None."""
    bare = text.replace("$", "").replace(",", "").strip()
    if bare in ("-", "–", "—", "−"):
        return 0.0
    found = NUMBER.fullmatch(bare)
    if found is None or bool(found.group(1)) != bool(found.group(3)):
        return None
    value = float(found.group(2).replace("−", "-"))
    return -value if found.group(1) else value


def wanted() -> list[Want]:
    rows = [json.loads(line) for line in CELLS.read_text(encoding="utf-8").splitlines()]
    out = []
    for row, expected in zip(rows, expected_cells(), strict=True):
        value = number(row["printed"])
        if value is None:
            raise ValueError(f"unreadable printed number {row['printed']!r}")
        out.append(
            Want(
                row["report"],
                row["file"],
                row["pdf_page"],
                row["label"],
                row["period_end"][:4],
                value,
                row.get("column", ""),
                expected,
            )
        )
    return out


def _is_data(row: list[str]) -> bool:
    return any(number(c) is not None and not YEAR.fullmatch(c.strip()) for c in row)


def _label(row: list[str], squash: bool) -> tuple[int, str]:
    for i, cell in enumerate(row):
        if cell.strip():
            return i, norm(cell, squash)
    return len(row), ""


def _same_label(read: str, want: str) -> bool:
    return bool(read) and (read == want or read.startswith(want) or want.startswith(read))


def _headed(table: Table, at: int, col: int, want: Want, squash: bool) -> bool:
    """Whether a header cell above row `at` in column `col` names the cell's period."""
    above = [r[col] for r in table.rows[:at] if col < len(r) and not _is_data(r)]
    if col < len(table.above):
        above.append(table.above[col])
    if want.column:
        return any(norm(want.column, squash) in norm(h, squash) for h in above)
    return any(want.year in h for h in above)


def read_in(tables: list[Table], want: Want, squash: bool = False) -> tuple[bool, bool]:
    """(strict, lenient): whether some table row holds the cell, with and without header."""
    lenient = False
    label = norm(want.label, squash)
    for table in tables:
        for at, row in enumerate(table.rows):
            first, read = _label(row, squash)
            if not _same_label(read, label):
                continue
            for col in range(first + 1, len(row)):
                if number(row[col]) != want.number:
                    continue
                if _headed(table, at, col, want, squash):
                    return True, True
                lenient = True
    return False, lenient


def _plumber_rows(table: list[list[str | None]]) -> list[list[str]]:
    return [[cell or "" for cell in row] for row in table]


def plumber(settings: dict[str, str]) -> Callable[[Path], Pages]:
    def read(path: Path) -> Pages:
        pages: Pages = {}
        with pdfplumber.open(path) as pdf:
            for i, page in enumerate(pdf.pages, 1):
                found = page.extract_tables(settings)
                pages[i] = [Table(_plumber_rows(t)) for t in found]
                page.close()
        return pages

    return read


def _mupdf_table(found: "pymupdf.table.Table") -> Table:
    rows = [[cell or "" for cell in row] for row in found.extract()]
    header = found.header
    return Table(rows, [n or "" for n in header.names] if header.external else [])


def mupdf(strategy: str) -> Callable[[Path], Pages]:
    def read(path: Path) -> Pages:
        pages: Pages = {}
        with pymupdf.open(path) as doc:  # type: ignore[no-untyped-call]
            for i, page in enumerate(doc, 1):
                found = page.find_tables(strategy=strategy)
                pages[i] = [_mupdf_table(t) for t in found.tables]
        return pages

    return read


def score_tables(read: Callable[[Path], Pages], wants: list[Want]) -> Score:
    score = Score()
    for name in sorted({w.file for w in wants}):
        start = time.perf_counter()
        pages = read(REPORTS / name)
        score.seconds += time.perf_counter() - start
        for want in (w for w in wants if w.file == name):
            tables = pages.get(want.pdf_page, [])
            score.add(want.report, *read_in(tables, want), *read_in(tables, want, squash=True))
    return score


def _loosely(want: Want, page: int, cell: Cell, squash: bool) -> bool:
    """Our cell of that label on that page holds the printed number (any period or unit)."""
    label, read = norm(want.label, squash), norm(cell.label, squash)
    named = _same_label(read, label) or read.endswith((" " + label) if not squash else label)
    return page == want.expected.page and named and cell.value == want.number


def score_ours(wants: list[Want]) -> Score:
    """The suite's own scoring (`asx_suite.matches`), and the lenient figure beside it."""
    score = Score()
    for name in sorted({w.file for w in wants}):
        start = time.perf_counter()
        read = read_cells(REPORTS / name)
        score.seconds += time.perf_counter() - start
        for want in (w for w in wants if w.file == name):
            strict = any(matches(want.expected, p, c) for p, c in read)
            lenient = [
                strict or any(_loosely(want, p, c, sq) for p, c in read) for sq in (False, True)
            ]
            score.add(want.report, strict, lenient[0], strict, lenient[1])
    return score


READERS: list[tuple[str, Callable[[Path], Pages]]] = [
    ("pdfplumber text", plumber(TEXT)),
    ("pdfplumber lines (default)", plumber(LINES)),
    *(
        [("PyMuPDF lines (default)", mupdf("lines")), ("PyMuPDF text", mupdf("text"))]
        if pymupdf is not None
        else []
    ),
]


def _share(count: int, total: int) -> str:
    return f"{count:>3} ({count / total:5.1%})"


def report(scores: dict[str, Score], wants: list[Want]) -> None:
    total, width = len(wants), 30
    print(f"\n{total} hand-checked cells, five reports; * = labels compared without spaces")
    heads = ("strict", "lenient", "seconds", "strict*", "lenient*")
    print(f"{'reader / settings':<{width}} | " + " | ".join(f"{h:>12}" for h in heads))
    for name, s in scores.items():
        counts = [_share(s.read[m].total(), total) for m in MEASURES]
        row = [*counts[:2], f"{s.seconds:.1f}", *counts[2:]]
        print(f"{name:<{width}} | " + " | ".join(f"{c:>12}" for c in row))
    per = sorted(Counter(w.report for w in wants).items())
    print(f"\nper report, strict/lenient\n{'reader / settings':<{width}} | ", end="")
    print(" | ".join(f"{r} ({n})".rjust(9) for r, n in per))
    for name, s in scores.items():
        cells = (f"{s.read['strict'][r]}/{s.read['lenient'][r]}".rjust(9) for r, _ in per)
        print(f"{name:<{width}} | " + " | ".join(cells))


def main() -> None:
    wants = wanted()
    scores = {"ours (read_pdf + table_cells)": score_ours(wants)}
    for name, read in READERS:
        scores[name] = score_tables(read, wants)
        print(f"  read with {name}: {scores[name].seconds:.1f} s", flush=True)
    report(scores, wants)


if __name__ == "__main__":
    main()
