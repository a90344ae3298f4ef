"""Read the figures in report tables, and write them back as words.

Pure functions. In the reports a table's unit sits only in its first header cell
(`| US$M | FY2024 |`), the other header cells are fiscal years (`FY2023 (restated)` for
a restated comparative), and losses are written in accounting parentheses: `(173)`.
`extract_facts` turns those tables into `Fact`s; `format_value` and `to_base` are how the
offline engine states and compares them. Different currencies or kinds of quantity are
never combined: `to_base` puts US$bn and US$M on one scale, never US$ and A$.
"""

import math
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from domain.metrics import metric_of_row_label
from domain.models import ChunkText


@dataclass(frozen=True)
class Unit:
    """A table unit: what kind of quantity, its currency, and how to reach the base unit."""

    key: str
    kind: str  # "money" | "per_share" | "mass" | "gold" | "percent"
    currency: str | None  # "US$" | "A$" | None
    factor: float  # multiply by this to reach `base`
    base: str


UNITS: dict[str, Unit] = {
    u.key: u
    for u in (
        Unit("us$k", "money", "US$", 0.001, "us$m"),  # a "US$'000" column
        Unit("us$m", "money", "US$", 1.0, "us$m"),
        Unit("us$bn", "money", "US$", 1000.0, "us$m"),
        Unit("a$k", "money", "A$", 0.001, "a$m"),  # a "$'000" column of an A$ reporter
        Unit("a$m", "money", "A$", 1.0, "a$m"),
        Unit("a$bn", "money", "A$", 1000.0, "a$m"),
        Unit("us cents", "per_share", "US$", 1.0, "us cents"),
        Unit("us$", "per_share", "US$", 100.0, "us cents"),
        Unit("a cents", "per_share", "A$", 1.0, "a cents"),
        Unit("a$", "per_share", "A$", 100.0, "a cents"),
        Unit("mt", "mass", None, 1.0, "mt"),
        Unit("kt", "mass", None, 0.001, "mt"),
        Unit("koz", "gold", None, 1.0, "koz"),
        Unit("moz", "gold", None, 1000.0, "koz"),
        Unit("%", "percent", None, 1.0, "%"),
    )
}

_UNIT_ALIASES: dict[str, str] = {
    "us$'000": "us$k",
    "us$000": "us$k",
    "us$ thousand": "us$k",
    "us$ thousands": "us$k",
    "a$'000": "a$k",
    "a$000": "a$k",
    "a$ thousand": "a$k",
    "a$ thousands": "a$k",
    "us$ m": "us$m",
    "us$ million": "us$m",
    "us$ millions": "us$m",
    "us$mn": "us$m",
    "usd m": "us$m",
    "usdm": "us$m",
    "us$ bn": "us$bn",
    "us$ billion": "us$bn",
    "us$b": "us$bn",
    "a$ m": "a$m",
    "a$ million": "a$m",
    "a$ millions": "a$m",
    "a$mn": "a$m",
    "aud m": "a$m",
    "a$ bn": "a$bn",
    "a$ billion": "a$bn",
    "a$b": "a$bn",
    "us cents per share": "us cents",
    "us¢": "us cents",
    "a cents per share": "a cents",
    "australian cents": "a cents",
    "a¢": "a cents",
    "a$ per share": "a$",
    "us$ per share": "us$",
    "million tonnes": "mt",
    "thousand tonnes": "kt",
    "thousand ounces": "koz",
    "million ounces": "moz",
    "per cent": "%",
    "percent": "%",
}


OPEN = "~"
"""The prefix of an open unit: the unit words a report writes that no key above names
("~per million hours worked", "~employees and contractors"; "~" alone is a bare count or
ratio). Each open unit is its own base: figures in it compare only with each other."""


def open_unit(words: str) -> str:
    """The open unit key of unit words as written (white space folded; compared without
    regard to case: "Mt CO2-e" and "mt co2-e" are one unit)."""
    return OPEN + " ".join(words.split())


def unit_spec(unit: str) -> Unit:
    """The unit of a key, known or open."""
    known = UNITS.get(unit)
    if known is not None:
        return known
    return Unit(unit, "other", None, 1.0, unit.lower())


def unit_words(unit: str) -> str:
    """How a figure's unit reads after its number ("per million hours worked")."""
    return unit[len(OPEN) :] if unit.startswith(OPEN) else unit


def unit_key(cell: str) -> str | None:
    """Return the canonical unit key of a header cell ("US$M" → "us$m"), else None."""
    key = " ".join(cell.strip().lower().split())
    key = _UNIT_ALIASES.get(key, key)
    return key if key in UNITS else None


class Fact(BaseModel):
    """One figure of one table row, with where it came from and what it means."""

    model_config = ConfigDict(frozen=True)

    chunk_id: str
    company: str
    document: str
    page: int
    report_fiscal_year: int
    """The fiscal year of the report holding the table."""
    fiscal_year: int
    """The fiscal year of the column (a comparative column differs from the report's)."""
    restated: bool
    label: str
    metric: str | None
    value: float
    raw: str
    unit: str
    """A key of `UNITS`, or an open unit (`open_unit`)."""
    decimals: int
    context: str = ""
    """The row (table header, label, column and cell) or the sentence the figure is in."""
    source: Literal["table", "prose"] = "table"

    @property
    def is_net_cash(self) -> bool:
        """True when this net-debt row states a net cash position."""
        label = self.label.lower()
        if "net cash" in label and "net debt" not in label:
            return self.value >= 0
        return self.metric == "net_debt" and self.value < 0


_CELL_NUMBER = re.compile(
    r"^(?P<neg>[-−–])?\s*(?P<open>\()?\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<close>\))?$"
)
_COLUMN_YEAR = re.compile(
    r"(?<![A-Za-z0-9])(?:FY|CY)?\s?'?(?P<y>(?:19|20)\d{2}|\d{2})(?![0-9])", re.IGNORECASE
)


def parse_number(text: str) -> tuple[float, str, int] | None:
    """Parse a table cell: "55,658" → (55658.0, "55,658", 0); "(173)" → (-173.0, "(173)", 0).

    Returns (value, raw text, decimals shown) or None for an empty, dash or text cell.
    """
    cell = text.strip()
    match = _CELL_NUMBER.match(cell)
    if not match or bool(match.group("open")) != bool(match.group("close")):
        return None
    number = match.group("num")
    if number.count(",") and not re.fullmatch(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?", number):
        return None
    value = float(number.replace(",", ""))
    if match.group("open") or match.group("neg"):
        value = -value
    decimals = len(number.split(".", 1)[1]) if "." in number else 0
    return value, cell, decimals


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|"):
        body = body[:-1]
    return [c.strip() for c in body.split("|")]


def _is_separator(cells: list[str]) -> bool:
    return all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c) and any(cells)


def table_blocks(text: str) -> list[list[list[str]]]:
    """Return the Markdown tables in `text` as lists of rows of cells (separators dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in text.splitlines():
        if line.strip().startswith("|"):
            cells = _cells(line)
            if not _is_separator(cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    if current:
        tables.append(current)
    return tables


def column_year(header: str) -> int | None:
    """Return the fiscal year a column header names ("FY2023 (restated)" → 2023)."""
    match = _COLUMN_YEAR.search(header)
    if not match:
        return None
    year = match.group("y")
    return 2000 + int(year) if len(year) == 2 else int(year)


def extract_facts(chunk: ChunkText) -> list[Fact]:
    """Return every figure in the chunk's tables, with its unit, column year and metric.

    A table whose unit cannot be read (neither its header cell nor the chunk's unit) is
    skipped rather than guessed: a bare number without a unit is not a fact.
    """
    # long: one pass over a table's cells; its cases share the row's state.
    facts: list[Fact] = []
    for table in table_blocks(chunk.text):
        header, rows = table[0], table[1:]
        unit = unit_key(header[0]) or (unit_key(chunk.unit) if chunk.unit else None)
        if unit is None:
            continue
        columns: list[tuple[int, int, bool]] = []
        for index, cell in enumerate(header[1:], start=1):
            year = column_year(cell)
            if year is not None:
                restated = bool(re.search(r"restated|re-presented|represented", cell, re.I))
                columns.append((index, year, restated))
        for row in rows:
            label = row[0]
            if not re.search(r"[A-Za-z]", label):
                continue
            metric = metric_of_row_label(label)
            for index, year, restated in columns:
                if index >= len(row):
                    continue
                parsed = parse_number(row[index])
                if parsed is None:
                    continue
                value, raw, decimals = parsed
                facts.append(
                    Fact(
                        chunk_id=chunk.chunk_id,
                        company=chunk.company,
                        document=chunk.document,
                        page=chunk.page,
                        report_fiscal_year=chunk.fiscal_year,
                        fiscal_year=year,
                        restated=restated,
                        label=label,
                        metric=metric if metric_fits_unit(metric, unit) else None,
                        value=value,
                        raw=raw,
                        unit=unit,
                        decimals=decimals,
                    )
                )
    return facts


def metric_fits_unit(metric: str | None, unit: str) -> bool:
    """A metric read from a label must fit the table's kind of unit (no revenue in Mt)."""
    if metric is None:
        return True
    kind = unit_spec(unit).kind
    if metric == "production":
        return kind in ("mass", "gold")
    if metric.startswith("dividends_per_share"):
        return kind == "per_share"
    return kind == "money"


def _digits(value: float, decimals: int | None) -> str:
    if decimals is None:
        text = f"{value:,.3f}".rstrip("0").rstrip(".")
        return text
    return f"{value:,.{decimals}f}"


def format_value(
    value: float, unit: str, decimals: int | None = None, metric: str | None = None
) -> str:
    """Write a figure in words: "US$55,658 million", "146 US cents per share", "263 Mt".

    `decimals` keeps the precision as reported ("6.0 US cents"); None shows what the value
    needs. A negative amount reads "a loss of US$173 million", or "net cash of …" for a
    net-debt metric.
    """
    # long: one case per unit kind.
    spec = unit_spec(unit)
    number = _digits(abs(value), decimals)
    if unit in ("us$k", "a$k"):
        text = f"{spec.currency}{number} thousand"
    elif unit in ("us$m", "a$m"):
        text = f"{spec.currency}{number} million"
    elif unit in ("us$bn", "a$bn"):
        text = f"{spec.currency}{number} billion"
    elif unit == "us cents":
        text = f"{number} US cents per share"
    elif unit == "a cents":
        text = f"{number} Australian cents per share"
    elif unit in ("a$", "us$"):
        text = f"{spec.currency}{number} per share"
    elif unit == "mt":
        text = f"{number} Mt"
    elif unit == "kt":
        text = f"{number} kt"
    elif unit == "koz":
        text = f"{number} koz"
    elif unit == "moz":
        text = f"{number} Moz"
    elif unit == "%":
        text = f"{number}%"
    else:
        words = unit_words(unit)
        text = f"{number} {words}" if words else number
    if value < 0:
        if metric == "net_debt":
            return f"net cash of {text}"
        if spec.kind == "money":
            return f"a loss of {text}"
        return f"minus {text}"
    return text


class IncompatibleUnits(ValueError):
    """Raised when two figures in different currencies or kinds would be combined."""


@dataclass(frozen=True)
class Quantity:
    """A value on its base scale: millions of a currency, cents of a currency, Mt, koz, %."""

    value: float
    base: str


def to_base(value: float, unit: str) -> Quantity:
    """Normalise a figure to its base unit: US$53.82bn → Quantity(53820.0, "us$m")."""
    spec = unit_spec(unit)
    return Quantity(round(value * spec.factor, 9), spec.base)


def _same_base(a: Quantity, b: Quantity) -> None:
    if a.base != b.base:
        raise IncompatibleUnits(f"cannot combine {a.base} with {b.base}")


def growth_percent(old: Quantity, new: Quantity) -> float:
    """Return the change from `old` to `new` in percent; refuse different bases."""
    _same_base(old, new)
    if old.value == 0:
        raise ZeroDivisionError("growth from zero is undefined")
    return (new.value - old.value) / abs(old.value) * 100.0


def difference(a: Quantity, b: Quantity) -> Quantity:
    """Return a − b on the shared base; refuse different bases."""
    _same_base(a, b)
    return Quantity(round(a.value - b.value, 9), a.base)


def format_base(value: float, base: str, decimals: int | None = None) -> str:
    """Write a base-scale value in words ("us$m" 2000 → "US$2,000 million")."""
    return format_value(value, base, decimals)


def currency_of(unit: str) -> str | None:
    """Return the currency of a unit key ("a$bn" → "A$"), None for volumes."""
    return unit_spec(unit).currency


def common_unit(units: list[str]) -> str | None:
    """The one unit a set of figures is written in side by side: the coarsest of theirs
    (US$bn over US$M, A$ over A cents, Mt over kt), so no figure gains false precision.
    None when they are on different bases (US$ and A$, Mt and koz): those never share one.
    """
    if not units or len({unit_spec(u).base for u in units}) != 1:
        return None
    return max(units, key=lambda u: unit_spec(u).factor)


def rescale(value: float, unit: str, decimals: int, target: str) -> tuple[float, int]:
    """Express a figure in another unit on the same base, keeping its precision:
    5,491 (US$M, 0 dp) → 5.491 (US$bn, 3 dp); 9.12 (US$bn, 2 dp) → 9,120 (US$M, 0 dp)."""
    source, goal = unit_spec(unit), unit_spec(target)
    if source.base != goal.base:
        raise IncompatibleUnits(f"cannot write {unit} in {target}")
    ratio = source.factor / goal.factor
    shift = round(math.log10(ratio)) if ratio > 0 else 0
    return round(value * ratio, 9), max(decimals - shift, 0)


def unit_in_scale(unit: str, scale: str) -> str | None:
    """The unit of `unit`'s currency and kind at a scale a question asks for
    ("us$m", "bn" → "us$bn"); None when the scale does not apply (cents, tonnes)."""
    spec = unit_spec(unit)
    if spec.kind != "money":
        return None
    return next(
        (
            key
            for key, u in UNITS.items()
            if u.kind == "money"
            and u.currency == spec.currency
            and u.factor == (1000.0 if scale == "bn" else 1.0)
        ),
        None,
    )
