"""How the offline engine routes a question, by rules: a question about the assistant, one
that names a covered company, a measure across every company, one that needs a company
named first, or one out of scope. The reason of each decision names the rule that fired."""

import re

from activities.contracts import RouteDecision
from domain.companies.replies import clarifying_question, direct_answer
from domain.questions.intent import asks_over_all_companies, companies_asked
from domain.questions.measures import asks_topic, open_parts
from domain.questions.metrics import read_metric_words
from domain.questions.question import extract_slots
from domain.reports.passages import asks_who

_ABOUT_ME = re.compile(
    r"\b(?:what\s+can\s+you\s+(?:do|answer|tell)|what\s+do\s+you\s+(?:do|know|cover)|"
    r"(?:which|what)\s+(?:companies|miners|years|reports|data|topics|metrics)\s+"
    r"(?:do|can|are)\s+you|who\s+are\s+you|what\s+are\s+you|how\s+do\s+you\s+work|"
    r"what\s+can\s+i\s+ask|what\s+is\s+this|help)\b",
    re.IGNORECASE,
)
_REFERS_TO_COMPANY = re.compile(
    r"\b(?:this|that|the|said|same)\s+(?:company|companies|miner|firm|business|group)\b|"
    r"\b(?:it|its|it's|they|their|theirs|them)\b",
    re.IGNORECASE,
)
_FINANCE_WORDS = re.compile(
    r"\b(?:results?|financ\w*|performance|perform(?:ed)?|earn(?:ed)?|money|figures?|numbers?|"
    r"reports?|annual|fiscal|FY\s?\d{2,4}|quarter\w*|half[\s-]year|balance\s+sheet|cash\s*flow|"
    r"cash|margins?|costs?|prices?|shares?|shareholders?|valuation|market\s+cap\w*|how\s+much|"
    r"how\s+did|doing)\b",
    re.IGNORECASE,
)


def route(question: str) -> RouteDecision:
    """Route by rules: the reason names the rule that fired.

    Metric words are read through `read_metric_words` first, so a typo ("revnue",
    "net dett") or an informal phrasing ("how much did BHP owe") does not lose the
    metric. Only here, in the step: the workflow's own rules (scope, carry-forward)
    read the question as written, so turns already in flight replay unchanged."""
    # long: one rule per route, tried in order; the reason names the rule that fired.
    slots = extract_slots(read_metric_words(question))
    if (
        slots.companies
        and slots.intent != "narrative"
        and not (slots.metrics or slots.other_measures)
        and (asks_topic(read_metric_words(question)) or asks_who(question))
    ):
        # Nothing asks for a quantity: the answer is what the reports say about it.
        slots = slots.model_copy(update={"intent": "narrative", "metrics": []})
    if not slots.companies and not slots.metrics and _ABOUT_ME.search(question):
        return RouteDecision(
            route="direct_answer",
            reason="question about the assistant itself",
            slots=slots,
            direct_answer=direct_answer(),
        )
    if slots.companies and (every := companies_asked(slots.companies, question)) != slots.companies:
        # One company's part of a total over several: every one of them is searched.
        return RouteDecision(
            route="needs_retrieval",
            reason="a company's share of a total over every company: search them all",
            slots=slots.model_copy(update={"companies": every}),
        )
    if slots.companies:
        return RouteDecision(route="needs_retrieval", reason="names a covered company", slots=slots)
    # A measure in the reports' own words counts ("the lowest injury rate among the five").
    measured = bool(slots.metrics or slots.other_measures or open_parts(question))
    over_all = measured and asks_over_all_companies(question)
    if _REFERS_TO_COMPANY.search(question) and not over_all:
        return RouteDecision(
            route="needs_clarification",
            reason="refers to a company without naming one",
            slots=slots,
            clarifying_question=clarifying_question(),
        )
    if slots.intent == "narrative":
        return RouteDecision(
            route="needs_clarification",
            reason="a question about what a report says, without a company",
            slots=slots,
            clarifying_question=clarifying_question(),
        )
    if over_all:
        if miners := companies_asked([], question):
            return RouteDecision(
                route="needs_retrieval",
                reason="a measure across the miners: search the companies that mine",
                slots=slots.model_copy(update={"companies": miners}),
            )
        return RouteDecision(
            route="needs_retrieval",
            reason="a measure across every company: search all five",
            slots=slots,
        )
    if slots.metrics or slots.other_measures:
        return RouteDecision(
            route="needs_clarification",
            reason="a measure without a company, and none to carry",
            slots=slots,
            clarifying_question=clarifying_question(),
        )
    if _FINANCE_WORDS.search(question) or slots.fiscal_years:
        return RouteDecision(
            route="needs_clarification",
            reason="financial question with neither company nor metric",
            slots=slots,
            clarifying_question=clarifying_question(),
        )
    return RouteDecision(
        route="out_of_scope",
        reason="no covered company, metric or financial topic",
        slots=slots,
    )
