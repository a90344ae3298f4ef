"""Does an answer address its question? The relevance control, for any engine's draft.

Pure (the embedder's similarity is passed in). The question's focus is read from the
question alone (`focus_parts`: each measure or topic it asks about), never from what
the draft says it answered. Each part is then one of:

- **answered**: a sentence of the answer cites a source, states a figure, and the source
  holds that figure as a fact whose label answers the part (`open_answers.match`: its
  words or synonyms, its metric, or its meaning); or the sentence's figure is in no
  cited source (the numeric check flags it) but the sentence names the part; or, for a
  part asking for no figure, a sentence that cites a source and shares the part's words
  with what it quotes;
- **not_found**: the answer has the part's exact "data not found" line;
- **missing**: neither. The answer does not cover it.

An answer whose parts are all missing is off the point (`off_point`): whatever it says,
it says about something else. `workflows/rules/gate.py` decides what is shown from this.
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from domain.checks.numeric import cited_sources, value_matches
from domain.companies.roster import find_companies, without_companies
from domain.language.amounts import claimed_amounts, find_amounts
from domain.language.calendar import asks_part_of_year
from domain.language.sentences import split_sentences
from domain.models import ChunkText, Relevance, RelevanceItem
from domain.questions.analyst import AnalystQuestion, analyst_path, asked_part
from domain.questions.choices import read_choice
from domain.questions.intent import asks_narrative, asks_share_of_total
from domain.questions.measures import (
    ACRONYM,
    Focus,
    asks_overview,
    asks_topic,
    focus_parts,
    meets_condition,
    related,
    terms,
)
from domain.questions.metrics import TOTAL_WORDS, find_metrics, metric_display, metric_mentions
from domain.questions.years import mentioned_years
from domain.reports.facts import report_facts
from domain.reports.figures import Fact
from domain.reports.open_answers import (
    ANSWERS,
    Similarity,
    circumstance_heard,
    match,
    own_words,
    shares_most,
)
from domain.reports.passages import ASKS_WHEN, TIME, asks_why, gives_cause

_CITED = re.compile(r"\[\d+\]")
UNMATCHED_FIGURE = "the answer's own words (its figure is not in the cited source)"
_NOT_FOUND_LINE = re.compile(
    r"^\s*(?:[-*•]\s*)?[A-Z0-9]{2,4}\s+FY\d{4}\s+(?P<m>[^:\n]+):\s*data "
    r"not found in provided documents",
    re.MULTILINE,
)


def _fact_amount_matches(fact: Fact, sentence: str) -> bool:
    """Whether `sentence` states `fact`'s figure (within the rounding it is written at)."""
    wanted = find_amounts(fact.raw if fact.source == "prose" else fact.raw + " ")
    claims = claimed_amounts(sentence)
    if not wanted and re.fullmatch(r"\d{1,2}", f"{fact.value:g}"):
        # A small count ("11 directors"), which amounts skip as a list number: the
        # sentence states it when it has that number as a word of its own.
        return re.search(rf"(?<![\d.,]){fact.value:g}(?![\d.,%])", sentence) is not None
    if not claims:
        return False
    if not wanted:  # a bare table cell: compare the number itself
        return any(abs(c.value - abs(fact.value)) < c.step for c in claims)
    return any(value_matches(c, w) for c in claims for w in wanted) or any(
        abs(c.value - abs(fact.value)) <= 0.5 * c.step for c in claims
    )


def _tells_apart(part: Focus, fact: Fact, vocabulary: frozenset[str]) -> bool:
    """Whether the part asks for something the stated fact is not: a word of the part
    ("first-half" in "first-half payout") that the evidence's `vocabulary` (the terms of
    every fact's label and row) uses but this fact's label and row do not. A word the
    evidence never uses tells nothing. The words of how the measure came about
    (`Focus.circumstance`) are the report's to put its own way: one of them heard in the
    fact's row or sentence, its opening clause too, is enough."""
    own = terms(own_words(fact))
    for term in part.terms - part.circumstance:
        family = related(term)
        if not family & own and family & vocabulary:
            return True
    return not circumstance_heard(part, fact)


def _unheard(part: Focus, vocabulary: frozenset[str], semantic: float) -> bool:
    """Whether the part asks for something the evidence never speaks of: a word of its
    own ("retain" of "retain card members", "wages" of "wages expense") that no label,
    row or sentence of the evidence uses, nor a synonym of it, while the figure's meaning
    is not the part's either. A figure sharing the part's other words ("Card Member
    receivables") is then another measure's. A part the vocabulary names (a metric) is
    read by its metric, not by its words."""
    if part.metrics and part.derived is None:
        # Its metric's words are read by the metric ("sales" for revenue); a word that
        # narrows it ("international" of "international sales") still asks, and a figure
        # of the whole measure is not it, however close its meaning.
        return any(not related(term) & vocabulary for term in _qualifiers(part))
    if semantic >= ANSWERS:
        return False  # (a share's metrics are its inputs: its numerator's words still ask)
    words = terms(part.derived.numerator) if part.derived is not None else part.terms
    # A word written as an acronym ("AIFR") is heard when a label's initials spell it.
    words = frozenset(t for t in words if ACRONYM + t not in words)
    # How the measure came about may be put in the report's own words ("spin-off" for
    # "demerger"): `_tells_apart` asks that one of them be heard.
    return any(not related(term) & vocabulary for term in words - part.circumstance)


def _qualifiers(part: Focus) -> frozenset[str]:
    """The words set right before a metric's name in the question that narrow it
    ("international" of "international sales", "total" of "total revenue"): up to two,
    back to a function word, a possessive or a company ("did it spend on capex": none)."""
    text = without_companies(part.text or part.phrase)
    found: set[str] = set()
    for start, _, _ in metric_mentions(text):
        for word in reversed(re.findall(r"[\w'’&-]+|[^\w\s]", text[:start])[-2:]):
            if word.endswith(("'s", "’s")) or not terms(word):
                break
            if not TOTAL_WORDS.fullmatch(word.lower()):  # "total revenue" is all of it
                found |= terms(word)
    return frozenset(found) & part.terms


def _answered_by_figure(
    part: Focus,
    sentences: list[str],
    facts: Sequence[list[Fact]],
    vocabulary: frozenset[str],
    similarity: Similarity | None,
    topic: bool = False,
    years: Sequence[int] = (),
    part_of_year: bool = False,
) -> tuple[str, float] | None:
    """The evidence label and score that make a sentence of the answer state a figure
    answering `part`, if any does. `facts` are each source's, in source order.

    For a `topic` question (one that asks for no quantity) a figure answers only when
    its label and row hold most of the part's words, or mean it: one shared word ("mine"
    of "ambition for its copper mine" in "iron ore mined") is another subject's figure.
    A figure of a year the question does not ask for (`years`, when it names any) does
    not answer it, however well its label fits; nor, when the question asks for a quarter
    or a span of months (`part_of_year`), does a whole year's (J&J's fiscal-year share of sales for
    "in Q2 of FY2023")."""
    # long: the label matches tried in order, strongest first.
    for sentence in sentences:
        cited = cited_sources(sentence, len(facts))
        if not cited:
            continue
        sourced = [(f, i) for i in cited for f in facts[i]]
        amounts = [(f, i) for f, i in sourced if _fact_amount_matches(f, sentence)]
        stated = [
            (f, i)
            for f, i in amounts
            if (not years or f.fiscal_year in years) and (not part_of_year or _of_part_of_year(f))
        ]
        for candidate in match(part, stated, similarity):
            fact = candidate.fact
            if (
                candidate.score >= ANSWERS
                and not _tells_apart(part, fact, vocabulary)
                and not _unheard(part, vocabulary, candidate.semantic)
                and (
                    not topic
                    or candidate.semantic >= ANSWERS
                    or shares_most(part, f"{fact.label} {fact.context}")
                )
            ):
                return fact.label, candidate.score
            break
        if (
            not amounts
            and claimed_amounts(sentence)
            and shares_most(part, sentence)
            and meets_condition(part, sentence)
        ):
            # Its figure is in no cited source: the numeric check flags that figure; the
            # sentence still names what was asked, so the answer is on the point.
            return UNMATCHED_FIGURE, 0.5
    return None


def _of_part_of_year(fact: Fact) -> bool:
    """A figure of less than a year: its column's period (3, 6 or 9 months, or a balance
    within the year), or its sentence's own words ("during the fourth quarter")."""
    if not fact.annual:
        return True
    return fact.source == "prose" and asks_part_of_year(own_words(fact))


def _answered_by_text(
    part: Focus,
    sentences: list[str],
    sources: Sequence[ChunkText],
    evidence: Sequence[frozenset[str]],
    when: bool = False,
) -> str | None:
    """A sentence that cites a source and quotes what most of the part's weight asks
    (and, when the question asks `when`, says a time: "in March 2023").

    Each of the part's words weighs by how rare it is among the evidence's sentences (its
    synonyms included): "green energy projects put on hold" is about "hold" (and the
    "paused" the reports write for it) more than about "green", "energy" and "projects",
    which half the evidence uses. The quote holds the rarest word, half the weight, and,
    when the part has more than one word the evidence uses, another of them: one rare word
    alone does not make a quote about the part ("a background in industrial automation"
    of some director does not give the Chair's background).
    A word the evidence never uses tells nothing and weighs nothing. Only the quoted
    words count, not the company, report and section the answer names before the quote.
    With no word of the part in the evidence, words of one family meet by their first
    five letters ("acqusition", "acquired")."""
    # long: the quote matches tried in order, strongest first.
    families = _families(part, evidence)
    weights = _evidence_weights(families, evidence)
    if weights and len(weights) < len(part.terms) and 2 * len(weights) <= len(part.terms) + 1:
        # Most of what the part says is nowhere in the evidence ("business subject
        # cyclicality" with no word of cyclicality): a quote of what is left is not it.
        return None
    total = sum(weights.values())
    rarest = max(weights, key=lambda term: (weights[term], term), default=None)
    for sentence in sentences:
        quote = _quoted(sentence)
        if when and not TIME.search(quote):
            continue
        for i in cited_sources(sentence, len(sources)):
            if not _shares_family(part, sources[i].text, families):
                continue
            if total == 0:
                if _shares_family(part, quote):
                    return sentence[:160]
                continue
            found = terms(quote)
            held = {term for term in weights if families[term] & found}
            weight = sum(weights[term] for term in held)
            if rarest in held and 2 * weight >= total and (len(held) > 1 or len(weights) == 1):
                return sentence[:160]
    return None


def _quoted(sentence: str) -> str:
    """The words an answer sentence quotes (`... (Section, page 2): "..." [1]`), or the
    sentence itself when it quotes nothing."""
    found = re.search(r'"(.+)"', sentence)
    return found.group(1) if found else sentence


def _families(part: Focus, evidence: Sequence[frozenset[str]]) -> dict[str, frozenset[str]]:
    """Each of the part's terms with its synonyms and, when the evidence uses none of
    them, the evidence's word spelt nearly the same ("centerpiece" for the reports'
    "centrepiece", "organization" for "organisation"): difflib's ratio, not a list of
    spellings, on words long enough for a near spelling to be the same word."""
    vocabulary = frozenset().union(*evidence) if evidence else frozenset()
    families: dict[str, frozenset[str]] = {}
    for term in part.terms:
        family = related(term)
        if len(term) >= 7 and not family & vocabulary:
            family |= {
                word
                for word in vocabulary
                if word[:3] == term[:3]
                and abs(len(word) - len(term)) <= 2
                and SequenceMatcher(None, word, term).ratio() >= 0.85
            }
        families[term] = family
    return families


def _evidence_weights(
    families: dict[str, frozenset[str]], evidence: Sequence[frozenset[str]]
) -> dict[str, float]:
    """Each of the part's terms that the evidence uses (`families`: each term with its
    synonyms and spellings), weighted by its rarity among the evidence's sentences
    (`evidence`: each sentence's terms; inverse document frequency)."""
    weights: dict[str, float] = {}
    for term, family in families.items():
        df = sum(1 for found in evidence if family & found)
        if df:
            weights[term] = math.log(len(evidence) / df) or 0.01
    return weights


def _shares_family(
    part: Focus, text: str, families: dict[str, frozenset[str]] | None = None
) -> bool:
    """Whether `text` uses half the part's words: their synonyms and near spellings
    (`families`), or words of one family by their first five letters."""
    found = terms(text)
    if families and 2 * sum(1 for t in part.terms if families[t] & found) >= len(part.terms):
        return True
    if shares_most(part, text):
        return True
    prefixes = {t[:5] for t in found if len(t) >= 5}
    shared = sum(1 for t in part.terms if len(t) >= 5 and t[:5] in prefixes)
    return shared > 0 and 2 * shared >= len(part.terms)


def _derived_answered(part: Focus, sentences: list[str], derived_labels: Sequence[str]) -> bool:
    """A margin, share or ratio is answered when the answer lists it as derived (the
    numeric check recomputed it from its cited inputs) and names it."""
    return any(terms(label) & part.terms for label in derived_labels) and any(
        shares_most(part, s) for s in sentences
    )


def _companies_unnamed(question: str, answer: str, parts: list[Focus]) -> list[RelevanceItem]:
    """For a question about several companies, each asked measure of a company the answer
    never names, in a sentence or a not-found line: that company's part is missing."""
    asked = find_companies(question)
    if len(asked) < 2:
        return []
    named = set(find_companies(answer))
    focuses = [part.phrase for part in parts if part.phrase] or ["figures asked"]
    return [
        RelevanceItem(focus=focus, status="missing", company=ticker)
        for ticker in asked
        if ticker not in named
        for focus in focuses
    ]


def _analyst_relevance(
    asked: AnalystQuestion, answer: str, derived_labels: Sequence[str]
) -> Relevance:
    """An analyst's question asks one thing: its calculation, answered when the numeric
    check recomputed a result its answer names (or, for a standard ratio named, a cited
    figure in a sentence that names it: the report prints it); or its line item, answered
    by a cited figure in a sentence that names it (a choice among line items: a sentence
    that names them all). Either is not found when its gap line (or a line item's of the
    calculation) is said."""
    # long: one analyst question's parts judged in order: the calculation, the trend, the sign.
    name = asked.calculation.name if asked.calculation is not None else asked.measure
    if asked.among is not None:
        name = ", ".join(asked.among[1])  # the line items it chooses among
    name = " ".join(without_companies(name).split()) or name
    part = Focus(phrase=name, text=name, terms=terms(name))
    sentences = [s for s in split_sentences(answer) if "data not found" not in s]
    gaps = [m.group("m").strip() for m in _NOT_FOUND_LINE.finditer(answer)]
    status: Literal["answered", "not_found", "missing"] = "missing"
    cited = any(shares_most(part, s) and re.search(r"\d.*\[\d+\]", s) for s in sentences)
    if asked.calculation is not None:
        if any(shares_most(part, label) for label in derived_labels) and any(
            "=" in s and shares_most(part, s) for s in sentences
        ):
            status = "answered"
        elif asked.named and cited:
            status = "answered"  # a standard ratio the statements print, read off them
    elif cited:
        status = "answered"
    if status == "missing" and gaps:
        status = "not_found"
    item = RelevanceItem(
        focus=name,
        status=status,
        evidence=name if status == "answered" else None,
        score=1.0 if status == "answered" else 0.0,
    )
    return Relevance(
        items=[item],
        addressed=status != "missing",
        off_point=status == "missing",
        topic=False,
    )


_GROWTH_ASKED = re.compile(r"\bgrowth\b|\bgr[eo]wn?\b|\bgrowing\b", re.IGNORECASE)
"""A question about how fast a measure grows: a rate of growth answers it, its levels do not."""


def check_relevance(
    question: str,
    answer: str,
    sources: Sequence[ChunkText],
    derived_labels: Sequence[str] = (),
    similarity: Similarity | None = None,
) -> Relevance:
    """Whether `answer` addresses every measure or topic `question` asks about.

    `derived_labels` are the figures the numeric check recomputed from cited inputs
    (the answer's margins, shares, ratios and changes).
    """
    # long: the verdicts, then the relevance record with the reason for each of its fields.
    if (analyst := analyst_path(question)) is not None:
        return _analyst_relevance(analyst, answer, derived_labels)
    question = asked_part(question)  # what it asks, not how to answer nor its definitions
    if asks_overview(question):
        return Relevance(items=[], addressed=True, off_point=False)
    parts = _asked_parts(question)
    read = _Read.of(question, answer, sources)
    items = [_verdict(part, read, derived_labels, similarity) for part in parts]
    if (
        not read.words
        and _GROWTH_ASKED.search(question)
        and not derived_labels
        and "%" not in " ".join(read.sentences)
    ):
        # "Is growth in X expected to accelerate?" answered with X's levels alone: no rate
        # of growth is given, so what was asked is not (J&J's adjusted EPS, at high).
        items = [
            RelevanceItem(focus=i.focus, status="missing", evidence=None, score=0.0)
            if i.status == "answered"
            else i
            for i in items
        ]
    items += _companies_unnamed(question, answer, parts)
    answered = sum(i.status == "answered" for i in items)
    missing = any(i.status == "missing" for i in items)
    # An answer that cites nothing ("I found nothing in Rio Tinto's reports that
    # addresses this") is about nothing else: no "this is the closest they say" above it.
    cites = bool(_CITED.search(answer))
    return Relevance(
        items=items,
        addressed=not missing,
        off_point=bool(items) and answered == 0 and missing and cites,
        topic=read.words and not any(p.metrics for p in parts),
        # "Why did South32 sell Illawarra?" answered by "We agreed to sell Illawarra
        # Metallurgical Coal": the reports give no reason, and the answer must say so.
        unexplained=read.words
        and asks_why(question)
        and cites
        and not any(gives_cause(s) for s in read.sentences),
    )


def _asked_parts(question: str) -> list[Focus]:
    """What a question asks for, part by part."""
    choice = read_choice(question)
    # A question listing its options ("Among operations, investing and financing
    # activities, which ...") asks for each of them, told apart by its own words.
    parts = [choice.focus(o) for o in choice.options] if choice else focus_parts(question)
    if asks_share_of_total(question) and (named := find_metrics(question)):
        # "What share of the five's combined revenue came from BHP?" asks for revenue:
        # the share of it is worked out from the figures (the numeric check's working).
        parts = [p for m in named for p in focus_parts(metric_display(m))]
    return parts


@dataclass(frozen=True)
class _Read:
    """A question's kind, and an answer and its sources as every asked part is judged on
    them, each read once."""

    narrative: bool
    topic: bool
    """A topic: a quoted sentence or a figure answers it."""
    when: bool
    asked_years: list[int]
    part_of_year: bool
    gaps: list[str]
    sentences: list[str]
    sources: Sequence[ChunkText]
    facts: list[list[Fact]]
    sentence_terms: list[frozenset[str]]
    vocabulary: frozenset[str]

    @property
    def words(self) -> bool:
        """Whether the reports' words answer it (what they say, or a topic)."""
        return self.narrative or self.topic

    @classmethod
    def of(cls, question: str, answer: str, sources: Sequence[ChunkText]) -> "_Read":
        facts = [report_facts(chunk) for chunk in sources]
        return cls(
            narrative=asks_narrative(question),
            topic=asks_topic(question),
            when=bool(ASKS_WHEN.search(question)),
            asked_years=mentioned_years(question),
            part_of_year=asks_part_of_year(question),
            gaps=[m.group("m").strip() for m in _NOT_FOUND_LINE.finditer(answer)],
            sentences=[s for s in split_sentences(answer) if "data not found" not in s],
            sources=sources,
            facts=facts,
            sentence_terms=[terms(s) for chunk in sources for s in split_sentences(chunk.text)],
            vocabulary=frozenset().union(
                *(terms(f"{f.label} {f.context}") for fs in facts for f in fs)
            ),
        )


def _verdict(
    part: Focus, read: _Read, derived_labels: Sequence[str], similarity: Similarity | None
) -> RelevanceItem:
    """One asked part: answered (by a derived figure, a figure or the reports' words),
    not found (a gap line names it) or missing."""
    status: Literal["answered", "not_found", "missing"] = "missing"
    evidence: str | None = None
    score = 0.0
    if part.derived is not None and _derived_answered(part, read.sentences, derived_labels):
        status, evidence, score = "answered", part.derived.name, 1.0
    elif not read.narrative and (
        hit := _answered_by_figure(
            part,
            read.sentences,
            read.facts,
            read.vocabulary,
            similarity,
            read.topic,
            read.asked_years,
            read.part_of_year,
        )
    ):
        status, (evidence, score) = "answered", hit
    elif read.words and (
        text := _answered_by_text(
            part, read.sentences, read.sources, read.sentence_terms, read.when
        )
    ):
        status, evidence, score = "answered", text, 1.0
    elif any(
        shares_most(part, gap) or shares_most(Focus(gap, terms=terms(gap)), part.phrase)
        for gap in read.gaps
    ):
        status = "not_found"
    return RelevanceItem(focus=part.phrase, status=status, evidence=evidence, score=round(score, 3))
