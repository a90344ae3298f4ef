"""The five covered companies, their aliases and fiscal-year conventions.

Pure data and functions: imported by workflow code, activities, the API and the CLI.
"""

import re
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
