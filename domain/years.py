"""The years a text names: fiscal years, ranges, "latest", "all three years", and what the
corpus does not cover (the coverage warning and notice an answer opens with)."""

import re

from domain.companies import fiscal_years, latest_fiscal_year, year_span
from domain.models import Slots
from domain.text import blank

_ALL_YEARS = re.compile(
    r"\b(?:all|each|every)\s+(?:of\s+the\s+)?(?:three\s+|3\s+)?"
    r"(?:fiscal\s+|financial\s+|reporting\s+|covered\s+|available\s+)?years\b|"
    r"\b(?:each|every)\s+year\b|"
    r"\b(?:three|3)[\s-]+(?:fiscal\s+|financial\s+|reporting\s+)?years?\b",
    re.IGNORECASE,
)
_LATEST = re.compile(
    r"\b(?:latest|most\s+recent|this\s+year|current\s+year|last\s+reported|newest)\b",
    re.IGNORECASE,
)
_YEAR_TOKEN = r"(?:(?:FY|CY)\s?'?(?:\d{4}|\d{2})|(?:19|20)\d{2})"
_RANGE = re.compile(
    rf"(?P<lead>\bfrom\s+|\bbetween\s+)?(?<![A-Za-z0-9$,.])(?P<a>{_YEAR_TOKEN})\s*"
    rf"(?P<sep>to|through|until|and|-|–|—)\s*(?P<b>{_YEAR_TOKEN})(?![0-9])",
    re.IGNORECASE,
)
_SPLIT_YEAR = re.compile(
    r"(?<![A-Za-z0-9$,.])(?P<a>(?:19|20)\d{2})\s?[/-]\s?(?P<b>\d{2})(?![0-9%])"
)
_FY = re.compile(r"(?<![A-Za-z0-9])(?:FY|CY)\s?'?(?P<y>\d{4}|\d{2})(?![0-9])", re.IGNORECASE)
# A year may end a clause ("30 June 2024, in US$ millions"); "2024,5" is a number.
_BARE_YEAR = re.compile(r"(?<![A-Za-z0-9$,.])(?P<y>(?:19|20)\d{2})(?![0-9]|[,.]\d)")


def _year_of(token: str) -> int:
    digits = re.sub(r"\D", "", token)
    return 2000 + int(digits) if len(digits) == 2 else int(digits)


def mentioned_years(text: str) -> list[int]:
    """Return every fiscal year a text mentions (any year, in or outside coverage), sorted.

    Understands FY2024, FY24, fy 2024, 2024, 2023-24 and 2023/24 (= FY2024), "year ended
    30 June 2024" and "31 December 2024" (= FY2024), ranges ("FY2023 to FY2025", "between
    2023 and 2025"), "latest"/"most recent"/"this year" (the latest covered year) and
    "over the three years"/"all years" (every covered year).
    """
    # long: one case per way a year is written.
    years: set[int] = set()
    masked = text
    for match in _RANGE.finditer(text):
        a, b = _year_of(match.group("a")), _year_of(match.group("b"))
        separator = match.group("sep").lower()
        lead = (match.group("lead") or "").strip().lower()
        if separator == "and" and lead != "between":
            continue
        if (
            separator in ("-", "–")
            and not lead
            and b == a + 1
            and "y" not in match.group("b").lower()
        ):
            years.add(b)
        elif 1900 < a <= b < 2100 and b - a <= 20:
            years.update(range(a, b + 1))
        else:
            continue
        masked = blank(masked, match.start(), match.end())
    for match in _SPLIT_YEAR.finditer(masked):
        a, b = int(match.group("a")), int(match.group("b"))
        if b == (a + 1) % 100:
            years.add(a + 1)
            masked = blank(masked, match.start(), match.end())
    for pattern in (_FY, _BARE_YEAR):
        for match in pattern.finditer(masked):
            years.add(_year_of(match.group("y")))
    if _ALL_YEARS.search(text):
        years.update(fiscal_years())
    if _LATEST.search(text) and (latest := latest_fiscal_year()) is not None:
        years.add(latest)
    return sorted(years)


def find_fiscal_years(text: str) -> list[int]:
    """Return the covered fiscal years (of any covered company) a text mentions, sorted."""
    covered = fiscal_years()
    return [y for y in mentioned_years(text) if y in covered]


def mentioned_years_outside(text: str) -> list[int]:
    """Return the years a text mentions that the corpus does not cover ("FY2021")."""
    covered = fiscal_years()
    return [y for y in mentioned_years(text) if y not in covered]


def coverage_warning(text: str) -> str | None:
    """The warning for a question naming fiscal years outside the covered ones, if any."""
    outside = mentioned_years_outside(text)
    if not outside:
        return None
    years = ", ".join(f"FY{y}" for y in outside)
    verb = "is" if len(outside) == 1 else "are"
    return f"{years} {verb} not covered: the reports cover {year_span()}."


def coverage_notice(text: str) -> str | None:
    """The sentence an answer opens with when the question names years outside the
    covered ones: what is not covered, that nothing is forecast, then what follows."""
    warning = coverage_warning(text)
    if warning is None:
        return None
    latest = latest_fiscal_year() or 0
    later = any(y > latest for y in mentioned_years_outside(text))
    forecast = " I do not forecast figures." if later else ""
    return f"{warning}{forecast} Here is what the reports give instead:"


def later_report_years(slots: Slots, years: list[int], companies: int) -> list[int]:
    """The next year's report, searched too when a question names its fiscal year and at
    most two companies: a later report may restate a year's figure, and the answer says
    which figure each report gives. `companies` counts the companies searched."""
    if not slots.fiscal_years or not years or not 0 < companies <= 2:
        return []
    following = max(years) + 1
    return [following] if following in fiscal_years() else []
