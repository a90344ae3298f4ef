"""Which company, fiscal year and metric each amount of a text is stated for: the
nearest mention in its clause, else the scope an earlier clause opened. Pure."""

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

from domain.companies.roster import (
    companies,
    normalise_ticker,
)
from domain.language.amounts import PER_SHARE, UNIT_WORD, Amount
from domain.language.calendar import QUARTER_TOKEN
from domain.questions.metrics import (
    metric_mentions,
)
from domain.questions.years import mentioned_years

_T = TypeVar("_T")

YEAR_TOKEN = r"(?:(?:FY|CY)\s?'?(?:\d{4}|\d{2})|(?:19|20)\d{2})"

_QUARTER = rf"(?:{QUARTER_TOKEN}\s+(?:of\s+)?)?"

"""A quarter before the second year of a range ("from Q2 FY2023 to Q2 FY2024")."""

_YEAR_MENTION = re.compile(
    rf"(?<![A-Za-z0-9$,.])(?:between\s+{YEAR_TOKEN}\s+and\s+{_QUARTER}{YEAR_TOKEN}|"
    rf"(?:from\s+)?{YEAR_TOKEN}(?:\s*(?:to|through|until|-|–|—)\s*{_QUARTER}{YEAR_TOKEN}|"
    rf"\s?[/-]\s?\d{{2}})?)(?![0-9]|[.,]\d)",
    re.IGNORECASE,
)


def _company_mention() -> re.Pattern[str]:
    """Any covered company's alias as a whole word (the coverage in force)."""
    return _mention_pattern(tuple(a for c in companies().values() for a in c.aliases))


@lru_cache(maxsize=8)
def _mention_pattern(aliases: tuple[str, ...]) -> re.Pattern[str]:
    if not aliases:
        return re.compile(r"(?!)")
    ordered = sorted((re.escape(a) for a in aliases), key=len, reverse=True)
    return re.compile(r"(?<![A-Za-z0-9])(" + "|".join(ordered) + r")(?![A-Za-z0-9])", re.I)


# Where one figure's clause ends and the next one's begins, between two figures.
_CLAUSE_BREAK = re.compile(
    r"[,;:]|\b(?:and|while|whilst|whereas|but|versus|vs\.?|compared\s+(?:with|to)|against|"
    r"than|to)\b",
    re.IGNORECASE,
)

# What may sit between a figure's unit and a mention that postmodifies it: "US$213 million
# in FY2025", "US$X for BHP", "146 US cents per share for the year ended 30 June 2024".
_POSTMODIFIER = re.compile(
    r"^[\s)]*(?:in|for|during|at|over)\s+(?:the\s+)?(?:(?:fiscal|financial|calendar)\s+)?"
    r"(?:year\s+(?:ended|ending|to)\s+)?(?:\d{1,2}\s+[A-Za-z]+\s+)?$",
    re.IGNORECASE,
)

_RESPECTIVELY = re.compile(r"\brespectively\b", re.IGNORECASE)

# "a loss of US$203 million" states the sign of a figure, not which metric it is.
_SIGN_WORDS = frozenset({"loss", "losses"})


@dataclass(frozen=True)
class Binding:
    """What one number is stated for: its company, fiscal year(s) and metric (None: unknown).

    `years` holds the years of the one mention the number binds to: one year, or the years
    of a range ("from FY2023 to FY2025"); empty when no mention binds.
    """

    company: str | None
    years: tuple[int, ...]
    metric: str | None


_NAMES_A_REPORT = re.compile(r"\s+(?:annual\s+)?(?:report|results|accounts)\b", re.IGNORECASE)

# A target's date or a baseline's year is not the period a figure describes: "cut
# emissions by 15% by 2025", "relative to our 2018 baseline" state the report year's plan.
_TARGET_OR_BASELINE = re.compile(
    r"\b(?:by|until|before)\s+(?:the\s+end\s+of\s+)?(?:FY|CY)?\s?'?(?:19|20)\d{2}\b"
    r"|\b(?:FY|CY)?\s?'?(?:19|20)\d{2}\s+(?:baseline|base\s+year|levels?)\b",
    re.IGNORECASE,
)


def without_targets(text: str) -> str:
    """`text` with its target dates and baseline years blanked (same length)."""
    return _TARGET_OR_BASELINE.sub(lambda m: " " * len(m.group(0)), text)


def year_spans(text: str, amounts: list[Amount]) -> list[tuple[int, int, tuple[int, ...]]]:
    spans = [(a.start, a.end) for a in amounts]
    found: list[tuple[int, int, tuple[int, ...]]] = []
    for match in _YEAR_MENTION.finditer(without_targets(text)):
        if any(s < match.end() and match.start() < e for s, e in spans):
            continue  # "US$2024 million" is an amount, not a year
        if _NAMES_A_REPORT.match(text, match.end()):
            continue  # "as restated in the FY2024 report": a document, not the period
        years = tuple(mentioned_years(match.group(0)))
        if years:
            found.append((match.start(), match.end(), years))
    return found


def company_spans(text: str) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    for match in _company_mention().finditer(text):
        ticker = normalise_ticker(match.group(1))
        if ticker:
            found.append((match.start(), match.end(), ticker))
    return found


def metric_spans(text: str) -> list[tuple[int, int, str]]:
    return [
        (start, end, metric)
        for start, end, metric in metric_mentions(text)
        if text[start:end].lower() not in _SIGN_WORDS
    ]


def _clauses(text: str, amounts: list[Amount]) -> list[tuple[int, int]]:
    """Each amount's (lead start, tail end): the gap between two figures splits at its first
    clause break (with none, the whole gap is both the earlier's tail and the later's lead);
    the last figure's tail ends at the first clause break after it."""
    leads = [0] * len(amounts)
    tails = [len(text)] * len(amounts)
    for k, amount in enumerate(amounts):
        gap_end = amounts[k + 1].start if k + 1 < len(amounts) else len(text)
        brk = _CLAUSE_BREAK.search(text, amount.end, gap_end) if gap_end > amount.end else None
        if brk:
            tails[k] = brk.start()
            if k + 1 < len(amounts):
                leads[k + 1] = brk.end()
        elif k + 1 < len(amounts):
            tails[k], leads[k + 1] = gap_end, amount.end
    return list(zip(leads, tails, strict=True))


def figure_clauses(text: str, amounts: list[Amount]) -> list[tuple[int, int]]:
    """Each amount's clause in `text`, (lead start, tail end), as binding reads it."""
    return _clauses(text, amounts)


def _postmodifies(gap: str) -> bool:
    """Is a mention after this gap stated for the figure before it, past the figure's unit?"""
    unit = UNIT_WORD.match(gap)
    rest = gap[unit.end() :] if unit else gap
    per_share = PER_SHARE.match(rest)
    rest = rest[per_share.end() :] if per_share else rest
    return bool(_POSTMODIFIER.match(rest))


def _resolve(
    text: str,
    mentions: list[tuple[int, int, _T]],
    amounts: list[Amount],
    clauses: list[tuple[int, int]],
    follow: bool,
) -> list[_T | None]:
    values: list[_T | None] = []
    scope: _T | None = None
    for amount, (lead_start, tail_end) in zip(amounts, clauses, strict=True):
        lead = [v for s, e, v in mentions if lead_start <= s and e <= amount.start]
        tail = [(s, v) for s, _, v in mentions if amount.end <= s < tail_end]
        value: _T | None
        if tail and _postmodifies(text[amount.end : tail[0][0]]):
            value = tail[0][1]
        elif lead:
            value = scope = lead[-1]
        elif tail:
            value = tail[0][1]
        elif scope is not None:
            value = scope
        elif follow and not any(e <= amount.start for _, e, _ in mentions):
            value = next((v for s, _, v in mentions if s >= amount.end), None)
        elif follow and len(named := {v for _, _, v in mentions}) == 1:
            value = next(iter(named))  # the only year / company / metric the sentence names
        else:
            value = None
        values.append(value)
    if _RESPECTIVELY.search(text):
        _respectively(text, mentions, amounts, values)
    return values


def _respectively(
    text: str, mentions: list[tuple[int, int, _T]], amounts: list[Amount], values: list[_T | None]
) -> None:
    """Pair a list of names with figures in order ("revenue and EBITDA were X and Y
    respectively", "X and Y in FY2023 and FY2024, respectively"): figures with nothing named
    between them take the list named just before the first or just after the last."""
    word = _RESPECTIVELY.search(text)
    end = word.start() if word else len(text)
    k = 0
    while k < len(amounts):
        j = k
        while j + 1 < len(amounts) and not any(
            amounts[j].end <= s and e <= amounts[j + 1].start for s, e, _ in mentions
        ):
            j += 1
        run = range(k, j + 1)
        start = amounts[k - 1].end if k else 0
        before = [(s, v) for s, e, v in mentions if start <= s and e <= amounts[k].start]
        after = [(s, v) for s, _, v in mentions if amounts[j].end <= s < end]
        for listed in (before, after):
            named = list(dict.fromkeys(v for _, v in listed))
            if len(run) >= 2 and len(named) >= len(run):
                chosen = named[-len(run) :] if listed is before else named[: len(run)]
                for i, value in zip(run, chosen, strict=True):
                    values[i] = value
                break
        k = j + 1


def bind_amounts(text: str, amounts: list[Amount], *, follow: bool = True) -> list[Binding]:
    """Bind each amount to the company, fiscal year and metric it is stated for.

    The text between two figures is split at its first clause break (a comma, "and",
    "while", "than", "to", ...): the part before it is the earlier figure's tail, the part
    after it the later figure's lead. Each attribute comes, in order, from the nearest
    mention in the figure's own lead ("BHP's revenue for FY2024 was X"), else the first in
    its own tail ("X in FY2023"), else from the scope a previous figure's lead opened ("In
    FY2024, BHP's revenue was X and Rio Tinto's Y": the year and metric carry to Y; a tail
    mention does not carry, so in "X in FY2023 and Y in FY2024" each keeps its own). A
    postmodifier right after the figure's unit ("US$213 million in FY2025") binds before
    its lead, and "respectively" pairs listed names with figures in order.

    With `follow` (answers), a figure that no mention precedes takes the first mention after
    it, and a figure still unbound takes the sentence's only mention when it names just one
    ("Fortescue's net debt was X in FY2024, while Rio Tinto's was Y": Y is FY2024). Without
    it (report prose) such a figure stays unknown (None / empty) and the caller defaults it.
    """
    clauses = _clauses(text, amounts)
    companies = _resolve(text, company_spans(text), amounts, clauses, follow)
    years = _resolve(text, year_spans(text, amounts), amounts, clauses, follow)
    metrics = _resolve(text, metric_spans(text), amounts, clauses, follow)
    return [
        Binding(company=c, years=y or (), metric=m)
        for c, y, m in zip(companies, years, metrics, strict=True)
    ]
