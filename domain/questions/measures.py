"""What a question asks about, in its own words, and how well a report's label answers it.

Pure. The measure a question asks for is not looked up in a list: `read_focus` takes the
question's own content words (without the companies it names, its years, its question
words and what it asks to do with the figures) as the focus, and `label_match` scores a
report's label and sentence against it, lexically with stemming. The metric vocabulary
(`domain.questions.question`) is one signal among several (`Focus.metrics`); meaning, by the local
embedder over label text, is another, added where an embedder is at hand (the offline
engine's steps). Chinese measure words read through the same alias data as English ones
(`CHINESE_MEASURES`), as Chinese company names do (`domain.companies.roster`).
"""

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import snowballstemmer

from domain.companies.roster import how_many, without_companies
from domain.language.calendar import MONTH_NAME, QUARTER_TOKEN
from domain.language.shorthand import short_forms
from domain.language.units import CURRENCY_WORDS, SIGN
from domain.language.words import FUNCTION_WORDS, LEGAL_FORMS, read_entries, read_groups, read_map
from domain.questions.intent import COMPARE_PHRASE
from domain.questions.metrics import (
    english_rank,
    find_metrics,
    find_other_measures,
    metric_display,
    read_definitions,
)
from domain.questions.years import mentioned_years

_HERE = Path(__file__)

# Alias data: the measure words of a question asked in Chinese, read as the English
# words reports use (`chinese_measures.txt`, a synonym table, not a gate).
CHINESE_MEASURES: dict[str, str] = read_map(_HERE.with_name("chinese_measures.txt"))
# An idiom that names a measure in other words: "make money" is a profit ("did South32
# make money", "how much money did BHP make").
_IDIOM_MONEY = re.compile(
    r"\b(?:mak(?:e|es|ing)|made)\s+(?:any\s+|a\s+lot\s+of\s+)?money\b"
    r"|\bmoney\b(?=(?:\s+\w+){0,4}?\s+(?:mak(?:e|es|ing)|made)\b)",
    re.IGNORECASE,
)
_CHINESE = re.compile("|".join(sorted(map(re.escape, CHINESE_MEASURES), key=len, reverse=True)))

# Function words that say which figure is asked for, so words of what a question asks:
# negation and exclusion ("not", "without", "only"), order and position ("profit
# before tax", "since 2020", "outside Australia"), direction ("up", "out") and which of
# a kind ("other income", "own shares", "the same period").
_SAYS_WHICH = frozenset(
    {
        *("not", "no", "none", "nor", "neither", "without", "except", "unless", "only"),
        *("before", "after", "above", "below", "under", "since", "until", "once", "inside"),
        *("outside", "beyond", "up", "down", "out", "off", "other", "another", "same", "own"),
        *("further", "few", "several"),
    }
)
# Legal forms that are words of a question of their own: "SA" is South Australia, "ag"
# agriculture.
_NOT_SCAFFOLD = frozenset({"sa", "ag"})
# The words of a question that say how it asks, not what about: question words,
# function words, what to do with the figures (compare, change, rank), scale and
# currency, legal forms, and the words every question about a report shares
# (`scaffold_words.txt`).
_SCAFFOLD = (
    (FUNCTION_WORDS - _SAYS_WHICH)
    | (frozenset(LEGAL_FORMS) - _NOT_SCAFFOLD)
    | frozenset(read_entries(_HERE.with_name("scaffold_words.txt")))
)
_INTENT_ONLY = frozenset({"margin", "ratio", "share", "proportion"})
"""Words that make a focus a derived measure when they join two measures (see `derived`)."""
# Words people and reports use for the same measure, as groups (`measure_synonyms.txt`):
# a question's word meets a label's word of its group.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = read_groups(_HERE.with_name("measure_synonyms.txt"))
_STEMMER = snowballstemmer.stemmer("english")
_SCAFFOLD_STEMS = frozenset(str(_STEMMER.stemWord(w)) for w in _SCAFFOLD)
# Forms the stemmer does not fold (`irregular_forms.txt`), read as their word first.
_IRREGULAR = read_map(_HERE.with_name("irregular_forms.txt"))
# English irregular verbs (`irregular_verbs.txt`): a question's "sell" meets a report's
# "sold" (grammar, not a list of measures).
_IRREGULAR_VERBS = read_map(_HERE.with_name("irregular_verbs.txt"))
_IRREGULAR.update(_IRREGULAR_VERBS)


def base_form(word: str) -> str:
    """An irregular form's base ("sold" → "sell"), else the word (lower case)."""
    lower = word.lower()
    return _IRREGULAR_VERBS.get(lower, lower)


_WORD = re.compile(r"[A-Za-z][A-Za-z0-9&'-]*|\d+(?:\.\d+)?")


@lru_cache(maxsize=8192)
def stem(word: str) -> str:
    """A word's stem ("emissions" → "emiss"), irregular forms folded first."""
    lower = word.lower().strip("'-")
    lower = lower.removesuffix("'s")
    return str(_STEMMER.stemWord(_IRREGULAR.get(lower, lower)))


# A small number right after a word names a kind of that word ("Scope 3", "Tier 1",
# "Level 2"), and "Scope 1 and 2" names two; years, amounts and counts are not.
_QUALIFIER = re.compile(
    r"\b(?P<word>[A-Za-z]{3,})\s+(?P<n>\d{1,2})(?:\s*(?:,|and|&|\+|/)\s*(?P<m>\d{1,2}))?"
    r"(?![\d.,%])(?!\s*(?:per\s?cent|percent|million|billion|thousand|years?|months?|days?))",
)


def qualifiers(text: str) -> frozenset[str]:
    """The kind-naming numbers of `text` ("Scope 1 and 2 emissions" → {"scope 1",
    "scope 2"}), each with the word it qualifies."""
    found: set[str] = set()
    for m in _QUALIFIER.finditer(text):
        word = stem(m.group("word"))
        if word in _SCAFFOLD_STEMS:
            continue
        found.update(f"{word} {n}" for n in (m.group("n"), m.group("m")) if n)
    return frozenset(found)


def content_words(text: str, numbers: bool = False) -> list[str]:
    """The words of `text` that say what it is about, in order (scaffolding dropped);
    with `numbers`, a kind-naming number stays after its word ("Scope 3")."""
    words: list[str] = []
    kinds = {m.start("n") for m in _QUALIFIER.finditer(text)} if numbers else set()
    seconds = {m.start("m") for m in _QUALIFIER.finditer(text) if numbers and m.group("m")}
    for match in _WORD.finditer(text):
        word = match.group(0)
        if match.start() in kinds | seconds and words:
            words.extend(["and", word] if match.start() in seconds else [word])
            continue
        if word.lower().removesuffix("'s") in _SCAFFOLD or word.isdigit() or len(word) < 2:
            continue
        if re.fullmatch(r"(?:FY|CY)\d{2,4}", word, re.IGNORECASE):
            continue
        words.append(word)
    return words


def terms(text: str) -> frozenset[str]:
    """The stems of `text`'s content words, and the acronyms it writes or spells
    (`acronyms`)."""
    return frozenset(stem(w) for w in content_words(text)) | acronyms(text)


ACRONYM = "="
"""The mark of an acronym term ("=aifr"), so it never meets an ordinary word's stem."""
_CAPITALS = re.compile(r"\b([A-Z]{3,6})s?\b")
_SPELLING = re.compile(r"[A-Za-z]+")
_BRIDGES = frozenset({"of", "and", "&", "the", "to", "per", "on", "in", "after", "before", "for"})
"""Small words an acronym may or may not spell ("earnings per share" is EPS, "earnings
before interest and tax" EBIT)."""


_SPELT_WITHIN = 600


_LOWER = re.compile(r"(?<![\w'-])([a-z]{3,6})(?![\w'-])")
PLAIN_ENGLISH = 10_000
"""A word typed in lower case that English uses this often is a word, not an acronym:
"eps" and "dps" (outside wordfreq's 10,000 most used) may be acronyms, "rate" is not."""


def written_acronyms(text: str) -> frozenset[str]:
    """The acronyms `text` writes ("AIFR"), as acronym terms: what a question's focus
    asks by acronym (a question's own phrases are not spelt: "net profit after tax" asks
    for those words, not for every acronym they spell). People type acronyms in lower
    case too ("rio aifr fy24"): a word of three to six letters that is no common English
    word, short form or metric is read as one as well; it counts only where a label spells
    it (`label_match`), so a slip read this way costs nothing."""
    found = {ACRONYM + m.group(1).lower() for m in _CAPITALS.finditer(text)}
    for m in _LOWER.finditer(text):
        word = m.group(1)
        rank = english_rank(word)
        if (
            (rank is None or rank >= PLAIN_ENGLISH)
            and word not in short_forms()  # "pls", "divs": read as the words they are
            and not find_metrics(word)
        ):
            found.add(ACRONYM + word)
    return frozenset(found)


@lru_cache(maxsize=4096)
def acronyms(text: str) -> frozenset[str]:
    """The acronyms `text` writes ("AIFR", "EPS"), and those its phrases spell: the
    initials of two to six words in a row, hyphenated parts counting as words
    ("all-injury frequency rate" spells AIFR, "net profit after tax" NPAT, "all-in
    sustaining cost" AISC), a small word (`_BRIDGES`) spelt or skipped, never first or
    last. Read from the letters of the report's own words, not from a list of
    acronyms: an acronym never seen before is matched to the phrase it abbreviates.
    Phrases are spelt only in a text of a label's or a sentence's length
    (`_SPELT_WITHIN`): a fact's label and sentence are where a measure is named, and a
    whole passage would cost a turn milliseconds for each part asked."""
    found = set(written_acronyms(text))
    if len(text) > _SPELT_WITHIN:
        return frozenset(found)
    words = [w.lower() for w in _SPELLING.findall(text)]
    for start, first in enumerate(words):
        if first in _BRIDGES:
            continue
        spellings = {first[0]}
        for word in words[start + 1 : start + 7]:
            if word in _BRIDGES:
                spellings |= {s + word[0] for s in spellings if len(s) < 6}
                continue
            spellings = {s + word[0] for s in spellings if len(s) < 6}
            if not spellings:
                break
            found.update(ACRONYM + s for s in spellings if len(s) >= 3)
    return frozenset(found)


@lru_cache(maxsize=1)
def _groups() -> dict[str, frozenset[str]]:
    by_stem: dict[str, set[str]] = {}
    for group in SYNONYM_GROUPS:
        stems = {stem(w) for w in group}
        for s in stems:
            by_stem.setdefault(s, set()).update(stems)
    return {k: frozenset(v) for k, v in by_stem.items()}


def synonyms(word: str) -> tuple[str, ...]:
    """The other words of `word`'s synonym group, as written ("hold" → "paused", ...)."""
    own = stem(word.lower())
    return tuple(
        w for g in SYNONYM_GROUPS if own in {stem(x) for x in g} for w in g if stem(w) != own
    )


def related(term: str) -> frozenset[str]:
    """A stem and the stems of its synonyms."""
    return _groups().get(term, frozenset({term}))


@dataclass(frozen=True)
class Derived:
    """A measure computed from two the reports print: `numerator` / `denominator`."""

    kind: str  # "margin" | "share" | "ratio"
    numerator: str
    denominator: str

    @property
    def name(self) -> str:
        """How an answer names it: "EBITDA margin", "net debt as a share of revenue"."""
        if self.kind == "margin":
            return f"{self.numerator} margin"
        if self.kind == "share":
            return f"{self.numerator} as a share of {self.denominator}"
        return f"ratio of {self.numerator} to {self.denominator}"


@dataclass(frozen=True)
class Focus:
    """What a question asks about: its own words, their stems, the metrics they name."""

    phrase: str
    """The question's content words, in order ("total recordable injury frequency")."""
    text: str = ""
    """The part of the question it was read from, as written ("earnings per share")."""
    terms: frozenset[str] = field(default_factory=frozenset)
    metrics: tuple[str, ...] = ()
    """Metrics of the vocabulary the question names (one signal, never the gate)."""
    derived: Derived | None = None
    qualifiers: frozenset[str] = field(default_factory=frozenset)
    """Numbers that name which of a measure is meant ("Scope 3", "Tier 1"): a label
    with other such numbers is another measure (see `qualifiers`)."""
    condition: frozenset[str] = field(default_factory=frozenset)
    """The stems of a clause that narrows the measure ("excluding one-off items",
    "counting its share of joint ventures"; see `_CONDITION`): a figure answers the
    focus only when its label meets them (`meets_condition`)."""
    circumstance: frozenset[str] = field(default_factory=frozenset)
    """The stems of a clause that says how the measure came about, not which measure it is
    ("the cash proceeds that it realised from the separation of Kenvue", "the gain accruing
    to it as a result of the separation"; see `_CIRCUMSTANCE`): a report says them in the
    sentence around its figure, so they count as much there as in the label."""
    money: bool = False
    """The part asks for an amount of money without naming the measure ("how much did it
    bring in from selling its product", "how much did it spend"; see `asks_money`): a
    figure in tonnes or ounces does not answer it, however its label fits."""

    @property
    def empty(self) -> bool:
        return not self.terms


_MARGIN = re.compile(
    r"\b(?P<num>(?:underlying\s+|gross\s+|operating\s+|net\s+)?(?:ebitda|ebit|profit|earnings|"
    r"npat|income))\s+margins?\b",
    re.IGNORECASE,
)
_SHARE_OF = re.compile(
    r"\b(?P<num>[\w\s'-]{3,60}?)\s+(?:as\s+(?:a\s+)?(?:share|percentage|proportion|per\s?cent|"
    r"%)\s+of|(?:share|percentage|proportion)\s+of)\s+(?P<den>[\w\s'-]{3,60}?)(?=[?.!,]|$|\s+(?:in|for|at|during)\b)",
    re.IGNORECASE,
)
_A_PART_OF = re.compile(
    r"(?:\b(?:including|includes|excluding|excludes|incl|excl|plus|less|with|without)"
    r"(?:\s+(?:its|their|the))?|\bour)\s*$",
    re.IGNORECASE,
)
"""What a label says it holds ("underlying revenue, including our share of equity
accounted investments", "our share of joint ventures' profit"): a part of an amount in the
report's own words, not a share the question asks to work out."""
_RATIO = re.compile(
    r"\bratio\s+of\s+(?P<num>[\w\s'-]{3,60}?)\s+to\s+(?P<den>[\w\s'-]{3,60}?)(?=[?.!,]|$|\s+(?:in|for|at|during)\b)"
    r"|\b(?P<num2>[\w'-]+(?:\s+[\w'-]+){0,3})[\s-]+to[\s-]+(?P<den2>[\w'-]+(?:\s+[\w'-]+){0,3})\s+ratio\b",
    re.IGNORECASE,
)


def _measure_words(text: str) -> str:
    return " ".join(content_words(text))


def derived(question: str) -> Derived | None:
    """A margin, share or ratio the question asks for, with the two measures it joins.

    "EBITDA margin" is EBITDA over revenue (what a margin is); "net debt as a share of
    revenue", "the ratio of net debt to EBITDA", "net debt to EBITDA ratio" name both.
    """
    text = read_chinese(question)
    if m := _MARGIN.search(text):
        return Derived("margin", _measure_words(m.group("num")), "revenue")
    if (m := _SHARE_OF.search(text)) and not _A_PART_OF.search(m.group("num")):
        num, den = _measure_words(m.group("num")), _measure_words(m.group("den"))
        if num and den:
            return Derived("share", num, den)
    if m := _RATIO.search(text):
        num = _measure_words(m.group("num") or m.group("num2") or "")
        den = _measure_words(m.group("den") or m.group("den2") or "")
        if num and den:
            return Derived("ratio", num, den)
    return None


def read_chinese(text: str) -> str:
    """`text` with Chinese measure words and English idioms for a measure replaced by the
    words reports use."""
    text = _IDIOM_MONEY.sub(" profit ", text)
    return _CHINESE.sub(lambda m: f" {CHINESE_MEASURES[m.group(0)]} ", text)


def read_focus(question: str) -> Focus:
    """The focus of a question: its content words once the companies, years, question
    words and the asking about figures are taken out."""
    text = read_chinese(without_companies(question))
    for year in mentioned_years(text):
        text = re.sub(rf"\b(?:FY|CY)?\s?'?{year}\b|\b(?:FY|CY)\s?'?{year % 100:02d}\b", " ", text)
    words = content_words(text)
    return Focus(
        phrase=" ".join(content_words(text, numbers=True)),
        terms=frozenset(stem(w) for w in words) | written_acronyms(text),
        metrics=tuple(find_metrics(text)),
        derived=derived(question),
        qualifiers=qualifiers(text),
    )


def label_match(
    focus: Focus, label: str, context: str = "", weight: Callable[[str], float] | None = None
) -> float:
    """How well a report's label (and the row or sentence it is in) answers the focus,
    lexically: the weighted share of the focus's stems (or their synonyms) the label
    holds, plus a little for those only its context holds. 0 when the label shares no
    stem with the focus.

    `weight` gives each stem its weight (by default 1): the offline engine weighs a stem
    by how rare it is among the labels of the evidence, so "share" in "earnings per
    share" counts for little where every dividend row says "per share".
    """
    if focus.empty:
        return 0.0
    weigh = weight or (lambda _: 1.0)
    label_terms, context_terms = terms(label), terms(context)
    # An acronym asked ("AIFR") that the label spells ("All-injury frequency rate") is
    # the one word asked: its own stem ("aifr", which no label prints) no longer counts.
    # One that no label spells is the typed word's own stem once, not twice.
    spelt = {t for t in focus.terms if t.startswith(ACRONYM) and t in label_terms}
    unspelt = {t for t in focus.terms if t.startswith(ACRONYM) and t not in label_terms}
    asked_terms = focus.terms - {stem(t.removeprefix(ACRONYM)) for t in spelt} - unspelt
    in_label = {t for t in asked_terms if related(t) & label_terms}
    if not in_label:
        return 0.0
    in_context = {t for t in asked_terms - in_label if related(t) & context_terms}
    total = sum(weigh(t) for t in asked_terms) or 1.0
    share = {t: 1.0 if t in focus.circumstance else 0.3 for t in in_context}
    score = (sum(weigh(t) for t in in_label) + sum(share[t] * weigh(t) for t in in_context)) / total
    # A label that says more than was asked is a narrower measure ("interim dividend"
    # for "dividend"): it matches, a little less than the label that says just that.
    asked = {r for t in focus.terms for r in related(t)}
    extra = len({t for t in label_terms - asked if not t.startswith(ACRONYM)})
    return score - 0.03 * min(extra, 4)


_JOIN = r"(?:[,;+]|(?<![A-Za-z])&|&(?![A-Za-z]))"
"""A comma, semicolon, plus or ampersand that joins two asks; an ampersand between two
letters is inside one word ("SG&A", "R&D", "P&L")."""
_PARTS = re.compile(
    rf"(?<!\d)\s*{_JOIN}\s*(?!\d)|(?<!\d)\s*{_JOIN}\s*(?=\d{{3,}})|(?<=\d{{3}})\s*{_JOIN}"
    r"|(?<!\d\s)\b(?:and|as\s+well\s+as|plus|along\s+with|together\s+with)\b(?!\s+\d{1,2}\b)",
    re.I,
)
"""Where a question joins two asks: "and", a comma, "as well as" — not inside "Scope 1
and 2", "1,000" or "SG&A"."""
_OVERVIEW = re.compile(
    r"\b(?:results?|performance|perform(?:ed)?|overview|summary|summari[sz]e|highlights?|"
    r"financials?|headlines?|key\s+(?:figures|numbers|metrics)|numbers|doing|do|did|go|went|"
    r"year|fare[ds]?)\b",
    re.IGNORECASE,
)


# A personal value's token (`domain.checks.pii`) and the words that announce it ("my card",
# "TFN is") are the asker's data, not what the question asks about.
_PERSONAL = re.compile(
    r"(?:\b(?:my\s+)?(?:credit\s+)?(?:card|tfn|phone|mobile|email|e-mail|account)"
    r"(?:\s+(?:number|no\.?))?\s*(?:is\s*)?)?⟦[^⟧]*⟧",
    re.IGNORECASE,
)


def without_personal(text: str) -> str:
    return _PERSONAL.sub(" ", text)


# The unit or scale a question asks its figure in ("in US cents per share", "in US$
# millions", "in Mt CO2-e", "as a percentage"): how to write the answer, not what it is
# about. Units are a standard vocabulary (SI and currency), not a list of measures.
_UNIT_WORD = (
    rf"(?:(?:{SIGN})\s*|(?:{CURRENCY_WORDS})\s*|US\s+|A\s+|Australian\s+)?"
    rf"(?:{CURRENCY_WORDS}|cents?|dollars?|\$|millions?|billions?|thousands?|bn|mn|m|b|"
    r"(?:kilo|mega|giga)?tonnes?|[kKmMgG]?t|Mtpa|wmt|dmt|(?:thousand|million)\s+(?:tonnes|ounces)|"
    r"[kKmM]?oz|ounces?|[kKmMgGtT]?Wh|[kKmMgGtT]?L|[kKmMgGtTpP]J|hectares?|ha|"
    r"(?:giga|mega|kilo)?lit(?:re|er)s?|(?:kilo)?met(?:re|er)s?|km|hours|days|"
    r"(?:giga|mega|kilo|tera|peta)?(?:watt[\s-]?hours|joules)|"
    r"per\s*cent|percent(?:age)?s?|%)"
    r"(?:\s*CO2-?e|\s*CO₂-?e)?"
    rf"(?:\s+(?:of\s+)?(?:{SIGN}|{CURRENCY_WORDS}|(?:US|A|AU)?\s*dollars?))?"
    r"(?:\s+per\s+(?:share|tonne|ounce|hour))?"
)
ASKED_UNIT = re.compile(rf"\b(?:in|as|into)\s+(?:a\s+|an\s+)?{_UNIT_WORD}(?![\w$])", re.IGNORECASE)
# Where the asker says the figure is to come from ("per the Chair's letter", "according
# to its FY2023 report", "as set out in", "in line with guidance"): the source, not the
# measure. English grammar of attribution, up to the clause's end.
_ATTRIBUTION = re.compile(
    r"\b(?:according\s+to|per\s+(?=(?:the|its|their|his|her|[A-Z])\b)|as\s+(?:set\s+out|stated|"
    r"reported|given|shown|disclosed|described|printed|published)\s+in|in\s+line\s+with|"
    r"as\s+per)\b[^,;?.!]*",
    re.IGNORECASE,
)


# "including one-offs", "after exceptional items": the statutory figure, the opposite of
# the underlying one those words otherwise ask for (their synonym group above).
_ONE_OFFS = tuple(w for g in SYNONYM_GROUPS if "underlying" in g for w in g[2:])
_INCLUDING_ONE_OFFS = re.compile(
    rf"\b(?:including|incl\.?|after|with|counting)\s+(?:all\s+|the\s+|any\s+)?"
    rf"(?:{'|'.join(map(re.escape, _ONE_OFFS))})(?:\s+(?:and\s+\S+\s+)?items)?\b",
    re.IGNORECASE,
)


_DAY_MONTH = re.compile(
    r"\b\d{1,2}\s+(?=(?:January|February|March|April|May|June|July|August|September|"
    r"October|November|December)\b)",
    re.IGNORECASE,
)


_OTHER_NAME = re.compile(
    r"\(\s*(?:formerly|previously|now|also\s+known\s+as|aka|i\.e\.)\b[^()]*\)", re.IGNORECASE
)
"""An aside giving another name of what is asked ("Kenvue (formerly Consumer Health
business segment)"): the thing is named once, not asked twice."""


_US_DATE = re.compile(
    rf"\b(?:as\s+(?:of|at)\s+|on\s+)?{MONTH_NAME}\s+\d{{1,2}}(?:st|nd|rd|th)?\b,?", re.IGNORECASE
)
"""A date written month first ("as of August 30, 2023"): when, not what (its year is read
as the question's year)."""


_WHICH_ONE = re.compile(
    r"\b(which)\s+(?:one\s+)?(?:of\s+the\s+)?[a-z]+(?=\s+(?:had|has|have|was|were|is|are|"
    r"reported|posted|recorded|carried|made|paid|generated|delivered|produced|earned|spent)\b)",
    re.IGNORECASE,
)
"""The kind of company a ranking asks among ("which miner had the lowest ...", "which of
the retailers posted ..."): the set asked over, no word of the measure."""


def _without_the_count(text: str) -> str:
    """`text` without the covered companies counted ("rank all five by", "the five's
    combined", "five companies"): the set asked over, no word of the measure."""
    n = how_many()
    return re.sub(
        rf"\b(?:all|the|each|of|among|across)\s+(?:the\s+)?{n}\b(?:['’]s?)?|\b{n}\s+(?:companies|miners)\b",
        " ",
        text,
        flags=re.IGNORECASE,
    )


# "how's that stack up against s32?": the asking to compare, no words of the measure.
_STACK_UP = re.compile(rf"\b(?:{COMPARE_PHRASE})\b", re.I)


def _prepared(question: str) -> str:
    question = _STACK_UP.sub(" ", _without_the_count(_WHICH_ONE.sub(r"\1", question)))
    question = _US_DATE.sub(" ", _OTHER_NAME.sub(" ", question))
    text = read_chinese(without_companies(read_definitions(without_personal(question))))
    text = _DAY_MONTH.sub(" ", _INCLUDING_ONE_OFFS.sub(" ", _ATTRIBUTION.sub(" ", text)))
    for year in mentioned_years(text):
        text = re.sub(rf"\b(?:FY|CY)?\s?'?{year}\b|\b(?:FY|CY)\s?'?{year % 100:02d}\b", " ", text)
    # A quarter's name is when, as its year is ("in Q2 of FY2024"), not a word of the measure.
    return re.sub(rf"\b{QUARTER_TOKEN}\b(?:\s+of\b)?", " ", text)


# "How much" straight before its verb asks for the amount itself, and these verbs move
# money: "how much did Fortescue bring in from selling its product" asks for dollars, where
# "how much iron ore did it ship" names its quantity. English grammar of money verbs, not
# names of measures: the measure is still read from the reports' labels.
_ASKS_MONEY = re.compile(
    r"\bhow\s+much(?:\s+(?:money|cash))?\s+(?:did|does|do|has|have|had|will|would|is|was|"
    r"were)\b[^?.!;]{0,60}?\b(?:bring|brought|earn|make|made|spend|spent|pay|paid|cost|"
    r"receive|raise|rake|take|took|pocket|collect|lose|lost|return|invest)\w*\b"
    rf"|\bhow\s+many\s+(?:US\s+|Australian\s+)?dollars\b|\bhow\s+many\s+(?:{CURRENCY_WORDS})\b",
    re.IGNORECASE,
)


def asks_money(text: str) -> bool:
    """Whether a question (or one of its parts) asks for an amount of money in words that
    name no measure ("how much did it bring in", "how many dollars did it spend")."""
    return _ASKS_MONEY.search(text) is not None


# A clause that narrows the measure asked ("excluding one-off and non-cash items",
# "counting its portion of joint ventures", "net of royalties"): part of that ask, never
# an ask of its own, and its "and" joins nothing. English grammar, not a list of measures.
_CONDITION = re.compile(
    r"\b(?:excluding|excl\.|exclusive\s+of|not\s+counting|counting|including|inclusive\s+of|"
    r"net\s+of|other\s+than|apart\s+from|leaving\s+out|stripping\s+out|setting\s+aside|"
    r"stripped\s+of|adjusted\s+for|ignoring|without)\s+(?P<body>[^,;?!.]*?)"
    r"(?=\s*(?:[,;?!.]|$)|\s+(?:for|in|during|over|across|at|what|how|which|from|by)\b)",
    re.IGNORECASE,
)
# A clause that only sets the scene: a concession ("despite record volumes") or examples
# ("such as Simandou construction", "like Sierra Gorda"). Not an ask, and not a condition.
_SCENE = re.compile(
    r"\b(?:despite|notwithstanding|even\s+though|although|such\s+as|like(?![-\w])|"
    r"e\.g\.|for\s+(?:example|instance))\b[^,;?!.]*",
    re.IGNORECASE,
)
_JOINED = "\u204a"  # "⁊": an "and" inside a condition, which `_PARTS` does not split at


def _conditions_kept(text: str) -> str:
    """`text` with its scene-setting clauses out and each condition's "and" (or "&")
    kept from splitting it into asks of their own (a comma ends a condition)."""
    text = _SCENE.sub(" ", text)
    return _CONDITION.sub(
        lambda m: m.group(0).replace(" and ", f" {_JOINED} ").replace("&", _JOINED), text
    )


# Words of a condition that say which adjustments in general, not which ones: a label
# that has them ("Other income", "Significant items") is not the narrowed measure.
_GENERIC = frozenset(
    stem(w) for w in ("other", "items", "certain", "all", "any", "some", "such", "various")
)


def _condition_stems(piece: str) -> frozenset[str]:
    return (
        frozenset(
            stem(w)
            for m in _CONDITION.finditer(piece.replace(_JOINED, "and"))
            for w in content_words(m.group("body"))
        )
        - _GENERIC
    )


def meets_condition(focus: Focus, label: str) -> bool:
    """Whether a label is the measure a focus's condition narrows to: it names a word of
    the condition or its synonym ("Underlying earnings" for "excluding one-off items")."""
    if not focus.condition:
        return True
    found = terms(label)
    return any(related(t) & found for t in focus.condition)


# A clause after the measure that says how it came about: a relative clause ("the cash
# proceeds that it realised from ...", "which it recognised on ...") or a participle or
# phrase of cause ("accruing to it as a result of ...", "arising from ...", "resulting
# from ...", "due to ..."). English grammar of relative and causal clauses, not names of
# measures. Its verb ("realised", "accruing") is how the asker put it, which a report says
# in its own verb ("generated", "including a gain of"): it is no word of the measure.
_CIRCUMSTANCE = re.compile(
    r"\b(?:(?:that|which)\s+(?:[\w&.'-]+\s+){0,3}?(?P<verb>[a-z]+(?:ed|en|t|de|id))\b|(?P<ing>[a-z]+ing)\s+(?:to|from)\b|"
    r"as\s+a\s+(?:result|consequence)\s+of\b|(?:because|on\s+account)\s+of\b|due\s+to\b)"
    r"[^,;?!.]*",
    re.IGNORECASE,
)


def _circumstance(piece: str) -> tuple[frozenset[str], frozenset[str]]:
    """The stems of `piece`'s clause of how the measure came about, and of the verbs of
    it that are no word of the measure (see `_CIRCUMSTANCE`); empty when it has none, or
    when nothing but the clause would be left of the ask."""
    match = _CIRCUMSTANCE.search(piece)
    if match is None or not content_words(piece[: match.start()]):
        return frozenset(), frozenset()
    verbs = frozenset(stem(v) for v in (match.group("verb"), match.group("ing")) if v)
    return frozenset(stem(w) for w in content_words(match.group(0))) - verbs, verbs


_DATE_ONLY = re.compile(
    rf"\s*(?:(?:as\s+(?:of|at)|at|on|by|from|until|to|through|ended|ending)\s+)?"
    rf"(?:\d{{1,2}}\s+{MONTH_NAME}|{MONTH_NAME}\s+\d{{1,2}}(?:st|nd|rd|th)?|{MONTH_NAME})?"
    rf"\s*(?:,\s*)?(?:(?:FY|CY)?\s?(?:19|20)\d{{2}})?\s*[?.!]*\s*",
    re.IGNORECASE,
)
"""A piece of a question that is only a date or a month ("as of August 30", "2023?"),
split off by its comma: it says when, and asks nothing."""


def focus_parts(question: str) -> list[Focus]:
    """The measures a question asks for, one Focus each: its parts joined by "and", a
    comma or "as well as" ("revenue and the number of employees" is two), each with the
    metrics of the vocabulary it names. A condition ("excluding one-off items") is part
    of the ask it narrows, whether it comes before or after it; a scene-setting clause
    ("despite record volumes") asks nothing."""
    # long: one pass over the question's words; its cases share the current part.
    parts: list[Focus] = []
    pieces: list[str] = []
    carried = ""  # a condition that opens the question, before the ask it narrows
    for piece in _PARTS.split(_conditions_kept(_prepared(question))):
        if pieces and _DATE_ONLY.fullmatch(piece):
            # "..., as of August 30, 2023?": when the ask is asked for, no ask of its own.
            pieces[-1] = f"{pieces[-1]} {piece}"
        elif pieces and ASKED_UNIT.sub(" ", piece).strip(" ?.!") == "":
            # "..., in US cents per share?": the unit the figure is asked in belongs to
            # the ask before it; alone it asks for nothing.
            pieces[-1] = f"{pieces[-1]} {piece}"
        elif _CONDITION.sub(" ", piece).strip(" ?.!") == "" and piece.strip():
            if pieces:
                pieces[-1] = f"{pieces[-1]} {piece}"
            else:
                carried = f"{carried} {piece}"
        else:
            pieces.append(f"{carried} {piece}" if carried else piece)
            carried = ""
    if carried and not pieces:
        pieces.append(carried)
    for piece in pieces:
        piece = piece.replace(_JOINED, "and")
        condition = _condition_stems(piece)
        words = content_words(piece)
        if not words:
            continue
        circumstance, verbs = _circumstance(piece)
        parts.append(
            Focus(
                phrase=" ".join(content_words(piece, numbers=True)),
                text=" ".join(piece.split()),
                terms=frozenset(stem(w) for w in words) - verbs | written_acronyms(piece),
                circumstance=circumstance,
                metrics=tuple(find_metrics(piece)),
                derived=derived(piece),
                qualifiers=qualifiers(piece),
                condition=condition,
                money=asks_money(piece),
            )
        )
    return parts


def narrowed_metrics(part: Focus) -> list[str]:
    """The part's metrics of the vocabulary that its condition narrows to another measure
    ("profit excluding one-off items": net profit); not one whose own name meets it
    ("profit including non-controlling interests" is that metric)."""
    if not part.condition:
        return []
    return [m for m in part.metrics if not meets_condition(part, metric_display(m))]


def open_parts(question: str) -> list[Focus]:
    """The parts of a question that name no metric of the vocabulary, and are not only
    the words of asking for an overview ("how did BHP do?", "BHP's results"); and those
    that name one with a condition ("profit excluding one-off items"), which the
    reports' labels answer, not the vocabulary."""
    return [
        p
        for p in focus_parts(question)
        if p.derived is not None
        or narrowed_metrics(p)
        or (not p.metrics and not all(_OVERVIEW.fullmatch(w) for w in p.phrase.split()))
    ]


def search_words(focus: Focus) -> list[str]:
    """Words to search the reports with for a focus: its own, and for each of its words
    the first of its synonym group ("hurt" → "injury", "workforce" → "employees")."""
    words = focus.phrase.split()
    extra = []
    for word in words:
        for group in SYNONYM_GROUPS:
            if stem(word) in {stem(w) for w in group} and group[0] not in words:
                extra.append(group[0])
                break
    return list(dict.fromkeys([*words, *extra]))


def asks_overview(question: str) -> bool:
    """Whether a question asks how a company did overall ("results", "how did X do",
    "performance") rather than for a measure: the one case for the headline figures."""
    parts = focus_parts(question)
    if not parts:
        return True
    words = [w for p in parts for w in p.phrase.split()]
    return all(_OVERVIEW.fullmatch(w) for w in words) and not any(p.metrics for p in parts)


# Words that ask for a quantity, whatever is measured: the grammar of a figure question,
# not a list of measures ("how many", "what percentage", "the rate", a unit or a scale).
_FIGURE_CUE = re.compile(
    r"\bhow\s+(?:much|many|big|large|high|low|long|far|often|fast|strong|well)\b"
    r"|\bwhat\s+(?:percentage|proportion|share|portion|fraction|amount|number|level|rate|"
    r"ratio|total|figure|value|size|margin|price)\b"
    r"|\b(?:figures?|numbers?|amounts?|totals?|percent(?:age)?s?|per\s*cent|rates?|ratios?|"
    r"margins?|per\s+share|per\s+tonne|tonnes?|ounces?|dollars?|cents|millions?|billions?|"
    r"counts?|quantity|quantities|volumes?|tonnage|frequency|earn|earned|spend|spent|owe|owed)\b|%"
    rf"|{SIGN}"
    r"|\b(?:rank|ranked|ranking|compare[sd]?|comparison|versus|vs|highest|lowest|largest|"
    r"smallest|biggest|most|least|money)\b",
    re.IGNORECASE,
)
# A question's own form: keywords alone ("BHP net proft 2025") are a figure lookup.
_QUESTION_FORM = re.compile(
    r"^\W*(?:what|what's|whats|which|who|whom|whose|when|where|why|how|did|does|do|is|are|"
    r"was|were|has|have|had|can|could|will|would|should|tell|describe|explain|summari[sz]e|"
    r"list|give|show|according|in|during|after|over|for|with|from|at)\b",
    re.IGNORECASE,
)


def asks_for_figure(question: str) -> bool:
    """Whether a question's own words ask for a quantity (see `_FIGURE_CUE`), or the unit
    it is to be given in ("..., in Mt CO2-e?")."""
    return bool(_FIGURE_CUE.search(question) or ASKED_UNIT.search(question))


def asks_topic(question: str) -> bool:
    """Whether a question asks about a topic, not a figure: nothing in it asks for a
    quantity, names a measure of the vocabulary, or asks for an overview ("What hurt
    BHP's coal operations?", "Which mines did BHP sell?"). Its answer is what the
    reports say, quoted; a figure the reports print under the same words still answers
    it (the quoted sentence holds it). Keywords without a question's form ("BHP net proft
    2025") are a lookup."""
    question = without_personal(question)
    return bool(_QUESTION_FORM.search(question)) and not (
        asks_for_figure(question)
        or find_metrics(question, commodity_means_production=False)
        or find_other_measures(question)
        or asks_overview(question)
    )
