"""The offline engine: deterministic implementations of every model-backed step.

No keys, no network, no I/O. It is a real engine for structured financial questions:
it routes with rules, decomposes a question into one sub-query per company, grades
evidence lexically, and composes answers ONLY from the figures in the source chunks'
tables (prose as a fallback), computing growth and differences itself and listing them
as derived with their formulas. Its judge is the numeric grounding check, which sees the
answer and the sources and nothing the synthesiser knew.
"""

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from activities.contracts import (
    MAX_FACETS,
    AnswerGrade,
    DocumentGrades,
    RewritePlan,
    RouteDecision,
)
from backends.embeddings import Embedder, similarity_of
from backends.engines import offline_analyst as analyst
from domain.checks.numeric import check_numbers
from domain.checks.tables import NOT_FOUND_CELL, said_in_table
from domain.companies.replies import clarifying_question, direct_answer
from domain.companies.roster import (
    calendar_note,
    companies,
    coverage,
    display_name,
    find_companies,
)
from domain.language.amounts import find_amounts
from domain.language.calendar import months_said_before, quarter_dated, quarter_of_year, whole_years
from domain.language.sentences import split_sentences
from domain.language.units import QUANTITIES, by_sign, requested_currency, requested_scale
from domain.memory.rules import MemoryNote, merge_summary
from domain.models import ChunkText, Derived, Draft, NotFound, Slots, SubQuery
from domain.questions.analyst import AnalystQuestion
from domain.questions.answer_scope import answer_years, explains_a_change, requested_metrics
from domain.questions.choices import Choice, read_choice
from domain.questions.intent import (
    asks_change,
    asks_narrative,
    asks_over_all_companies,
    asks_share_of_total,
    commodities_named,
    companies_asked,
    companies_over,
    superlative,
    than_asked,
)
from domain.questions.measures import (
    ACRONYM,
    Focus,
    asks_topic,
    narrowed_metrics,
    open_parts,
    read_focus,
    related,
    search_words,
    terms,
    written_acronyms,
)
from domain.questions.metrics import (
    DIVIDEND_COMPONENT,
    LINE_ITEM_OF,
    METRICS,
    find_metrics,
    find_other_measures,
    metric_display,
    metric_mentions,
    metric_of_row_label,
    read_metric_words,
)
from domain.questions.question import extract_slots
from domain.questions.years import later_report_years, mentioned_years
from domain.reports.facts import report_facts
from domain.reports.figures import (
    UNITS,
    Fact,
    IncompatibleUnits,
    Quantity,
    common_unit,
    extract_facts,
    format_value,
    growth_percent,
    metric_fits_unit,
    rescale,
    to_base,
    unit_in_scale,
    unit_spec,
)
from domain.reports.open_answers import (
    ANSWERS,
    BASIS,
    CLOSE,
    Candidate,
    Similarity,
    best,
    closest,
    derive,
    match,
    moved_in_points,
    phrase,
    shares_most,
    shares_terms,
    single_figure,
    value_text,
    verb,
    without_figures,
)
from domain.reports.passages import (
    RoleHolder,
    asks_who,
    find_passages,
    role_asked,
    role_holder,
    topic_terms,
)

ENGINE_NAME = "offline-1"


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
_BOILERPLATE_SECTION = re.compile(
    r"governance|board|directors|remuneration|sustainab|\besg\b|risk|auditor|audit\s+report",
    re.IGNORECASE,
)
_BOILERPLATE_TOPIC = re.compile(
    r"governance|board|director|remuneration|\bpay\b|salar|incentive|sustainab|\besg\b|"
    r"emission|climate|safety|trif|water|communit|risk|audit",
    re.IGNORECASE,
)
_STOPWORDS = frozenset(
    {
        *("what", "which", "when", "where", "were", "was", "with", "from", "that", "this"),
        *("have", "has", "had", "their", "there", "they", "them", "about", "tell", "show"),
        *("give", "much", "many", "does", "did", "between", "across", "over", "into", "than"),
        *("then", "also", "year", "years", "fiscal", "report", "reports", "annual", "company"),
        *("companies", "figure", "figures", "please", "could", "would", "should", "total"),
        *("group", "limited"),
    }
)
_DISCLAIMER = re.compile(
    r"\b(?:cannot|can't|unable|not\s+able|no\s+(?:data|information|figures?)|not\s+available|"
    r"don't\s+have|do\s+not\s+have|not\s+(?:provided|covered)|sorry|please\s+(?:check|consult))"
    r"\b|data not found in provided documents",
    re.IGNORECASE,
)
_DECISION = re.compile(
    r"\b(?:confirm\w*|decid\w*|prefer\w*|agree\w*|chose|choose|selected|yes|no|only|instead|"
    r"always|never|focus\w*|interested)\b",
    re.IGNORECASE,
)


def _best_per_company(chunks: list[ChunkText], companies: list[str], years: set[int]) -> list[int]:
    """The best-ranked chunk of each company (and year): kept when a question asks only
    for a measure the engine cannot read and no passage speaks to it, so the answer can
    still say plainly, company by company, that the figure is not in the reports."""
    keep: list[int] = []
    seen: set[str] = set()
    for i, chunk in enumerate(chunks):
        if chunk.company in seen or (companies and chunk.company not in companies):
            continue
        if years and chunk.fiscal_year not in years:
            continue
        seen.add(chunk.company)
        keep.append(i)
    return keep


def _than_pair(question: str, asked: list[str]) -> tuple[tuple[str, str], str] | None:
    """((the company talked about, the one named after "than"), "higher" or "lower") for
    a yes-or-no comparison of two companies ("is that more than Rio's?"), else None."""
    read = than_asked(question)
    if read is None or not read[0] or len(asked) != 2:
        return None
    named = [t for t in asked if t in find_companies(read[1])]
    if len(named) != 1:
        return None
    subject = next(t for t in asked if t != named[0])
    return (subject, named[0]), read[0]


def _basis(s: "_Sourced", metric: str) -> tuple[str, str]:
    """What a figure compares and adds on: its unit's base, and for production its own
    label (Pilbara production and Fortescue's shipments are different measures)."""
    label = s.fact.label.lower() if metric == "production" else ""
    return to_base(s.fact.value, s.fact.unit).base, label


def _listed(names: list[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _name(ticker: str) -> str:
    return display_name(ticker)


def _possessive(ticker: str) -> str:
    return f"{_name(ticker)}'s"


def _year_phrase(ticker: str, year: int) -> str:
    company = companies()[ticker]
    kind = "calendar year" if company.calendar_year else "year"
    return f"FY{year} ({kind} ended {company.year_ends} {year})"


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9]{3,}", text.lower()) if w not in _STOPWORDS}


def _unit_for(kind: str, currency: str | None, factor: float) -> str | None:
    for key, unit in UNITS.items():
        if unit.kind == kind and unit.currency == currency and unit.factor == factor:
            return key
    return None


def prose_facts(chunk: ChunkText) -> list[Fact]:
    """Read "<metric> of <amount>" statements from prose, for metrics no table holds.

    Only sentences about the chunk's own fiscal year count: a sentence naming another year
    or the prior year is skipped rather than attributed to the wrong year.
    """
    # long: one reading pass over the sentences; its cases share the sentence's state.
    if chunk.is_table:
        return []
    body = "\n".join(ln for ln in chunk.text.splitlines()[1:] if not ln.startswith("|"))
    facts: list[Fact] = []
    for sentence in split_sentences(body):
        years = set(mentioned_years(sentence))
        if (years and years != {chunk.fiscal_year}) or re.search(
            r"\b(?:prior|previous|last)\s+year\b|\ba\s+year\s+(?:earlier|before|ago)\b",
            sentence,
            re.IGNORECASE,
        ):
            continue
        mentions = metric_mentions(sentence)
        amounts = find_amounts(sentence)
        for n, (start, end, mentioned) in enumerate(mentions):
            limit = mentions[n + 1][0] if n + 1 < len(mentions) else len(sentence)
            # Read the mention with the words just before it, as a row label would read:
            # "the interim dividend of 72 US cents" is a component, not the total.
            previous_end = mentions[n - 1][1] if n else 0
            label = sentence[max(previous_end, start - 25) : end]
            metric = metric_of_row_label(label) or mentioned
            if metric == DIVIDEND_COMPONENT:
                continue
            found = next((a for a in amounts if end <= a.start < limit), None)
            if found is None or found.factor is None:
                continue
            if months_said_before(sentence[: found.start]):
                continue  # a quarter's figure ("2022 Fourth-Quarter ... EPS of $2.35")
            unit = _unit_for(found.kind, found.currency, found.factor)
            if unit is None:
                continue
            if not metric_fits_unit(metric, unit):
                continue
            raw = sentence[found.start : found.end]
            facts.append(
                Fact(
                    chunk_id=chunk.chunk_id,
                    company=chunk.company,
                    document=chunk.document,
                    page=chunk.page,
                    report_fiscal_year=chunk.fiscal_year,
                    fiscal_year=chunk.fiscal_year,
                    restated=False,
                    label=sentence[start:end][:1].upper() + sentence[start:end][1:],
                    metric=metric,
                    value=-found.value if found.negative else found.value,
                    raw=raw,
                    unit=unit,
                    decimals=found.decimals,
                )
            )
    return facts


@dataclass(frozen=True)
class _Sourced:
    """A fact and its 1-based source number."""

    fact: Fact
    n: int


def _signed_base(s: _Sourced) -> Quantity:
    q = to_base(s.fact.value, s.fact.unit)
    if s.fact.metric == "net_debt" and s.fact.is_net_cash:
        return Quantity(-abs(q.value), q.base)
    return q


def _measure_name(part: Focus) -> str:
    """A part's measure as the vocabulary names it, where it does ("C1 unit costs" for
    "C1 costs per tonne"), else in the question's own words (always when a number names
    its kind: "Scope 3 emissions", not "emissions")."""
    named = [] if part.qualifiers else find_other_measures(part.text or part.phrase)
    return part.derived.name if part.derived else (named[0] if named else part.phrase)


class _Valued(NamedTuple):
    """A company's figure of an open part, as `_OpenAnswers.ranked` orders them."""

    ticker: str
    value: float
    """On its unit's base (a margin's percentage; an amount in its currency's base)."""
    base: str
    text: str
    """The figure as the answer writes it."""
    cite: str
    """Its citation marks ("[3]", "[3] [4]" for a worked figure)."""


def _decided_by_sign(
    present: list[tuple[str, _Sourced]], asked: str
) -> tuple[str, _Sourced] | None:
    """The one figure on its own side of zero when a question asks for the lowest (or
    highest) of figures in different currencies: Northern Star's net cash of A$358
    million is lower than any company's net debt in US$. None when no single figure is."""
    side = [(t, s) for t, s in present if (_signed_base(s).value < 0) == (asked == "lowest")]
    zero = any(_signed_base(s).value == 0 for _, s in present)
    return side[0] if len(side) == 1 and not zero else None


def _fmt_number(value: float) -> str:
    text = f"{abs(value):,.3f}".rstrip("0").rstrip(".")
    return f"−{text}" if value < 0 else text


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
                query=" ".join([_name(ticker), *words, *fys]),
                fiscal_years=years,
                metrics=[],
                facets=[" ".join([_name(ticker), *f, *fys]) for f in facets],
            )
        )
    return RewritePlan(sub_queries=queries)


class OfflineEngine:
    """Deterministic, rule-based engine; see the module docstring.

    With an `embedder` (the worker's), a measure asked in words the reports do not use
    ("how often were workers hurt") also meets a report's label by meaning; without one,
    by its stemmed words only.
    """

    name = ENGINE_NAME

    def __init__(self, embedder: "Embedder | None" = None) -> None:
        self._similarity = similarity_of(embedder) if embedder is not None else None

    def similarity(self) -> Similarity | None:
        """Cosine similarity by the embedder (see `similarity_of`), or None without one."""
        return self._similarity

    async def route(self, question: str) -> RouteDecision:
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
        if (
            slots.companies
            and (every := companies_asked(slots.companies, question)) != slots.companies
        ):
            # One company's part of a total over several: every one of them is searched.
            return RouteDecision(
                route="needs_retrieval",
                reason="a company's share of a total over every company: search them all",
                slots=slots.model_copy(update={"companies": every}),
            )
        if slots.companies:
            return RouteDecision(
                route="needs_retrieval", reason="names a covered company", slots=slots
            )
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

    async def rewrite(self, question: str, slots: Slots) -> RewritePlan:
        """One sub-query per company: name, metric names and report wordings, FY tokens
        (an analyst's question: its line items and statements)."""
        asked = analyst.analyst_question(question)
        if asked is None:
            return self._plain_rewrite(question, slots)
        plan = _analyst_rewrite(asked, question, slots)
        if not asked.why:
            return plan
        # What moved a ratio: the passages that say so, the statements' lines besides
        # (to say whether the statements give the ratio at all).
        plain = self._plain_rewrite(question, slots)
        return RewritePlan(
            sub_queries=[
                p.model_copy(update={"facets": [a.query, *a.facets][:MAX_FACETS]})
                for p, a in zip(plain.sub_queries, plan.sub_queries, strict=True)
            ]
        )

    def _plain_rewrite(self, question: str, slots: Slots) -> RewritePlan:
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
                terms.append(
                    f"{role} board of directors" if asks_who(question) else f"{role}'s letter"
                )
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
            query = " ".join([_name(ticker), *terms, *fy_tokens])
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

    async def grade_documents(
        self, question: str, slots: Slots, chunks: list[ChunkText]
    ) -> DocumentGrades:
        """Keep chunks that hold a requested metric (tables) or share its vocabulary (prose),
        and, for a narrative question, the chunk of the sentence closest in meaning to it.

        Governance, board, remuneration, sustainability, risk and auditor sections are
        dropped unless the question is about those topics; so are other companies and,
        when years are given, other years (a later report's table is kept when it holds a
        restated comparative for a requested year).
        """
        if (asked := analyst.analyst_question(question)) is not None:
            kept = analyst.keep(asked, chunks, slots.companies)
            if kept and not asked.why:
                return DocumentGrades(keep=kept)
            if asked.why:  # what moved a ratio: its statements' lines and what says why
                plain = self._plain_grades(question, slots, chunks)
                return DocumentGrades(keep=sorted({*kept, *plain.keep}))
        return self._plain_grades(question, slots, chunks)

    def _plain_grades(self, question: str, slots: Slots, chunks: list[ChunkText]) -> DocumentGrades:
        """The keep rules of a question asked plainly."""
        # long: the keep rules for tables and prose, tried in order on each chunk.
        metrics = requested_metrics(slots, question)
        wanted = set(metrics) | {LINE_ITEM_OF[m] for m in metrics if m in LINE_ITEM_OF}
        years = set(answer_years(slots, question))
        boilerplate_ok = bool(_BOILERPLATE_TOPIC.search(question))
        # A narrative question's topic words keep the sections that hold them too.
        parts = open_parts(question)
        company_words = {w.lower() for t in companies() for w in _name(t).split()}
        question_words = _words(question) - company_words
        keep: list[int] = []
        prose: dict[str, list[int]] = {}  # each company's prose chunks a narrative may quote
        for i, chunk in enumerate(chunks):
            if slots.companies and chunk.company not in slots.companies:
                continue
            # A section a part of the question asks about by its words is not
            # boilerplate for it ("TRIF" is in the sustainability section).
            asked_here = any(shares_terms(p, chunk.text) for p in parts) or any(
                c.score >= CLOSE
                for p in parts
                for c in match(p, [(f, 0) for f in report_facts(chunk)], self.similarity())
            )
            if (
                slots.intent == "narrative"
                and not chunk.is_table
                and (not years or chunk.fiscal_year in years)
                and (asked_here or boilerplate_ok or not _BOILERPLATE_SECTION.search(chunk.section))
            ):
                prose.setdefault(chunk.company, []).append(i)
            if asked_here and (not years or chunk.fiscal_year in years or chunk.is_table):
                keep.append(i)
                continue
            if _BOILERPLATE_SECTION.search(chunk.section) and not boilerplate_ok:
                continue
            if chunk.is_table or any(ln.startswith("|") for ln in chunk.text.splitlines()):
                facts = [f for f in extract_facts(chunk) if f.metric in wanted]
                if years:
                    facts = [f for f in facts if f.fiscal_year in years]
                if facts:
                    keep.append(i)
                continue
            if years and chunk.fiscal_year not in years:
                continue
            if slots.intent == "narrative":
                if find_passages(question, [chunk], chunk.company, sorted(years), metrics):
                    keep.append(i)
                continue
            body = chunk.text.split("\n", 1)[-1]
            if set(find_metrics(body)) & wanted or (question_words & _words(body)):
                keep.append(i)
        if self.similarity() is not None:
            # The sentence closest in meaning to the question is kept beside those its
            # words found ("restructure" answered by "we reorganised the company"): the
            # passage search over each company's prose, as the synthesis will run it.
            for company, indices in prose.items():
                pool = [chunks[i] for i in indices]
                for p in find_passages(
                    question, pool, company, sorted(years), metrics, similarity=self.similarity()
                ):
                    if indices[p.n - 1] not in keep:
                        keep.append(indices[p.n - 1])
            keep.sort()
        if not keep and slots.other_measures and not slots.metrics:
            keep = _best_per_company(chunks, slots.companies, years)
        for ticker in slots.companies if slots.intent == "narrative" else []:
            # "Who is the CEO?": the board's line for the role, boilerplate or not.
            if (holder := role_holder(question, chunks, ticker)) and holder.n - 1 not in keep:
                keep = sorted([*keep, holder.n - 1])
        return DocumentGrades(keep=keep)

    def context_size(self, text: str) -> int:
        """The offline budget is in characters."""
        return len(text)

    async def synthesize(
        self, question: str, slots: Slots, sources: list[ChunkText],
        memory: Sequence[MemoryNote] = (), shown: Sequence[int] | None = None,
    ) -> Draft:  # fmt: skip
        """Compose cited sentences from the sources' figures; see the module docstring.

        `memory` is not read: this engine states only what the evidence holds, so a
        remembered claim cannot reach its answer. Preferences reach it through the
        resolved question ("[your preference: in billions]"), where they are visible.
        Nor is `shown`: this engine has no window to fill, so it reads every source in
        retrieval order (the worker gives it no evidence budget).
        """
        # long: the answer's sections composed in reading order (see the module docstring);
        # splitting it is listed as left to do.
        if not sources:
            return Draft(answer="")
        if (analyst_asked := analyst.analyst_question(question)) is not None:
            tickers = slots.companies or list(companies())
            if (draft := analyst.compose(analyst_asked, tickers, sources)) is not None:
                return draft
        asked = slots.companies or list(companies())
        metrics = requested_metrics(slots, question)
        years = answer_years(slots, question)
        if len(asked) == 1 and (choice := read_choice(question)) is not None:
            opened = _OpenAnswers(
                sources, self.similarity(), requested_scale(question),
                quarter=quarter_of_year(question), whole=whole_years(question), question=question,
            )  # fmt: skip
            if (chosen_draft := opened.choice(choice, asked[0], years)) is not None:
                return chosen_draft
        facts: list[_Sourced] = []
        for n, chunk in enumerate(sources, start=1):
            facts.extend(_Sourced(f, n) for f in extract_facts(chunk))
        for n, chunk in enumerate(sources, start=1):
            for f in prose_facts(chunk):
                covered = any(
                    (s.fact.company, s.fact.fiscal_year, s.fact.metric)
                    == (f.company, f.fiscal_year, f.metric)
                    for s in facts
                )
                if not covered:
                    facts.append(_Sourced(f, n))
        share_of_total = asks_share_of_total(question) and len(asked) >= 2
        parts = [] if slots.intent == "narrative" or share_of_total else open_parts(question)
        # The measures a margin, share or ratio joins are its inputs, stated in its
        # working, not answers of their own.
        inputs = {m for p in parts if p.derived is not None for m in p.metrics}
        # A measure asked with a condition ("profit excluding one-off items") is answered
        # by the fact the condition narrows to, not by the vocabulary's metric.
        narrowed = {m for p in parts for m in narrowed_metrics(p)}
        metrics = [m for m in metrics if m not in inputs | narrowed]
        composer = _Composer(facts, requested_scale(question), commodities_named(question))
        composer.share(
            [p for t in asked for m in metrics for y in years if (p := composer.pick(t, y, m))]
        )
        paragraphs: list[str] = []
        not_found: list[NotFound] = []
        chosen: dict[tuple[str, int, str], _Sourced] = {}
        # Three or more companies read as a table per metric, one unit per table; the
        # sentences keep what a table cannot say (changes, nearest figures, differences).
        tabular = len(asked) >= 3
        for ticker in asked:
            sentences: list[str] = []
            for metric in metrics:
                for year in years:
                    pick = composer.pick(ticker, year, metric)
                    if pick is None:
                        not_found.append(
                            NotFound(
                                company=ticker, fiscal_year=year, metric=metric_display(metric)
                            )
                        )
                        parent = LINE_ITEM_OF.get(metric)
                        nearest = composer.pick(ticker, year, parent) if parent else None
                        if parent and nearest and parent not in metrics:
                            sentences.append(
                                composer.nearest_sentence(nearest, ticker, year, metric, parent)
                            )
                        continue
                    chosen[(ticker, year, metric)] = pick
                    if not tabular:
                        sentences.extend(composer.figure_sentences(pick, ticker, year, metric))
                wants_change = (
                    slots.intent == "change"
                    or explains_a_change(slots, question)
                    or (slots.intent == "compare" and len(asked) == 1)
                )
                if wants_change:
                    sentences.extend(composer.change_sentences(chosen, ticker, metric, years))
            if sentences:
                paragraphs.append(" ".join(sentences))
        if tabular:
            tables = [
                t for metric in metrics for t in composer.tables(chosen, asked, years, metric)
            ]
            paragraphs[:0] = tables
        most = superlative(question) if len(asked) >= 2 else None
        than = _than_pair(question, asked)
        if (
            len(asked) == 1
            and (named := commodities_named(question))
            and companies_over(question) == asked
        ):
            # "Which company mined the most gold?" of one that mines it: said so first.
            paragraphs.insert(
                0,
                f"Of the companies covered, only {_name(asked[0])} lists "
                f"{_listed(sorted(named))} among the commodities it mines.",
            )
        if share_of_total:
            # The part asked first (the first company named), the cited table below.
            paragraphs[:0] = [
                line
                for year in years
                for metric in metrics
                if (line := composer.share_of_total(chosen, asked, year, metric))
            ]
        elif len(asked) >= 2 and slots.intent in ("compare", "lookup", "overview"):
            answered_first: list[str] = []
            for year in years:
                for metric in metrics:
                    line = composer.compare_sentences(
                        chosen, asked, year, metric, listing=not tabular, asked=most
                    )
                    if line and most:
                        answered_first.append(line)  # the one asked for, then the table
                    elif line:
                        paragraphs.append(line)
            if than is not None:
                answered_first[:0] = [
                    line
                    for year in years
                    for metric in metrics
                    if (line := composer.than_sentence(chosen, than[0], year, metric, than[1]))
                ]
            paragraphs[:0] = answered_first
        if parts:
            # Measures in the reports' own words: answered from the facts that match
            # them, else the reports' closest sentences or the exact not-found line.
            opened = _OpenAnswers(
                sources, self.similarity(), composer.scale,
                change=asks_change(question) or slots.intent == "change",
                quarter=quarter_of_year(question), whole=whole_years(question), question=question,
            )  # fmt: skip
            first: list[str] = []
            for part in opened.joined(parts):
                for ticker in asked:
                    lines, gaps = opened.answer(part, ticker, years)
                    if lines:
                        paragraphs.append(" ".join(lines))
                    not_found.extend(gaps)
                if most:
                    # "which company had the highest EBITDA margin?": that one first
                    first.extend(r for y in years if (r := opened.ranked(part, y, most, asked)))
            paragraphs[:0] = first
            composer.derived.extend(opened.derived)
        else:
            # A measure the engine has no rule for is never substituted: its own line says so.
            not_found.extend(
                NotFound(company=ticker, fiscal_year=year, metric=measure)
                for ticker in asked
                for measure in slots.other_measures
                for year in years
            )
        if slots.intent == "narrative":
            figured: set[str] = set()
            if not asks_narrative(question):
                # A topic question ("What was BHP's TRIF?") whose words a report's own
                # figure answers: that figure, then what the reports say.
                opened = _OpenAnswers(
                    sources,
                    self.similarity(),
                    composer.scale,
                    quarter=quarter_of_year(question),
                    whole=whole_years(question),
                    question=question,
                )
                for part in opened.joined(open_parts(question)):
                    for ticker in asked:
                        lines = [ln for y in years if (ln := opened.figure(part, ticker, y))]
                        if lines and " ".join(lines) not in paragraphs:
                            # Two parts one figure answers ("Cash & Cash equivalents")
                            # say it once.
                            paragraphs.append(" ".join(lines))
                        if lines:
                            figured.add(ticker)
            said = "\n".join(paragraphs)
            narrated = _narrative(question, sources, asked, years, metrics, self.similarity())
            for ticker, paragraph in zip(asked, narrated, strict=True):
                if ticker in figured and not _quoted(paragraph):
                    continue  # its figure answered: no "found nothing" line under it
                lines = paragraph.split("\n")
                kept = [ln for ln in lines if not _quoted(ln) or _quoted(ln) not in said]
                if any(_quoted(ln) for ln in kept) or not any(_quoted(ln) for ln in lines):
                    paragraphs.append("\n".join(kept))
        if notice := _currency_notice(requested_currency(question), chosen):
            paragraphs.insert(0, notice)
        answered = [t for t, _, _ in chosen if t in asked]
        if note := calendar_note(answered):
            paragraphs.append(note)
        # A gap a table's row says (a company asked with no figure) is not said again.
        said = "\n\n".join(paragraphs)
        if lines := [nf.line() for nf in not_found if not said_in_table(nf, said)]:
            paragraphs.append("\n".join(lines))
        return Draft(answer="\n\n".join(paragraphs), derived=composer.derived, not_found=not_found)

    async def grade_answer(
        self, question: str, answer: str, sources: list[ChunkText]
    ) -> AnswerGrade:
        """Quality leniently (fail only empty or all-disclaimer answers); groundedness
        strictly, by the numeric grounding check on the answer text and sources alone."""
        sentences = split_sentences(answer)
        substantive = [s for s in sentences if not _DISCLAIMER.search(s)]
        quality = bool(answer.strip()) and bool(substantive)
        report = check_numbers(answer, sources, question)
        notes = (
            f"quality {'passed' if quality else 'failed: empty or only disclaimers'}; "
            f"{report.checked_numbers} number(s) checked, {len(report.derived)} derived, "
            f"{len(report.unsupported)} unsupported"
        )
        return AnswerGrade(quality_passed=quality, unsupported=report.unsupported, notes=notes)

    async def summarize(self, messages: list[str]) -> str:
        """An increment, extractively: the sentences with numbers, company names or
        decisions, one a line, oldest first, merged one fact a line and bounded as the
        summary is (`domain.memory.rules.merge_summary`)."""
        kept = [
            sentence
            for message in messages
            for sentence in split_sentences(message)
            if re.search(r"\d", sentence) or find_companies(sentence) or _DECISION.search(sentence)
        ]
        if not kept:  # nothing of note: the messages themselves, cut to the bound
            kept = [" ".join(" ".join(messages).split())]
        return merge_summary(None, "\n".join(kept))


class _Composer:
    """Builds the sentences of one answer from the facts found in its sources.

    One measure is written in one unit throughout the answer (`share`): its figures'
    coarsest, or the scale the question asks for ("in millions") when the figure is
    money, so a comparison never puts US$ billion beside US$ million. The conversion is
    a shift of the decimal point, exact: 5,491 (US$M) is written 5.491 (US$bn).
    """

    def __init__(
        self, facts: list[_Sourced], scale: str | None = None,
        commodities: frozenset[str] = frozenset(),
    ) -> None:  # fmt: skip
        self.facts = facts
        self.scale = scale
        self.commodities = commodities
        """The commodities the question names: production is of them."""
        self.derived: list[Derived] = []
        self.shared: dict[tuple[str | None, str], str] = {}
        """The unit of each measure (and unit base) in this answer."""

    def share(self, picks: list[_Sourced]) -> None:
        """Fix the one unit each measure is written in, from the figures the answer gives."""
        groups: dict[tuple[str | None, str], list[Fact]] = {}
        for pick in picks:
            key = (pick.fact.metric, unit_spec(pick.fact.unit).base)
            groups.setdefault(key, []).append(pick.fact)
        for key, facts in groups.items():
            if (unit := self.unit_for(facts)) is not None:
                self.shared[key] = unit

    def unit_for(self, facts: list[Fact]) -> str | None:
        """The one unit `facts` are written in together; None when they cannot share one."""
        keys = {(f.metric, unit_spec(f.unit).base) for f in facts}
        if len(keys) == 1 and (shared := self.shared.get(keys.pop())) is not None:
            return shared
        units = [f.unit for f in facts]
        if self.scale:
            asked = {unit_in_scale(u, self.scale) for u in units}
            if len(asked) == 1 and None not in asked:
                return asked.pop()
        return common_unit(units)

    def _matching(self, ticker: str, year: int, metric: str) -> list[_Sourced]:
        return [
            s
            for s in self.facts
            if (s.fact.company, s.fact.fiscal_year, s.fact.metric) == (ticker, year, metric)
            and s.fact.annual  # a quarter's column is no year's figure
            and (metric != "production" or self._of_commodity(s.fact))
        ]

    def _of_commodity(self, fact: Fact) -> bool:
        """A production figure of a commodity the question names ("gold sold" for "who
        mined the most gold", not iron ore shipments); any when it names none."""
        label = fact.label.lower()
        return not self.commodities or any(k in label for k in self.commodities)

    def pick(self, ticker: str, year: int, metric: str) -> _Sourced | None:
        """Prefer the figure as reported in that year's own report over a comparative."""
        found = self._matching(ticker, year, metric)
        own = [s for s in found if s.fact.report_fiscal_year == year and not s.fact.restated]
        ranked = own or sorted(found, key=lambda s: -s.fact.report_fiscal_year)
        return ranked[0] if ranked else None

    def restatements(self, pick: _Sourced) -> list[_Sourced]:
        """Other reports' figures for the same year and metric that differ from `pick`."""
        f = pick.fact
        seen: set[int] = set()
        others: list[_Sourced] = []
        for s in self._matching(f.company, f.fiscal_year, f.metric or ""):
            if s.fact.report_fiscal_year == f.report_fiscal_year:
                continue
            if s.fact.report_fiscal_year in seen:
                continue
            a, b = to_base(f.value, f.unit), to_base(s.fact.value, s.fact.unit)
            if a.base == b.base and abs(a.value - b.value) > 1e-9:
                seen.add(s.fact.report_fiscal_year)
                others.append(s)
        return others

    def _value(self, fact: Fact, unit: str | None = None) -> str:
        unit = unit or self.unit_for([fact]) or fact.unit
        value, decimals = fact.value, fact.decimals
        if unit != fact.unit:
            value, decimals = rescale(fact.value, fact.unit, fact.decimals, unit)
        if fact.metric == "net_debt" and fact.is_net_cash:
            return f"net cash of {format_value(abs(value), unit, decimals)}"
        return format_value(value, unit, decimals, fact.metric)

    def _metric_phrase(self, fact: Fact, metric: str) -> str:
        display = metric_display(metric)
        if fact.label.lower() != display.lower():
            return f"{display} (reported as {fact.label})"
        return display

    def figure_sentences(self, pick: _Sourced, ticker: str, year: int, metric: str) -> list[str]:
        f = pick.fact
        subject = f"{_possessive(ticker)} {self._metric_phrase(f, metric)}"
        when = _year_phrase(ticker, year)
        verb = "were" if metric == "dividends_per_share" else "was"
        if metric == "net_debt" and f.is_net_cash:
            core = (
                f"{_name(ticker)} reported a net cash position rather than net debt for {when}: "
                f"{self._value(f)} (reported as {f.label})"
            )
        else:
            core = f"{subject} for {when} {verb} {self._value(f)}"
        others = self.restatements(pick)
        if f.report_fiscal_year != year or f.restated:
            core += f", as stated in the {f.document}"
        elif others:
            core += f" as first reported in the {f.document}"
        sentences = [f"{core} [{pick.n}]."]
        for other in others:
            o = other.fact
            sentences.append(
                f"The {o.document} restates {_possessive(ticker)} FY{year} "
                f"{metric_display(metric)} to {self._value(o)} [{other.n}]."
            )
        return sentences

    def nearest_sentence(
        self, nearest: _Sourced, ticker: str, year: int, metric: str, parent: str
    ) -> str:
        """Say that a line item is not in the reports and label the total as the nearest
        figure available — never give the total as if it were the item."""
        f = nearest.fact
        return (
            f"The reports do not give {_possessive(ticker)} {metric_display(metric)} for "
            f"{_year_phrase(ticker, year)} separately; the nearest figure available is the "
            f"{self._metric_phrase(f, parent)}: {self._value(f)} [{nearest.n}]."
        )

    def change_sentences(
        self,
        chosen: dict[tuple[str, int, str], _Sourced],
        ticker: str,
        metric: str,
        years: list[int],
    ) -> list[str]:
        have = sorted(y for y in years if (ticker, y, metric) in chosen)
        if len(have) < 2:
            return []
        pairs = list(itertools.pairwise(have))
        if len(have) >= 3:
            pairs.append((have[0], have[-1]))
        sentences: list[str] = []
        display = metric_display(metric)
        for old_year, new_year in pairs:
            new = chosen[(ticker, new_year, metric)]
            old = chosen[(ticker, old_year, metric)]
            basis = ""
            # Like for like: a later report's restated comparative beats the first report.
            comparative = [
                s
                for s in self._matching(ticker, old_year, metric)
                if s.fact.report_fiscal_year == new_year
            ]
            if comparative and comparative[0].fact.value != old.fact.value:
                old = comparative[0]
                basis = f" (FY{old_year} as restated in the {old.fact.document})"
            sentence = self._change_sentence(ticker, display, old, new, old_year, new_year)
            if sentence:
                sentences.append(sentence.replace(" [", f"{basis} [", 1) if basis else sentence)
        return sentences

    def _change_sentence(
        self, ticker: str, display: str, old: _Sourced, new: _Sourced, y1: int, y2: int
    ) -> str | None:
        # long: one sentence per kind of change, each case beside the next.
        qo, qn = _signed_base(old), _signed_base(new)
        span = f"from FY{y1} to FY{y2}"
        unit = self.unit_for([old.fact, new.fact])
        values = (
            f"from {self._value(old.fact, unit)} [{old.n}] to "
            f"{self._value(new.fact, unit)} [{new.n}]"
        )
        subject = f"{_possessive(ticker)} {display}"
        try:
            pct = growth_percent(qo, qn) if qo.value > 0 and qn.value > 0 else None
        except IncompatibleUnits:
            return (
                f"{subject} is reported in different units in FY{y1} and FY{y2}, so the "
                "change is not computed."
            )
        if pct is not None:
            if round(pct, 1) == 0:
                linking = "were" if display == "dividends per share" else "was"
                return f"{subject} {linking} unchanged {span}, {values}."
            verb = "rose" if pct > 0 else "fell"
            self.derived.append(
                Derived(
                    label=f"{_name(ticker)} {display} change FY{y1}–FY{y2}",
                    formula=(
                        f"({_fmt_number(qn.value)} − {_fmt_number(qo.value)}) / "
                        f"{_fmt_number(qo.value)} = {pct:+.1f}%"
                    ),
                )
            )
            return f"{subject} {verb} {abs(pct):.1f}% {span}, {values}."
        if qo.value < 0 and qn.value < 0 and old.fact.metric != "net_debt":
            gap = abs(qn.value - qo.value)
            verb = "widened" if qn.value < qo.value else "narrowed"
            amount = format_value(gap, qn.base)
            self.derived.append(
                Derived(
                    label=f"{_name(ticker)} {display} change FY{y1}–FY{y2}",
                    formula=f"|{_fmt_number(qn.value)} − ({_fmt_number(qo.value)})| = "
                    f"{format_value(gap, qn.base)}",
                )
            )
            return f"{_possessive(ticker)} loss {verb} by {amount} {span}, {values}."
        return f"{subject} moved {span} {values}; no percentage change is meaningful here."

    def than_sentence(
        self,
        chosen: dict[tuple[str, int, str], _Sourced],
        pair: tuple[str, str],
        year: int,
        metric: str,
        direction: str,
    ) -> str | None:
        """Yes or no to "is that more than Rio's?" (`direction` "higher" or "lower"): the
        figure talked about against the one named, on one base; a figure alone on its side
        of zero decides across currencies. None when the two cannot be weighed."""
        subject, other = pair
        a, b = chosen.get((subject, year, metric)), chosen.get((other, year, metric))
        if a is None or b is None:
            return None
        qa, qb = _signed_base(a), _signed_base(b)
        shared = _basis(a, metric) == _basis(b, metric)
        if not shared and (qa.value < 0) == (qb.value < 0):
            return None  # different currencies or bases: the comparison says so
        unit_a = self.unit_for([a.fact, b.fact] if shared else [a.fact])
        unit_b = self.unit_for([a.fact, b.fact] if shared else [b.fact])
        was = "higher" if qa.value > qb.value else "lower" if qa.value < qb.value else "the same as"
        verb = "were" if metric == "dividends_per_share" else "was"
        return (
            f"{'Yes' if was == direction else 'No'}: {_possessive(subject)} "
            f"{metric_display(metric)} in FY{year}, {self._value(a.fact, unit_a)} [{a.n}], "
            f"{verb} {was}{'' if was == 'the same as' else ' than'} {_possessive(other)}, "
            f"{self._value(b.fact, unit_b)} [{b.n}]."
        )

    def share_of_total(
        self,
        chosen: dict[tuple[str, int, str], _Sourced],
        asked: list[str],
        year: int,
        metric: str,
    ) -> str | None:
        """The first company's share of the total of every asked company's figure in its
        currency and unit, worked out, and the total; a company reporting in another
        currency is named and left out (no currency is converted), and so is one with no
        figure. None when fewer than two figures share a base; no share when one is not
        positive (a share of a total with net cash in it means nothing), and why."""
        # long: the figures split by base, then the share, the total and what is left out.
        mine = chosen.get((asked[0], year, metric))
        if mine is None or unit_spec(mine.fact.unit).kind in ("per_share", "percent"):
            return None  # amounts per share or rates add to no total
        base, basis = _signed_base(mine).base, _basis(mine, metric)
        same = [(t, chosen[(t, year, metric)]) for t in asked if (t, year, metric) in chosen]
        other = [t for t, s in same if _basis(s, metric) != basis]
        same = [(t, s) for t, s in same if _basis(s, metric) == basis]
        values = [_signed_base(s).value for _, s in same]
        if len(same) < 2:
            return None
        if below := [(t, s) for t, s in same if _signed_base(s).value <= 0]:
            had = _listed(
                [
                    f"{_name(t)} had {self._value(s.fact, self.unit_for([s.fact]))} [{s.n}]"
                    for t, s in below
                ]
            )
            return (
                f"No share of a combined {metric_display(metric)} is worked out for FY{year}: "
                f"{had}, so the figures do not add to one total."
            )
        total, display = sum(values), metric_display(metric)
        pct = values[0] / total * 100.0
        terms = " + ".join(format_value(v, base) for v in values)
        names = _listed([_name(t) for t, _ in same])
        cites = "[" + ",".join(dict.fromkeys(str(s.n) for _, s in same)) + "]"
        working = f"{format_value(values[0], base)} ÷ ({terms}) × 100 = {pct:.1f}%"
        self.derived.append(
            Derived(
                label=f"{_name(asked[0])} share of combined {display} FY{year}", formula=working
            )
        )
        sentences = [
            f"{_possessive(asked[0])} share of the combined {display} of {names} in FY{year} "
            f"was {working} {cites}.",
            f"Together, {names} had {display} in FY{year} of {terms} = "
            f"{format_value(total, base)} {cites}.",
        ]
        if other:
            sentences.append(
                f"{_listed([_name(t) for t in other])} "
                f"{'reports' if len(other) == 1 else 'report'} {display} in another currency "
                f"or on another basis and {'is' if len(other) == 1 else 'are'} not added: no "
                "currency is converted."
            )
        if missing := [t for t in asked if (t, year, metric) not in chosen]:
            sentences.append(
                f"The total leaves out {_listed([_name(t) for t in missing])}, whose {display} "
                f"for FY{year} the reports do not give."
            )
        return " ".join(sentences)

    def compare_sentences(
        self,
        chosen: dict[tuple[str, int, str], _Sourced],
        companies: list[str],
        year: int,
        metric: str,
        listing: bool = True,
        asked: str | None = None,
    ) -> str | None:
        """The ranking of one year's figures (unless a table already ranks them), the
        difference between the top two, and why figures on different bases are not
        compared. `asked` ("highest" or "lowest"): the question wants the top or the
        bottom, so that is said first, within each group of comparable figures."""
        # long: the ranking and its sentences composed in reading order.
        present = [(t, chosen[(t, year, metric)]) for t in companies if (t, year, metric) in chosen]
        if len(present) < 2:
            return None
        display = metric_display(metric)
        # Operational figures compare only on the same basis (the same row wording):
        # Pilbara production (100%) and Fortescue's shipments are different measures.
        groups: dict[tuple[str, str], list[tuple[str, _Sourced]]] = {}
        for ticker, s in present:
            groups.setdefault(_basis(s, metric), []).append((ticker, s))
        sentences: list[str] = []
        across = _decided_by_sign(present, asked) if asked and len(groups) > 1 else None
        if across is not None:
            # Net cash is below any net debt, whatever the currencies: the sign ranks.
            pick, s = across
            sentences.append(
                f"{_name(pick)} had the {asked} {display} in FY{year}: "
                f"{self._value(s.fact, self.unit_for([s.fact]))} [{s.n}], the only figure "
                f"{'below' if asked == 'lowest' else 'above'} zero, whatever the currency."
            )
        for group in groups.values():
            if len(group) < 2:
                continue
            ranked = sorted(group, key=lambda p: -_signed_base(p[1]).value)
            unit = self.unit_for([s.fact for _, s in group])
            if asked and across is None:
                pick, s = ranked[0] if asked == "highest" else ranked[-1]
                among = (
                    f"Among the figures in {_currency_words(s.fact.unit)}, "
                    if len(groups) > 1 else ""
                )  # fmt: skip
                sentences.append(
                    f"{among}{_name(pick)} had the {asked} {display} in FY{year}: "
                    f"{self._value(s.fact, unit)} [{s.n}]."
                )
            ranking = ", ".join(
                f"{_name(t)} {self._value(s.fact, unit)} [{s.n}]" for t, s in ranked
            )
            if listing:
                sentences.append(f"Ranked by {display} for FY{year}: {ranking}.")
            (top, a), (second, b) = ranked[0], ranked[1]
            qa, qb = _signed_base(a), _signed_base(b)
            # The top two's difference answers "which is highest", never "which is lowest".
            if qa.value > 0 and qb.value > 0 and qa.value != qb.value and asked != "lowest":
                gap, decimals, unit = self._difference(a.fact, b.fact, unit)
                pct = (qa.value - qb.value) / qb.value * 100.0
                self.derived.append(
                    Derived(
                        label=f"{_name(top)} vs {_name(second)} {display} difference FY{year}",
                        formula=f"{format_value(qa.value, qa.base)} − "
                        f"{format_value(qb.value, qb.base)} = "
                        f"{format_value(qa.value - qb.value, qa.base)}; "
                        f"({_fmt_number(qa.value)} − {_fmt_number(qb.value)}) / "
                        f"{_fmt_number(qb.value)} = {pct:+.1f}%",
                    )
                )
                verb = "were" if metric == "dividends_per_share" else "was"
                sentences.append(
                    f"In FY{year}, {_possessive(top)} {display} {verb} "
                    f"{format_value(gap, unit, decimals)} ({pct:.1f}%) higher than "
                    f"{_possessive(second)} [{a.n},{b.n}]."
                )
        if len(groups) > 1 and metric == "production":
            bases = [
                f"{_name(t)}: {without_figures(s.fact.label)}"
                for g in groups.values()
                for t, s in g
            ]
            sentences.append(
                f"These {display} figures are measured on different bases or units "
                f"({'; '.join(bases)}), so they are not directly comparable and no "
                "difference is computed across them."
            )
        elif len(groups) > 1:
            by_currency = [
                f"{', '.join(_name(t) for t, _ in g)} in {_currency_words(g[0][1].fact.unit)}"
                for g in groups.values()
            ]
            sentences.append(
                f"These {display} figures are in different currencies or units "
                f"({'; '.join(by_currency)}), so they are not directly comparable and no "
                "difference is computed across them."
            )
        return " ".join(sentences) if sentences else None

    def tables(
        self,
        chosen: dict[tuple[str, int, str], _Sourced],
        companies: list[str],
        years: list[int],
        metric: str,
    ) -> list[str]:
        """One Markdown table per unit base: a row per company (ranked by the latest
        year's figure), a column per year, every cell in the table's one unit and cited.
        Figures in different currencies or kinds get separate tables, never one column.
        A company asked with no figure keeps its row, last, in the table of its reporting
        currency (else the first), every cell `NOT_FOUND_CELL`: its not-found line."""
        # long: one table per unit base, its rows and columns built in order.
        present = {
            (t, y): chosen[(t, y, metric)]
            for t in companies
            for y in years
            if (t, y, metric) in chosen
        }
        groups: dict[str, list[str]] = {}
        for (ticker, _), s in present.items():
            members = groups.setdefault(to_base(s.fact.value, s.fact.unit).base, [])
            if ticker not in members:
                members.append(ticker)
        absent = [t for t in companies if not any((t, y) in present for y in years)]
        for ticker in absent if groups else []:
            registered = coverage().companies.get(ticker)
            currency = registered.currency.lower() if registered else ""
            home = next((b for b in groups if b.startswith(currency)), next(iter(groups)))
            groups[home].append(ticker)
        display = metric_display(metric)
        title = display[:1].upper() + display[1:]
        basis = metric == "production"
        blocks: list[str] = []
        for tickers in groups.values():
            facts = [present[(t, y)].fact for t in tickers for y in years if (t, y) in present]
            unit = self.unit_for(facts)

            def rank(ticker: str) -> float:
                latest = [present[(ticker, y)] for y in reversed(years) if (ticker, y) in present]
                return -_signed_base(latest[0]).value if latest else 0.0

            header = [title, *(["Reported as"] if basis else []), *(f"FY{y}" for y in years)]
            lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            for ticker in sorted(tickers, key=lambda t: (t in absent, rank(t))):
                cells = [_name(ticker)]
                if basis:
                    label = next(
                        (present[(ticker, y)].fact.label for y in years if (ticker, y) in present),
                        None,
                    )
                    cells.append(without_figures(label) if label else "")
                for year in years:
                    cell = present.get((ticker, year))
                    cells.append(
                        f"{self._value(cell.fact, unit)} [{cell.n}]" if cell else NOT_FOUND_CELL
                    )
                lines.append("| " + " | ".join(cells) + " |")
            blocks.append("\n".join(lines))
        return blocks

    def _difference(
        self, a: Fact, b: Fact, unit: str | None = None
    ) -> tuple[float, int | None, str]:
        """Express a − b in `unit` (default: the coarser of the two), at the precision
        the two figures allow in it."""
        qa, qb = to_base(a.value, a.unit), to_base(b.value, b.unit)
        unit = unit or (a.unit if unit_spec(a.unit).factor >= unit_spec(b.unit).factor else b.unit)
        factor = unit_spec(unit).factor
        decimals = max(rescale(f.value, f.unit, f.decimals, unit)[1] for f in (a, b))
        return round((qa.value - qb.value) / factor, decimals), decimals, unit


class _OpenAnswers:
    """Answers for the parts of a question no metric of the vocabulary names (see
    `domain.reports.open_answers`): one sentence per company and year from the fact that
    answers the part, its working for a margin, share or ratio, else the reports'
    closest sentences, and the exact not-found line for each year without a figure."""

    def __init__(
        self,
        sources: list[ChunkText],
        similarity: Similarity | None,
        scale: str | None,
        change: bool = False,
        quarter: int | None = None,
        whole: set[int] | None = None,
        question: str = "",
    ) -> None:
        self.sources = sources
        self.quarter = quarter
        """The quarter the question asks of its years ("Q2 of FY2023"), or None: a year."""
        self.question = question
        """The question's words: a day it is dated at ("as of August 30, 2023") asks for
        the quarter holding that day, by the company's own year (`quarter_dated`)."""
        self.whole = whole or set()
        """Years the question names on their own ("between FY2023 and Q2 of FY2024"):
        asked whole, the quarter not."""
        self.similarity = similarity
        self.scale = scale
        self.sourced = [
            (f, n) for n, chunk in enumerate(sources, start=1) for f in report_facts(chunk)
        ]
        self.derived: list[Derived] = []
        self.valued: dict[tuple[str, int], list[_Valued]] = {}
        """Each answered part's figures by (part, year), for `ranked` to order."""
        self._matched: dict[str, list[Candidate]] = {}
        self.change = change
        """The question asks how its measures moved: a change line under the years."""

    def joined(self, parts: list[Focus]) -> list[Focus]:
        """Parts the reports name together taken as one ("employees and contractors",
        "capital and exploration expenditure"): two neighbours become one when a label
        holds the words of both."""
        out: list[Focus] = []
        for part in parts:
            if out:
                both = Focus(
                    phrase=f"{out[-1].phrase} and {part.phrase}",
                    terms=out[-1].terms | part.terms,
                )
                if any(c.lexical >= 0.99 for c in self.candidates(both)):
                    out[-1] = both
                    continue
            out.append(part)
        return out

    def candidates(self, focus: Focus) -> list[Candidate]:
        if focus.phrase not in self._matched:
            self._matched[focus.phrase] = match(focus, self.sourced, self.similarity)
        return self._matched[focus.phrase]

    def _quarter(self, year: int, ticker: str) -> int | None:
        """The quarter asked of `year`: named ("Q2 of FY2023"), or holding the day the
        question is dated at; None when the year is asked whole."""
        if year in self.whole:
            return None
        if self.quarter is not None:
            return self.quarter
        dated = quarter_dated(self.question, companies()[ticker].year_end)
        return dated[1] if dated is not None and dated[0] == year else None

    def _best(self, candidates: list[Candidate], ticker: str, year: int) -> Candidate | None:
        """The year's figure, or the quarter's when one is asked of it. A question dated
        at a day ("as of August 30, 2023") takes that quarter's figure, else the year's: a
        report of that day states both (its quarter's gain, the year's proceeds)."""
        q = self._quarter(year, ticker)
        found = best(candidates, ticker, year, (q, companies()[ticker].year_end) if q else None)
        if found is None and q is not None and self.quarter is None:
            return best(candidates, ticker, year)
        return found

    def _when(self, ticker: str, year: int) -> str:
        """The period a figure is said for: the year, or the quarter of it asked."""
        if q := self._quarter(year, ticker):
            return f"Q{q} FY{year}"
        return _year_phrase(ticker, year)

    def _short(self, year: int, ticker: str) -> str:
        q = self._quarter(year, ticker)
        return f"Q{q} FY{year}" if q else f"FY{year}"

    def answer(
        self, part: Focus, ticker: str, years: list[int]
    ) -> tuple[list[str], list[NotFound]]:
        lines: list[str] = []
        gaps: list[NotFound] = []
        # The gap is named as the vocabulary names the measure, where it does ("C1 unit
        # costs" for "C1 costs per tonne"), else in the question's own words (always
        # when a number names its kind: "Scope 3 emissions", not "emissions").
        measure = _measure_name(part)
        picked: list[tuple[int, Candidate]] = []
        for year in years:
            line = self.figure(part, ticker, year)
            if line is None:
                gaps.append(NotFound(company=ticker, fiscal_year=year, metric=measure))
            else:
                lines.append(line)
                if part.derived is None and (
                    pick := self._best(self.candidates(part), ticker, year)
                ):
                    picked.append((year, pick))
        if self.change and len(picked) >= 2:
            lines.extend(self._change(ticker, picked))
        if gaps and not lines:
            near = closest(self.candidates(part), ticker, years)
            if near is not None:
                lines.append(_closest_figure(part, ticker, years, near))
            else:
                lines.extend(self._closest(part, ticker, years))
        return lines, gaps

    def _change(self, ticker: str, picked: list[tuple[int, Candidate]]) -> list[str]:
        """How a measure asked in the reports' own words moved between the years asked,
        with its working: a rate in percentage points, an amount in percent."""
        lines: list[str] = []
        for (y1, old), (y2, new) in itertools.pairwise(picked):
            a, b = old.fact, new.fact
            spans = {a.period_months, b.period_months}
            if a.unit != b.unit or a.value == b.value or (len(spans) > 1 and spans & {3, 6, 9}):
                continue  # a year's flow and a quarter's are no change of one measure; two
                # balances are, at a year's end and a quarter's
            subject = f"{_possessive(ticker)} {phrase(b)}"
            verb = "rose" if b.value > a.value else "fell"
            first, last = self._short(y1, ticker), self._short(y2, ticker)
            span = f"from {first} to {last}"
            if a.unit == "%":
                line = moved_in_points(subject, span, a, old.n, b, new.n)
                formula = f"{value_text(b)} − {value_text(a)} = {b.value - a.value:+.1f} points"
            elif a.value > 0 and b.value > 0 and unit_spec(a.unit).kind == "money":
                pct = (b.value - a.value) / a.value * 100
                line = (
                    f"{subject} {verb} {abs(pct):.1f}% {span}, from "
                    f"{value_text(a)} [{old.n}] to {value_text(b)} [{new.n}]."
                )
                formula = f"({value_text(b)} − {value_text(a)}) / {value_text(a)} = {pct:+.1f}%"
            else:
                continue
            lines.append(line)
            self.derived.append(
                Derived(
                    label=f"{_name(ticker)} {phrase(b)} change {first}–{last}",
                    formula=formula,
                )
            )
        return lines

    def choice(self, choice: Choice, ticker: str, years: list[int]) -> Draft | None:
        """Which of the options a question lists is highest or lowest, said first, then
        each option's figure cited; None when fewer than two of them have a figure of one
        kind in a year (the usual reading then answers what it can)."""
        paragraphs: list[str] = []
        gaps: list[NotFound] = []
        for year in years:
            picks = [(o, self._option(choice, o, ticker, year)) for o in choice.options]
            found = [(o, p) for o, p in picks if p is not None]
            if len({id(p.fact) for _, p in found}) < 2:
                continue
            try:
                based = [(o, p, to_base(p.fact.value, p.fact.unit)) for o, p in found]
            except IncompatibleUnits:
                continue
            if len({q.base for _, _, q in based}) > 1:
                continue  # figures of different kinds rank nothing
            ranked = [(o, p) for o, p, _ in sorted(based, key=lambda opq: opq[2].value)]
            missing = [o for o, p in picks if p is None]
            lines = []
            if not missing:
                top, pick = ranked[-1] if choice.end == "highest" else ranked[0]
                what = (
                    f"had the {choice.end} {choice.measure}"
                    if choice.measure
                    else (f"was the {choice.end}")
                )
                lines.append(
                    f"Of the {len(picks)} asked, {top} {what} for "
                    f"{_name(ticker)} in {self._when(ticker, year)}: "
                    f"{value_text(pick.fact)} [{pick.n}]."
                )
            lines.extend(self._sentence(p, ticker, year) for _, p in found)
            gaps.extend(NotFound(company=ticker, fiscal_year=year, metric=choice.phrase(o))
                        for o in missing)  # fmt: skip
            paragraphs.append(" ".join(lines))
        if not paragraphs:
            return None
        text = "\n\n".join([*paragraphs, "\n".join(g.line() for g in gaps)]).strip()
        return Draft(answer=text, not_found=gaps)

    def _option(self, choice: Choice, option: str, ticker: str, year: int) -> Candidate | None:
        """An option's figure: the best fact for it with its measure whose label says what
        sets the option apart from the others ("operations", not the "investing" of a
        row that answers "cash flow" as well)."""
        own = choice.own_terms(option)
        fit = [
            c for c in self.candidates(read_focus(choice.phrase(option)))
            if not own or any(related(t) & terms(c.fact.label) for t in own)
        ]  # fmt: skip
        return self._best(fit, ticker, year)

    def figure(self, part: Focus, ticker: str, year: int) -> str | None:
        pick = self._best(self.candidates(part), ticker, year)
        if part.derived is not None and (pick is None or pick.fact.unit != "%"):
            worked = self._derived(part, ticker, year)
            if worked is not None:
                return worked
        if pick is None:
            return None
        q = to_base(pick.fact.value, pick.fact.unit)
        self.valued.setdefault((part.phrase, year), []).append(
            _Valued(ticker, q.value, q.base, value_text(pick.fact), f"[{pick.n}]")
        )
        others = self._restatements(part, pick)
        if not others:
            return self._sentence(pick, ticker, year)
        f = pick.fact
        lines = [
            f"{_possessive(ticker)} {phrase(f)} for {self._when(ticker, year)} {verb(f)} "
            f"{value_text(f)} as first reported in the {f.document} [{pick.n}]."
        ]
        lines += [
            f"The {o.fact.document} restates {_possessive(ticker)} FY{year} {phrase(f)} to "
            f"{value_text(o.fact)} [{o.n}]."
            for o in others
        ]
        return " ".join(lines)

    def _restatements(self, part: Focus, pick: Candidate) -> list[Candidate]:
        """Later reports' figures under the same label for the year `pick` answers that
        differ from it (South32's FY2024 revenue from continuing operations, 5,479 as first
        reported, 4,923 in the FY2025 report once a business was sold): the answer gives
        both, as it does for a measure the vocabulary names. None when `pick` is itself a
        later report's figure or a sentence's."""
        f = pick.fact
        if f.report_fiscal_year != f.fiscal_year or f.restated or f.source == "prose":
            return []
        seen: set[int] = set()
        found: list[Candidate] = []
        for c in self.candidates(part):
            o = c.fact
            if (
                (o.company, o.fiscal_year) == (f.company, f.fiscal_year)
                and o.report_fiscal_year > f.report_fiscal_year
                and o.report_fiscal_year not in seen
                and o.annual
                and o.label.lower() == f.label.lower()
                and c.score >= ANSWERS
            ):
                a, b = to_base(f.value, f.unit), to_base(o.value, o.unit)
                if a.base == b.base and abs(a.value - b.value) > 1e-9:
                    seen.add(o.report_fiscal_year)
                    found.append(c)
        return found

    def ranked(self, part: Focus, year: int, asked: str, tickers: list[str]) -> str | None:
        """The company with the highest (or lowest) figure of a part no metric names, of
        those answered for `year` on one base (a margin's percentages compare across
        currencies; amounts only within one), said first, then the others in order. None
        unless every company asked has its figure there: a company whose figure was not
        found may be the one asked for (South32's TRIF was named lowest, with Fortescue's
        and Northern Star's lower TRIFR not read)."""
        entries = self.valued.get((part.phrase, year), [])
        if {e.ticker for e in entries} != set(tickers):
            return None
        bases: dict[str, list[_Valued]] = {}
        for entry in entries:
            bases.setdefault(entry.base, []).append(entry)
        group = max(bases.values(), key=len, default=[])
        if len(group) < 2:
            return None
        top, *rest = sorted(group, key=lambda e: -e.value if asked == "highest" else e.value)
        among = f"Among the figures in {top.base}, " if len(bases) > 1 else ""
        others = "; ".join(f"{_name(e.ticker)} {e.text} {e.cite}" for e in rest)
        return (
            f"{among}{_name(top.ticker)} had the {asked} {_measure_name(part)} in FY{year}: "
            f"{top.text} {top.cite}. Then: {others}."
        )

    def _sentence(self, pick: Candidate, ticker: str, year: int) -> str:
        f = pick.fact
        if f.source == "prose" and single_figure(f.context):
            section = self.sources[pick.n - 1].section.split(" — ")[0]
            return (
                f"{_possessive(ticker)} FY{f.report_fiscal_year} report ({section}, page "
                f'{f.page}) says: "{f.context}" [{pick.n}]'
            )
        when = self._when(ticker, year)
        return f"{_possessive(ticker)} {phrase(f)} for {when} {verb(f)} {value_text(f)} [{pick.n}]."

    def _derived(self, part: Focus, ticker: str, year: int) -> str | None:
        """A margin, share or ratio computed from the two facts it joins, with its working."""
        assert part.derived is not None
        spec = part.derived
        num = self._best(self.candidates(read_focus(spec.numerator)), ticker, year)
        den = self._best(self.candidates(read_focus(spec.denominator)), ticker, year)
        if num is None or den is None or num.fact == den.fact:
            return None
        den = self._same_basis(num, den, spec.denominator, ticker, year)
        worked = derive(spec.kind, num, den)
        if worked is None:
            return None
        unit = "%" if worked.text.endswith("%") else "times"
        cite = f"[{num.n}]" if num.n == den.n else f"[{num.n}] [{den.n}]"
        self.valued.setdefault((part.phrase, year), []).append(
            _Valued(ticker, worked.value, unit, worked.text, cite)
        )
        self.derived.append(
            Derived(
                label=f"{_name(ticker)} {spec.name} {self._short(year, ticker)}",
                formula=worked.formula,
            )
        )
        return (
            f"{_possessive(ticker)} {spec.name} for {self._when(ticker, year)} was "
            f"{worked.text}, worked out from the reported figures: {phrase(num.fact)} of "
            f"{value_text(num.fact)} [{num.n}] divided by {phrase(den.fact)} of "
            f"{value_text(den.fact)} [{den.n}]."
        )

    def _same_basis(
        self, num: Candidate, den: Candidate, denominator: str, ticker: str, year: int
    ) -> Candidate:
        """Both on one basis: an underlying (adjusted) figure is divided by the report's
        underlying denominator when it prints one (South32's underlying EBITDA over its
        underlying revenue, which includes the same equity-accounted share)."""
        basis = BASIS.search(num.fact.label)
        if basis and not BASIS.search(den.fact.label):
            same = self._best(
                self.candidates(read_focus(f"{basis.group(0)} {denominator}")), ticker, year
            )
            if same is not None and BASIS.search(same.fact.label) and same.fact != num.fact:
                return same
        return den

    def _closest(self, part: Focus, ticker: str, years: list[int]) -> list[str]:
        """The sentences of the company's reports that speak to the part, offered as what
        the reports do say (closest available), or nothing."""
        found = find_passages(part.phrase, self.sources, ticker, years, [], limit=2)
        found = [p for p in found if shares_most(part, p.sentence)]
        if not found:
            return []
        lines = [
            f'The reports give no figure of {_possessive(ticker)} for "{part.phrase}" for '
            f"{year_span_of(years)}; the closest they say:"
        ]
        for p in found:
            where = f"{p.chunk.section.split(' — ')[0]}, page {p.chunk.page}"
            lines.append(
                f"{_possessive(ticker)} FY{p.chunk.fiscal_year} report ({where}): "
                f'"{p.sentence}" [{p.n}]'
            )
        return lines


def _closest_figure(part: Focus, ticker: str, years: list[int], near: Candidate) -> str:
    """The closest figure the reports give to a measure none answers: a sentence's figure
    shown in its sentence (its label alone is a few words cut from it: "company generated
    … in cash proceeds"), a table's with its label."""
    f = near.fact
    said = (
        f'they say: "{f.context.strip()}" [{near.n}]'
        if f.source == "prose" and f.context
        else f"figure they report is its {phrase(f)} for FY{f.fiscal_year}: "
        f"{value_text(f)} [{near.n}]."
    )
    return (
        f'The reports give no figure of {_possessive(ticker)} for "{part.phrase}" '
        f"for {year_span_of(years)}; the closest {said}"
    )


def _narrative(
    question: str,
    sources: list[ChunkText],
    companies: list[str],
    years: list[int],
    metrics: list[str],
    similarity: Similarity | None = None,
) -> list[str]:
    """The sentences of each company's reports that answer a question that is not about a
    figure, quoted and cited to their page; or a plain line that the reports do not
    address it."""
    role = role_asked(question)
    paragraphs: list[str] = []
    for ticker in companies:
        if (holder := role_holder(question, sources, ticker)) is not None:
            paragraphs.append(_holder_line(ticker, holder, role or ""))
            continue
        passages = find_passages(question, sources, ticker, years, metrics, similarity=similarity)
        if not passages:
            paragraphs.append(
                f"I found nothing in {_possessive(ticker)} reports for {year_span_of(years)} "
                "that addresses this question."
            )
            continue
        lines: list[str] = []
        if role and not any(p.from_role for p in passages):
            lines.append(
                f"The {role}'s letter in {_possessive(ticker)} reports does not address this; "
                "elsewhere the reports say:"
            )
        for p in sorted(passages, key=lambda p: (-p.chunk.fiscal_year, p.n)):
            where = f"{p.chunk.section.split(' — ')[0]}, page {p.chunk.page}"
            lines.append(
                f"{_possessive(ticker)} FY{p.chunk.fiscal_year} report ({where}): "
                f'"{p.sentence}" [{p.n}]'
            )
        paragraphs.append("\n".join(lines))
    return paragraphs


def _holder_line(ticker: str, holder: RoleHolder, role: str) -> str:
    """ "Who is the CEO?": the line that describes the role's holder, and whether the
    reports name them (an excerpt may describe directors by role alone)."""
    chunk = holder.chunk
    where = f"{chunk.section.split(' — ')[0]}, page {chunk.page}"
    quoted = (
        f"{_possessive(ticker)} FY{chunk.fiscal_year} report ({where}), under "
        f'"{holder.heading or role}": "{holder.said}" [{holder.n}]'
    )
    if holder.named:
        return quoted
    return f"{_possessive(ticker)} reports do not name its {role}; the closest they say: {quoted}"


def _quoted(line: str) -> str:
    """The quoted sentence of a passage line ("" for a line without one)."""
    match = re.search(r'"(.+)"', line)
    return match.group(1) if match else ""


def year_span_of(years: list[int]) -> str:
    if len(years) == 1:
        return f"FY{years[0]}"
    return f"FY{min(years)}–FY{max(years)}"


_CURRENCY_WORDS = {"US$": "US dollars", "A$": "Australian dollars"}


def _currency_notice(asked: str | None, chosen: dict[tuple[str, int, str], _Sourced]) -> str | None:
    """When a question asks for a currency a figure is not reported in: say the report's
    currency. The reports state no exchange rate, so nothing is converted."""
    if asked is None:
        return None
    by_currency: dict[str, list[str]] = {}
    for (ticker, _, _), s in chosen.items():
        currency = unit_spec(s.fact.unit).currency
        if currency and currency != asked:
            names = by_currency.setdefault(currency, [])
            if _name(ticker) not in names:
                names.append(_name(ticker))
    if not by_currency:
        return None
    given = "; ".join(
        f"{' and '.join(names)} in {_CURRENCY_WORDS.get(c, c)}" for c, names in by_currency.items()
    )
    wanted = _CURRENCY_WORDS.get(asked, asked)
    return (
        f"The reports give these figures in their own currency ({given}). They state no "
        f"exchange rate, so I do not convert them to {wanted}; the figures below are as "
        "reported."
    )


def _currency_words(unit: str) -> str:
    spec = unit_spec(unit)
    currency = by_sign(spec.currency)
    if spec.kind == "per_share" and currency is not None and currency.minor_words:
        return currency.minor_words.removesuffix(" per share").strip()
    return spec.currency or next((q.shown.strip() for q in QUANTITIES if q.key == spec.base), unit)
