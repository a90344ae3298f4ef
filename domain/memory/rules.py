"""What a turn may remember, as pure rules: the answer cache's slot guard, user
preferences, the conversation summary's merge, and the ordered context budget. Storage
lives in `db.memory` (PostgreSQL) and `backends.answer_cache` (Qdrant); this module
decides, it never stores.

Remembered content is a claim, never evidence: every note handed to a model step carries
a label saying so, and the numeric check and the judge never see it.
"""

import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import Literal

from pydantic import Field

from domain.companies.roster import companies, coverage, display_name, find_companies
from domain.language.sentences import split_sentences
from domain.language.units import SIGN, requested_currency, requested_scale
from domain.models import Frozen
from domain.questions.intent import asks_over_all_companies
from domain.questions.metrics import metric_mentions, other_measure_mentions
from domain.questions.question import extract_slots
from domain.questions.years import mentioned_years, mentioned_years_outside

# ---- the answer cache's slot guard ----------------------------------------------------

# Question words that turn a question into its opposite, or into another question, while
# barely moving its embedding ("highest" and "lowest" are neighbours in vector space).
_POLARITY: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "high",
        re.compile(
            r"\b(?:highest|largest|biggest|most|greatest|best|max(?:imum)?|top|"
            r"higher|larger|bigger|more|greater|better|exceed\w*|above|over)\b"
        ),
    ),
    (
        "low",
        re.compile(
            r"\b(?:lowest|smallest|least|fewest|worst|min(?:imum)?|bottom|lower|"
            r"smaller|less|fewer|worse|below|under)\b"
        ),
    ),
    (
        "up",
        re.compile(
            r"\b(?:ris(?:e|es|en|ing)|rose|increas\w*|gr[eo]w\w*|growth|gain\w*|"
            r"up|improv\w*|climb\w*|jump\w*)\b"
        ),
    ),
    (
        "down",
        re.compile(
            r"\b(?:fall\w*|fell|decreas\w*|declin\w*|drop\w*|down|shr[iau]nk\w*|"
            r"slump\w*|deteriorat\w*|los[st]\w*|cut)\b"
        ),
    ),
    ("incl", re.compile(r"\b(?:includ\w*|incl|inclusive)\b")),
    (
        "excl",
        re.compile(
            r"\b(?:exclud\w*|excl|exclusive|except\w*|without|other\s+than|"
            r"apart\s+from|net\s+of|ex)\b"
        ),
    ),
    ("not", re.compile(r"\b(?:not|never|no|none|neither|nor)\b|n't\b")),
)
_NUMBER = re.compile(r"(?<![A-Za-z])\d[\d,]*(?:\.\d+)?")
_YEARISH = re.compile(
    r"(?<![A-Za-z0-9])(?:FY|CY)\s?'?\d{2,4}(?![0-9])|(?<![0-9$,.])(?:19|20)\d{2}(?:\s?[/-]\s?\d{2})?"
    r"(?![0-9])",
    re.IGNORECASE,
)
# Commodities a question can narrow a metric to ("copper production", "iron ore revenue"):
# the line item inside a metric, which the metric lexicon does not distinguish.
_COMMODITY = re.compile(
    r"\b(?:iron\s*ore|copper|gold|silver|coal|met(?:allurgical)?\s+coal|energy\s+coal|nickel|"
    r"alumin(?:i?um|a)|bauxite|manganese|zinc|lead|lithium|potash|uranium|titanium|diamonds?|"
    r"borates?|salt|green\s+(?:energy|hydrogen|metals))\b",
    re.IGNORECASE,
)


_MONEY = re.compile(SIGN, re.I)
_WORD = re.compile(r"[a-z][a-z0-9]*")
# Words that change no meaning in a figure question: how it is asked, not what.
_NEUTRAL = frozenset(
    """a an the of in on at for to by as and or from about into what whats was were is are
    be been being how much many did does do make made makes report reported reports
    post posted tell me give show know like i d s id would could can you please fiscal
    financial year years fy its it their they them company companies miner miners which
    one amount figure value number this that there had has have get got see generate
    generated record recorded book booked deliver delivered achieve achieved""".split()  # noqa: SIM905 - a word list reads best as text
)


def _residual(question: str) -> list[str]:
    """The question's words that no slot explains, lightly stemmed, as a sorted set.

    The guard's catch-all: a word it has no slot for ("before tax", "restated", "second
    half", "operating", "surge") must be the same in both questions, so an unknown
    difference is a miss, never a hit. Paraphrases that differ only in how they ask
    ("How much … did … make") keep equal residues.
    """
    text = _YEARISH.sub(" ", question)
    spans = [(s, e) for s, e, _ in metric_mentions(text)]
    spans += [(s, e) for s, e, _ in other_measure_mentions(text)]
    spans += [m.span() for m in _COMMODITY.finditer(text)]
    for start, end in sorted(spans, reverse=True):
        text = text[:start] + " " + text[end:]
    text = _NUMBER.sub(" ", _MONEY.sub(" ", text.replace("%", " percent ")))
    words: set[str] = set()
    for word in _WORD.findall(text.lower()):
        if word in _NEUTRAL or word in coverage().alias_words:
            continue
        if any(pattern.fullmatch(word) for _, pattern in _POLARITY):
            continue  # in the polarity slot
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        words.add(word)
    return sorted(words)


class CacheSlots(Frozen):
    """What a question asks, as the cache compares it: equal slots or no reuse.

    Similarity alone cannot tell FY2023 from FY2024 (0.987 with the local embedder) or
    "highest" from "lowest"; these fields can. Every list is sorted, so equality is
    order-free.
    """

    companies: list[str] = Field(default_factory=list)
    all_companies: bool = False
    fiscal_years: list[int] = Field(default_factory=list)
    years_outside: list[int] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list)
    """Metric keys, line items included (an interim dividend is not the total)."""
    other_measures: list[str] = Field(default_factory=list)
    commodities: list[str] = Field(default_factory=list)
    intent: str = "lookup"
    polarity: list[str] = Field(default_factory=list)
    """high/low, up/down, incl/excl, not: which way the question points."""
    numbers: list[str] = Field(default_factory=list)
    """Figures in the question other than years ("above US$10 billion")."""
    scale: str | None = None
    currency: str | None = None
    money: list[str] = Field(default_factory=list)
    """Currency marks in the question (US$, A$, €)."""
    order: list[str] = Field(default_factory=list)
    """The companies in the order named, when the question compares them one way ("was
    Rio Tinto's revenue above BHP's" is not "BHP's above Rio Tinto's")."""
    residual: list[str] = Field(default_factory=list)
    """Every other word that carries meaning (`_residual`)."""


def cache_slots(question: str) -> CacheSlots:
    """The slots of a resolved question (carried entities and preferences already in it)."""
    slots = extract_slots(question)
    lowered = question.lower()
    polarity = sorted({tag for tag, pattern in _POLARITY if pattern.search(lowered)})
    without_years = _YEARISH.sub(" ", question)
    numbers = sorted({n.replace(",", "") for n in _NUMBER.findall(without_years)})
    commodities = sorted({" ".join(m.lower().split()) for m in _COMMODITY.findall(question)})
    directed = {"high", "low"} & set(polarity) and len(slots.companies) >= 2
    return CacheSlots(
        companies=sorted(slots.companies),
        all_companies=not slots.companies and asks_over_all_companies(question),
        fiscal_years=sorted(slots.fiscal_years),
        years_outside=sorted(mentioned_years_outside(question)),
        metrics=sorted(slots.metrics),
        other_measures=sorted(slots.other_measures),
        commodities=commodities,
        intent=slots.intent,
        polarity=polarity,
        numbers=numbers,
        scale=requested_scale(question),
        currency=requested_currency(question),
        money=sorted({m.upper() for m in _MONEY.findall(question)}),
        order=list(slots.companies) if directed else [],
        residual=_residual(question),
    )


def cacheable(slots: CacheSlots) -> bool:
    """Whether answers to such a question may be cached at all.

    Only figure questions: a question about what a report says (narrative) or about a
    company in general (overview) has no slots that pin its meaning down, so two of them
    can be near-identical in words and ask different things ("what did BHP say about
    copper" / "about coal" differ in one commodity word the guard does see, but "about
    safety" / "about culture" differ in words it does not).
    """
    if slots.intent in ("narrative", "overview"):
        return False
    if not (slots.metrics or slots.other_measures):
        return False
    return bool(slots.companies or slots.all_companies) and bool(
        slots.fiscal_years or slots.years_outside
    )


CacheOutcome = Literal["hit", "hint", "miss"]


def cache_decision(similarity: float, hit_at: float, hint_at: float) -> CacheOutcome:
    """Hit, hint or miss by similarity alone; the slot guard is applied before this."""
    if similarity >= hit_at:
        return "hit"
    if similarity >= hint_at:
        return "hint"
    return "miss"


# ---- preferences: facts about the user ------------------------------------------------

PreferenceKind = Literal["scale", "currency", "companies"]


class Preference(Frozen):
    """One remembered fact about a user, as stored (a claim the user made)."""

    kind: PreferenceKind
    value: str
    """"bn"/"m" for scale, a currency name, or tickers joined by "," for companies."""
    statement: str = ""
    """What the user said, as they said it (tokens in place of personal values)."""

    def describe(self) -> str:
        if self.kind == "scale":
            return "figures in billions" if self.value == "bn" else "figures in millions"
        if self.kind == "currency":
            return f"figures in {self.value}"
        names = [display_name(t) for t in self.value.split(",") if t in companies()]
        return f"only the companies you follow ({', '.join(names)})"


class Remembering(Frozen):
    """A statement asking the system to remember something, read."""

    preference: Preference | None
    """None: a request the system cannot act on (it is told so, nothing is stored)."""
    reply: str


_REMEMBER = re.compile(
    r"\b(?:remember|from\s+now\s+on|going\s+forward|in\s+future|always|by\s+default|"
    r"i\s+(?:would\s+)?prefer|i(?:'d|\s+would)\s+like|i\s+only\s+(?:follow|care|track|"
    r"watch|invest)|i\s+(?:follow|track|watch)|my\s+(?:preference|companies|portfolio)|"
    r"i(?:'m|\s+am)\s+(?:only\s+)?interested\s+in|"
    r"i\s+(?:no\s+longer|don'?t|do\s+not|never)\s+(?:want|follow|care|track|watch|like)|"
    r"(?:show|give|tell)\s+(?:me\s+)?(?:the\s+)?(?:figures|numbers|amounts|values)\s+(?:in|as))\b",
    re.IGNORECASE,
)
# English spellings of a commodity beside its registered one ("aluminum", "alumina").
_SPELLINGS = {"aluminium": r"alumin(?:i?um|a)"}


def _commodity_miners() -> re.Pattern[str]:
    """ "Gold miners", "iron-ore producers": a commodity some covered company produces (its
    registration's `commodities`), then a word for the companies producing it."""
    return _commodity_pattern(tuple(sorted(coverage().commodities)))


@lru_cache(maxsize=8)
def _commodity_pattern(commodities: tuple[str, ...]) -> re.Pattern[str]:
    if not commodities:
        return re.compile(r"(?!)")
    names = sorted(
        (_SPELLINGS.get(c) or r"[\s-]*".join(re.escape(w) for w in c.split()) for c in commodities),
        key=len,
        reverse=True,
    )
    return re.compile(
        rf"\b(?P<c>{'|'.join(names)})(?:\s+(?:miners?|producers?|companies|names|stocks))\b",
        re.IGNORECASE,
    )


def commodity_companies(commodity: str) -> tuple[str, ...]:
    """The covered companies that produce a commodity (its registered name)."""
    return tuple(c.ticker for c in companies().values() if commodity in c.commodities)


"""Which of the five mine a commodity in quantity (their principal products), for "I only
follow iron-ore miners"."""
WHAT_I_REMEMBER = (
    "I can remember how you like figures shown (in millions or billions, a currency) and "
    "which of the five companies you follow."
)


_QUESTION_START = re.compile(
    r"\s*(?:what|who|whom|whose|which|when|where|why|how|do|does|did|can|could|is|are|was|"
    r"were|will|would|should|has|have|had)\b",
    re.IGNORECASE,
)
_NEGATIVE = re.compile(
    r"\b(?:not|never|no\s+longer|don'?t|doesn'?t|stop|forget|exclude|excluding|except|"
    r"without|ignore|unfollow|avoid)\b|n't\b",
    re.IGNORECASE,
)


def _commodity_key(word: str) -> str:
    folded = " ".join(word.lower().replace("-", " ").split())
    return "aluminium" if folded.startswith("alumin") else folded


_BARE_SCALE = re.compile(r"\b(?P<s>billions?|bn|millions?|mn)\b", re.IGNORECASE)


def _bare_scale(text: str) -> str | None:
    """ "I prefer billions": a scale named without "in"."""
    match = _BARE_SCALE.search(text)
    return None if match is None else ("bn" if match.group("s").lower().startswith("b") else "m")


def read_preference(text: str) -> Remembering | None:
    """Read a statement of preference; None when the text is not one (a question).

    Strict on purpose, because a statement is stored and a question is answered:
    anything with a question mark, or opening like a question, is a question; so is
    anything naming a company with a metric or a year ("show me BHP's revenue in
    billions": its scale applies to that answer only). A negative or a retraction ("I
    never want Rio Tinto", "forget that I follow BHP"), or a metric of interest without
    anything to look up, is a request the system cannot act on: it is answered plainly
    and nothing is stored.
    """
    # long: one case per kind of preference statement, tried in order.
    if not _REMEMBER.search(text) or "?" in text or _QUESTION_START.match(text):
        return None
    # "gold miners" names companies by what they mine, not a production figure: the
    # phrase is read here and left out of the metric reading below.
    pattern = _commodity_miners()
    miners = [_commodity_key(m.group("c")) for m in pattern.finditer(text)]
    slots = extract_slots(pattern.sub(" ", text))
    statement = " ".join(text.split())[:300]
    if (slots.metrics or slots.other_measures) and (slots.companies or mentioned_years(text)):
        return None
    if mentioned_years(text):
        return None
    if slots.metrics or slots.other_measures or _NEGATIVE.search(text):
        return Remembering(
            preference=None,
            reply=f"I have not stored that: it is not something I can act on. {WHAT_I_REMEMBER}",
        )
    scale = requested_scale(text) or _bare_scale(text)
    if scale:
        pref = Preference(kind="scale", value=scale, statement=statement)
        reply = f"Noted: from now on I will show {pref.describe()}."
        return Remembering(preference=pref, reply=reply)
    currency = requested_currency(text)
    if currency:
        pref = Preference(kind="currency", value=currency, statement=statement)
        return Remembering(
            preference=pref,
            reply=f"Noted: from now on I will ask for {pref.describe()}. The reports are "
            "never converted: a figure reported in another currency is shown as reported, "
            "and the answer says so.",
        )
    tickers = list(find_companies(text))
    for commodity in miners:
        tickers.extend(commodity_companies(commodity))
    tickers = list(dict.fromkeys(tickers))
    if tickers:
        pref = Preference(kind="companies", value=",".join(tickers), statement=statement)
        return Remembering(
            preference=pref,
            reply=f"Noted: you follow {', '.join(display_name(t) for t in tickers)}. A "
            "question over all the companies will cover these.",
        )
    return Remembering(
        preference=None,
        reply=f"I have not stored that: it is not something I can act on. {WHAT_I_REMEMBER}",
    )


_OWN_SCOPE = re.compile(r"\b(?:all|every|each|both|five|5)\b|" + _COMMODITY.pattern, re.IGNORECASE)
"""A question that sets its own company scope ("all five", "which gold miner"): the
companies a user follows do not narrow it."""


def preference_notice(applied: list[str]) -> str | None:
    """The line an answer opens with when remembered preferences shaped it."""
    if not applied:
        return None
    return f"Shown as you asked earlier: {'; '.join(applied)}."


def apply_preferences(question: str, preferences: list[Preference]) -> tuple[str, list[str]]:
    """The question with the user's preferences that apply to it, visibly appended.

    A preference fills only what the question leaves open: a question naming its own
    scale, currency or companies keeps them. Returns (question, what was applied).
    """
    additions: list[str] = []
    applied: list[str] = []
    latest = {p.kind: p for p in preferences}  # oldest first: the newest of a kind wins
    scale = latest.get("scale")
    if scale and requested_scale(question) is None:
        additions.append("in billions" if scale.value == "bn" else "in millions")
        applied.append(scale.describe())
    currency = latest.get("currency")
    if currency and requested_currency(question) is None:
        additions.append(f"in {currency.value}")
        applied.append(currency.describe())
    followed = latest.get("companies")
    if (
        followed
        and not find_companies(question)
        and asks_over_all_companies(question)
        and not _OWN_SCOPE.search(question)
    ):
        names = [display_name(t) for t in followed.value.split(",") if t in companies()]
        if names:
            additions.append("among " + ", ".join(names))
            applied.append(followed.describe())
    if not additions:
        return question, []
    return f"{question.rstrip()} [your preference: {'; '.join(additions)}]", applied


# ---- the summary buffer ---------------------------------------------------------------

SUMMARISE_OVER = 10
"""A conversation with more unsummarised messages than this is compressed..."""
KEEP_RECENT = 4
"""...into one summary of all but its last this many messages."""
SUMMARY_CHARS = 1200
"""The bound on a conversation's summary, all its lines together."""
LINE_CHARS = 300
"""The bound on one line of it: a long table or quotation is cut, not the summary."""


def needs_summary(unsummarised: int) -> bool:
    return unsummarised > SUMMARISE_OVER


_SPEAKER = re.compile(r"\s+(?=(?:user|assistant): )")
"""Where a message began in a summary stored as a paragraph (`db.memory.to_summarise`
writes each message as `role: text`)."""


def summary_lines(text: str | None) -> list[str]:
    """A summary's lines, least recently mentioned first: one per line, one per sentence
    (a summary stored as a paragraph, before summaries had lines, reads the same way)."""
    lines = []
    for sentence in split_sentences(text or ""):
        for part in _SPEAKER.split(sentence):
            line = " ".join(part.split())
            if line:
                lines.append(line if len(line) <= LINE_CHARS else line[: LINE_CHARS - 1] + "…")
    return lines


def fact_key(line: str) -> tuple[str, ...]:
    """What a line is about: its companies, years and measures (line items and
    commodities included, so copper revenue is not iron-ore revenue) when it names a
    company and a measure the registry and the lexicon read; else its words, so it only
    ever matches itself (a fact about a company or measure they do not know is never
    taken for another)."""
    slots = extract_slots(line)
    measures = sorted({*slots.metrics, *slots.other_measures})
    if not (measures and slots.companies):
        return ("text", " ".join(_WORD.findall(line.lower())))
    commodities = sorted({" ".join(m.lower().split()) for m in _COMMODITY.findall(line)})
    return (
        "fact",
        ",".join(sorted(slots.companies)),
        ",".join(map(str, mentioned_years(line))),
        ",".join(measures),
        ",".join(commodities),
    )


def gives_value(line: str) -> bool:
    """Whether the line states a figure (a number that is not a year): a question or a
    "not found" line about a fact does not, and never replaces one that does."""
    return bool(_NUMBER.search(_YEARISH.sub(" ", line)))


def merge_summary(base: str | None, increment: str, budget: int = SUMMARY_CHARS) -> str:
    """The base summary with an increment (a summary of newer messages) merged into it.

    One line per fact: a line about the same (companies, years, measure) as one already
    held replaces it, the newest value winning, and moves it to the end as the most
    recently mentioned; a mention without a figure keeps the figure held and only moves
    it. Lines about nothing the lexicon reads are deduplicated as they are. Only when the
    whole is over `budget` are lines dropped, the least recently mentioned first: a fact
    is never lost for being old, only for not having come up again while newer ones
    filled the budget.
    """
    held: dict[tuple[str, ...], str] = {}
    for line in [*summary_lines(base), *summary_lines(increment)]:
        key = fact_key(line)
        kept = held.pop(key, None)
        held[key] = (
            kept if kept is not None and gives_value(kept) and not gives_value(line) else line
        )
    lines = list(held.values())
    while len(lines) > 1 and len("\n".join(lines)) > budget:
        lines.pop(0)
    text = "\n".join(lines)
    return text if len(text) <= budget else text[: budget - 1] + "…"


_MARKER = re.compile(r"\s?\[\d+(?:\s*,\s*\d+)*\]")


def without_markers(text: str) -> str:
    """Text with its citation markers removed: remembered text has no sources of its own,
    and a `[2]` from another turn would point at this turn's second excerpt."""
    return _MARKER.sub("", text)


# ---- the context budget ---------------------------------------------------------------

NoteKind = Literal["conversation", "summary", "preference", "cached_answer", "refuted"]
CLAIM_LABEL = "REMEMBERED (a claim from earlier, not evidence: check it against the excerpts)"


class RecentMessage(Frozen):
    """One message of the conversation as stored: personal values already tokens."""

    role: Literal["user", "assistant"]
    text: str


class MemoryNote(Frozen):
    """Something remembered, handed to synthesis as context: always labelled a claim."""

    kind: NoteKind
    text: str

    def labelled(self) -> str:
        what = {
            "conversation": "the conversation's last messages, as they were said (what a"
            ' follow-up such as "why did that fall?" refers to)',
            "summary": "summary of the earlier conversation",
            "preference": "what the user told us about themselves",
            "cached_answer": "an earlier answer to a similar question",
            "refuted": "figures an earlier draft stated that the cited evidence does not back"
            " (state a figure only as the evidence gives it, or say it is not found)",
        }[self.kind]
        return f"{CLAIM_LABEL} — {what}: {self.text}"


def conversation_note(messages: list[RecentMessage]) -> MemoryNote | None:
    """The last `KEEP_RECENT` messages, oldest first, each on a new line after its role,
    as they were said but for their citation markers: a `[2]` numbered that turn's
    sources, not these."""
    recent = messages[-KEEP_RECENT:]
    if not recent:
        return None
    lines = [f"\n{m.role}: {without_markers(m.text).strip()}" for m in recent]
    return MemoryNote(kind="conversation", text="".join(lines))


class Excerpt(Frozen):
    """One kept evidence chunk as the budget sees it."""

    n: int
    """Its source number: the `[n]` an answer cites it by, whatever order it is shown in."""
    text: str
    company: str
    rank: int = 0
    """Its rank in its own company's search (1 the best); 0 when unknown."""
    score: float = 0.0
    """Its fused (or reranked) search score; the tie-break between equal ranks."""


class Context(Frozen):
    """The context of a model step, in its fixed order, within its budget."""

    question: str
    evidence: list[Excerpt]
    """The excerpts that fit, in the order shown: the strongest at the start and the end,
    the weakest in the middle (`ends_first`)."""
    memory: list[MemoryNote] = Field(default_factory=list)
    dropped: list[NoteKind] = Field(default_factory=list)
    """What did not fit, in the order it was dropped (hints first, then the summary)."""
    left_out: list[int] = Field(default_factory=list)
    """Source numbers of the excerpts over the evidence budget, in the order left out
    (the weakest first)."""


def strongest_first(evidence: list[Excerpt]) -> list[Excerpt]:
    """By rank in its own search, then score, then source order (retrieval order): a
    company's best hit is as strong as another company's best, so a comparison keeps
    both companies' best at the ends. Without ranks (all 0) this is the source order."""
    return sorted(evidence, key=lambda e: (e.rank, -e.score, e.n))


def ends_first(ranked: list[Excerpt]) -> list[Excerpt]:
    """Strongest-first excerpts laid out with the strongest at the two ends and the
    weakest in the middle (1st, 3rd, 5th … 6th, 4th, 2nd): models read the start and
    the end of a long context best and the middle worst ("lost in the middle")."""
    return ranked[0::2] + ranked[1::2][::-1]


def fit_evidence(
    ranked: list[Excerpt], room: int | None, size: Callable[[str], int]
) -> tuple[list[Excerpt], list[int]]:
    """Leave out the weakest excerpts until the rest fit `room` (None: no limit).

    A company's only excerpt left is kept while another company still has more than one
    (it may be all the turn knows of that company, and every company in the evidence was
    asked about); past that the weakest goes whoever it belongs to. The strongest one
    always stays: an answer needs evidence, and the excerpt is the budget's to shorten,
    never to empty. Returns (the excerpts kept, strongest first; the numbers left out).
    """
    kept = list(ranked)
    left_out: list[int] = []
    total = sum(size(e.text) for e in kept)
    while room is not None and total > room and len(kept) > 1:
        per_company = Counter(e.company for e in kept)
        spare = [e for e in kept[1:] if per_company[e.company] > 1]
        victim = spare[-1] if spare else kept[-1]
        kept.remove(victim)
        left_out.append(victim.n)
        total -= size(victim.text)
    return kept, left_out


_CITED = re.compile(r"([ \t]?)\[(\d+(?:\s*,\s*\d+)*)\]")


def without_markers_to(text: str, unseen: set[int]) -> str:
    """`text` with every marker number in `unseen` taken out ("[2, 7]" → "[2]"; " [7]"
    → nothing): an excerpt the model was not shown cannot be the source of anything it
    wrote, so what it cited there stands uncited, for the checks to judge."""
    if not unseen:
        return text

    def keep(match: re.Match[str]) -> str:
        left = [p.strip() for p in match.group(2).split(",") if int(p) not in unseen]
        return f"{match.group(1)}[{', '.join(left)}]" if left else ""

    return _CITED.sub(keep, text)


def assemble_context(
    question: str,
    evidence: list[Excerpt],
    notes: list[MemoryNote],
    budget: int,
    size: Callable[[str], int] = len,
    evidence_budget: int | None = None,
) -> Context:
    """Order: the question, its evidence, the conversation's last messages, the summary,
    the memory hints; then drop notes from the end — every hint before the summary, the
    summary before the last messages — until the whole fits `budget`.

    The evidence has a cap of its own, `evidence_budget` (None: none), and never more
    than the budget less the question: past it the weakest excerpts are left out
    (`fit_evidence`), so the notes keep some room whatever was retrieved. The question
    is never dropped, and the evidence that fits is never dropped for a note. `size`
    measures text (characters by default; the model engine counts tokens).
    """
    measure = size
    room = None if evidence_budget is None else min(evidence_budget, budget - measure(question))
    ranked, left_out = fit_evidence(strongest_first(evidence), room, measure)
    conversation = [n for n in notes if n.kind == "conversation"]
    summary = [n for n in notes if n.kind == "summary"]
    hints = [n for n in notes if n.kind not in ("conversation", "summary")]
    kept = conversation + summary + hints
    dropped: list[NoteKind] = []
    base = measure(question) + sum(measure(e.text) for e in ranked)
    while kept and base + sum(measure(n.labelled()) for n in kept) > budget:
        dropped.append(kept.pop().kind)  # the last in order goes first: hints, then summary
    return Context(
        question=question,
        evidence=ends_first(ranked),
        memory=kept,
        dropped=dropped,
        left_out=left_out,
    )
