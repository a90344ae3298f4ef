"""What kind of answer a question wants: a lookup, a change, a comparison, a ranking over
every company, an overview, or what the reports say (narrative)."""

import re

from domain.companies.roster import companies, coverage, find_companies, how_many
from domain.models import Intent

_CHANGE = re.compile(
    r"\b(?:grow|grew|grown|growth|change[sd]?|changing|increase[sd]?|increasing|decrease[sd]?|"
    r"decreasing|fell|fall(?:en|ing)?|rose|rise[ns]?|rising|trend(?:s|ed|ing)?|move[sd]?|"
    r"movement|decline[sd]?|declining|drop(?:ped)?|improve[sd]?|deteriorat\w*|up\s+or\s+down|"
    r"year[\s-]+on[\s-]+year|year[\s-]+over[\s-]+year|yoy)\b|"
    # "was it lower than the year before?": the figure against its own earlier year
    r"\b(?:more|less|higher|lower|larger|smaller|bigger|greater|fewer)\s+than\s+(?:in\s+)?"
    r"(?:the\s+)?(?:(?:previous|prior|last|preceding)\s+year|year\s+(?:before|earlier)|"
    r"a\s+year\s+(?:before|earlier|ago)|fy\s?\d{2,4}|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
COMPARE_PHRASE = r"(?:stack|measure|match)(?:s|ed)?\s+up|relative\s+to"
"""Phrases that ask to compare ("how's that stack up against s32?"): no words of a measure."""
_COMPARE = re.compile(
    r"\b(?:compare[sd]?|comparing|comparison|versus|vs\.?|differ(?:ence|ent|s)?|"
    r"rank(?:ed|ing)?|" + COMPARE_PHRASE + r")\b|"
    r"\bwhich\b.*\b(?:higher|highest|larger|largest|more|most|bigger|"
    r"biggest|lower|lowest|less|least|smaller|smallest|better|best)\b",
    re.IGNORECASE,
)

# "is that more than Rio's?", "was it lower than fortescue": than a company or another's
# figure (an owner not of a time: "than last year's" is a change), not than a number
# ("more than 20% of Boeing's revenue").
_THAN = re.compile(
    r"\b(?:more|less|higher|lower|larger|smaller|bigger|greater|fewer|better|worse)\s+than\s+"
    r"(?![\d$£€¥]|[A-Z]{1,3}\$)(?P<other>[^?()\[\],;]{0,40})",
    re.IGNORECASE,
)
_OWNER = re.compile(r"^(?:\S+\s+){0,2}?(?P<owner>[^\s'’]+)(?:['’]s\b|(?<=s)['’](?=\s|$|[?,.]))")
_TIME = re.compile(r"^(?:year|quarter|half|period|month|fy\d*|h[12]|q[1-4])$", re.IGNORECASE)


_ABOVE = frozenset({"more", "higher", "larger", "bigger", "greater", "better"})


def than_asked(text: str) -> tuple[str, str] | None:
    """("higher" or "lower", the words after "than") when a question asks whether a
    figure is above or below another company's ("is that more than Rio's?"), else None.
    "better" and "worse" say no direction of the figure (a better net debt is lower)."""
    for match in _THAN.finditer(text):
        other = match.group("other")
        owner = _OWNER.match(other)
        whose = owner.group("owner") if owner else ""
        if find_companies(other) or (whose and not _TIME.match(whose) and not whose[0].isdigit()):
            word = match.group(0).split()[0].lower()
            if word in ("better", "worse"):
                return "", other
            return ("higher" if word in _ABOVE else "lower"), other
    return None


# A question over every company ("which company had the most debt?", "rank the miners by
# revenue") is searched across all five; a bare metric without these words is not.
_ALL_COMPANIES = re.compile(
    r"\b(?:which|what)\s+(?:company|companies|miner|miners|one)\b|"
    r"\b(?:all|each|every|across|among)\b(?:\s+\w+){0,2}\s+(?:companies|miners|of\s+them)\b|"
    r"\brank(?:ed|ing|s)?\b|"
    r"\b(?:highest|largest|lowest|smallest|biggest|most|least)\b|"
    # "who was the top profit maker", "worst injury frequency in fy2025?"
    r"\b(?:who|which)\b.*\b(?:top|best|worst|bottom)\b|^\s*(?:the\s+)?(?:best|worst|top|bottom)\s",
    re.IGNORECASE,
)


_SUPERLATIVE = re.compile(
    r"\b(?P<high>highest|largest|biggest|most|greatest|top)\b|"
    r"\b(?P<low>lowest|smallest|least|fewest|bottom)\b",
    re.IGNORECASE,
)


def superlative(text: str) -> str | None:
    """ "highest" or "lowest" when a question asks for the top or the bottom of a ranking
    (the first such word decides), else None."""
    match = _SUPERLATIVE.search(text)
    if match is None:
        return None
    return "highest" if match.group("high") else "lowest"


def asks_over_all_companies(text: str) -> bool:
    """Whether a question is about every company (a ranking, a comparison across them)."""
    if _ALL_COMPANIES.search(text):
        return True
    # "the five companies": as many as are covered
    n = len(companies())
    return n > 1 and bool(
        re.search(rf"\b(?:{how_many()}|{n})\s+(?:companies|miners)\b", text, re.I)
    )


# "the miners", "which mining company": the companies whose registry says they mine.
_MINERS = re.compile(r"\bminers?\b|\bmining\s+(?:companies|company|groups?|firms?|stocks?)\b", re.I)


def among_miners(question: str) -> bool:
    """Whether a question asks among the miners ("which miner", "the mining companies")."""
    return bool(_MINERS.search(question))


def companies_over(question: str) -> list[str]:
    """The covered companies a question over every company is about, in coverage order:
    "the miners" are those whose registry lists commodities they mine (a water utility or
    a retailer is no miner), and a question naming a commodity ("who mined the most gold")
    is about those whose registry lists it. Empty when it means every covered company."""
    if not asks_over_all_companies(question):
        return []
    named = commodities_named(question)
    if named:  # "who produced the most iron ore": those whose registry says they mine it
        miners = [t for t, c in companies().items() if named & set(c.commodities)]
    elif among_miners(question):
        miners = [t for t, c in companies().items() if c.commodities]
    else:
        return []
    return miners if miners and len(miners) < len(companies()) else []


def companies_asked(named: list[str], question: str) -> list[str]:
    """The covered companies a question is about, given the ones it names: those; with a
    share of a total over several, the one named first and then every company the total
    is over; with none named, the miners or the companies of a commodity
    (`companies_over`), else none (every covered company)."""
    if named and asks_share_of_total(question):
        every = companies_over(question) or list(companies())
        return [*named, *(t for t in every if t not in named)]
    return named or companies_over(question)


def commodities_named(question: str) -> frozenset[str]:
    """The commodities of the registry a question names ("iron ore", "gold")."""
    return frozenset(
        k for k in coverage().commodities if re.search(rf"\b{re.escape(k)}\b", question, re.I)
    )


# "what share of the five's combined revenue came from BHP?", "how much of the miners' total
# net debt was Rio's?": one company's part of a total over several.
_SHARE_OF_TOTAL = re.compile(
    r"(?:\b(?:share|proportion|percentage|per\s*cent|fraction|portion|part|how\s+much)|%)\s+of\s+"
    r"(?P<whose>(?:[\w'’]+\s+){0,5}?)(?:combined|total|aggregate|overall|collective)\b",
    re.IGNORECASE,
)
_SEVERAL = re.compile(r"\b(?:combined|together|collective|aggregate|companies|miners)\b", re.I)


def asks_share_of_total(text: str) -> bool:
    """Whether a question asks for one company's part of a total over several ("what
    share of the five's combined revenue came from BHP?"), not of its own total ("what
    share of BHP's total revenue came from copper?", "what percent of Ulta Beauty's total
    spend on repurchases occurred in Q4?"): one company named, the total owned by none,
    and several said (combined, the companies, or as many as are covered: "the five's")."""
    match = _SHARE_OF_TOTAL.search(text)
    if match is None or find_companies(match.group("whose")) or len(find_companies(text)) != 1:
        return False
    count = rf"\b(?:{how_many()}|{len(companies())})['’]?s?\b(?!\s*(?:million|billion|%))"
    return bool(_SEVERAL.search(text) or re.search(count, text, re.I))


# Questions that are not about a figure: what someone said, what a company did, why
# something changed. They are answered from the reports' text, not with figures.
_NARRATIVE = re.compile(
    r"\b(?:why|explain\w*|reasons?\s+(?:for|why|behind)|what\s+(?:drove|caused|explains?)|"
    r"(?:say|said|says|saying|comment(?:ed|s)?|remark(?:ed|s)?|write|wrote|note[sd]?)\s+"
    r"(?:about|on|regarding)|what\s+(?:did|does|do|has|have)\b.{0,60}?\b(?:say|said|mention|"
    r"think|acquire|buy|sell|announce|decide|do\s+(?:about|on|for|with))\b|"
    r"acquisitions?|acquired|takeovers?|mergers?|divest\w*|outlook|strateg(?:y|ies|ic)|"
    r"priorit(?:y|ies)|plans?\s+(?:for|to)|describe|tell\s+me\s+about\s+(?:the\s+)?(?:chair|"
    r"ceo|board|strategy|outlook|acquisition|approach))",
    re.IGNORECASE,
)


def asks_narrative(text: str) -> bool:
    """Whether a question asks about what the reports say rather than for a figure."""
    return bool(_NARRATIVE.search(text))


def asks_comparison(text: str) -> bool:
    """Whether a question asks to compare (versus, difference, which is higher, higher
    than another's)."""
    return bool(_COMPARE.search(text)) or than_asked(text) is not None


def asks_change(text: str) -> bool:
    """Whether a question asks how something changed (rose, fell, grew, trend)."""
    return bool(_CHANGE.search(text))


def find_intent(
    text: str, companies: list[str], metrics: list[str], other_measures: tuple[str, ...] = ()
) -> Intent:
    """Classify what kind of answer a question wants.

    A question about what the reports say (who said what, why something changed, what a
    company acquired) is narrative; then explicit comparison words win; then change
    words; then two or more companies make a comparison; a company with no measure at
    all is an overview; anything else is a lookup.
    """
    if _NARRATIVE.search(text):
        return "narrative"
    if asks_comparison(text):
        return "compare"
    if _CHANGE.search(text):
        return "change"
    if len(companies) >= 2:
        return "compare"
    if companies and not metrics and not other_measures:
        return "overview"
    return "lookup"
