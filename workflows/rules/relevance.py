"""The relevance control's part of the final gate: what an answer that misses its question
may be shown as.

Deterministic and dependency-free, like the rest of the gate. The relevance report
(`grounding_check_relevance`, computed from the question, the answer and its cited
evidence, never from the draft's own gap list) says, for each measure or topic asked,
whether the answer answers it, says it is not in the reports, or misses it:

- a missed item gets its exact "data not found" line, per company and year asked (the
  coverage the question asked for, not the draft's) — unless the question asks about a
  topic, not a figure: there is no figure to be missing, and the answer says the reports
  do not say it in so many words;
- an answer that answers nothing it was asked (only not-found lines, a closest figure,
  or another measure's figures) is shown as the closest available, confidence low;
- one that answers some items and misses others is at most medium (the missing
  figures cap it, as `shape_answer` does);
- one that quotes the reports for a question asking why, none of whose sentences gives a
  cause, opens by saying no passage found gives a reason (the search may have missed
  one), confidence low.
"""

from dataclasses import dataclass

from domain.models import NotFound, Relevance

OFF_POINT_LEAD = (
    "The reports do not give what this question asks for; this is the closest they give:"
)
TOPIC_LEAD = "The reports do not say this in so many words; this is the closest they say:"
WHY_LEAD = "No passage I found gives a reason for this; what the reports say about it:"
UNCHECKED_WARNING = "The answer could not be checked against the question."


def missing_warning(items: list[str]) -> str:
    return f"The answer does not cover: {'; '.join(items)}."


@dataclass(frozen=True)
class RelevanceVerdict:
    lead: str | None = None
    """A line the answer opens with (an answer about something else says so first)."""
    warning: str | None = None
    low: bool = False
    """Confidence is low whatever else the checks found."""
    gaps: tuple[NotFound, ...] = ()
    """Not-found lines for the items the answer misses."""


def relevance_verdict(
    relevance: Relevance | None, companies: list[str], years: list[int], checked: bool = True
) -> RelevanceVerdict:
    """What the gate does with an answer's relevance report (see the module docstring).

    `checked` False: the control could not run (fail-closed): confidence low, said so.
    """
    if not checked:
        return RelevanceVerdict(warning=UNCHECKED_WARNING, low=True)
    if relevance is None or not relevance.items:
        return RelevanceVerdict()
    missing = relevance.missing()
    answered = sum(1 for i in relevance.items if i.status == "answered")
    # An item of one company (a company a comparison never names) gets its line for that
    # company only; any other missed item, for every company asked.
    gaps = tuple(
        NotFound(company=company, fiscal_year=year, metric=item.focus)
        for item in ([] if relevance.topic else relevance.items)
        if item.status == "missing"
        for company in ([item.company] if item.company else companies)
        for year in years
    )
    lead = TOPIC_LEAD if relevance.topic else OFF_POINT_LEAD
    if relevance.unexplained:
        # A reason asked that no quoted sentence gives: said first, whatever was quoted.
        return RelevanceVerdict(
            lead=WHY_LEAD,
            warning=missing_warning(missing) if missing else None,
            low=True,
            gaps=gaps,
        )
    return RelevanceVerdict(
        lead=lead if relevance.off_point else None,
        warning=missing_warning(missing) if missing else None,
        low=answered == 0,
        gaps=gaps,
    )
