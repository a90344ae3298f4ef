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

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date, timedelta

_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_NAME = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
"""A month's name, whole or short ("September", "Sept.", "Sep"), as a regular-expression
fragment with no group: the one spelling of months the question reader and the tables share."""
_MONTH = rf"(?P<m>{MONTH_NAME})"
_DATE = re.compile(
    r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r"\s+(?P<y>(?:19|20)\d{2})\b", re.I
)
_US_DATE = re.compile(r"\b" + _MONTH + r"\s+(?P<d>\d{1,2}),?\s+(?P<y>(?:19|20)\d{2})\b", re.I)
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
_SLACK = timedelta(days=20)
"""A fiscal year that ends on a weekday near its nominal date (52/53-week years: "January
2, 2021" closes a calendar 2020) still is that year's."""


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


def reportable(year: int, report_year: int) -> bool:
    """Whether a report of `report_year` can print figures of `year`: its own, a comparative
    up to twelve years back (a five- or ten-year summary), or the next year's guidance; a
    schedule of years to come ("2028-2032" of expected payments) prints none."""
    return report_year - 12 <= year <= report_year + 1


def fiscal_year_of(day: date, year_end: str | None = None) -> int:
    """The fiscal year a date falls in, for a company whose year ends on `year_end`
    ("06-30", "12-31"; None: the calendar, or a year ended in the first days of January
    as the year before). A year is named by the calendar year it ends in."""
    if year_end is None:
        return day.year - 1 if (day.month, day.day) <= (1, 20) else day.year
    month, dom = (int(p) for p in year_end.split("-"))
    for year in (day.year - 1, day.year, day.year + 1):
        try:
            end = date(year, month, dom)
        except ValueError:
            end = date(year, month, 28)
        if day <= end + _SLACK:
            return year
    return day.year + 1


def _date_text(day: date) -> str:
    return f"{day.day} {_MONTHS[day.month - 1].capitalize()} {day.year}"


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


def _parse_date(text: str) -> date | None:
    for pattern in (_DATE, _US_DATE):
        match = pattern.search(text)
        if match is not None:
            month = _MONTHS.index(match.group("m").lower()[:3]) + 1
            try:
                return date(int(match.group("y")), month, int(match.group("d")))
            except ValueError:
                return None
    return None


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
    end = _parse_date(cell)
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
    dated = _parse_date(at.group(1)) if at is not None else None
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
        return replace(column, fiscal_year=column.fiscal_year - (1 if months == 12 else 0),
                       end=end, months=None)  # fmt: skip
    return column


def months_before(day: date, months: int) -> date:
    """The end of the period `months` before one ending on `day` (month ends kept)."""
    month = day.month - months
    year = day.year + (month - 1) // 12
    month = (month - 1) % 12 + 1
    last = (date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)).day
    next_day = day + timedelta(days=1)
    return date(year, month, last if next_day.month != day.month else min(day.day, last))


PART_OF_YEAR = re.compile(
    r"\b(?:Q[1-4]|[1-4]Q|(?:first|second|third|fourth|1st|2nd|3rd|4th|last|final|latest|this|"
    r"the)[\s-]+(?:fiscal\s+)?quarter|quarter\s+(?:ended|ending)|(?:three|six|nine|3|6|9)[\s-]+"
    r"months?\s+(?:ended|ending|to)|year[\s-]+to[\s-]+date|YTD)\b",
    re.IGNORECASE,
)
"""Words that name a quarter or a span of months within a year: "Q2", "the second
quarter", "six months ended". A whole year's figure does not answer a question that says
one. (Halves are not among them: a "first-half payout" is the interim dividend, which the
reports print as the year's.)"""


QUARTER_TOKEN = r"(?:Q[1-4]|[1-4]Q)"
"""A quarter written short ("Q2", "2Q"), as a regular-expression fragment."""
_QUARTER_WORDS = (
    rf"(?:{QUARTER_TOKEN}|(?:first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+(?:fiscal\s+)?quarter)"
)
"""A quarter named ("Q2", "2Q", "the second fiscal quarter"): the one vocabulary of it."""
_QUARTER_NUMBER = re.compile(
    r"\bQ(?P<a>[1-4])\b|\b(?P<b>[1-4])Q\b|\b(?P<c>first|second|third|fourth|1st|2nd|3rd|4th)"
    r"[\s-]+(?:fiscal\s+)?quarter\b",
    re.IGNORECASE,
)
_ORDINAL = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}


def quarter_named(text: str) -> int | None:
    """Which quarter of a fiscal year `text` names ("Q2", "2Q", "the second quarter"),
    or None."""
    m = _QUARTER_NUMBER.search(text)
    if m is None:
        return None
    if m.group("c"):
        return _ORDINAL[m.group("c").lower()]
    return int(m.group("a") or m.group("b"))


_QUARTER_OF_YEAR = re.compile(
    rf"\b{_QUARTER_WORDS}\b[\s,]*(?:of\s+)?(?:(?:fiscal|FY|CY)\s?'?)?(?:19|20)\d{{2}}\b"
    rf"|\b(?:FY|CY)?\s?(?:19|20)\d{{2}}[\s,]+{_QUARTER_WORDS}\b",
    re.IGNORECASE,
)


def quarter_of_year(text: str) -> int | None:
    """The quarter `text` names together with its year ("Q2 FY2023", "2021 Q1", "the
    second fiscal quarter of 2023"), or None: a quarter named with no year ("for the
    second quarter in a row") is no period of a figure."""
    m = _QUARTER_OF_YEAR.search(text)
    return quarter_named(m.group(0)) if m else None


def quarter_of(
    end: date | None, months: int | None, year_end: str | None
) -> tuple[int, int] | None:
    """The fiscal year and quarter a figure is of when it is printed for three months, or
    as a balance at a quarter's end (months 0); None for any other span or no date."""
    if months not in (0, 3) or end is None or not year_end:
        return None
    return fiscal_quarter(end, year_end)


_YEAR_NAMED = re.compile(
    r"\b(?:(?:FY|CY|fiscal(?:\s+year)?)\s?'?)?((?:19|20)\d{2})\b", re.IGNORECASE
)


def whole_years(text: str) -> set[int]:
    """The years `text` names on their own before it names a quarter of a year ("between
    FY 2023 and Q2 of FY2024": {2023}): "Q2 of" is not said of them. A year after the
    quarter shares it, as English elides it ("between Q2 of FY2024 and FY2023": the
    second quarter of each)."""
    first = _QUARTER_OF_YEAR.search(text)
    if first is None:
        return set()
    return {int(m.group(1)) for m in _YEAR_NAMED.finditer(text[: first.start()])}


def quarter_end(year_end: date, quarter: int) -> date:
    """The end of a fiscal year's `quarter`, given the year's end: Q2 of a calendar 2023
    ends 30 June 2023; of a year to 30 June 2023, 31 December 2022."""
    return year_end if quarter == 4 else months_before(year_end, 3 * (4 - quarter))


def quarter_said(text: str) -> int | None:
    """The quarter the part of a year `text` last names is ("in the third quarter of
    2023": 3), or None when that part is no named quarter ("six months ended", "this
    quarter")."""
    parts = list(PART_OF_YEAR.finditer(text))
    return quarter_named(parts[-1].group(0)) if parts else None


def year_closes(year: int, year_end: str) -> date:
    """The day fiscal year `year` ends for a company whose years end on `year_end`."""
    month, day = (int(p) for p in year_end.split("-"))
    return date(year, month, min(day, calendar.monthrange(year, month)[1]))


def quarter_dated(text: str, year_end: str) -> tuple[int, int] | None:
    """The fiscal year and quarter holding the one day `text` names ("as of August 30,
    2023", "at 30 June 2023"), for a company whose years end on `year_end`: a question
    dated inside a year asks for what that quarter's figures say (a balance at its end,
    its three months). None when it names no day, days of different quarters, or its
    year's last day (a whole year's figures answer that)."""
    days = {
        d for pattern in (_DATE, _US_DATE) for m in pattern.finditer(text)
        if (d := _parse_date(m.group(0))) is not None
    }  # fmt: skip
    quarters = set()
    for day in days:
        year = day.year if day <= year_closes(day.year, year_end) else day.year + 1
        closes = year_closes(year, year_end)
        if min(abs((c - day).days) for c in (closes, year_closes(year - 1, year_end))) <= 7:
            return None  # a year's end (a 52/53-week year's, some days off it)
        opens = year_closes(year - 1, year_end) + timedelta(days=1)
        elapsed = (day.year - opens.year) * 12 + day.month - opens.month
        quarters.add((year, min(4, elapsed // 3 + 1)))
    return quarters.pop() if len(quarters) == 1 else None


def fiscal_quarter(end: date, year_end: str) -> tuple[int, int]:
    """The fiscal year and quarter (1-4) a quarter ending on `end` is, for a company whose
    year ends on `year_end` ("12-31"; a 52/53-week year's quarter ending some days off its
    month's end is still that quarter)."""
    year = fiscal_year_of(end, year_end)
    month, day = (int(p) for p in year_end.split("-"))
    try:
        closes = date(year, month, day)
    except ValueError:
        closes = date(year, month, 28)
    months_left = round((closes - end).days / 30.44)
    return year, max(1, min(4, 4 - round(months_left / 3)))


def asks_part_of_year(text: str) -> bool:
    """Whether `text` names a quarter or a span of months (`PART_OF_YEAR`)."""
    return PART_OF_YEAR.search(text) is not None


_WHOLE_YEAR = re.compile(
    r"\b(?:full[\s-]+(?:fiscal\s+)?year|fiscal\s+year|(?:twelve|12)[\s-]+months?|annual|"
    r"(?<!of\s)(?:the|this|last|prior)\s+year)\b",
    re.IGNORECASE,
)
_SPAN_MONTHS = re.compile(r"\b(three|six|nine|3|6|9)[\s-]+months?\b", re.IGNORECASE)


def months_said_before(text: str) -> int | None:
    """The months of the part of a year `text` last names, when no whole year is named
    after it: 3 for a quarter ("2022 Fourth-Quarter EPS of"), 6 or 9 for "six months
    ended"; None when it names none, or names the whole year later ("In the fourth
    quarter ... For the full year, sales were"). A year to date says no months: None."""
    to_date = re.compile(r"ytd|year\W+to\W+date", re.IGNORECASE)
    parts = [m for m in PART_OF_YEAR.finditer(text) if not to_date.fullmatch(m.group(0))]
    if not parts:
        return None
    last = parts[-1]
    if any(m.start() > last.start() for m in _WHOLE_YEAR.finditer(text)):
        return None
    span = _SPAN_MONTHS.search(last.group(0))
    if span is None:
        return 3
    return {"three": 3, "six": 6, "nine": 9}.get(span.group(1).lower()) or int(span.group(1))
