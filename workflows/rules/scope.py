"""Scope rules: deterministic refusals for unambiguous, high-consequence phrasings.

They run before any model call (free). A refusal is a fixed, human-written constant,
never generated text.
"""

import re
from collections.abc import Callable
from dataclasses import dataclass

from domain.companies.roster import (
    companies,
    company_names,
    coverage,
    find_companies,
    how_many,
    latest_fiscal_year,
    without_companies,
    year_span,
)
from domain.language.shorthand import short_forms
from domain.questions.metrics import COMMON_ENGLISH, english_rank, find_metrics, find_other_measures


def refusal_text() -> str:
    """The scope refusal, built from the coverage in force (the companies and years
    whose reports are held, and an example question about one of them)."""
    held = companies()
    example = ""
    if held and (latest := latest_fiscal_year()) is not None:
        first = next(iter(held.values()))
        year = first.fiscal_years[-1] if first.fiscal_years else latest
        example = f' Try, for example: "What was {first.name}\'s revenue in FY{year}?"'
    return (
        f"I can only answer questions about the annual reports I hold, of {how_many()} "
        f"{'company' if len(held) == 1 else 'companies'} — {company_names()} — for "
        f"{year_span(' to ')}: their figures and what they say, with each figure cited to a "
        "report page. I do not give investment advice, predict share prices or write "
        f"creative pieces.{example}"
    )


_OVERRIDE = re.compile(
    r"\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|rules|prompt|guidelines)\b"
    r"|\bsystem prompt\b|\byou are now\b|\bact as\b|\bjailbreak\b|\bdeveloper mode\b",
    re.I,
)
"""An attempt to override the assistant's instructions: refused whatever surrounds it."""


DECLINE_LINE = (
    "I do not give investment advice, predict share prices or forecast figures, so that "
    "part of the question is left unanswered; here is what the reports say."
)
"""Opens an answer whose question wrapped advice or a prediction around a fact."""


@dataclass(frozen=True)
class ScopeDecision:
    refuse: bool
    reason: str | None = None
    decline: str | None = None
    """Set when the question wraps advice or a prediction around a factual question:
    the fact is answered and this line, in the answer text, declines the rest."""


# ---- phrasings: refuse only what is unambiguous, whatever the words around it -------
# Not keywords ("invest in", "project", "is it worth" are about a company's own
# investments, projects or outlook too): a phrasing addressed to the user's own decision
# or to the future of a share price, creative writing, and another company's figures;
# anything else goes to the classifier.
_ANALYSIS_VERBS = r"(?:use|read|look|compare|cite|trust|quote|believe|check|start|ask)"
_ADVICE = re.compile(
    r"\bsh(?:ou|u)l?d\s+(?:i|we)\s+(?:(?:still|just|now|really)\s+)?(?:buy|sell|invest|hold(?!\s+off)|"
    r"short|keep|dump|avoid|load\s+up|average\s+down|get\s+(?:in|into|out)|switch|add|top\s+up|"
    r"own|take|exit|trim|move|put|join|steer\s+clear)\b"
    r"|\bshould\s+(?:i|we)\s+be\s+(?:buying|selling|investing|holding)\b"
    r"|\b(?:i|we)\s+should\s+(?:buy|sell|invest|hold|keep|dump|switch|own|get\s+out)\b"
    r"|\bif\s+you\s+were\s+me\b|\b(?:better|worse)\s+off\s+(?:holding|buying|selling|investing)\b"
    r"|\bfor\s+me\s+to\s+(?:buy|sell|hold|invest|switch|own|keep|dump)\b"
    r"|\bwould\s+you\s+(?:hang\s+on|hold|keep|dump|switch|sell|buy|own)\b"
    r"|\b(?:best|worst)\b.{0,30}\bto\s+(?:own|buy|hold)\b"
    r"|\b(?:would|will|do|could|can)\s+you\s+(?:buy|sell|invest|put\s+(?:your|my)\s+(?:money|super)|"
    r"recommend\s+(?:buying|selling|investing|the\s+(?:stock|shares?)|[A-Z]\w*\s+shares?))\b"
    r"|\b(?:is|are|makes?|making)\b.{0,50}\b(?:a|an)\s+(?:(?:good|great|safe|strong|better|bad|smart|"
    r"solid|sound)\s+(?:buy|sell|investment|stock|share|dividend\s+stock)|buy|sell|steal|bargain)\b"
    r"|\b(?:better|best|worst|safest)\s+(?:buy|investment|stock|share|place\s+for\s+my\s+money)\b"
    r"|\b(?:good|bad|right)\s+time\s+to\s+(?:buy|sell|invest|get\s+in)"
    r"|\bbuy\s+or\s+sell\b|\bhold\s+or\s+(?:sell|fold)\b|\bkeep\s+it\s+or\b"
    r"|\b(?:worth|time\s+to)\s+(?:buying|selling|investing\s+in|sell\s+my|buy\s+more)\b"
    r"|\bwhich\b.{0,40}\b(?:should\s+(?:i|we)\s+(?!"
    + _ANALYSIS_VERBS
    + r"\b)|to\s+buy\b|to\s+own\b|"
    r"do\s+you\s+recommend\b|would\s+you\b)"
    r"|\b(?:put|invest)\s+(?:my|our)\s+(?:money|savings|super|\$)"
    r"|\bmy\s+(?:(?:whole|entire|own)\s+)?(?:savings|super|superannuation|retirement|portfolio|money|nest\s+egg|smsf)\b"
    r"|\b(?:undervalued|overvalued)\b|\bbuy\s+the\s+dip\b",
    re.I,
)
_FORECAST = re.compile(
    r"\b(?:share|stock)s?(?:\s+price)?\b.{0,60}\b(?:go(?:ing)?\s+(?:up|down)|rise|fall|climb|drop|"
    r"crash|double|moon|hit|be\s+(?:worth|at)|trade|outperform|next\s+(?:year|month|week|"
    r"quarter)|in\s+12\s+months|tomorrow|from\s+here|after\s+the\s+next)\b"
    r"|\bwill\b.{0,60}\b(?:share|stock)s?(?:\s+price)?\b"
    r"|\b(?:price\s+targe?t|target\s+price)\b"
    r"|\b(?:predict|forecast|project)\b.{0,40}\b(?:share|stock)s?(?:\s+price)?\b"
    r"|\bwill\b.{0,30}\b(?:moon|outperform|trade\s+(?:at|by)|go\s+ex-dividend)\b"
    r"|\bwhere\s+will\b.{0,30}\btrade\b|\breckon\b.{0,40}\b(?:moon|rise|fall|go\s+up)\b"
    r"|\bshares?\b.{0,30}\b(?:fall|rise|drop)\b.{0,30}\bwhen\b"
    r"|\byou\s+(?:reckon|think|expect|guess|see)\b.{0,40}\b(?:share|stock)s?\b",
    re.I,
)
_CREATIVE = re.compile(
    r"\b(?:write|compose|create|make\s+up|drop|give\s+me|turn\s+it\s+into|as)\b.{0,40}"
    r"\b(?:poem|story|song|haiku|joke|limerick|rap|sonnet|verse|ballad|rhyme|rhyming)\b"
    r"|(?:^|\ban?\s+)(?:short\s+)?(?:poem|haiku|limerick|song|sonnet|rap|joke|story)s?\s+"
    r"(?:about|on|for)\b"
    r"|\btell\s+me\s+a\s+joke\b|\brhyming\b"
    r"|\b(?:into|as)\s+an?\s+(?:\w+\s+)?(?:poem|story|song|haiku|joke|limerick|rap|sonnet|verse|"
    r"ballad)\b",
    re.I,
)
# A name written as an owner of something ("Newmont's revenue", "Mineral Resources'
# capex"): capitalised words, not a contraction ("What's").
_POSSESSOR = re.compile(
    r"(?<![\w'’])((?:[A-Z][\w&.\-]*)(?:\s+[A-Z][\w&.\-]*){0,2})(?:['’]s\b|(?<=s)['’](?=\s|$|[?,.]))"
)
# "did Vale produce", "Evolution Mining AISC": a name as the subject of a figure verb, or
# two or more capitalised words opening the question before a measure.
_FIGURE_VERB = (
    r"(?:produce|pay|earn|make|report|sell|mine|ship|spend|post|deliver|record|generate|owe|"
    r"declare|announce|book|achieve)\b"
)
_SUBJECT = re.compile(
    r"\b(?:did|does|has|had|will|was)\s+((?:[A-Z][\w&.\-]*)(?:\s+[A-Z][\w&.\-]*){0,2})\s+"
    + _FIGURE_VERB
    + r"|^((?:[A-Z][\w&.\-]*)(?:\s+[A-Z][\w&.\-]*){1,2})\s+(?=[a-zA-Z])"
)
_CONTRACTION = re.compile(
    r"^(?:what|it|that|here|there|who|how|where|when|let|he|she|everyone|everybody|nobody|"
    r"someone|today|this|year)$",
    re.I,
)


def _possessors(question: str) -> list[str]:
    """Names written as owners that are no covered company: "Newmont" in "compare
    Northern Star's revenue with Newmont's". No list of other companies: any name not in
    the registry is another company's when the question owns a figure by it."""
    names: list[str] = []
    for match in _POSSESSOR.finditer(question):
        if re.search(r"\bthe\s+$", question[: match.start(1)], re.I):
            continue  # "the Group's revenue": a noun, not a name
        words = match.group(1).split()
        if match.start(1) == 0 or question[: match.start(1)].rstrip().endswith((".", "?", "!")):
            words = words[1:] if len(words) > 1 and find_companies(words[0]) == [] else words
        name = " ".join(words)
        if not name or _CONTRACTION.match(name) or find_companies(name):
            continue
        names.append(name)
    for match in _SUBJECT.finditer(question):
        name = match.group(1) or match.group(2)
        rest = question[match.end() :]
        if match.group(2) and not (find_metrics(rest) or find_other_measures(rest)):
            continue
        if match.group(2) and find_companies(question):
            continue  # "Could Hemi become ... for Northern Star": about a covered company
        if name and not find_companies(name) and name not in names:
            names.append(name)
    return names


def _asks_figures(text: str) -> bool:
    """A measure of the vocabulary, or a name as the subject of a figure verb."""
    figure_verb = any(m.group(1) for m in _SUBJECT.finditer(text))
    return bool(find_metrics(text) or find_other_measures(text) or figure_verb)


OTHER_COMPANY_LINE = (
    "I only cover the annual reports of {covered}, so the figures asked for {names} are "
    "left unanswered; here is what the reports say."
)


def _by_phrasing(question: str, masked: bool = False) -> ScopeDecision:
    """The phrasing rules: refuse only unambiguous, high-consequence phrasings — advice
    to the user's own decision, the future of a share price, creative writing, another
    company's figures — and an instruction override. Wrapped around a covered company's
    figures, advice or a forecast is declined in a line and the figures answered.
    `masked`: a covered company's name is read as no words of advice ("Best Buy")."""
    if _OVERRIDE.search(question):
        return ScopeDecision(True, "instruction_override")
    phrasing = without_companies(question) if masked else question
    for reason, pattern in (
        ("creative", _CREATIVE),
        ("investment_advice", _ADVICE),
        ("forecast", _FORECAST),
    ):
        if pattern.search(phrasing):
            factual = pattern.sub(" ", question)
            if reason != "creative" and find_companies(factual) and _asks_figures(factual):
                return ScopeDecision(False, reason, decline=DECLINE_LINE)
            return ScopeDecision(True, reason)
    others = _possessors(question)
    if others and _asks_figures(question):
        return _other_company(question, others)
    return ScopeDecision(False)


def _other_company(question: str, others: list[str]) -> ScopeDecision:
    """Another company's figures: declined in a line beside a covered company's (whose
    figures are answered), refused on their own."""
    if find_companies(question):
        names = " and ".join(others)
        return ScopeDecision(
            False,
            "other_company",
            decline=OTHER_COMPANY_LINE.format(covered=company_names(), names=names),
        )
    return ScopeDecision(True, "other_company")


# ---- other companies however they are written; advice as an allocation -------------

# Words that make a phrase a company's name whatever its case: legal forms and the
# industry words listed companies carry ("evolution mining's", "Antofagasta plc's").
# Not a list of companies: any name formed with them is read, known or new. These are
# the legal forms this workflow rule read when its recorded turns were decided, not
# domain/language/legal_forms.txt: a form read here changes a turn's scope decision, so
# a new one is added under a workflow patch (as `scope-typed-names-v1` was), never by
# editing the shared list.
_COMPANY_FORM = (
    r"(?:mining|minerals|resources|metals|plc|ltd|limited|inc|corp|corporation|holdings|nl)"
)
_FORMED_POSSESSOR = re.compile(
    r"((?:[A-Za-z][\w&.\-]*\s+){0,2}[A-Za-z][\w&.\-]*\s+"
    + _COMPANY_FORM
    + r")(?:['’]s\b|(?<=s)['’](?=\s|$|[?,.]))",
    re.I,
)
# Words a name never starts with: the question's own words before it.
_LEAD = re.compile(
    r"^(?:what'?s?|whats|the|is|was|were|are|give|me|tell|show|of|for|and|or|about|did|does|"
    r"how|much|many|so|then|also|but|get|find|list|compare|with|to|in|on|at|this|that|"
    r"which|who|vs\.?|versus)$",
    re.I,
)
# A determiner before a formed phrase makes it a common noun ("its battery minerals'",
# "the Mineral Resources' tonnages"), not a name.
_DETERMINER = re.compile(r"^(?:the|its|their|our|his|her|a|an|this|these|those|each)$", re.I)
# A formed name in brackets, as a short name's expansion: "MinRes (Mineral Resources)".
# (A capitalised name after "vs" alone tells nothing: "vs Pogo", "vs Guidance", "vs
# Olympic Dam" are a covered company's mines and benchmarks.)
_BRACKETED = re.compile(
    r"\(((?:[A-Z][\w&.\-]*\s+){0,2}[A-Z][\w&.\-]*\s+(?i:" + _COMPANY_FORM[3:-1] + r"))\)"
)
_JOINER = re.compile(r"^(?:and|or|with|vs\.?|versus|than|&|,)$", re.I)
# A measure named by its kind rather than by the metric vocabulary: an injury rate, a
# margin, "how many". With a name another reader found, a question for any of these
# asks for that company's figures.
_MEASURE_KIND = re.compile(
    r"\b(?:rate|ratio|margin|percentage|per\s*cent|how\s+(?:many|much)|number\s+of|total|"
    r"costs?|volumes?|tonnes|ounces|guidance|output|production|earnings|profit|revenue|"
    r"cash|debt|capex|spend(?:ing)?|shipments?|sales|dividends?|reserves|grade)\b",
    re.I,
)
# A name formed as a company's opening the question before a measure's acronym
# ("Evolution Mining AISC for FY2025"); a mine's or project's name is not formed so.
_FORMED_OPENING = re.compile(
    r"^((?:[A-Z][\w&.\-]*\s+){0,2}(?i:" + _COMPANY_FORM[3:-1] + r"))\s+[A-Z]{3,6}\b"
)
# The same opening as typed in a chat, any case, before a measure the vocabulary names
# ("pilbara minerals revenue fy24?"): one or two words and a company's form.
_TYPED_OPENING = re.compile(r"^((?:[a-z][\w&.\-]*\s+){1,2}" + _COMPANY_FORM + r")\s+(?=\S)", re.I)
# Advice about the user's own money as an allocation: "split my super between", "give me
# percentage weightings across", "what proportion of my portfolio". A company's own
# allocation ("how does BHP allocate capital between copper and potash") is a fact.
_ALLOCATION = re.compile(
    r"\b(?:split|allocate|divide|spread|weight)\w*\s+(?:my|our)\b"
    r"|\b(?:my|our)\s+(?:\w+\s+){0,2}(?:weightings?|allocations?|split)\b"
    r"|\b(?:give|suggest|recommend|tell)\s+(?:me|us)\b.{0,30}\b(?:weightings?|allocations?|"
    r"proportions?|percentages?)\b.{0,40}\b(?:across|between|among)\b"
    r"|\bwhat\s+(?:percentage|share|proportion)\s+of\s+(?:my|our)\b",
    re.I,
)


def _named(words: str) -> str | None:
    """A name without the question's own words that run into it ("whats evolution
    mining" → "evolution mining"); None for a common noun ("its battery minerals")."""
    kept = words.split()
    joins = [i for i, w in enumerate(kept) if _JOINER.match(w)]
    if joins:  # "AISC and evolution mining": the name is what follows the last joiner
        kept = kept[joins[-1] + 1 :]
    if any(_DETERMINER.match(w) for w in kept):
        return None
    while kept and _LEAD.match(kept[0]):
        kept = kept[1:]
    return " ".join(kept)


def other_companies(question: str, typed: bool = True, lowered: bool = True) -> list[str]:
    """The names written as owners (`_possessors`), and: a name formed as a company's in
    any case ("evolution mining's", "Antofagasta plc's"), a formed name in brackets
    ("MinRes (Mineral Resources)"), and a formed name opening the question before a
    measure's acronym ("Evolution Mining AISC for FY2025"). Still no list of companies: a
    name the registry does not hold is another company's. `typed`: a formed name opening
    the question in any case before a measure the vocabulary names ("pilbara minerals
    revenue fy24?") is one too. `lowered`: a name typed in lower case without a company's
    form, read by how rarely English uses it (`_typed_names`: "newmont's aisc?")."""
    names = _owners(question)
    found: list[str] = []
    for match in _FORMED_POSSESSOR.finditer(question):
        before = question[: match.start(1)].split()[-1:]
        if before and _DETERMINER.match(before[0]):
            continue  # "the base metals' share": a common noun
        if (name := _named(match.group(1))) is not None:
            found.append(name)
    found.extend(match.group(1) for match in _BRACKETED.finditer(question))
    if opening := _FORMED_OPENING.match(question):
        found.append(opening.group(1))
    elif typed and (lead := _TYPED_OPENING.match(question)):
        rest = question[lead.end() :]
        words = lead.group(1).lower().split()
        if (find_metrics(rest) or find_other_measures(rest)) and not any(
            w in coverage().commodities
            for w in words  # "copper mining revenue"
        ):
            found.append(lead.group(1))
    for name in found:
        if not name or find_metrics(name) or find_other_measures(name):
            continue
        # A covered company written with more words ("BHP and Newmont"): the words that
        # are not the covered company's are the other name.
        rest = _without_covered(name)
        covered = not rest or _CONTRACTION.match(rest) or _part_of_covered(rest, question)
        if not covered and rest not in names:
            names.append(rest)
    return _and_typed(names, question) if lowered else names


def _and_typed(names: list[str], question: str) -> list[str]:
    """`names` and the names typed in lower case that are no word of them."""
    read = {w.lower() for n in names for w in n.split()}
    return names + [n for n in _typed_names(question) if n not in read]


# A name typed in lower case as people type in a chat ("newmont's aisc?", "what did
# glencore pay", "compare to vale's"). Still no list of
# companies: a word is read as a name when English rarely uses it (outside its 30,000 most
# used words: "newmont", "glencore") and it is no measure, short form, commodity or covered
# company; directly after a comparing word ("to vale's", "than santos'") a word outside
# English's 10,000 most used is one too ("the prior year's", "copper's" are not).
_RARE, _RARE_AFTER_JOINER = COMMON_ENGLISH, 10_000
_TYPED_POSSESSOR = re.compile(
    r"(?:\b(?P<joiner>to|with|than|vs\.?|versus|against)\s+)?"
    r"(?<![\w'’])(?P<name>[a-z][a-z&\-]*)(?:['’]s\b|(?<=s)['’](?=\s|$|[?,.]))"
)
_TYPED_SUBJECT = re.compile(
    r"\b(?:did|does|has|had|will|was)\s+(?P<name>[a-z][a-z&\-]*)\s+" + _FIGURE_VERB
)


def _typed_names(question: str, owners: bool = True, subjects: bool = True) -> list[str]:
    """Names typed in lower case (see `_TYPED_POSSESSOR`): as an owner or as the subject of
    a figure verb. (Not a rare word opening a question before a measure: "kalgoorlie aisc
    fy25" is a covered company's mine as often as "newmont aisc fy25" is another company.)"""
    found: list[tuple[str, int]] = []
    for match in _TYPED_POSSESSOR.finditer(question) if owners else ():
        found.append((match.group("name"), _RARE_AFTER_JOINER if match.group("joiner") else _RARE))
    if subjects:
        found += [(m.group("name"), _RARE) for m in _TYPED_SUBJECT.finditer(question)]
    names: list[str] = []
    for word, common in found:
        rank = english_rank(word)
        if (rank is not None and rank < common) or word in names:
            continue
        if not (_a_known_word(word) or _part_of_covered(word, question)):
            names.append(word)
    return names


def _a_known_word(word: str) -> bool:
    """A measure, a short form, a commodity or a covered company (within a slip)."""
    low = word.lower()
    return bool(
        low in short_forms()
        or low in coverage().commodities
        or find_metrics(word)
        or find_other_measures(word)
        or find_companies(word)
    )


def _owners(question: str) -> list[str]:
    """The names written as owners, less the fragments of a covered name."""
    return [n for n in _possessors(question) if not _part_of_covered(n, question)]


def _without_covered(name: str) -> str:
    """`name` without the covered companies' aliases it holds, and the joining words
    left at its ends ("BHP and Newmont" → "Newmont"; "Northern Star" → "")."""
    words = name.split()
    lowered = [w.lower().strip("'’") for w in words]
    keep = [True] * len(words)
    for company in companies().values():
        for alias in company.aliases:
            parts = alias.split()
            for i in range(len(words) - len(parts) + 1):
                if lowered[i : i + len(parts)] == parts:
                    keep[i : i + len(parts)] = [False] * len(parts)
    rest = [w for w, k in zip(words, keep, strict=True) if k]
    while rest and _LEAD.match(rest[0]):
        rest = rest[1:]
    while rest and _LEAD.match(rest[-1]):
        rest = rest[:-1]
    return " ".join(rest)


def _part_of_covered(name: str, question: str) -> bool:
    """Whether `name` is part of a covered company's name: inside one of its aliases, or
    one of them exactly once the one or two words before it in the question are added
    ("Star Resources" of "Northern Star Resources")."""
    text = f" {' '.join(name.lower().split())} "
    aliases = {alias for c in companies().values() for alias in c.aliases}
    if any(text in f" {alias} " for alias in aliases):
        return True
    at = question.find(name)
    before = question[:at].split()[-2:] if at > 0 else []
    return any(" ".join([*before[i:], name]).lower().strip() in aliases for i in range(len(before)))


def scope_rules(
    question: str,
    masked: Callable[[], bool] | None = None,
    typed: Callable[[], bool] | None = None,
    lowered: Callable[[], bool] | None = None,
) -> ScopeDecision:
    """Refuse by rule when a phrasing is unambiguous; otherwise let the classifier decide.

    The phrasing rules (`_by_phrasing`), with other companies read however they are
    written (see `other_companies`), a figure of a newly read company asked by its kind (a rate, a
    margin, cash, "how many") as well as by the metric vocabulary, and advice about the user's
    own money phrased as an allocation ("split my super between South32 and Fortescue").

    `masked` is asked only when reading the covered companies' names as no words of
    advice changes the decision (a company named "Best Buy"), and `typed` only when a name
    typed in lower case before a measure ("pilbara minerals revenue fy24?") changes it:
    the workflow answers each by its patch, so turns begun before it decide as they did.
    So is `lowered`, when a name typed in lower case without a company's form ("newmont's
    aisc?", `_typed_names`) changes it."""
    decision, mask, form = _decide(question, False, False, False), False, False
    if masked is not None:
        named = _decide(question, True, False, False)
        if named != decision and masked():
            decision, mask = named, True
    if typed is not None:
        read = _decide(question, mask, True, False)
        form = read == decision or typed()
        decision = read if form else decision
    if lowered is not None:
        read = _decide(question, mask, form, True)
        if read != decision and lowered():
            decision = read
    return decision


def _decide(question: str, masked: bool, typed: bool, lowered: bool) -> ScopeDecision:
    decided = _by_phrasing(question, masked)
    if (decided.refuse or decided.decline) and decided.reason != "other_company":
        return decided
    if _ALLOCATION.search(question):
        return ScopeDecision(True, "investment_advice")
    # Owners need a measure the vocabulary names ("Hemi's development cost" is a covered
    # company's project's); a name read otherwise, one of any kind (`_MEASURE_KIND`).
    # A name as the subject of a figure verb asks for a figure ("what did glencore earn").
    old = _owners(question) + (_typed_names(question, subjects=False) if lowered else [])
    others = other_companies(question, typed, lowered)
    new = [n for n in others if n not in old]
    subject = lowered and bool(_typed_names(question, owners=False))
    asks = _asks_figures(question) or subject or bool(new and _MEASURE_KIND.search(question))
    if not (others and asks):
        return ScopeDecision(False)  # an owner read may be a covered company's part
    return _other_company(question, others)
