"""The final gate and the diagnostic fallback: the floor under every answer.

Dependency-free and deterministic on purpose: it cannot fail, so it fails closed by
construction. Every path that produces answer text passes through `final_gate`.
"""

from collections.abc import Mapping

from domain.companies.roster import companies, company_names, latest_fiscal_year, year_span

MIN_ANSWER_CHARS = 10

NOTHING_RELEVANT = "nothing_relevant"
NO_ANSWER_COMPOSED = "no_answer_composed"
CLARIFICATION_EXHAUSTED = "clarification_exhausted"
CONVERSATION_CLARIFICATIONS_SPENT = "conversation_clarifications_spent"
"""The conversation has asked its cap of clarifying questions: the turn does not ask."""
INTERNAL_ERROR = "internal_error"
UNVERIFIED = "unverified"
"""Every figure the draft gave was refuted and taken out (`workflows/rules/refuted.py`)."""
MODEL_TIMEOUT = "model_timeout"
"""The model provider did not answer before the turn's budget was spent."""
JUDGE_UNAVAILABLE = "judge_unavailable"
"""The judge was down and the deployment fails it closed (TURNSTILE_JUDGE_POLICY)."""
NUMBERS_UNCHECKED = "numbers_unchecked"
"""The numeric check could not run on the draft: no unchecked figure is shown."""
CLASSIFIER_UNAVAILABLE = "classifier_unavailable"
"""The route classifier was down and the deployment fails it closed
(TURNSTILE_CLASSIFIER_POLICY)."""


def example_questions() -> tuple[str, ...]:
    """Two questions the covered reports answer, from the coverage itself: the first
    company's revenue in the latest year, and the first two compared (none before any
    report is ingested). Revenue, since every annual report prints it."""
    covered = list(companies().values())
    latest = latest_fiscal_year()
    if not covered or latest is None:
        return ()
    first = covered[0]
    asked = [f"What was {first.name}'s revenue in FY{first.fiscal_years[-1]}?"]
    if len(covered) > 1:
        asked.append(f"Compare {first.name} and {covered[1].name} revenue in FY{latest}.")
    return tuple(asked)


def final_gate(answer: str | None) -> bool:
    """Pass only text that is present and at least 10 characters after stripping."""
    return answer is not None and len(answer.strip()) >= MIN_ANSWER_CHARS


_HEADS = {
    NO_ANSWER_COMPOSED: (
        "I found report passages for this question but could not compose an answer "
        "I can check against them."
    ),
    CLARIFICATION_EXHAUSTED: (
        "I still could not tell which company or figure you mean after two questions."
    ),
    CONVERSATION_CLARIFICATIONS_SPENT: (
        "I could not tell which company or figure you mean, and this conversation has had"
        " all the clarifying questions I ask in one: please ask again naming the company"
        " and the year."
    ),
    UNVERIFIED: (
        "The figures I drafted for this question could not be verified against the "
        "reports, so none is shown."
    ),
    MODEL_TIMEOUT: (
        "The model provider did not answer in time, so no answer was composed. "
        "Please ask again in a moment."
    ),
    JUDGE_UNAVAILABLE: (
        "I drafted an answer from the report passages, but the independent check every "
        "answer must pass here could not run just now, so it is not shown. Please ask "
        "again in a moment."
    ),
    NUMBERS_UNCHECKED: (
        "I drafted an answer from the report passages, but the check of its figures "
        "against the reports could not run just now, so it is not shown. Please ask "
        "again in a moment."
    ),
    CLASSIFIER_UNAVAILABLE: (
        "I could not check what kind of question this is just now, so nothing was "
        "looked up. Please ask again in a moment."
    ),
    INTERNAL_ERROR: "Something went wrong while answering this question, so no answer was given.",
}
"""The fallback's first sentence, by reason; any other reason is `NOTHING_RELEVANT`'s."""


def fallback_answer(reason: str, coverage: Mapping[str, bool]) -> str:
    """Say which failure happened, what is covered, and give two example questions."""
    head = _HEADS.get(reason, "I found nothing relevant in the reports for this question.")
    if coverage:
        found = ", ".join(t for t, ok in coverage.items() if ok) or "none"
        missing = ", ".join(t for t, ok in coverage.items() if not ok) or "none"
        head += f" Evidence found for: {found}; not found for: {missing}."
    # What the reports cover is said from the coverage (companies and years), not from a
    # list of measures: any measure a report prints can be asked for.
    text = f"{head} I cover {company_names()}, {year_span()}."
    if examples := " ".join(f'"{q}"' for q in example_questions()):
        text += f" You could ask: {examples}"
    return text
