"""Coverage post-check: every requested-but-missing figure has its exact line, or its row
in the comparison's table saying so (`domain.checks.tables`)."""

from domain.checks.tables import said
from domain.companies.roster import display_name
from domain.models import CheckedFigure, Derived, NotFound, Slots
from domain.questions.intent import superlative
from domain.questions.metrics import metric_display


def ensure_gap_lines(answer: str, gaps: list[NotFound]) -> tuple[str, list[str]]:
    """Append the "data not found" line of each gap the answer does not say (by its line or
    its table row); return (answer, lines that were added)."""
    added = [gap.line() for gap in gaps if not said(gap, answer)]
    if not added:
        return answer, []
    return (answer.rstrip() + "\n" + "\n".join(added)).strip(), added


def company_status(requested: list[str], surviving_companies: set[str]) -> dict[str, bool]:
    """Rebuild found-flags from graded survivors: found means relevant evidence survived."""
    return {ticker: ticker in surviving_companies for ticker in requested}


def gaps_to_retry(
    draft_gaps: list[NotFound] | None,
    coverage: dict[str, bool],
    slots: Slots,
    default_year: int,
) -> list[NotFound]:
    """The gaps a retry targets: the draft's own, or, with no draft, derived.

    Without a draft the gaps are unknown: every requested metric (in every requested
    year, else `default_year`) of a company with no surviving evidence counts as one, so
    that company's retry can add metric synonyms.
    """
    if draft_gaps is not None:
        return draft_gaps
    return [
        NotFound(company=company, fiscal_year=year, metric=metric)
        for company, found in coverage.items()
        if not found
        for metric in slots.metrics
        for year in slots.fiscal_years or [default_year]
    ]


def asked_items(companies: list[str], slots: Slots, question: str = "") -> list[NotFound]:
    """The (company, year, metric) items a question asks for, as `unanswered` counts
    them: a figure or a comparison naming its years and vocabulary metrics; none for any
    other question (a change, a trend, a superlative, what the reports say)."""
    if slots.intent not in ("lookup", "compare") or not (slots.fiscal_years and slots.metrics):
        return []
    if question and superlative(question):
        return []
    return [
        NotFound(company=company, fiscal_year=year, metric=metric_display(metric))
        for company in companies
        for year in slots.fiscal_years
        for metric in slots.metrics
    ]


def items_missing(asked: list[NotFound], gaps: list[NotFound], removed: list[str]) -> int:
    """How many asked items the answer does not give: a not-found line names it, or its
    figure was refuted and taken out (its removal line, not a not-found line, says so)."""
    missing = {g.label().lower() for g in gaps} | {label.lower() for label in removed}
    return sum(a.label().lower() in missing for a in asked)


def unanswered(
    companies: list[str],
    slots: Slots,
    verified: list[CheckedFigure],
    derived: list[Derived],
    question: str = "",
) -> list[NotFound]:
    """The asked (company, year, metric) items no backed figure of the answer gives.

    Coverage from what the question asks and what the numeric check found backed, never
    from the draft's own not-found list: a draft that gives FY2024 for "FY2023 and
    FY2024" misses FY2023, whatever it lists. Only what the question names is counted —
    its vocabulary metrics in the years it names, for a figure or a comparison: a change
    or a trend (its years are a range), a superlative (one company answers it), a
    question naming no year, or one asking what the reports say is left to the relevance
    control. A backed figure of the company and year whose metric is outside the
    vocabulary counts only when one metric is asked; a recomputed figure counts when its
    label names the company, the year and the metric.
    """
    # long: one pass over the asked items; each case of 'backed' beside the next.
    if not asked_items(companies, slots, question):
        return []

    def given(company: str, year: int, metric: str) -> bool:
        loose = len(slots.metrics) == 1
        if any(
            f.company == company
            and f.fiscal_year == year
            and (f.metric == metric or (loose and f.metric is None))
            for f in verified
        ):
            return True
        name = metric_display(metric).lower()
        # Labels name the company (older turns' labels, its ticker).
        whose = (company, display_name(company))
        return any(
            any(w in d.label for w in whose) and f"FY{year}" in d.label and name in d.label.lower()
            for d in derived
        )

    return [
        NotFound(company=company, fiscal_year=year, metric=metric_display(metric))
        for company in companies
        for year in slots.fiscal_years
        for metric in slots.metrics
        if not given(company, year, metric)
    ]
