"""The years a text names: fiscal years, ranges, "latest", "all three years", and what the
corpus does not cover (the coverage warning and notice an answer opens with)."""

import re
from dataclasses import dataclass

from domain.companies.roster import fiscal_years, latest_fiscal_year, year_span
from domain.language.text import blank
from domain.models import Slots

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


_SOME_YEAR = r"(?:financial\s+|fiscal\s+|reporting\s+)?(?:year|yr|fy)\b"
_STEPS = {"a": 1, "one": 1, "1": 1, "two": 2, "2": 2, "three": 3, "3": 3}
_RELATIVE = re.compile(
    rf"\b(?:the\s+)?(?P<back>previous|prior|preceding)\s+{_SOME_YEAR}"
    rf"|\b(?:the\s+)?{_SOME_YEAR}\s+(?P<before>before|earlier|prior)\b"
    rf"|\b(?P<n>a|one|1|two|2|three|3)\s+(?:financial\s+|fiscal\s+)?(?:years?|yrs?)\s+"
    r"(?P<ago>earlier|before|ago|prior)\b"
    rf"|\b(?P<last>last)\s+{_SOME_YEAR}"
    rf"|\b(?:the\s+)?(?P<ahead>next|following|subsequent)\s+{_SOME_YEAR}"
    rf"|\b(?:the\s+)?{_SOME_YEAR}\s+(?P<after>after|later)\b"
    r"|\b(?P<n2>a|one|1|two|2)\s+(?:years?|yrs?)\s+(?P<later>later|after)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RelativeYear:
    """A year said in words relative to another ("the previous year", "two years
    earlier", "the year after"): how many years from the year it is said against."""

    steps: int
    """-1 for the year before, +1 for the year after."""
    phrase: str
    """The words as written ("the previous year")."""
    last: bool = False
    """ "last year": the year before the one talked about, or, with none talked about, the
    latest reported (a person asking "last year" means the latest full year)."""
    start: int = 0
    end: int = 0

    def year(self, anchor: int | None, latest: int | None) -> int | None:
        """The year meant, said against `anchor` (the year the conversation is on), else
        against the latest reported year."""
        if anchor is None:
            if latest is None:
                return None
            return latest if self.last else (latest + self.steps if self.steps < 0 else None)
        return anchor + self.steps

    def said(self, year: int, anchor: int | None) -> str:
        """How the year was read, in words: "FY2024, the year before FY2025"."""
        if anchor is None:
            return f"FY{year}, the latest reported" if self.last else f"FY{year}"
        n = abs(self.steps)
        gap = "the year" if n == 1 else f"{n} years"
        where = "before" if self.steps < 0 else "after"
        return f"FY{year}, {gap} {where} FY{anchor}"


def relative_year(text: str) -> RelativeYear | None:
    """The year a text says in words relative to another, if it says one (see
    `RelativeYear`); words, not a list of phrasings: a direction word and "year"."""
    match = _RELATIVE.search(text)
    if match is None:
        return None
    g = match.groupdict()
    if g["n"] or g["n2"]:
        steps = _STEPS[(g["n"] or g["n2"]).lower()]
        steps = steps if g["later"] else -steps
    else:
        steps = 1 if g["ahead"] or g["after"] else -1
    return RelativeYear(
        steps, match.group(0), last=bool(g["last"]), start=match.start(), end=match.end()
    )
