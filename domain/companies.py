"""The five covered companies, their aliases, reporting calendars and the covered years.

The one source of truth for coverage: every list of companies or years a user reads
(refusals, clarifying questions, help texts, validation errors) is built from here.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

FISCAL_YEARS: tuple[int, ...] = (2023, 2024, 2025)
LATEST_FISCAL_YEAR = max(FISCAL_YEARS)


@dataclass(frozen=True)
class Company:
    ticker: str
    name: str
    aliases: tuple[str, ...]
    calendar_year: bool = False

    def period_end(self, fiscal_year: int) -> date:
        """Return the last day of the fiscal year (Rio Tinto reports calendar years)."""
        return date(fiscal_year, 12, 31) if self.calendar_year else date(fiscal_year, 6, 30)

    @property
    def year_ends(self) -> str:
        """When its fiscal year ends, in words."""
        return "31 December" if self.calendar_year else "30 June"


COMPANIES: dict[str, Company] = {
    c.ticker: c
    for c in (
        Company("BHP", "BHP Group", ("bhp", "bhp group", "bhp billiton", "bhp group limited")),
        Company(
            "RIO",
            "Rio Tinto",
            ("rio", "rio tinto", "rio tinto group", "rio tinto limited", "rio tinto plc"),
            calendar_year=True,
        ),
        Company(
            "FMG",
            "Fortescue",
            ("fmg", "fortescue", "fortescue metals", "fortescue metals group", "fortescue ltd"),
        ),
        Company("S32", "South32", ("s32", "south32", "south 32", "south32 limited")),
        Company(
            "NST",
            "Northern Star",
            ("nst", "northern star", "northern star resources", "northern star resources ltd"),
        ),
    )
}

_ALIAS_PATTERN = re.compile(
    r"(?<![A-Za-z0-9])("
    + "|".join(
        sorted(
            (re.escape(a) for c in COMPANIES.values() for a in c.aliases),
            key=len,
            reverse=True,
        )
    )
    + r")(?![A-Za-z0-9])",
    re.IGNORECASE,
)
_ALIAS_TO_TICKER = {a: c.ticker for c in COMPANIES.values() for a in c.aliases}


def normalise_ticker(value: str) -> str | None:
    """Return the ticker for a ticker or company name in any casing, else None."""
    key = " ".join(value.strip().lower().split())
    return _ALIAS_TO_TICKER.get(key)


def find_companies(text: str) -> list[str]:
    """Return the tickers mentioned in `text`, in order of first mention, without repeats."""
    found: list[str] = []
    for match in _ALIAS_PATTERN.finditer(text):
        ticker = _ALIAS_TO_TICKER[" ".join(match.group(1).lower().split())]
        if ticker not in found:
            found.append(ticker)
    return found


def year_span(separator: str = "–") -> str:
    """The covered fiscal years as people write them: "FY2023–FY2025"."""
    return f"FY{min(FISCAL_YEARS)}{separator}FY{max(FISCAL_YEARS)}"


def year_range() -> str:
    """The covered fiscal years as a plain range for help texts: "2023-2025"."""
    return f"{min(FISCAL_YEARS)}-{max(FISCAL_YEARS)}"


def company_names(with_tickers: bool = False) -> str:
    """The covered companies in prose: "BHP Group, Rio Tinto, … and Northern Star"."""
    return _and([f"{c.name} ({c.ticker})" if with_tickers else c.name for c in COMPANIES.values()])


def tickers() -> str:
    """The covered tickers for help texts and errors: "BHP, RIO, FMG, S32, NST"."""
    return ", ".join(COMPANIES)


def check_company(value: str | None) -> str | None:
    """Normalise a ticker or company name; reject companies outside the five."""
    if value is None:
        return None
    ticker = normalise_ticker(value)
    if ticker is None:
        raise ValueError(f"unknown company {value!r}; use one of {tickers()}")
    return ticker


def check_fiscal_year(value: int | None) -> int | None:
    """Reject a fiscal year outside the covered ones."""
    if value is not None and value not in FISCAL_YEARS:
        raise ValueError(f"fiscal year {value} is outside {year_range()}")
    return value


_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def how_many() -> str:
    """The number of covered companies in words ("five")."""
    n = len(COMPANIES)
    return _COUNTS[n] if n < len(_COUNTS) else str(n)


def calendar_note(tickers_: Iterable[str]) -> str | None:
    """The note a comparison needs when these companies' fiscal years end on different
    dates (so "FY2024" spans different months for them); None when they all agree."""
    involved = [COMPANIES[t] for t in dict.fromkeys(tickers_) if t in COMPANIES]
    calendar = [c.name for c in involved if c.calendar_year]
    if not calendar or len(calendar) == len(involved):
        return None
    ends = next(c.year_ends for c in involved if not c.calendar_year)
    one = len(calendar) == 1
    return (
        f"Note: {_and(calendar)} report{'s' if one else ''} calendar years "
        f"({'its' if one else 'their'} FY is the year ended 31 December), "
        f"while the other companies' fiscal years end on {ends}."
    )


def calendars() -> str:
    """How the covered companies' fiscal years end, in one sentence."""
    calendar = [c.name for c in COMPANIES.values() if c.calendar_year]
    others = [c for c in COMPANIES.values() if not c.calendar_year]
    if not calendar:
        return f"Every company's fiscal year ends on {others[0].year_ends}."
    verb = "reports" if len(calendar) == 1 else "report"
    return (
        f"{_and(calendar)} {verb} calendar years; the other {_COUNTS[len(others)]} "
        f"companies' years end on {others[0].year_ends}."
    )


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
