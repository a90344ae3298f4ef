"""A question that lists what it asks about and asks which is highest or lowest.

Pure. "Among operations, investing, and financing activities, which brought in the most
(or lost the least) cash flow for Nike in FY2023?" lists three things and asks which of
them tops a measure ("cash flow"): it is answered with the one it asks for first, then
each listed figure cited, never with whatever figure shares a word of one option ("Other
investing activities", "operating leases"). Nothing here knows a measure or an option in
advance: the options are the question's own list, the measure its own words.
"""

import re
from dataclasses import dataclass

from domain.companies.roster import find_companies, without_companies
from domain.questions.intent import superlative
from domain.questions.measures import ACRONYM, Focus, content_words, terms
from domain.questions.years import mentioned_years

_LISTED = re.compile(
    r"^\s*(?:among|of|between|from)\s+(?:the\s+)?(?P<list>[^?]+?)\s*,\s*"
    r"(?P<ask>(?:which|what)\b[^?]*)",
    re.IGNORECASE,
)
"""The list first, then the ask: "Among A, B and C, which ...?"."""
_WHICH_OF = re.compile(
    r"\b(?:which|what)\s+(?:one\s+)?of\s+(?:the\s+|these\s+|its\s+)?"
    r"(?P<list>[^?]*?\s(?:and|or)\s+[\w&'-]+)\s+(?P<ask>[^?]*)",
    re.IGNORECASE,
)
"""The ask around the list: "Which of A, B or C had the highest ...?" (its last option one
word: where the list ends and the ask begins is not otherwise written)."""
_COMPARATIVE = re.compile(
    r"\b(?P<high>higher|larger|bigger|greater|more)\b|\b(?P<low>lower|smaller|less|fewer)\b",
    re.IGNORECASE,
)
_NAMED_FOR = re.compile(r"\b(?:for|at|of|by)\s+[A-Z][\w&.'’-]*(?:\s+[A-Z][\w&.'’-]*)*")
"""A name the ask gives its company ("for Nike"), registered or not."""
_SPLIT = re.compile(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|vs\.?|versus)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Choice:
    """The options a question lists, the measure it ranks them by, and which end it asks."""

    options: tuple[str, ...]
    """As the question writes them ("operations", "investing", "financing activities")."""
    measure: str
    end: str
    """"highest" or "lowest"."""
    head: str = ""
    """A head noun the last option carries for every one ("activities")."""

    def phrase(self, option: str) -> str:
        """An option with its head noun and measure, as a report would label its figure
        ("operations activities cash flow")."""
        head = self.head if self.head and not option.endswith(self.head) else ""
        return " ".join(w for w in (option, head, self.measure) if w)

    def own_terms(self, option: str) -> frozenset[str]:
        """What sets an option apart from the others ("oper" of "operations"): a figure
        answers it only when its label says so."""
        shared = frozenset.intersection(*(terms(self.phrase(o)) for o in self.options))
        # The words only: an acronym the phrase's initials spell ("OAC") is no word of it.
        return frozenset(
            t for t in terms(self.phrase(option)) - shared if not t.startswith(ACRONYM)
        )

    def focus(self, option: str) -> Focus:
        """The option as a part of the question: answered by a figure of its own."""
        return Focus(phrase=self.phrase(option), text=option, terms=self.own_terms(option))


def _options(listed: str) -> tuple[tuple[str, ...], str]:
    """The listed options, and the head noun the last one carries for all ("operations,
    investing, and financing activities")."""
    items = [i.strip() for i in _SPLIT.split(listed) if i and i.strip()]
    items = [re.sub(r"^(?:the|its|their)\s+", "", i, flags=re.IGNORECASE) for i in items]
    head = ""
    if (
        len(items) >= 2
        and len(items[-1].split()) > 1
        and all(len(i.split()) == 1 for i in items[:-1])
    ):
        head = items[-1].split()[-1]
    return tuple(dict.fromkeys(items)), head


def read_choice(question: str) -> Choice | None:
    """The question's list, measure and end when it asks which of what it lists is
    highest or lowest; None for any other question."""
    text = re.sub(r"\([^()]*\)", " ", question)  # "(or lost the least)": an aside
    found = _LISTED.search(text) or _WHICH_OF.search(text)
    if found is None:
        return None
    options, head = _options(found.group("list"))
    ask = found.group("ask")
    end = superlative(ask)
    if end is None and len(options) == 2 and (two := _COMPARATIVE.search(ask)):
        end = "highest" if two.group("high") else "lowest"
    if len(options) < 2 or end is None or any(len(o.split()) > 6 for o in options):
        return None
    if all(find_companies(o) for o in options):
        return None  # companies ranked: the comparison across companies answers it
    ask = _NAMED_FOR.sub(" ", without_companies(ask))
    for year in mentioned_years(ask):
        ask = re.sub(rf"\b(?:FY|CY)?\s?{year}\b", " ", ask, flags=re.IGNORECASE)
    words = [w for w in content_words(ask) if not superlative(w) and not _COMPARATIVE.fullmatch(w)]
    return Choice(options=options, measure=" ".join(words), end=end, head=head)
