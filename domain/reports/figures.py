"""Read the figures in report tables, and write them back as words.

Pure functions. In the reports a table's unit sits only in its first header cell
(`| US$M | FY2024 |`), the other header cells are fiscal years (`FY2023 (restated)` for
a restated comparative), and losses are written in accounting parentheses: `(173)`.
`table_cells` reads those tables (`domain.reports.facts` makes them `Fact`s); `format_value`
and `to_base` are how the
offline engine states and compares them. Different currencies or kinds of quantity are
never combined: `to_base` puts US$bn and US$M on one scale, never US$ and A$.
"""

import itertools
import math
import re
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict

from domain.language.calendar import reportable
from domain.language.units import CURRENCIES, QUANTITIES, SCALES, by_sign, cents_currency
from domain.models import ChunkText
from domain.reports.periods import ColumnPeriod, column_period, is_schedule, row_period


@dataclass(frozen=True)
class Unit:
    """A table unit: what kind of quantity, its currency, and how to reach the base unit."""

    key: str
    kind: str  # "money" | "per_share" | "mass" | "gold" | "percent"
    currency: str | None  # a currency's sign ("US$", "A$", "€"), None for a quantity
    factor: float  # multiply by this to reach `base`
    base: str


def _units() -> dict[str, Unit]:
    """Every table unit of the units table: each currency at each scale, per share and in
    its minor unit, and each quantity a table is kept in."""
    units = []
    for c in CURRENCIES:
        units += [
            Unit(c.prefix + s.suffix, "money", c.sign, s.factor, c.prefix + "m") for s in SCALES
        ]
        if c.minor:
            units.append(Unit(c.minor, "per_share", c.sign, 1.0, c.minor))
            units.append(Unit(c.prefix, "per_share", c.sign, 100.0, c.minor))
    units += [Unit(q.key, q.kind, None, q.factor, q.base) for q in QUANTITIES if q.table]
    return {u.key: u for u in units}


UNITS: dict[str, Unit] = _units()


def _aliases() -> dict[str, str]:
    """How a table's unit cell writes each unit ("US$'000", "usd m", "A$ per share").
    A column headed with the currency alone is in whole units of it; a row of it that is
    per share says so in its label (`cell_unit`)."""
    aliases: dict[str, str] = {}
    for c in CURRENCIES:
        for written in (c.sign.lower(), *(code.lower() for code in c.codes)):
            aliases[written] = c.prefix + "1"
            for s in SCALES:
                for word in s.headers:
                    aliases[written + word] = aliases[f"{written} {word}"] = c.prefix + s.suffix
            if c.minor:
                aliases[f"{written} per share"] = aliases[f"{written}/share"] = c.prefix
        if c.minor:
            aliases[f"{c.minor} per share"] = c.minor
    for q in QUANTITIES:
        aliases.update({words: q.key for words in q.headers} if q.table else {})
    return aliases


_UNIT_ALIASES = _aliases()


OPEN = "~"
"""The prefix of an open unit: the unit words a report writes that no key above names
("~per million hours worked", "~employees and contractors"; "~" alone is a bare count or
ratio). Each open unit is its own base: figures in it compare only with each other."""


def unit_of(kind: str, currency: str | None, factor: float) -> str | None:
    """The table's unit of this kind, currency and scale (the first, in the table's
    order); None when the table has none."""
    return next(
        (
            key
            for key, u in UNITS.items()
            if u.kind == kind and u.currency == currency and u.factor == factor
        ),
        None,
    )


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
    if key in UNITS:
        return key
    minor = cents_currency(re.sub(r"\s+per\s+share$", "", key))  # "Australian cents", "A¢"
    return minor.minor if minor is not None and minor.minor else None


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
    period_end: str | None = None
    """The date (ISO) the figure's column or row is printed for, when it says one."""
    period_months: int | None = None
    """3, 6 or 9 for an interim column; None or 12 for a year or a balance at its end."""
    group: str = ""
    """The column group it was printed under ("Consolidated", "Parent"), or ""."""

    @property
    def annual(self) -> bool:
        """Whether it is a whole year's figure (or a balance at a year's end)."""
        return self.period_months in (None, 12)

    @property
    def parent_only(self) -> bool:
        """A figure of the parent entity alone, printed beside the consolidated group's."""
        return bool(re.search(r"\b(?:parent|company)\b", self.group, re.IGNORECASE))

    @property
    def is_net_cash(self) -> bool:
        """True when this net-debt row states a net cash position."""
        label = self.label.lower()
        if "net cash" in label and "net debt" not in label:
            return self.value >= 0
        return self.metric == "net_debt" and self.value < 0


_CELL_NUMBER = re.compile(
    r"^(?P<neg>[-−–])?\s*(?P<open>\()?\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*%?\s*(?P<close>\))?%?$"
)
_COLUMN_YEAR = re.compile(
    r"(?<![A-Za-z0-9])(?:FY|CY)?\s?'?(?P<y>(?:19|20)\d{2}|\d{2})(?![0-9])", re.IGNORECASE
)


def parse_number(text: str) -> tuple[float, str, int] | None:
    """Parse a table cell: "55,658" → (55658.0, "55,658", 0); "(173)" → (-173.0, "(173)", 0);
    "22.9%" → (22.9, "22.9%", 1), its unit read from the "%" (`cell_unit`).

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


_PER_SHARE = re.compile(
    r"\bper\s+(?:ordinary\s+|common\s+|basic\s+|diluted\s+)?(?:share|unit|security|ADS)\b|"
    r"\bEPS\b|\b(?:earnings|dividends?|distributions?)\s+per\b|/share\b",
    re.IGNORECASE,
)
_SHARE_COUNT = re.compile(
    r"\b(?:weighted[-\s]average\s+(?:number\s+of\s+)?(?:\w+\s+)?shares|number\s+of\s+(?:\w+\s+)?"
    r"shares|shares\s+(?:outstanding|used|issued|on\s+issue|in\s+issue))\b",
    re.IGNORECASE,
)
_SCALE_WORD = {0.001: "thousand", 1.0: "million", 1000.0: "billion"}
_SHARE_END = r"(?=\s+(?:FY|\d)|\s*\)?\s*$)"
SHARE_HEADER = re.compile(
    rf"(?:\bpercent(?:age)?|%)\s*(?:of|to)\s+(?P<base>[A-Za-z][A-Za-z ]*?){_SHARE_END}"
    rf"|\bas\s+an?\s+(?:percent(?:age)?|%)\s+of\s+(?P<base2>[A-Za-z][A-Za-z ]*?){_SHARE_END}",
    re.IGNORECASE,
)
"""A column of each row's share of a base, printed beside an amount column ("Percent to
Sales", "% of net sales"): its cells are percentages of that base."""


def share_base(header: str) -> str | None:
    """The base a share column's header names ("net sales"), or None."""
    match = SHARE_HEADER.search(header)
    if match is None:
        return None
    return (match.group("base") or match.group("base2")).strip().lower()


def cell_unit(table_unit: str | None, label: str, raw: str = "", section: str = "") -> str | None:
    """The unit of one cell: its table's, unless its row (or the heading it is under)
    says otherwise.

    A row per share in a money table ("in millions, except per share data") is in the
    currency per share, or in cents when its row or heading says cents ("Earnings per
    share (cents per share)"); a row counting shares is a count in the table's scale
    ("million shares"); a cell written with "%" is a percentage."""
    if re.search(r"%\)?\s*$", raw):  # "22.9%", "(7.0%)"
        return "%"
    if table_unit is None:
        return None
    spec = unit_spec(table_unit)
    if spec.kind != "money" or not spec.currency:
        return table_unit
    said = f"{section} {label}"
    if _SHARE_COUNT.search(said) and "capital" not in label.lower():
        word = _SCALE_WORD.get(spec.factor)  # the table's scale, as millions of its currency
        return open_unit(f"{word} shares" if word else "shares")
    if _PER_SHARE.search(said):
        cents = bool(re.search(r"\bcents\b", said, re.IGNORECASE))
        per_share = unit_of("per_share", spec.currency, 1.0 if cents else 100.0)
        return per_share or table_unit  # a currency with no per-share unit in the table
    return table_unit


@dataclass(frozen=True)
class Cell:
    """One number of one Markdown table: its row, its column's period and its unit."""

    label: str
    section: str
    """The heading row above it in the table ("Current assets"), or ""."""
    header: str
    """Its column's header cell as printed."""
    period: ColumnPeriod | None
    """Its own period (`domain.reports.periods.row_period`); None: bound to no year."""
    unit: str | None
    value: float
    raw: str
    decimals: int
    table_unit: str


def _cell_number(text: str) -> tuple[float, str, int] | None:
    """A cell's number; a dash alone is nil (0)."""
    if re.fullmatch(r"\s*[-–—−]{1,2}\s*", text):
        return 0.0, text.strip(), 0
    return parse_number(text)


def _between_balances(rows: list[list[str]]) -> dict[int, ColumnPeriod]:
    """The period of each movement row of a table whose rows are dated balances (a
    statement of changes in equity): a row between the balance at one date and the
    balance at a later one is a movement of the period the later one closes."""
    dated = [(n, p) for n, row in enumerate(rows) if (p := row_period(None, row[0])) is not None]
    found: dict[int, ColumnPeriod] = {}
    for (start, opening), (stop, closing) in itertools.pairwise(dated):
        if opening.end is None or closing.end is None or closing.end <= opening.end:
            continue
        months = round((closing.end - opening.end).days / 30.44)
        for n in range(start + 1, stop):
            found[n] = ColumnPeriod(
                fiscal_year=closing.fiscal_year, end=closing.end, months=months or None
            )
    return found


def table_cells(
    text: str, chunk_unit: str | None = None, report_year: int | None = None
) -> list[Cell]:
    """Every number in the Markdown tables of `text`, each with its period and unit.

    The one reading of a report's tables: the facts at ingestion, the offline engine and
    the numeric check all take a table cell's period and unit from here. The first header
    cell is the table's unit (else `chunk_unit`); a column's period is its header's
    (`column_period`), moved by what its row says ("at the beginning of the year"); a
    Note column holds references, not values; a row without numbers is a heading. With
    the report's own fiscal year (`report_year`), a column of a year it cannot report on (a
    schedule of payments for 2024 to 2032 in a FY2022 report; more than a year ahead, or
    more than twelve back) is bound to no period."""
    return [
        cell for table in table_blocks(text) for cell in _cells_of(table, chunk_unit, report_year)
    ]


def _cells_of(
    table: list[list[str]], chunk_unit: str | None, report_year: int | None
) -> list[Cell]:
    """One table's cells (`table_cells`)."""
    # long: one pass over a table's rows; a heading row sets the section the rows after it share.
    header, rows = table[0], table[1:]
    table_unit = unit_key(header[0]) or (unit_key(chunk_unit) if chunk_unit else None)
    columns = [
        (i, None if is_schedule(header[1:], report_year) else column_period(cell))
        for i, cell in enumerate(header[1:], start=1)
        if cell.strip().lower() not in ("note", "notes")
    ]
    section = ""
    between = _between_balances(rows)
    cells: list[Cell] = []
    for number, row in enumerate(rows):
        label = row[0]
        if not re.search(r"[A-Za-z]", label):
            continue
        parsed_row = [(i, p, _cell_number(row[i])) for i, p in columns if i < len(row)]
        if not any(parsed is not None for _, _, parsed in parsed_row):
            if all(not c.strip() for c in row[1:]):
                section = label.rstrip(":").strip()
            continue
        # A one-word row ("Basic", "Total", "Borrowings") is named with its heading.
        named = f"{section}: {label}" if len(label.split()) == 1 and section else label
        for i, period, parsed in parsed_row:
            if parsed is None:
                continue
            own = row_period(period, label, header[i]) or between.get(number)
            if own and report_year and not reportable(own.fiscal_year, report_year):
                own = None  # a year the report cannot give a figure of
            value, raw, decimals = parsed
            unit = cell_unit(table_unit, label, raw, section)
            base = share_base(header[i])
            cells.append(
                Cell(
                    label=named if base is None else f"{named} as a percent of {base}",
                    section=section,
                    header=header[i],
                    period=own,
                    unit=unit if base is None else "%",  # "Net earnings" under "Percent to Sales"
                    value=value,
                    raw=raw,
                    decimals=decimals,
                    table_unit=header[0],
                )
            )
    return cells


def cell_fact(
    chunk: ChunkText, cell: Cell, unit: str, metric: str | None, context: str = ""
) -> Fact:
    """The fact of one table cell of a chunk, with its own period (`table_cells`)."""
    period = cell.period
    assert period is not None
    return Fact(
        chunk_id=chunk.chunk_id,
        company=chunk.company,
        document=chunk.document,
        page=chunk.page,
        report_fiscal_year=chunk.fiscal_year,
        fiscal_year=period.fiscal_year,
        restated=period.restated,
        label=cell.label,
        metric=metric,
        value=cell.value,
        raw=cell.raw,
        unit=unit,
        decimals=cell.decimals,
        period_end=period.end.isoformat() if period.end else None,
        period_months=period.months,
        group=period.group,
        context=context,
        source="table",
    )


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
    spec = unit_spec(unit)
    number = _digits(abs(value), decimals)
    currency = by_sign(spec.currency)
    quantity = next((q for q in QUANTITIES if q.key == unit), None)
    if spec.kind == "money" and currency is not None:
        scale = next(s for s in SCALES if s.factor == spec.factor)
        text = f"{currency.sign}{number}{scale.word}"
    elif spec.kind == "per_share" and currency is not None:
        minor = spec.factor == 1.0
        text = f"{number}{currency.minor_words}" if minor else f"{currency.sign}{number} per share"
    elif quantity is not None:
        text = f"{number}{quantity.shown}"
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
    return unit_of("money", spec.currency, 1000.0 if scale == "bn" else 1.0)
