"""The offline engine's answer, section by section: the state of one answer being drafted
and the builders `OfflineEngine.synthesize` calls in order, each adding its part.

Builders run in the order their parts depend on one another (the figures picked first,
then what compares them), and a part said first is put before those already written.
So the answer reads: the currency note; the highest or lowest of a measure in the
reports' words; the comparison or the share asked for; the commodity note; the tables;
each company's figures; the rankings; the measures in the reports' words; what the
reports say; the companies' year ends; and last, the not-found lines.
"""

import re
from dataclasses import dataclass, field

from backends.engines.offline import analyst, compare, tables
from backends.engines.offline.compose import Composer
from backends.engines.offline.facts import Chosen, sourced_facts
from backends.engines.offline.narrative import narrate
from backends.engines.offline.open_answers import OpenAnswers
from backends.engines.offline.wording import listed
from domain.checks.tables import said_in_table
from domain.companies.roster import calendar_note, companies, display_name
from domain.language.calendar import quarter_of_year, whole_years
from domain.language.units import requested_currency, requested_scale
from domain.models import ChunkText, Draft, NotFound, Slots
from domain.questions.answer_scope import answer_years, explains_a_change, requested_metrics
from domain.questions.choices import read_choice
from domain.questions.intent import (
    asks_change,
    asks_narrative,
    asks_share_of_total,
    commodities_named,
    companies_over,
    superlative,
)
from domain.questions.measures import Focus, narrowed_metrics, open_parts
from domain.questions.metrics import LINE_ITEM_OF, metric_display
from domain.reports.figures import unit_spec
from domain.reports.open_answers import Similarity


def analyst_answer(question: str, slots: Slots, sources: list[ChunkText]) -> Draft | None:
    """An analyst's question answered by its line items (`analyst.compose`); None for any
    other question, or one the usual path answers."""
    if (asked := analyst.analyst_question(question)) is None:
        return None
    return analyst.compose(asked, slots.companies or list(companies()), sources)


def chosen_option(
    question: str, slots: Slots, sources: list[ChunkText], similarity: Similarity | None
) -> Draft | None:
    """Which of the options a question about one company lists is highest or lowest
    (`OpenAnswers.choice`); None when it lists none, or too few have a figure."""
    asked = slots.companies or list(companies())
    if len(asked) != 1 or (choice := read_choice(question)) is None:
        return None
    opened = OpenAnswers(
        sources,
        similarity,
        requested_scale(question),
        quarter=quarter_of_year(question),
        whole=whole_years(question),
        question=question,
    )
    return opened.choice(choice, asked[0], answer_years(slots, question))


@dataclass
class Drafting:
    """One answer being drafted: what it covers, the figures of its sources, and its
    paragraphs, figures given and not-found lines so far."""

    question: str
    slots: Slots
    sources: list[ChunkText]
    similarity: Similarity | None
    asked: list[str]
    """The companies answered: those named, else every company covered."""
    metrics: list[str]
    """The vocabulary's metrics answered (not a derived measure's inputs, nor a metric a
    condition narrows: those are answered in the reports' words)."""
    years: list[int]
    parts: list[Focus]
    """The measures answered in the reports' own words."""
    share_of_total: bool
    most: str | None
    """The end asked ("highest" or "lowest") when the question asks which company it is."""
    composer: Composer
    paragraphs: list[str] = field(default_factory=list)
    not_found: list[NotFound] = field(default_factory=list)
    chosen: Chosen = field(default_factory=dict)

    @property
    def tabular(self) -> bool:
        """Three or more companies read as a table per metric, one unit per table; the
        sentences keep what a table cannot say (changes, nearest figures, differences)."""
        return len(self.asked) >= 3

    def open_answers(self, change: bool = False) -> OpenAnswers:
        """Answers for measures in the reports' own words, from these sources."""
        return OpenAnswers(
            self.sources,
            self.similarity,
            self.composer.scale,
            change=change,
            quarter=quarter_of_year(self.question),
            whole=whole_years(self.question),
            question=self.question,
        )

    def draft(self) -> Draft:
        return Draft(
            answer="\n\n".join(self.paragraphs),
            derived=self.composer.derived,
            not_found=self.not_found,
        )


def start(
    question: str, slots: Slots, sources: list[ChunkText], similarity: Similarity | None
) -> Drafting:
    """What the answer covers, and the one unit each measure is written in."""
    asked = slots.companies or list(companies())
    metrics = requested_metrics(slots, question)
    years = answer_years(slots, question)
    share_of_total = asks_share_of_total(question) and len(asked) >= 2
    parts = [] if slots.intent == "narrative" or share_of_total else open_parts(question)
    # The measures a margin, share or ratio joins are its inputs, stated in its
    # working, not answers of their own.
    inputs = {m for p in parts if p.derived is not None for m in p.metrics}
    # A measure asked with a condition ("profit excluding one-off items") is answered
    # by the fact the condition narrows to, not by the vocabulary's metric.
    narrowed = {m for p in parts for m in narrowed_metrics(p)}
    metrics = [m for m in metrics if m not in inputs | narrowed]
    composer = Composer(
        sourced_facts(sources), requested_scale(question), commodities_named(question)
    )
    composer.share(
        [p for t in asked for m in metrics for y in years if (p := composer.pick(t, y, m))]
    )
    return Drafting(
        question=question,
        slots=slots,
        sources=sources,
        similarity=similarity,
        asked=asked,
        metrics=metrics,
        years=years,
        parts=parts,
        share_of_total=share_of_total,
        most=superlative(question) if len(asked) >= 2 else None,
        composer=composer,
    )


def figures(d: Drafting) -> None:
    """Each company's figures, a paragraph each: a sentence per metric and year (unless a
    table gives it), the nearest figure for a line item not given, and how each moved
    when the question asks."""
    wants_change = (
        d.slots.intent == "change"
        or explains_a_change(d.slots, d.question)
        or (d.slots.intent == "compare" and len(d.asked) == 1)
    )
    for ticker in d.asked:
        sentences: list[str] = []
        for metric in d.metrics:
            for year in d.years:
                sentences.extend(_figure(d, ticker, year, metric))
            if wants_change:
                sentences.extend(d.composer.change_sentences(d.chosen, ticker, metric, d.years))
        if sentences:
            d.paragraphs.append(" ".join(sentences))


def _figure(d: Drafting, ticker: str, year: int, metric: str) -> list[str]:
    """One figure picked and its sentences; or noted not found, with the nearest figure
    available for a line item (its total), labelled as such."""
    pick = d.composer.pick(ticker, year, metric)
    if pick is None:
        d.not_found.append(
            NotFound(company=ticker, fiscal_year=year, metric=metric_display(metric))
        )
        parent = LINE_ITEM_OF.get(metric)
        nearest = d.composer.pick(ticker, year, parent) if parent else None
        if parent and nearest and parent not in d.metrics:
            return [d.composer.nearest_sentence(nearest, ticker, year, metric, parent)]
        return []
    d.chosen[(ticker, year, metric)] = pick
    return [] if d.tabular else d.composer.figure_sentences(pick, ticker, year, metric)


def figure_tables(d: Drafting) -> None:
    """Three or more companies: a table per metric, first."""
    if d.tabular:
        d.paragraphs[:0] = [
            t
            for metric in d.metrics
            for t in tables.tables(d.composer, d.chosen, d.asked, d.years, metric)
        ]


def commodity_note(d: Drafting) -> None:
    """ "Which company mined the most gold?" of one that mines it: said so first."""
    if (
        len(d.asked) == 1
        and (named := commodities_named(d.question))
        and companies_over(d.question) == d.asked
    ):
        d.paragraphs.insert(
            0,
            f"Of the companies covered, only {display_name(d.asked[0])} lists "
            f"{listed(sorted(named))} among the commodities it mines.",
        )


def shares_of_total(d: Drafting) -> None:
    """The part asked (the first company named's share of the total) first, the cited
    table below."""
    if d.share_of_total:
        d.paragraphs[:0] = [
            line
            for year in d.years
            for metric in d.metrics
            if (line := compare.share_of_total(d.composer, d.chosen, d.asked, year, metric))
        ]


def rankings(d: Drafting) -> None:
    """Two or more companies compared: each year's ranking and difference; the one asked
    for ("which had the highest?", "is that more than Rio's?") first."""
    if d.share_of_total or len(d.asked) < 2:
        return
    if d.slots.intent not in ("compare", "lookup", "overview"):
        return
    answered_first: list[str] = []
    for year in d.years:
        for metric in d.metrics:
            line = compare.compare_sentences(
                d.composer, d.chosen, d.asked, year, metric, listing=not d.tabular, asked=d.most
            )
            if line and d.most:
                answered_first.append(line)  # the one asked for, then the table
            elif line:
                d.paragraphs.append(line)
    if (than := compare.than_pair(d.question, d.asked)) is not None:
        answered_first[:0] = [
            line
            for year in d.years
            for metric in d.metrics
            if (line := compare.than_sentence(d.composer, d.chosen, than[0], year, metric, than[1]))
        ]
    d.paragraphs[:0] = answered_first


def open_measures(d: Drafting) -> None:
    """Measures in the reports' own words: answered from the facts that match them, else
    the reports' closest sentences or the exact not-found line; the company with the
    highest or lowest first, when the question asks which."""
    if not d.parts:
        return
    opened = d.open_answers(change=asks_change(d.question) or d.slots.intent == "change")
    first: list[str] = []
    for part in opened.joined(d.parts):
        for ticker in d.asked:
            lines, gaps = opened.answer(part, ticker, d.years)
            if lines:
                d.paragraphs.append(" ".join(lines))
            d.not_found.extend(gaps)
        if d.most:
            # "which company had the highest EBITDA margin?": that one first
            first.extend(r for y in d.years if (r := opened.ranked(part, y, d.most, d.asked)))
    d.paragraphs[:0] = first
    d.composer.derived.extend(opened.derived)


def unread_measures(d: Drafting) -> None:
    """A measure the engine has no rule for is never substituted: its own line says so."""
    if d.parts:
        return
    d.not_found.extend(
        NotFound(company=ticker, fiscal_year=year, metric=measure)
        for ticker in d.asked
        for measure in d.slots.other_measures
        for year in d.years
    )


def what_reports_say(d: Drafting) -> None:
    """A question that is not about a figure: each company's sentences that answer it,
    quoted (a sentence already said is not said again), or that none does."""
    if d.slots.intent != "narrative":
        return
    figured = set() if asks_narrative(d.question) else _topic_figures(d)
    said = "\n".join(d.paragraphs)
    narrated = narrate(d.question, d.sources, d.asked, d.years, d.metrics, d.similarity)
    for ticker, paragraph in zip(d.asked, narrated, strict=True):
        if ticker in figured and not _quoted(paragraph):
            continue  # its figure answered: no "found nothing" line under it
        lines = paragraph.split("\n")
        kept = [ln for ln in lines if not _quoted(ln) or _quoted(ln) not in said]
        if any(_quoted(ln) for ln in kept) or not any(_quoted(ln) for ln in lines):
            d.paragraphs.append("\n".join(kept))


def _topic_figures(d: Drafting) -> set[str]:
    """A topic question ("What was BHP's TRIF?") whose words a report's own figure
    answers: that figure, before what the reports say; the companies it answered."""
    opened = d.open_answers()
    figured: set[str] = set()
    for part in opened.joined(open_parts(d.question)):
        for ticker in d.asked:
            lines = [ln for y in d.years if (ln := opened.figure(part, ticker, y))]
            if lines and " ".join(lines) not in d.paragraphs:
                # Two parts one figure answers ("Cash & Cash equivalents") say it once.
                d.paragraphs.append(" ".join(lines))
            if lines:
                figured.add(ticker)
    return figured


def currency_note(d: Drafting) -> None:
    """A currency asked that a figure is not reported in: the reports' own, first."""
    if notice := _currency_notice(requested_currency(d.question), d.chosen):
        d.paragraphs.insert(0, notice)


def year_end_note(d: Drafting) -> None:
    """The companies answered end their fiscal years on different dates: the note that
    says so (`calendar_note`)."""
    if note := calendar_note([t for t, _, _ in d.chosen if t in d.asked]):
        d.paragraphs.append(note)


def not_found_lines(d: Drafting) -> None:
    """The exact not-found line of each figure missing, last; a gap a table's row says
    (a company asked with no figure) is not said again."""
    said = "\n\n".join(d.paragraphs)
    if lines := [nf.line() for nf in d.not_found if not said_in_table(nf, said)]:
        d.paragraphs.append("\n".join(lines))


def _quoted(line: str) -> str:
    """The quoted sentence of a passage line ("" for a line without one)."""
    match = re.search(r'"(.+)"', line)
    return match.group(1) if match else ""


_CURRENCY_WORDS = {"US$": "US dollars", "A$": "Australian dollars"}


def _currency_notice(asked: str | None, chosen: Chosen) -> str | None:
    """When a question asks for a currency a figure is not reported in: say the report's
    currency. The reports state no exchange rate, so nothing is converted."""
    if asked is None:
        return None
    by_currency: dict[str, list[str]] = {}
    for (ticker, _, _), s in chosen.items():
        currency = unit_spec(s.fact.unit).currency
        if currency and currency != asked:
            names = by_currency.setdefault(currency, [])
            if display_name(ticker) not in names:
                names.append(display_name(ticker))
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
