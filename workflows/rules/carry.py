"""Entity carry-forward: fill a missing company and/or fiscal year from recent messages.

Deliberately narrow: only a question with something to attach to (a metric, or a
referring word like "its" or "what about") is filled; only the missing slot is filled;
and if recent messages name nothing, the question is returned unchanged.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from domain.companies.roster import coverage, display_name
from domain.models import Slots
from domain.questions.intent import among_miners, asks_over_all_companies, superlative
from domain.questions.measures import open_parts
from domain.questions.metrics import metric_display
from domain.questions.question import extract_slots
from domain.questions.years import relative_year
from domain.turns import Carried

_FOLLOW_UP = re.compile(
    r"\b(it|its|it's|they|their|them|that|this|those|these|same|the company|what about"
    r"|how about|and)\b",
    re.I,
)


def merge_reply(question: str, reply: str) -> str:
    """Merge a clarification reply INTO the question; the original is never replaced."""
    return f"{question.rstrip()} — {reply.strip()}"


_SHORT = 4
"""A question of at most this many words that names only a year or only a company
("FY2023?", "And Fortescue?") is a follow-up even without a referring word."""
_CONNECTIVES = frozenset(
    ["and", "what", "about", "how", "in", "for", "then", "also", "the", "same", "now", "ok"]
)
_YEAR_WORD = re.compile(r"^(?:fy|cy)?'?\d{2,4}$")


def _bare(question: str, slots_named: bool) -> bool:
    """A short question naming only a year or a company, nothing else ("And FY2023?")."""
    words = [w.strip("?.!,'’s").lower() for w in question.split()]
    words = [w for w in words if w]
    if not slots_named or len(words) > _SHORT:
        return False
    names = coverage().alias_words
    return all(w in _CONNECTIVES or w in names or _YEAR_WORD.match(w) for w in words)


def _latest(tickers: list[str]) -> int | None:
    """The latest year these companies report (every company's, with none named)."""
    known = coverage().companies
    years = [y for t in tickers if t in known for y in known[t].fiscal_years]
    return max(years) if years else coverage().latest_fiscal_year


def read_relative_year(question: str, recent_questions: list[str]) -> tuple[str, str | None]:
    """The question with a year said in words ("the previous year", "last yr", "two
    years earlier") written as the year it means, and how it was read ("FY2024, the year
    before FY2025"); unchanged with none, or when it names two years already.

    The year is said against the one year the question names, else the one year the
    conversation was last on, else the latest its companies report."""
    relative = relative_year(question)
    slots = extract_slots(question)
    if relative is None or len(slots.fiscal_years) > 1:
        return question, None
    anchor = slots.fiscal_years[0] if slots.fiscal_years else None
    tickers = list(slots.companies)
    for text in reversed(recent_questions):
        earlier = extract_slots(text)
        tickers = tickers or list(earlier.companies)
        if anchor is None and len(earlier.fiscal_years) == 1:
            anchor = earlier.fiscal_years[0]
    year = relative.year(anchor, _latest(tickers))
    if year is None:
        return question, None
    written = f"{question[: relative.start]}FY{year}{question[relative.end :]}"
    return written, relative.said(year, anchor)


def carry_entities(
    question: str,
    recent_questions: list[str],
    relative: Callable[[], bool] = lambda: True,
    compared: Callable[[], bool] = lambda: True,
    own_words: Callable[[], bool] = lambda: True,
    company_set: Callable[[], bool] = lambda: True,
) -> tuple[str, Carried]:
    """Return (resolved question, what was carried); `recent_questions` oldest first.

    A follow-up keeps the company, the year and the measure; a comparison keeps the year.

    - A follow-up (a referring word, or a short question naming only a year or only a
      company) that names no measure gets the last one asked: "And in FY2023?" after
      "BHP's revenue in FY2024?" asks for BHP's FY2023 revenue, not a bundle.
    - A comparison naming one year ("how does that compare with FY2023?") keeps the
      year it is compared with, so both figures and the change are shown.
    - A question over every company ("which company had the most debt?") inherits no
      company, whatever was asked before.
    - A comparison naming one company ("how does that compare to Rio Tinto?") keeps the
      company talked about as well, so the two are compared, when `compared()` says so.
    - A measure no metric names is carried in the words it was asked in ("TRIF"), when
      `own_words()` says so.
    - A follow-up of a question over every company ("and the year before?" after "which
      company had the highest revenue in FY2025?") is over every company too, ranked the
      same way, when `company_set()` says so.
    - A year said in words is read first (`read_relative_year`), when `relative()` says
      so (the workflow's patch: a turn begun before it replays as it ran).
    Only missing slots are filled; with nothing to attach to, nothing is carried.
    """
    year_read = None
    if relative_year(question) is not None and relative():
        question, year_read = read_relative_year(question, recent_questions)
    resolved, carried = _carried(question, recent_questions, compared, own_words, company_set)
    return resolved, carried.model_copy(update={"year_read": year_read}) if year_read else carried


def _carried(
    question: str,
    recent_questions: list[str],
    compared: Callable[[], bool] = lambda: True,
    own_words: Callable[[], bool] = lambda: True,
    company_set: Callable[[], bool] = lambda: True,
) -> tuple[str, Carried]:
    """`carry_entities` once a year said in words is read. The gates (`compared`,
    `own_words`, `company_set`: a workflow's patches) are asked in the same order and
    under the same conditions as before they were split out, so histories replay."""
    slots = extract_slots(question)
    measures = slots.metrics or slots.other_measures
    short = _bare(question, bool(slots.fiscal_years or slots.companies))
    follow_up = bool(_FOLLOW_UP.search(question)) or (short and not measures)
    if not measures and not follow_up:
        return question, Carried()
    needs = _Needs.of(question, slots, follow_up, bool(measures))
    found = _Found()
    for text in reversed(recent_questions):
        found.take(text, slots, needs, compared, own_words, company_set)
        if found.done(needs):
            break
    if not found.companies and found.year is None and not found.measures and not found.over:
        return question, Carried()
    parts = [display_name(t) for t in found.companies] + ([found.over] if found.over else [])
    parts += found.measures
    if found.year is not None:
        parts.append(f"FY{found.year}")
    resolved = f"{question.rstrip()} ({', '.join(parts)})"
    carried = Carried(
        company=", ".join(found.companies) or None,
        fiscal_year=found.year,
        metric=", ".join(found.measures) or None,
    )
    return resolved, carried


@dataclass(frozen=True)
class _Needs:
    """What a follow-up leaves to be carried from the questions before it."""

    company: bool
    measure: bool
    year: bool
    partner: bool
    """"How does that compare to Rio Tinto?": the one named is compared with the one
    talked about."""

    @classmethod
    def of(cls, question: str, slots: Slots, follow_up: bool, measures: bool) -> "_Needs":
        over_all = asks_over_all_companies(question)
        partner = slots.intent == "compare" and follow_up and len(slots.companies) == 1
        compares = slots.intent in ("compare", "change") and len(slots.fiscal_years) == 1
        return cls(
            company=(not slots.companies and not over_all) or partner,
            measure=not measures and follow_up,
            year=not slots.fiscal_years or (compares and follow_up),
            partner=partner,
        )


@dataclass
class _Found:
    """What has been carried so far, from the latest earlier question back."""

    companies: list[str] = field(default_factory=list)
    year: int | None = None
    measures: list[str] = field(default_factory=list)
    over: str | None = None
    """"all companies", and how they were ranked."""

    def take(
        self,
        text: str,
        slots: Slots,
        needs: _Needs,
        compared: Callable[[], bool],
        own_words: Callable[[], bool],
        company_set: Callable[[], bool],
    ) -> None:
        earlier = extract_slots(text)
        others = [t for t in earlier.companies if t not in slots.companies]
        if needs.company and not self.companies and others and (not needs.partner or compared()):
            self.companies = others
        elif needs.company and not (self.companies or self.over or others or needs.partner):
            self.over = _over_every_company(text, company_set, ranked=needs.measure)
        single = earlier.fiscal_years[0] if len(earlier.fiscal_years) == 1 else None
        fresh = single is not None and single not in slots.fiscal_years
        if needs.year and self.year is None and fresh:
            self.year = single
        if needs.measure and not self.measures:
            self.measures = [metric_display(m) for m in earlier.metrics]
            self.measures += earlier.other_measures
            # A measure no metric names is carried in the words it was asked in ("TRIFR",
            # not the vocabulary's "injury frequency rate"; "TRIF", which it has no word
            # for): the follow-up asks for the same thing.
            own = [] if earlier.metrics else [p.phrase for p in open_parts(text)]
            if own and own != self.measures and own_words():
                self.measures = own

    def done(self, needs: _Needs) -> bool:
        return bool(
            (self.companies or self.over or not needs.company)
            and (self.year is not None or not needs.year)
            and (self.measures or not needs.measure)
        )


def _over_every_company(text: str, company_set: Callable[[], bool], ranked: bool) -> str | None:
    """ "all companies" ("all miners" when `text` asked among them; and "highest" or
    "lowest" when it ranked them and its measure is `ranked`, carried) when an earlier
    question was over every company and `company_set()` says a follow-up is too."""
    if not asks_over_all_companies(text) or not company_set():
        return None
    over = "all miners" if among_miners(text) else "all companies"
    most = superlative(text) if ranked else None
    return f"{over}, {most}" if most else over
