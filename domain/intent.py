"""What kind of answer a question wants: a lookup, a change, a comparison, a ranking over
every company, an overview, or what the reports say (narrative)."""

import re

from domain.companies import companies, how_many
from domain.models import Intent

_CHANGE = re.compile(
    r"\b(?:grow|grew|grown|growth|change[sd]?|changing|increase[sd]?|increasing|decrease[sd]?|"
    r"decreasing|fell|fall(?:en|ing)?|rose|rise[ns]?|rising|trend(?:s|ed|ing)?|move[sd]?|"
    r"movement|decline[sd]?|declining|drop(?:ped)?|improve[sd]?|deteriorat\w*|up\s+or\s+down|"
    r"year[\s-]+on[\s-]+year|year[\s-]+over[\s-]+year|yoy)\b",
    re.IGNORECASE,
)
_COMPARE = re.compile(
    r"\b(?:compare[sd]?|comparing|comparison|versus|vs\.?|differ(?:ence|ent|s)?|"
    r"rank(?:ed|ing)?|(?:stack|measure|match)(?:s|ed)?\s+up|relative\s+to)\b|\bwhich\b.*\b(?:higher|highest|larger|largest|more|most|bigger|"
    r"biggest|lower|lowest|less|least|smaller|smallest|better|best)\b",
    re.IGNORECASE,
)


# A question over every company ("which company had the most debt?", "rank the miners by
# revenue") is searched across all five; a bare metric without these words is not.
_ALL_COMPANIES = re.compile(
    r"\b(?:which|what)\s+(?:company|companies|miner|miners|one)\b|"
    r"\b(?:all|each|every|across|among)\b(?:\s+\w+){0,2}\s+(?:companies|miners|of\s+them)\b|"
    r"\brank(?:ed|ing|s)?\b|"
    r"\b(?:highest|largest|lowest|smallest|biggest|most|least)\b",
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
    """Whether a question asks to compare (versus, difference, which is higher)."""
    return bool(_COMPARE.search(text))


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
    if _COMPARE.search(text):
        return "compare"
    if _CHANGE.search(text):
        return "change"
    if len(companies) >= 2:
        return "compare"
    if companies and not metrics and not other_measures:
        return "overview"
    return "lookup"
