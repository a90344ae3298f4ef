"""The period a figure was printed for: its column's, or what its own row label says.

Pure. A PDF statement's column is written by the reader (`ingestion.statements`) as
`[group ]FY2022 (30 Jun 2022)`, `FY2024 (3 months to 29 Jul 2023)` or
`FY2021 (30 Jun 2021, restated)`; a Markdown report's as `FY2024`. `column_period` reads
either back. A row can move its figure off its column's period: "Cash at the beginning
of the financial year" in the 2022 column is the balance at the end of FY2021, and
"Balance at 1 July 2020" in a statement of changes in equity is FY2020's closing balance
(`row_period`). A figure whose period cannot be read is bound to no year: it stays
evidence text, never a figure of a year.
"""

import re
from dataclasses import dataclass, replace
from datetime import date, timedelta

from domain.language.calendar import MONTH_ABBREVIATIONS, fiscal_year_of, months_before, parse_date

_FY = re.compile(r"(?<![A-Za-z0-9])(?:FY|CY)\s?'?(?P<y>(?:19|20)\d{2}|\d{2})(?![0-9])", re.I)

_BARE_YEAR = re.compile(r"(?<![A-Za-z0-9$.,])(?P<y>(?:19|20)\d{2})(?![0-9,.%])")

_AT_DATE = re.compile(
    r"\b(?:at|as\s+at|as\s+of)\s+((?:\d{1,2}(?:st|nd|rd|th)?\s+[A-Za-z]{3,9}\.?|[A-Za-z]{3,9}\.?"
    r"\s+\d{1,2},?)\s+(?:19|20)\d{2})\b",
    re.I,
)

"""A balance dated in its row: "Balance at 1 July 2020", "At 30 June 2022", "As of
December 31, 2017"."""

_MONTHS_TO = re.compile(r"\b(\d{1,2})\s+months\s+to\b", re.I)

_BEGINNING = re.compile(
    r"\b(?:at|as\s+at|as\s+of)\s+(?:the\s+)?(?:beginning|start|commencement)\s+of\b|"
    r"\bopening\s+balance\b|\bbeginning\s+of\s+(?:the\s+)?(?:financial\s+|fiscal\s+)?"
    r"(?:year|period)\b",
    re.I,
)


@dataclass(frozen=True)
class ColumnPeriod:
    """What a table column or row says of its figures' period."""

    fiscal_year: int
    end: date | None = None
    months: int | None = None
    """3, 6, 9 for an interim column; 0 for a balance at a date within the year (a
    quarter's end); 12 or None (not said) for a year or a balance at its end."""
    group: str = ""
    """The column group printed above it ("Consolidated", "Parent"), or ""."""
    restated: bool = False

    @property
    def annual(self) -> bool:
        """Whether the figure is a whole year's (or a balance at a year's end)."""
        return self.months in (None, 12)

    @property
    def parent_only(self) -> bool:
        """A column of the parent entity alone, beside the consolidated group's."""
        return bool(re.search(r"\b(?:parent|company)\b", self.group, re.I))


def _date_text(day: date) -> str:
    return f"{day.day} {MONTH_ABBREVIATIONS[day.month - 1].capitalize()} {day.year}"


def period_cell(
    fiscal_year: int, end: date | None, months: int | None, group: str = "", restated: bool = False
) -> str:
    """A column's header cell as the tables write it: `Consolidated FY2022 (30 Jun 2022)`,
    `FY2024 (3 months to 29 Jul 2023)`, `FY2024 (at 29 Jul 2023)` (months 0: a balance at
    a date within the year)."""
    inner: list[str] = []
    if end is not None:
        if months == 0:
            inner.append(f"at {_date_text(end)}")
        elif months and months != 12:
            inner.append(f"{months} months to {_date_text(end)}")
        else:
            inner.append(_date_text(end))
    if restated:
        inner.append("restated")
    text = f"FY{fiscal_year}" + (f" ({', '.join(inner)})" if inner else "")
    return f"{group} {text}".strip()


_SCHEDULE = re.compile(r"\bthereafter\b|\bafter\s+(?:FY\s?)?(?:19|20)\d{2}\b", re.IGNORECASE)


def is_schedule(headers: list[str], report_year: int | None = None) -> bool:
    """Whether a table's column headers are when amounts fall due, not periods ("2024 |
    Thereafter | Total" of a FY2023 10-K's contractual obligations, "2023 ... 2027 |
    2028-2032" of expected benefit payments): a column "thereafter" or "after 2026", or
    two or more of years after the report's own (a report prints no figures of years to
    come; one such column may be its guidance). Its cells are evidence text, never
    figures of a year."""
    if any(_SCHEDULE.search(h) for h in headers):
        return True
    if report_year is None:
        return False
    later = [h for h in headers if (p := column_period(h)) and p.fiscal_year > report_year]
    return len(later) >= 2


def column_period(cell: str) -> ColumnPeriod | None:
    """The period a table's header cell names, or None ("Note", "Issued capital")."""
    restated = bool(re.search(r"restated|re-presented|represented", cell, re.I))
    fy = _FY.search(cell)
    end = parse_date(cell)
    if fy is not None:
        year = int(fy.group("y"))
        year = year + 2000 if year < 100 else year
        group = cell[: fy.start()].strip()
    elif end is not None:
        year = fiscal_year_of(end)
        group = ""
    else:
        bare = _BARE_YEAR.search(cell)
        if bare is None:
            return None
        year = int(bare.group("y"))
        group = cell[: bare.start()].strip()
    months = _MONTHS_TO.search(cell)
    within = re.search(r"\(at\s+\d", cell) is not None
    return ColumnPeriod(
        fiscal_year=year,
        end=end,
        months=int(months.group(1)) if months else (0 if within else None),
        group=group if len(group.split()) <= 3 else "",
        restated=restated,
    )


def row_period(column: ColumnPeriod | None, label: str, header: str = "") -> ColumnPeriod | None:
    """A cell's own period: its column's, unless its row label says otherwise.

    A balance at the beginning of the period is the prior period's closing balance; a
    label dated "Balance at 30 June 2021" (or "at 1 July 2021", the next day's opening) is
    that date's, whatever its column."""
    at = _AT_DATE.search(label)
    dated = parse_date(at.group(1)) if at is not None else None
    if dated is not None:
        if dated.day == 1:
            dated -= timedelta(days=1)  # "at 1 July 2021": the close of 30 June 2021
        year = fiscal_year_of(dated)
        # A column that is no period's may still name its group: "Parent: Total equity".
        side = header.split(":", 1)[0] if ":" in header else ""
        group = column.group if column is not None else side
        return ColumnPeriod(fiscal_year=year, end=dated, months=None, group=group)
    if column is None:
        return None
    if _BEGINNING.search(label):
        months = column.months or 12
        end = months_before(column.end, months) if column.end is not None else None
        return replace(
            column,
            fiscal_year=column.fiscal_year - (1 if months == 12 else 0),
            end=end,
            months=None,
        )
    return column
