"""How the offline engine's answers name things: lists of names, a company's possessive
and fiscal year, a number in a formula's working, a span of years."""

from domain.companies.roster import companies, display_name


def listed(names: list[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def possessive(ticker: str) -> str:
    return f"{display_name(ticker)}'s"


def year_phrase(ticker: str, year: int) -> str:
    company = companies()[ticker]
    kind = "calendar year" if company.calendar_year else "year"
    return f"FY{year} ({kind} ended {company.year_ends} {year})"


def fmt_number(value: float) -> str:
    text = f"{abs(value):,.3f}".rstrip("0").rstrip(".")
    return f"−{text}" if value < 0 else text


def year_span_of(years: list[int]) -> str:
    if len(years) == 1:
        return f"FY{years[0]}"
    return f"FY{min(years)}–FY{max(years)}"
