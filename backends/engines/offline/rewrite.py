"""How the offline engine turns a question into searches: one sub-query per company, with
the question's metrics in the reports' wordings, its topic words and its fiscal years;
an analyst's question searches its line items and statements, each as a facet."""

from activities.contracts import MAX_FACETS, RewritePlan
from backends.engines.offline import analyst
from domain.companies.roster import companies, display_name
from domain.models import Slots, SubQuery
from domain.questions.analyst import AnalystQuestion
from domain.questions.answer_scope import answer_years, requested_metrics
from domain.questions.measures import ACRONYM, open_parts, search_words, written_acronyms
from domain.questions.metrics import LINE_ITEM_OF, METRICS, metric_display
from domain.questions.years import later_report_years
from domain.reports.passages import asks_who, role_asked, topic_terms


def rewrite(question: str, slots: Slots) -> RewritePlan:
    """One sub-query per company: name, metric names and report wordings, FY tokens
    (an analyst's question: its line items and statements)."""
    asked = analyst.analyst_question(question)
    if asked is None:
        return _plain_rewrite(question, slots)
    plan = _analyst_rewrite(asked, question, slots)
    if not asked.why:
        return plan
    # What moved a ratio: the passages that say so, the statements' lines besides
    # (to say whether the statements give the ratio at all).
    plain = _plain_rewrite(question, slots)
    return RewritePlan(
        sub_queries=[
            p.model_copy(update={"facets": [a.query, *a.facets][:MAX_FACETS]})
            for p, a in zip(plain.sub_queries, plan.sub_queries, strict=True)
        ]
    )


def _plain_rewrite(question: str, slots: Slots) -> RewritePlan:
    """A question asked plainly: its measures in the reports' words, its topic words."""
    # long: one sub-query per company built field by field.
    metrics = requested_metrics(slots, question)
    years = answer_years(slots, question)
    terms: list[str] = list(slots.other_measures)
    if slots.intent != "narrative":  # a measure in the reports' words: those words
        for part in open_parts(question):
            for word in search_words(part):
                if word.lower() not in (t.lower() for t in terms):
                    terms.append(word)
    # A line item's total is searched for too: when the report has no row for the
    # item, the answer labels the total as the nearest figure available.
    parents = [LINE_ITEM_OF[m] for m in metrics if m in LINE_ITEM_OF]
    for metric in [*metrics, *parents]:
        info = METRICS.get(metric)
        for term in (metric_display(metric), *(info.report_terms if info else ())):
            if term.lower() not in (t.lower() for t in terms):
                terms.append(term)
    if slots.intent == "narrative":  # the question's own topic words find the passage
        terms = list(dict.fromkeys([*topic_terms(question), *terms]))
        if role := role_asked(question):
            # Who holds it: the board's listing, where a report heads a line with it.
            terms.append(f"{role} board of directors" if asks_who(question) else f"{role}'s letter")
    # An acronym asked ("AIFR") is searched as one (in capitals), so a report that
    # spells it out ("all-injury frequency rate") is found by its label's initials.
    terms += [a.removeprefix(ACRONYM).upper() for a in sorted(written_acronyms(question))]
    fy_tokens = [f"FY{y}" for y in years]
    if slots.intent == "narrative" and not slots.fiscal_years:
        # No year asked: the filter already spans every year, and three year tokens
        # in the text pull each year's figure tables above the passage that answers.
        fy_tokens = []
    later = later_report_years(slots, years, len(slots.companies))
    sub_queries = []
    for ticker in slots.companies or list(companies()):
        query = " ".join([display_name(ticker), *terms, *fy_tokens])
        sub_queries.append(
            SubQuery(
                company=ticker,
                query=query,
                fiscal_years=years,
                metrics=metrics,
                later_years=later,
            )
        )
    return RewritePlan(sub_queries=sub_queries)


def _analyst_rewrite(asked: AnalystQuestion, question: str, slots: Slots) -> RewritePlan:
    """An analyst's question: its line items and statements searched, each as a facet."""
    words = analyst.search_terms(asked)
    facets = analyst.search_facets(asked)[:MAX_FACETS]
    queries = []
    for ticker in slots.companies or list(companies()):
        years = (
            analyst.search_years(asked)
            or analyst.latest_years(asked, companies()[ticker].fiscal_years)
            or answer_years(slots, question)
        )
        fys = [f"FY{y}" for y in years]
        queries.append(
            SubQuery(
                company=ticker,
                query=" ".join([display_name(ticker), *words, *fys]),
                fiscal_years=years,
                metrics=[],
                facets=[" ".join([display_name(ticker), *f, *fys]) for f in facets],
            )
        )
    return RewritePlan(sub_queries=queries)
