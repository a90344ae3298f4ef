"""Read a question into structured slots: its companies, covered fiscal years, metrics,
other measures and intent.

The concerns live in their own modules — the metric vocabulary
(`domain/questions/metrics.py`), years and coverage (`domain/questions/years.py`), intent
(`domain/questions/intent.py`), asked scale and currency (`domain/language/units.py`); this
module composes them for the router, the engines and memory.
"""

from domain.companies.roster import find_companies
from domain.models import Slots
from domain.questions.intent import asks_narrative, find_intent
from domain.questions.metrics import find_metrics, find_other_measures
from domain.questions.years import find_fiscal_years


def extract_slots(text: str) -> Slots:
    """Extract companies, covered fiscal years, metrics and intent from a question."""
    companies = find_companies(text)
    metrics = find_metrics(text, commodity_means_production=not asks_narrative(text))
    other = find_other_measures(text)
    return Slots(
        companies=companies,
        fiscal_years=find_fiscal_years(text),
        metrics=metrics,
        other_measures=other,
        intent=find_intent(text, companies, metrics, tuple(other)),
    )


def asks_figures(slots: Slots) -> bool:
    """Whether a question asks for figures: a measure, and not what the reports say."""
    return slots.intent != "narrative" and bool(slots.metrics or slots.other_measures)
