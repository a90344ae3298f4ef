"""Answer a measure by the reports' own words: which fact answers a focus, and how to say it.

Pure (the embedder's similarity is passed in). The offline engine uses it for every part
of a question that names no metric of the vocabulary ("water withdrawn", "how many
people", "the injury rate"): each fact of the evidence is scored against the part's
focus (`match`), the best fact per company and year above `ANSWERS` answers it, and a
margin, share or ratio is computed from the two facts it joins (`derive`), its working
shown. A part no fact answers gets the sentences of the reports that speak to it
(closest available) or its exact not-found line, never another measure's figure.
"""

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date

from domain.language.calendar import quarter_of
from domain.questions.measures import (
    ACRONYM,
    Focus,
    label_match,
    meets_condition,
    qualifiers,
    read_focus,
    related,
    terms,
)
from domain.reports.figures import Fact, format_value, to_base, unit_spec

Similarity = Callable[[str, Sequence[str]], list[float]]
"""Cosine similarity of a phrase to each of several texts (the local embedder)."""

ANSWERS = 0.6
"""The score from which a fact answers a focus (lexical share of its stems, or meaning)."""
CLOSE = 0.3
"""The score from which a fact is close enough to offer as the closest the reports give
(with the words that the figure asked for is not there)."""
_SEMANTIC_FLOOR = 0.45
_SEMANTIC_FULL = 0.8


@dataclass(frozen=True)
class Candidate:
    """A fact of source `n` and how well it answers the focus (0: not at all)."""

    fact: Fact
    n: int
    score: float
    lexical: float
    semantic: float


def _semantic(cosine: float) -> float:
    """A cosine as a score: unrelated short labels sit at 0.1-0.4, related but different
    measures near 0.5-0.6 ("earnings" and "dividends per share"), the same measure in
    other words from 0.6 to 0.85 (all-MiniLM-L6-v2, measured on the sample reports'
    labels): only the top of that range reaches `ANSWERS` on its own."""
    return max(0.0, min(1.0, (cosine - _SEMANTIC_FLOOR) / (_SEMANTIC_FULL - _SEMANTIC_FLOOR)))


def match(
    focus: Focus, sourced: Sequence[tuple[Fact, int]], similarity: Similarity | None = None
) -> list[Candidate]:
    """Every fact scored against `focus`, best first.

    The score is the better of the lexical match (stems of the label, a little for its
    row or sentence) and the meaning of the label and its sentence (when `similarity` is
    given); a fact whose metric is one the focus names gains, one of another metric loses.
    When the focus asks for money ("how much did it bring in"), an amount of money gains
    and a quantity of another kind (tonnes, ounces) cannot answer.
    """
    if focus.empty or not sourced:
        return []
    labels = [f.label for f, _ in sourced]
    # A sentence's figure is read by its own words: the clauses before its label name
    # other things ("the effective tax rate differed from the U.S. statutory rate of 21%").
    contexts = [own_words(f) if f.source == "prose" else (f.context or f.label) for f, _ in sourced]
    weight = _weights(labels, contexts)
    by_label = similarity(focus.phrase, labels) if similarity else [0.0] * len(labels)
    by_context = similarity(focus.phrase, contexts) if similarity else [0.0] * len(labels)
    out: list[Candidate] = []
    for (fact, n), a, b in zip(sourced, by_label, by_context, strict=True):
        lexical = label_match(focus, fact.label, fact.context, weight)
        semantic = max(_semantic(a), 0.9 * _semantic(b))
        out.append(
            Candidate(fact, n, _fitted(focus, fact, max(lexical, semantic)), lexical, semantic)
        )
    out.sort(key=lambda c: -c.score)
    return out


def _weights(labels: list[str], contexts: list[str]) -> Callable[[str], float]:
    """A stem's weight: how rare it is among the evidence's labels (smoothed inverse
    document frequency), so the words that tell measures apart count most."""
    label_terms = [terms(label) for label in set(labels)]
    count = len(label_terms)
    context_terms = frozenset().union(*(terms(c) for c in set(contexts)))

    def weight(term: str) -> float:
        seen = sum(1 for t in label_terms if related(term) & t)
        if not seen and not related(term) & context_terms:
            # A word the evidence never uses ("sat" in "how many directors sat on the
            # board") cannot tell its measures apart: it counts for little either way.
            return 0.25
        return math.log(1.0 + (count + 1) / (seen + 1))

    return weight


def _fitted(focus: Focus, fact: Fact, score: float) -> float:
    """A fact's match score, raised or capped by what the focus asks of its kind: its
    metric, qualifiers, a rate, money, an occasion, a condition."""
    if focus.metrics and fact.metric is not None and not focus.condition:
        # (With a condition the condition tells the measures apart, below.)
        score += 0.5 if fact.metric in focus.metrics else -0.3
    if focus.qualifiers and not focus.qualifiers <= qualifiers(f"{fact.label} {fact.context}"):
        score = min(score, ANSWERS - 0.1)  # "Scope 3" asked, "Scope 1 and 2" printed
    if _RATE_ASKED.search(focus.phrase) and _is_money(fact):
        # "effective tax rate" asked, "$70 million" of a sentence naming the rate
        # printed: an amount of money is not a rate, ratio or margin.
        score = min(score, ANSWERS - 0.1)
    if focus.money and not _is_money(fact):
        # "how much did it bring in from selling its product" asked, shipments in Mt
        # printed: a quantity of another kind cannot be the amount asked.
        score = min(score, ANSWERS - 0.1)
    elif focus.money and score > 0:
        # The kind asked for is one more signal for an amount of money that fits.
        score += 0.1
    if not circumstance_heard(focus, fact):
        # "the proceeds it realised from the Kenvue offering" asked, a sentence of
        # proceeds from selling a smelter printed: the measure of another occasion.
        score = min(score, ANSWERS - 0.1)
    if not meets_condition(focus, fact.label):
        # "profit excluding one-off items" asked, statutory profit printed: the
        # closest figure, not the answer ("Underlying earnings" meets it).
        score = min(score, ANSWERS - 0.1)
    elif focus.condition:
        score += 0.2
    return score


def own_words(fact: Fact) -> str:
    """What a fact's figure is said of: a table cell's label and row; a sentence's figure,
    its label and the sentence from there on ("the U.S. statutory rate of 21% primarily
    due to ..."), not the clauses before its label, which name other things ("the
    effective tax rate differed from the U.S. statutory rate of 21%" does not give the
    effective rate)."""
    if fact.source != "prose" or not fact.context:
        return f"{fact.label} {fact.context}"
    at = fact.context.lower().find(fact.label.split(" … ")[0].lower())
    return fact.context[at:] if at >= 0 else f"{fact.label} {fact.context}"


def circumstance_heard(focus: Focus, fact: Fact) -> bool:
    """Whether a fact's row or sentence speaks of how the asked measure came about
    (`Focus.circumstance`), when the question says: one word of it anywhere in the
    sentence, its opening clause too ("As a result of the completion of the exchange
    offer, ... its Consumer Health business ..., including a gain of $20 billion"), where
    the measure's own words are read from the figure's label on (`own_words`)."""
    if not focus.circumstance:
        return True
    said = terms(f"{fact.label} {fact.context}")
    return any(related(t) & said for t in focus.circumstance)


_RATE_ASKED = re.compile(
    r"\b(?:rates?|ratios?|margins?|percentages?|percent|yields?|multiples?|times)\s*$", re.I
)
"""A measure whose head word names a proportion (English words for kinds of quantity,
as the money verbs are): an amount of money cannot be it."""


def _is_money(fact: Fact) -> bool:
    """Whether a fact is an amount of money: a currency unit, or per share, or a report's
    own unit words with a currency sign."""
    spec = unit_spec(fact.unit)
    return spec.kind in ("money", "per_share") or bool(re.search(r"\$|¢|dollar|cent", fact.unit))


def of_quarter(fact: Fact, year: int, quarter: int, year_end: str) -> bool:
    """Whether a fact is of the fiscal year's `quarter`: its column is three months
    ending where that quarter ends, or a balance at that quarter's end."""
    end = date.fromisoformat(fact.period_end) if fact.period_end else None
    return quarter_of(end, fact.period_months, year_end) == (year, quarter)


BASIS = re.compile(r"\b(?:adjusted|underlying|non-gaap|pro\s+forma)\b", re.IGNORECASE)
"""Words that say a figure is on a basis of the company's own, not as reported."""


def _on_another_basis(fact: Fact) -> bool:
    """A table figure whose table, not its label, says it is adjusted or underlying."""
    if fact.source != "table" or BASIS.search(fact.label):
        return False
    return bool(BASIS.search(fact.context.split(fact.label)[0]))


def _preference(c: Candidate, year: int) -> tuple[bool, bool, bool, bool, bool, float, int]:
    """How `best` orders equal matches, first to last."""
    return (
        c.fact.parent_only,  # the group's figure over its parent entity's alone
        c.fact.report_fiscal_year != year,
        c.fact.restated,
        # The figure as reported over one of a table headed as adjusted or underlying
        # ("Adjusted earnings ... | Net earnings"): its label does not say so, and a
        # question that asks it names that basis.
        _on_another_basis(c.fact),
        c.fact.source != "table",
        -c.score,
        # Of labels that answer as well, the one that says least besides ("Cash and cash
        # equivalents" over "Net increase in cash and cash equivalents from discontinued
        # operations").
        len(c.fact.label.split()),
    )


def best(
    candidates: Sequence[Candidate],
    company: str,
    year: int,
    quarter: tuple[int, str] | None = None,
) -> Candidate | None:
    """The fact answering the focus for one company and year, if any does: a whole
    year's, or, when a quarter is asked (`quarter`: its number and the company's year
    end, "12-31"), that quarter's.

    Of those that answer (`ANSWERS`), the best score; on a tie a table's figure over a
    sentence's, the year's own report over a later one's comparative, a figure as first
    reported over a restatement.
    """
    fit = [
        c
        for c in candidates
        if c.fact.company == company
        and c.fact.fiscal_year == year
        and c.score >= ANSWERS
        # a quarter's figure, or a balance at a quarter's end, is no year's; a quarter
        # asked is answered by that quarter's alone
        and (of_quarter(c.fact, year, *quarter) if quarter else c.fact.annual)
    ]
    if not fit:
        return None
    top = max(c.score for c in fit)
    near = [c for c in fit if c.score >= top - 0.05]
    near.sort(key=lambda c: _preference(c, year))
    return near[0]


def closest(
    candidates: Sequence[Candidate], company: str, years: Sequence[int]
) -> Candidate | None:
    """The nearest fact below `ANSWERS` for a company and any of `years` (at least
    `CLOSE`), to offer as what the reports give instead."""
    near = [
        c
        for c in candidates
        if c.fact.company == company
        and c.fact.fiscal_year in years
        and c.score >= CLOSE
        and (c.lexical >= CLOSE or c.semantic >= 0.5)  # a shared word, or close meaning
    ]
    return max(near, key=lambda c: (c.score, c.fact.fiscal_year)) if near else None


_AMOUNT = re.compile(r"\d[\d,]*(?:\.\d+)?")


def single_figure(sentence: str) -> bool:
    """Whether a sentence states one figure only (dates and years aside), so quoting it
    says nothing the question did not ask."""
    body = re.sub(r"\b(?:FY|CY)?(?:19|20)\d{2}\b|\b\d{1,2}\s+[A-Z][a-z]+\b", " ", sentence)
    return len(_AMOUNT.findall(body)) == 1


def phrase(fact: Fact) -> str:
    """A fact's label as it reads inside a sentence ("total recordable injury frequency")."""
    label = fact.label.strip()
    if len(label) > 1 and not label[:2].isupper():
        label = label[0].lower() + label[1:]
    return label


def value_text(fact: Fact) -> str:
    """A fact's figure as an answer writes it; a unit in the report's own words keeps
    the report's spelling ("19.6 Mt CO2-e")."""
    return format_value(fact.value, fact.unit, fact.decimals)


def without_figures(label: str) -> str:
    """A row label quoted in a sentence, without a parenthesised aside that holds figures
    ("(100%)", "(includes debt of trusts: 2022, $12,662; 2021, $13,803)"): quoted whole,
    they read as figures the answer claims."""
    return re.sub(r"\s*\([^()]*\d[^()]*\)", "", label).strip() or label


def moved_in_points(subject: str, span: str, old: Fact, old_n: int, new: Fact, new_n: int) -> str:
    """A rate's move between two cited rates, in percentage points, the points only as
    its working's result, which the numeric check recomputes from the two."""
    way = "rose" if new.value > old.value else "fell"
    return (
        f"{subject} {way} {span}: {value_text(new)} [{new_n}] − {value_text(old)} [{old_n}] "
        f"= {new.value - old.value:+.1f} percentage points."
    )


def verb(fact: Fact) -> str:
    """ "were" for a plural measure ("emissions", "dividends"), else "was": read on the
    label's head noun, its last word before a preposition ("revenue from continuing
    operations" was, "dividends per share" were)."""
    label = re.sub(r"\([^)]*\)", "", fact.label)
    label = re.split(
        r"\b(?:from|of|in|for|before|after|per|to|on|attributable|including|"
        r"excluding|under|at|by|with)\b",
        label,
        maxsplit=1,
        flags=re.I,
    )[0]
    last = label.split()
    word = last[-1].lower() if last else ""
    plural = word.endswith("s") and not word.endswith(("ss", "us", "is", "ics"))
    return "were" if plural else "was"


@dataclass(frozen=True)
class Working:
    """A derived figure and how it was computed from two cited facts."""

    value: float
    text: str
    """The figure as written ("52.9%", "0.42 times")."""
    formula: str
    numerator: Candidate
    denominator: Candidate


def derive(kind: str, numerator: Candidate, denominator: Candidate) -> Working | None:
    """A margin or share (a percentage) or a ratio of two facts of one currency or unit.

    None when they cannot be divided: different currencies or kinds (cents per share over
    US$ millions), or a zero or negative base.
    """
    a = to_base(numerator.fact.value, numerator.fact.unit)
    b = to_base(denominator.fact.value, denominator.fact.unit)
    if a.base != b.base or b.value <= 0:
        return None
    ratio = a.value / b.value
    if kind in ("margin", "share"):
        pct = ratio * 100.0
        text = f"{pct:.1f}%"
        formula = f"{_num(a.value)} / {_num(b.value)} × 100 = {pct:.1f}%"
        return Working(pct, text, formula, numerator, denominator)
    text = f"{ratio:.2f} times"
    formula = f"{_num(a.value)} / {_num(b.value)} = {ratio:.2f}"
    return Working(ratio, text, formula, numerator, denominator)


def _num(value: float) -> str:
    text = f"{abs(value):,.3f}".rstrip("0").rstrip(".")
    return f"−{text}" if value < 0 else text


def same_kind(a: Fact, b: Fact) -> bool:
    """Whether two facts are figures of one kind (both money, both %): comparable."""
    return unit_spec(a.unit).base == unit_spec(b.unit).base


def focus_of(text: str) -> Focus:
    """The focus of a measure named in words (a derived measure's two parts)."""
    return read_focus(text)


def shares_most(focus: Focus, text: str) -> bool:
    """Whether `text` uses at least half of the focus's words (or their synonyms): a
    sentence sharing only "operating" with "operating cash flow" is not about it."""
    found = terms(text)
    # The initials a phrase's words may be written as ("=lbs") are another way to say
    # them, not more words: they count only when the text writes them.
    words = [t for t in focus.terms if not t.startswith(ACRONYM)]
    if any(t in found for t in focus.terms if t.startswith(ACRONYM)):
        return True
    shared = sum(1 for t in words if related(t) & found)
    return shared > 0 and 2 * shared >= len(words)


def shares_terms(focus: Focus, text: str) -> bool:
    """Whether `text` uses any of the focus's words or their synonyms (stemmed)."""
    found = terms(text)
    return any(related(t) & found for t in focus.terms)
