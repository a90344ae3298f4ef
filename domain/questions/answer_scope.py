"""What an answer to a question covers: the metrics of the vocabulary it gives and the
fiscal years it spans.

Both engines read them: the offline engine to search and to answer, the model engine to
plan its sub-queries and to tell the model which figures and years to give.
"""

from domain.companies.roster import fiscal_years, latest_fiscal_year
from domain.models import Slots
from domain.questions.intent import asks_change
from domain.questions.measures import asks_overview, focus_parts
from domain.questions.metrics import HEADLINE_METRICS


def requested_metrics(slots: Slots, question: str = "") -> list[str]:
    """The metrics of the vocabulary an answer gives: those asked for; the headline
    figures only when the question asks how a company did overall ("results", "how did
    X do": `asks_overview`), never in place of a measure it names in other words."""
    if slots.metrics or slots.other_measures or slots.intent == "narrative":
        return list(slots.metrics)
    if question and not asks_overview(question):
        # A metric its words name only once read ("make money" is a profit)
        return list(dict.fromkeys(m for p in focus_parts(question) for m in p.metrics))
    return list(HEADLINE_METRICS)


def explains_a_change(slots: Slots, question: str) -> bool:
    """A narrative question about a figure that moved ("why did EBITDA fall?")."""
    return slots.intent == "narrative" and bool(slots.metrics) and asks_change(question)


def answer_years(slots: Slots, question: str = "") -> list[int]:
    """The fiscal years an answer covers.

    No year given: the latest year for an overview (no metric named), otherwise all
    three. A change asked about one year ("did revenue rise in FY2024?") also needs the
    year before it.
    """
    if not slots.fiscal_years:
        if slots.intent == "narrative":
            return list(fiscal_years())
        overview = slots.intent == "overview" or not (slots.metrics or slots.other_measures)
        if question and overview:
            overview = asks_overview(question)  # a measure in other words: every year
        latest = latest_fiscal_year()
        if overview:
            return [latest] if latest is not None else []
        return list(fiscal_years())
    years = sorted(set(slots.fiscal_years))
    # "Why did EBITDA fall in FY2025?" shows the change it explains: the year before too;
    # "revenue in FY2024 and what did the chair say?" asks for no change, so gets none.
    changes = slots.intent == "change" or explains_a_change(slots, question)
    if changes and len(years) == 1 and years[0] - 1 in fiscal_years():
        return [years[0] - 1, years[0]]
    return years
