"""Time as reports and questions write it: months, quarters, fiscal years and
their closing days, and the words that ask for part of a year. Pure."""

import calendar
import re
from datetime import date, timedelta

MONTH_ABBREVIATIONS = (
    "jan",
    "feb",
    "mar",
    "apr",
    "may",
    "jun",
    "jul",
    "aug",
    "sep",
    "oct",
    "nov",
    "dec",
)

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

_SLACK = timedelta(days=20)

"""A fiscal year that ends on a weekday near its nominal date (52/53-week years: "January
2, 2021" closes a calendar 2020) still is that year's."""


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


def parse_date(text: str) -> date | None:
    for pattern in (_DATE, _US_DATE):
        match = pattern.search(text)
        if match is not None:
            month = MONTH_ABBREVIATIONS.index(match.group("m").lower()[:3]) + 1
            try:
                return date(int(match.group("y")), month, int(match.group("d")))
            except ValueError:
                return None
    return None


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
        d
        for pattern in (_DATE, _US_DATE)
        for m in pattern.finditer(text)
        if (d := parse_date(m.group(0))) is not None
    }
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
