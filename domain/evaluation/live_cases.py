"""From a live turn that went wrong to a regression case a reviewer confirms. Pure.

A turn a reader rated "wrong figure", or a probe turn that failed, becomes a draft case
(`draft_case`): its question and the conversation's earlier questions, the status it
should have, the figures the reports give for what it asks (from the facts read at
ingestion: company, period, label, value, unit, page), the report pages to cite, and
every figure it showed that the reports contradict as one it must not show. What was
shown is never taken as the truth: a figure the turn showed is expected only when a fact
of the same company, year and measure agrees with it.

A figure written in words ("fifty-three point eight billion US dollars") is read as one
in digits is, by the numeric check's own reader (`domain/checks/numeric.py`,
`claimed_amounts`). The draft is marked unconfirmed; what it could not decide is listed
in its notes for the reviewer.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import Field

from domain.companies.roster import find_companies
from domain.evaluation.scoring import (
    DRAFTS,
    CaseOrigin,
    EvalCase,
    ExpectedCite,
    TurnExpected,
    TurnStatusExpected,
)
from domain.language.amounts import Amount, claimed_amounts, unit_after
from domain.language.sentences import split_sentences
from domain.models import Frozen
from domain.questions.metrics import find_metrics, metric_display
from domain.questions.years import find_fiscal_years
from domain.reports.binding import bind_amounts
from domain.reports.figures import UNITS, Fact
from domain.turns import TurnResult

CandidateKind = Literal["wrong_figure", "probe"]


class CaseCandidate(Frozen):
    """A turn worth turning into a regression case, and why."""

    turn_id: str
    kind: CandidateKind
    why: str
    """"rated wrong figure by ana: …", "probe single_figure/bhp-rev failed: …"."""
    question: str
    tenant_id: str
    at: datetime


class CaseCandidates(Frozen):
    candidates: list[CaseCandidate] = Field(default_factory=list)


@dataclass(frozen=True)
class Shown:
    """A figure as the turn showed it, and what it is stated for."""

    text: str
    """As written: "55,685", "fifty-three point eight billion"."""
    base: float
    """In the base of its kind (millions of a currency, cents, Mt, koz, %)."""
    tolerance: float
    """How far from `base` a fact may be and still agree (the rounding shown)."""
    kind: str
    company: str | None
    year: int | None
    metric: str | None


_MARKER = re.compile(r"\[[\d,;\s–-]+\]")
_NOT_FOUND_LINE = re.compile(r"data not found in provided documents", re.IGNORECASE)

# ---- what the turn showed -------------------------------------------------------------


@dataclass(frozen=True)
class Asked:
    companies: list[str]
    years: list[int]
    metrics: list[str]

    @staticmethod
    def of(turn: TurnResult) -> "Asked":
        question = turn.resolved_question or turn.question
        return Asked(
            find_companies(question) or sorted(turn.coverage),
            find_fiscal_years(question),
            find_metrics(question, commodity_means_production=False),
        )

    def one(self, found: Sequence[str | int], mine: list[str] | list[int]) -> str | int | None:
        """The sentence's own mention, else the question's when it names exactly one."""
        if len(found) == 1:
            return found[0]
        return mine[0] if not found and len(mine) == 1 else None


def shown_figures(answer: str, asked: Asked) -> list[Shown]:
    """Every amount the answer states, in digits or in words, bound to the company, year
    and measure it is stated for (the question's, when the sentence names none)."""
    shown: list[Shown] = []
    for sentence in split_sentences(answer):
        if _NOT_FOUND_LINE.search(sentence):
            continue
        text = _MARKER.sub(lambda m: " " * len(m.group(0)), sentence)
        amounts = claimed_amounts(text)
        for amount, binding in zip(amounts, bind_amounts(text, amounts), strict=True):
            factor = amount.factor if amount.factor is not None else 1.0
            shown.append(
                Shown(
                    text=_as_written(text, amount),
                    base=amount.value * factor,
                    tolerance=0.5 * amount.step * factor,
                    kind=amount.kind,
                    company=binding.company or _str(asked.one([], asked.companies)),
                    year=(
                        binding.years[0]
                        if len(binding.years) == 1
                        else _int(asked.one([], asked.years))
                    ),
                    metric=binding.metric or _str(asked.one([], asked.metrics)),
                )
            )
    return shown


_SCALE_WORD = re.compile(r"^\s*(?:thousand|million|billion|trillion)\b", re.IGNORECASE)


def _as_written(text: str, amount: Amount) -> str:
    """The figure as the answer writes it: its digits ("55,685"), or its words with the
    scale word after them ("fifty-three point eight billion")."""
    written = text[amount.start : amount.end]
    if not amount.words:
        return re.sub(r"[^\d.,]", "", written).strip(".,") or written
    unit = unit_after(text[amount.end :])
    if unit is not None and _SCALE_WORD.match(unit.group(0)):
        written += unit.group(0)
    return written


def _str(value: str | int | None) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: str | int | None) -> int | None:
    return value if isinstance(value, int) else None


# ---- what the reports say -------------------------------------------------------------


def _fact_base(fact: Fact) -> tuple[float, str] | None:
    unit = UNITS.get(fact.unit)
    if unit is None:
        return None
    return fact.value * unit.factor, unit.kind


def agrees(shown: Shown, fact: Fact) -> bool:
    """Whether a fact gives the figure shown (its value within the rounding shown)."""
    base = _fact_base(fact)
    if base is None:
        return abs(fact.value - shown.base) <= shown.tolerance
    value, kind = base
    if shown.kind not in ("bare", kind) and not (kind == "per_share" and shown.kind == "money"):
        return False
    return abs(value - shown.base) <= shown.tolerance + 1e-9 * max(1.0, abs(value))


def facts_for(facts: Sequence[Fact], company: str, year: int, metric: str) -> list[Fact]:
    """The facts of a company's measure for one year, the year's own report first."""
    found = [
        f for f in facts if f.company == company and f.fiscal_year == year and f.metric == metric
    ]
    return sorted(
        found, key=lambda f: (f.report_fiscal_year != year, f.restated, f.source != "table", f.page)
    )


def printed(fact: Fact) -> str:
    """The figure as the report prints it, digits only ("55,658" of "US$55,658 million")."""
    match = re.search(r"\d[\d,]*(?:\.\d+)?", fact.raw)
    return match.group(0) if match else fact.raw


def cite_for(fact: Fact, facts: Sequence[Fact]) -> ExpectedCite:
    """The report page(s) where the fact's figure is printed."""
    pages = sorted(
        {
            f.page
            for f in facts
            if f.company == fact.company
            and f.report_fiscal_year == fact.report_fiscal_year
            and f.fiscal_year == fact.fiscal_year
            and f.metric == fact.metric
            and abs(f.value - fact.value) < 1e-9
        }
    )
    return ExpectedCite(company=fact.company, fiscal_year=fact.report_fiscal_year, pages=pages)


# ---- the draft --------------------------------------------------------------------------


@dataclass
class _Draft:
    present: list[str]
    absent: list[str]
    cites: list[ExpectedCite]
    notes: list[str]

    def expect(self, fact: Fact, facts: Sequence[Fact]) -> None:
        figure = printed(fact)
        if figure not in self.present:
            self.present.append(figure)
        cite = cite_for(fact, facts)
        if cite not in self.cites:
            self.cites.append(cite)


def _subject(company: str, year: int, metric: str) -> str:
    return f"{company} FY{year} {metric_display(metric)}"


def _judge_shown(
    shown: list[Shown], facts: Sequence[Fact], draft: _Draft
) -> set[tuple[str, int, str]]:
    """Each figure shown, against the facts of what it is stated for: agreeing, it is
    expected; contradicted, the reports' figure is expected and the shown one must not
    be shown. Returns the (company, year, metric) it settled."""
    settled: set[tuple[str, int, str]] = set()
    for figure in shown:
        if figure.company is None or figure.year is None or figure.metric is None:
            draft.notes.append(
                f"{figure.text!r} was shown, but what it is stated for could"
                " not be told: check it by hand"
            )
            continue
        key = (figure.company, figure.year, figure.metric)
        reports = facts_for(facts, *key)
        if not reports:
            draft.notes.append(
                f"{figure.text!r} was shown for {_subject(*key)}, which no"
                " fact of the reports gives: check it by hand"
            )
            continue
        settled.add(key)
        if any(agrees(figure, f) for f in reports):
            draft.expect(next(f for f in reports if agrees(figure, f)), facts)
            continue
        if figure.text not in draft.absent:
            draft.absent.append(figure.text)
        draft.expect(reports[0], facts)
        draft.notes.append(
            f"{figure.text!r} was shown for {_subject(*key)}; the reports give"
            f" {reports[0].raw} ({reports[0].document}, p.{reports[0].page})"
        )
    return settled


def _expect_asked(
    asked: Asked, facts: Sequence[Fact], settled: set[tuple[str, int, str]], draft: _Draft
) -> None:
    """The reports' figure of each (company, year, measure) the question asks for that no
    figure shown settled already (every year when it names none)."""
    for company in asked.companies:
        for metric in asked.metrics:
            years = asked.years or sorted(
                {f.fiscal_year for f in facts if f.company == company and f.metric == metric}
            )
            for year in years:
                if (company, year, metric) in settled:
                    continue
                reports = facts_for(facts, company, year, metric)
                if reports:
                    draft.expect(reports[0], facts)
                else:
                    subject = _subject(company, year, metric)
                    draft.notes.append(
                        f"no fact of the reports gives {subject}: say what the"
                        " answer must do about it"
                    )
    if not asked.metrics:
        draft.notes.append(
            "the question names no measure the vocabulary knows: check the figures by hand"
        )


def _status(turn: TurnResult, draft: _Draft, wrong_figure: bool) -> TurnStatusExpected:
    if draft.present:
        return "answered"
    if turn.status in ("answered", "refused", "needs_clarification", "fallback"):
        status: TurnStatusExpected = turn.status
    elif turn.status == "expired" and turn.clarifying_question:
        status = "needs_clarification"
    else:
        status = "answered"
    if wrong_figure:
        draft.notes.append(
            "rated wrong figure, but no figure of the reports was found for"
            " what it asks: write the figures it must show"
        )
        return "answered"
    draft.notes.append(f"the status expected is the turn's own ({turn.status}): confirm it")
    return status


def draft_case(
    turn: TurnResult,
    before: list[str],
    facts: Sequence[Fact],
    why: list[str],
    wrong_figure: bool,
    corpus_version: str | None = None,
) -> EvalCase:
    """A regression case from a settled turn, unconfirmed (see the module docstring).

    `before` is the conversation's earlier questions as asked; `facts` the reports'
    facts of the companies and years the turn is about; `why` the reasons it is a
    candidate; `wrong_figure` whether a reader said a figure shown is wrong."""
    # long: one case drafted field by field from a turn, each field named.
    asked = Asked.of(turn)
    draft = _Draft([], [], [], [])
    settled = _judge_shown(shown_figures(turn.answer or "", asked), facts, draft)
    _expect_asked(asked, facts, settled, draft)
    status = _status(turn, draft, wrong_figure)
    expected = TurnExpected(
        status=status, present=draft.present, absent=draft.absent, cites=draft.cites
    )
    reason = (
        "a figure the reports contradict was shown"
        if draft.absent
        else ("a reader said a figure was wrong" if wrong_figure else "a golden probe failed")
    )
    return EvalCase(
        suite=DRAFTS,
        id=f"live-{turn.turn_id}",
        query=turn.question,
        expected=expected,
        why_it_matters=f"{reason} (turn {turn.turn_id})",
        before=before,
        tags=["live", "wrong_figure" if wrong_figure else "probe"],
        confirmed=False,
        origin=CaseOrigin(
            turn_id=turn.turn_id,
            why=why,
            status=turn.status,
            shown=turn.answer or turn.clarifying_question or "",
            notes=draft.notes,
            corpus_version=corpus_version,
        ),
    )
