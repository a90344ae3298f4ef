"""Find the sentences of a report that answer a question that is not about a figure.

Pure and deterministic. "What did BHP's chair say about safety?", "What did Northern
Star acquire?" and "Why did Fortescue's EBITDA fall?" are answered extractively: the few
sentences of the sources that share the question's topic words, preferring the section
the question points at (the chair's letter, the chief executive's review) and, for a
"why" question, sentences that give a cause. A sentence carrying a figure the question
did not ask for is never picked, so a narrative answer cannot smuggle in the headline
numbers.

Words are compared by a crude stem (their first five letters) so that "acquire",
"acquired" and "acquisition" meet; a real stemmer would be a dependency for one line.
"""

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from domain.companies.roster import companies, find_companies, proper_names
from domain.models import ChunkText
from domain.questions.measures import base_form, synonyms
from domain.questions.metrics import find_metrics

_QUESTION_WORDS = frozenset(
    {
        *("what", "which", "when", "where", "were", "was", "with", "from", "that", "this"),
        *("have", "has", "had", "their", "there", "they", "them", "about", "tell", "show"),
        *("give", "much", "many", "does", "did", "into", "than", "then", "also", "year"),
        *("years", "fiscal", "report", "reports", "annual", "company", "companies", "please"),
        *("could", "would", "should", "group", "limited", "say", "said", "says", "saying"),
        *("mention", "mentioned", "think", "thinks", "explain", "explains", "why", "reason"),
        *("reasons", "describe", "comment", "comments", "commented", "remark", "remarks"),
        *("write", "wrote", "note", "noted", "regarding", "doing", "chair", "chairman"),
        *("chief", "executive", "ceo", "managing", "director", "letter", "review", "during"),
        *("your", "these", "those", "some", "anything", "something", "ltd", "plc", "its"),
        *("make", "made", "take", "took", "been", "being", "will", "more", "most", "other"),
        *("like", "just", "main", "mainly", "kind", "sort", "thing", "things", "talk"),
    }
)
_ROLES: tuple[tuple[re.Pattern[str], re.Pattern[str], str], ...] = (
    (
        re.compile(r"\bchair(?:man|woman|person)?\b|\bexecutive\s+chair", re.IGNORECASE),
        re.compile(r"chair", re.IGNORECASE),
        "chair",
    ),
    (
        # "who runs / leads / heads X?" asks for its chief executive
        re.compile(
            r"\b(?:ceo|chief\s+executive|managing\s+director)\b|\bwho(?:['’]?s)?\s+"
            r"(?:runs|leads|heads|manages|running|leading|heading|in\s+charge)\b",
            re.IGNORECASE,
        ),
        re.compile(r"chief\s+executive|\bceo\b|managing\s+director", re.IGNORECASE),
        "chief executive",
    ),
)
_CAUSE = re.compile(
    r"\b(?:because|due\s+to|reflect\w*|driven|drove|offset|as\s+a\s+result|mainly|owing|"
    r"result(?:ed)?\s+(?:of|from)|led\s+to|caused|helped|affected|reduced|increased)\b",
    re.IGNORECASE,
)
_ASKS_WHY = re.compile(
    r"\b(?:why|reasons?|what\s+(?:drove|caused|explains?)|explain\w*)\b", re.IGNORECASE
)


def asks_why(question: str) -> bool:
    """Whether a question asks for a reason ("why", "what drove", "the reasons for")."""
    return bool(_ASKS_WHY.search(question))


def gives_cause(sentence: str) -> bool:
    """Whether a sentence gives a cause ("because", "due to", "driven by", ...)."""
    return bool(_CAUSE.search(sentence))


# A question that asks when: its answer says a time ("in March 2023", "by the end of the
# decade", "in the second half").
ASKS_WHEN = re.compile(
    r"^\W*(?:since\s+)?when\b|\bwhat\s+(?:year|month|date|day|time|quarter)\b|"
    r"\bhow\s+(?:soon|long\s+ago)\b",
    re.IGNORECASE,
)
TIME = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December|(?i:quarter|half|decade|since|until)|Q[1-4]|[12]H|H[12])\b|\b(?:19|20)\d{2}\b"
)
# Dates and years are not figures: "in October 2024", "30 June 2025", "FY2024".
_DATES = re.compile(
    r"\b\d{1,2}\s+(?:January|February|March|April|May|June|July|August|September|October|"
    r"November|December)\b|\b(?:FY|CY)\s?'?\d{2,4}\b|\b(?:19|20)\d{2}\b",
    re.IGNORECASE,
)


# Words that frame a question rather than name its topic ("strategy for copper", "the
# result"), and words every mining report is full of: they add to a passage's score but
# cannot make a sentence a passage on their own.
_FRAME_WORDS = frozenset(
    {
        *("strategy", "strategic", "outlook", "plan", "plans", "priority", "priorities"),
        *("approach", "focus", "drove", "driven", "caused", "result", "results", "fall"),
        *("fell", "rise", "rose", "change", "changed", "increase", "decrease", "mining"),
        *("mine", "mines", "miner", "operations", "business", "performance", "acquire"),
    }
)


# A frame word alone ("what is the outlook?") is looked for with the words reports use.
_FRAME_SYNONYMS: dict[str, tuple[str, ...]] = {
    "outlo": ("ahead", "expec", "outlo", "futur", "comin"),
    "strat": ("strat", "prior", "focus", "growt"),
    "plan": ("plan", "plans", "inten", "ahead"),
}


_FRAME_QUERY_WORDS: dict[str, str] = {
    "outlo": "outlook looking ahead expected future coming years",
    "strat": "strategy priorities focus growth",
    "plan": "plans intend ahead",
}


def topic_terms(question: str) -> list[str]:
    """The words to search the reports with: the question's topic words, and the words
    reports use for a frame word ("outlook" → "looking ahead", "expected")."""
    names = _names()
    words = [w for w in _words(question) if w not in names]
    extra = [_FRAME_QUERY_WORDS[w[:5]] for w in words if w[:5] in _FRAME_QUERY_WORDS]
    return list(dict.fromkeys([*words, *" ".join(extra).split()]))


def _words(text: str) -> list[str]:
    words = (
        w.lower().removesuffix("'s").removesuffix("’s")
        for w in re.findall(r"[A-Za-z][\w'’-]+", text)
    )
    found = [
        base_form(w)
        for w in words
        if len(w) >= 4 and not re.search(r"\d", w) and w not in _QUESTION_WORDS
    ]
    # A noun in -ision is its verb in -ide too ("decision" says "decide", "division"
    # "divide"): a five-letter stem ("decis", "decid") keeps them apart, and "what did BHP
    # decide" is answered by "a decision to be reviewed". English morphology, not a list.
    return found + [w[:-5] + "ide" for w in found if w.endswith("ision") and len(w) > 7]


def _stems(text: str) -> set[str]:
    return {w[:5] for w in _words(text)}


def _names() -> set[str]:
    held = companies().values()
    names = {w.lower() for c in held for w in c.name.split()}
    return names | {c.ticker.lower() for c in held}


def topic_stems(question: str) -> set[str]:
    """The stems of a question's topic words (no question words, no company names), and
    the words reports use for a frame word the question asks about ("outlook" → "ahead",
    "expect")."""
    names = _names()
    words = [w for w in _words(question) if w not in names]
    stems = {w[:5] for w in words}
    for stem in list(stems):
        stems.update(_FRAME_SYNONYMS.get(stem, ()))
    # A word's synonyms are the report's words for it ("put on hold" → "paused").
    stems.update(s[:5] for w in words if len(w) >= 4 for s in synonyms(w))
    return stems


def _strong_stems(question: str) -> set[str]:
    names = _names()
    return {w[:5] for w in _words(question) if w not in names and w not in _FRAME_WORDS}


def role_asked(question: str) -> str | None:
    """The person a question asks about ("chair", "chief executive"), if any."""
    return next((name for asks, _, name in _ROLES if asks.search(question)), None)


def _role_section(role: str | None) -> re.Pattern[str] | None:
    return next((section for _, section, name in _ROLES if name == role), None)


# "Who is the CEO of Rio Tinto?": a question for the person who holds a role.
_WHO = re.compile(
    r"\bwho(?:['’]?s\b|\s+(?:is|was|are|were|will\s+be|has\s+been|leads|runs|heads|manages|"
    r"chairs)\b)",
    re.I,
)
# A line that describes a role's holder: "**Chief Executive.** Executive director. ...".
_HEADED = re.compile(r"^\s*\*\*(?P<head>[^*]+?)\.?\*\*\s*(?P<rest>\S.*)$")
# Words of a title, not of a person's name ("Chief Executive Officer", "Senior
# Independent Director"): English titles, not a list of people.
_TITLE = re.compile(
    r"^(?:chief|executive|officer|chair(?:man|woman|person)?|director|managing|financial|"
    r"operating|president|senior|independent|non-executive|lead|deputy|group|company|board|"
    r"committee|secretary)$",
    re.IGNORECASE,
)
_HONORIFIC = re.compile(r"\b(?:Mr|Ms|Mrs|Dr|Sir|Dame|Professor|Prof)\.?\s+[A-Z]")


def asks_who(question: str) -> bool:
    """Whether a question asks who holds the role it names ("Who is the CEO?")."""
    return role_asked(question) is not None and bool(_WHO.search(question))


@dataclass(frozen=True)
class RoleHolder:
    """The line of a company's reports that describes who holds the role a question asks
    about: its source (1-based `n`), the role as the report heads it, what it says."""

    n: int
    chunk: ChunkText
    heading: str
    said: str
    named: bool
    """Whether the line names a person (a run of capitalised words that is no title, no
    covered company and no commodity, or an honorific)."""


def role_holder(question: str, sources: Sequence[ChunkText], ticker: str) -> RoleHolder | None:
    """For "who is the chair / CEO of X?": the line of X's reports that describes the
    role's holder (a line headed by the role, "**Chief Executive.** Executive director...",
    before one that only mentions it; the latest report first), else None."""
    section = _role_section(role_asked(question))
    if section is None or not asks_who(question):
        return None
    found: list[tuple[tuple[int, int], RoleHolder]] = []
    for n, chunk in enumerate(sources, start=1):
        if chunk.company != ticker or chunk.is_table:
            continue
        for line in chunk.text.splitlines()[1:]:
            headed = _HEADED.match(line)
            head, said = (
                (headed["head"].strip(), headed["rest"].strip()) if headed else ("", line.strip())
            )
            if not section.search(head or said) or said.startswith(("|", "#", "<!--")):
                continue
            # The role alone heads it ("Chief Executive Officer"), not a committee's chair.
            exact = bool(head) and all(_TITLE.match(w) for w in section.sub(" ", head).split())
            rank = (2 if exact else 1 if head else 0, chunk.fiscal_year)
            found.append(
                (rank, RoleHolder(n, chunk, head, said, _names_person(head, said, section)))
            )
    return max(found, key=lambda f: f[0])[1] if found else None


def _names_person(head: str, said: str, section: re.Pattern[str]) -> bool:
    """Whether a role's line names its holder: an honorific ("Dr Smith"), or two or more
    capitalised words that are no title, commodity or covered company where a name
    stands, at the start of the heading or of the line ("Mike Henry. Chief Executive
    Officer", "Mike Henry, Chief Executive") or right after the role ("Chief Executive
    Officer Mike Henry"). Not anywhere in the line: "led Northern Star from a single
    mine in Western Australia" names a place."""
    if _HONORIFIC.search(f"{head} {said}"):
        return True
    commodities = {w for c in companies().values() for k in c.commodities for w in k.split()}
    run = r"((?:[A-Z][\w'’-]*\s+){1,3}[A-Z][\w'’-]*)"
    starts = [re.match(r"\s*" + run, text) for text in (head, said)]
    # The role in any case, the name after it capitalised.
    after = re.search(rf"(?i:{section.pattern})(?i:\s+officer)?\s*,?\s+{run}", f"{head} {said}")
    for match in [*starts, after]:
        if match is None:
            continue
        words = [
            w
            for w in match.group(1).split()
            if not _TITLE.match(w) and w.lower() not in commodities and not find_companies(w)
        ]
        if len(words) >= 2:
            return True
    return False


# A number written into a name is not a figure: "PEM50", "FAST-41", "A350", "G7".
_CODES = re.compile(r"\b[A-Za-z]+-?\d+[A-Za-z]*\b")


@dataclass(frozen=True)
class Passage:
    """One sentence of one source (1-based `n`) that speaks to the question."""

    n: int
    chunk: ChunkText
    sentence: str
    score: float
    from_role: bool


def _prose_sentences(chunk: ChunkText) -> list[str]:
    body = [
        line.strip()
        for line in chunk.text.splitlines()[1:]
        if line.strip() and not line.lstrip().startswith(("|", "#", "<!--"))
    ]
    sentences: list[str] = []
    for line in (ln.replace("**", "") for ln in body):
        sentences.extend(s.strip() for s in re.split(r"(?<=[.!?])\s+(?=[A-Z\"'])", line))
    # A sentence fragment ("Chair", a signature) is not a passage.
    return [s for s in sentences if len(s.split()) >= 6 and s.endswith((".", "!", "?"))]


# A sentence that refers back to the one before it ("The key project in that plan is the
# expansion of the Fimiston mill", after "We are in the middle of a five-year plan"): a
# demonstrative before a word the sentence before it used. English grammar of reference,
# not a list of topics.
_BACK_REFERENCE = re.compile(r"\b(?:this|that|these|those|such)\s+([A-Za-z][\w-]+)", re.IGNORECASE)


def _side_by_side(first: str, second: str, chunk: ChunkText) -> str | None:
    """The two sentences joined when they stand side by side in the report (the quote
    stays verbatim), else None."""
    joined = f"{first} {second}"
    return joined if joined in " ".join(chunk.text.replace("**", "").split()) else None


def _continued(sentence: str, chunk: ChunkText) -> str:
    """`sentence` with the sentence after it in the same paragraph when that one refers
    back to it: a quote that ends before "that plan" is named leaves its point out."""
    sentences = _prose_sentences(chunk)
    if sentence not in sentences:
        return sentence
    at = sentences.index(sentence)
    if at + 1 >= len(sentences):
        return sentence
    following = sentences[at + 1]
    own = _stems(sentence)
    if not any(_stems(m.group(1)) & own for m in _BACK_REFERENCE.finditer(following)):
        return sentence
    return _side_by_side(sentence, following, chunk) or sentence


# A sentence that opens on a change it does not name ("The $104.2 million increase was
# primarily due to ...", "This decrease reflects ..."): the sentence before it says what
# changed. English grammar of reference, not a list of measures.
_CHANGE_REFERRED = re.compile(
    r"^(?:the|this|that|these|those)\s+(?:(?:US|A)?\$?\s?[\d.,]+\s*(?:million|billion|"
    r"thousand|bn|m|%|per\s*cent)?\s+|year-on-year\s+|year-over-year\s+)?(?:increase|"
    r"decrease|change|rise|decline|growth|reduction|improvement|fall|drop)s?\b",
    re.IGNORECASE,
)


def _preceded(sentence: str, chunk: ChunkText, metrics: list[str]) -> str:
    """`sentence` with the sentence before it in the same paragraph when it opens on a
    change it does not name: "The $104.2 million increase was primarily due to the opening
    of 47 new stores" quoted alone never says that inventories increased. Not when that
    would bring a figure not asked for into a passage that had none (see
    `carries_other_figure`)."""
    if not _CHANGE_REFERRED.match(sentence):
        return sentence
    sentences = _prose_sentences(chunk)
    if sentence not in sentences or sentences.index(sentence) == 0:
        return sentence
    before = sentences[sentences.index(sentence) - 1]
    if carries_other_figure(before, metrics) and not carries_other_figure(sentence, metrics):
        return sentence
    return _side_by_side(before, sentence, chunk) or sentence


def _with_closest_in_meaning(
    question: str,
    found: list[Passage],
    candidates: list[tuple[int, ChunkText, str]],
    similarity: Callable[[str, Sequence[str]], list[float]],
    metrics: list[str],
    limit: int,
    why: bool,
    when: bool,
) -> list[Passage]:
    """`found` with the candidate closest in meaning to the question, when it is closer
    than every sentence in `found` and says what a "why" or "when" question needs; it
    takes the last place when `found` is full."""
    # The company's names say nothing of the point and pull every sentence that names
    # the company closer: they are left out of the compared question.
    names = _names()
    asked = " ".join(w for w in re.findall(r"[\w'’-]+", question) if w.lower() not in names)
    sentences = list(dict.fromkeys(s for _, _, s in candidates))
    if not asked or not sentences:
        return found
    cosine = dict(zip(sentences, similarity(asked, sentences), strict=True))
    have = {p.sentence for p in found}
    bar = max(cosine.get(p.sentence, 0.0) for p in found)
    closest = max(
        (
            (cosine[s], n, chunk, s)
            for n, chunk, s in candidates
            if s not in have
            and not carries_other_figure(s, metrics)
            and (not why or _CAUSE.search(s))
            and (not when or TIME.search(s))
        ),
        key=lambda c: c[0],
        default=None,
    )
    if closest is None or closest[0] <= bar:
        return found
    score, n, chunk, sentence = closest
    kept = found if len(found) < limit else found[: limit - 1]
    return [*kept, Passage(n, chunk, sentence, score, False)]


def carries_other_figure(sentence: str, metrics: list[str]) -> bool:
    """Whether a sentence carries a number (not a date or year) the question did not ask
    for: any number when no metric was asked; otherwise a number beside another metric."""
    if not re.search(r"\d", _CODES.sub(" ", _DATES.sub(" ", sentence))):
        return False
    named = find_metrics(sentence)
    return not (metrics and named and set(named) <= set(metrics))


def find_passages(
    question: str,
    sources: list[ChunkText],
    company: str,
    years: list[int],
    metrics: list[str],
    limit: int = 3,
    similarity: Callable[[str, Sequence[str]], list[float]] | None = None,
) -> list[Passage]:
    """The best sentences of `company`'s prose sources for the question, best first.

    A sentence must share a topic word with the question; it scores by the topic words
    it and its section share, by being in the section of the person asked about, and,
    for a "why" question, by giving a cause, and for a "when" question, by saying a time.

    With `similarity` (the embedder's cosine), the sentence closest in meaning to the
    question joins them when it is closer than every sentence the words found: "how did
    Fortescue restructure itself?" is answered by "we reorganised the company into two
    businesses", which shares none of its words. Only when the words found something:
    meaning alone never makes a question the reports do not address answered.
    """
    # long: the passage scoring's terms added in order, each commented; they share the question's
    # reading.
    topic = topic_stems(question)
    strong = _strong_stems(question)
    role = _role_section(role_asked(question))
    why = bool(_ASKS_WHY.search(question))
    when = bool(ASKS_WHEN.search(question))
    own = [
        (n, chunk)
        for n, chunk in enumerate(sources, start=1)
        if chunk.company == company
        and not chunk.is_table
        and (not years or chunk.fiscal_year in years)
    ]
    # A topic word the company's reports never use ("bitcoin", "Mars") means the reports
    # do not address the question: no sentence that shares only its other words is an
    # answer to it.
    vocabulary: set[str] = set()
    for _, chunk in own:
        vocabulary |= _stems(chunk.text) | _stems(chunk.section)
    # Most of the question's topic words, its only one, and every name it asks about
    # ("Mars") must be the reports' own:
    # "bitcoin" alone, or "hurt ... bring together" with nothing else the reports use,
    # is not addressed; a verb the reports do not use ("what hurt BHP's coal
    # operations?") does not hide the sentences on the rest.
    missing = strong - vocabulary
    named = {w[:5] for name in proper_names(question) for w in _words(name)}
    if missing and (len(missing) * 2 > len(strong) or len(strong) == 1 or missing & named):
        return []
    found: list[Passage] = []
    with_figures: list[Passage] = []
    seen: set[str] = set()
    # A topic word weighs by how rare it is among the company's sentences (inverse
    # document frequency): in "which green energy projects were put on hold?" the
    # sentence that says "paused" is the answer, not the three that say "green energy
    # projects". Our own few lines: a ranking library would need an index per question.
    candidates = [(n, chunk, s) for n, chunk in own for s in _prose_sentences(chunk)]
    stems_of = {s: _stems(s) for _, _, s in candidates}
    weight = {
        stem: math.log(len(stems_of) / df)
        for stem in topic
        if (df := sum(1 for words in stems_of.values() if stem in words))
    }
    for n, chunk, sentence in candidates:
        section = _stems(chunk.section)
        in_role = bool(role and role.search(chunk.section))
        if sentence in seen:
            continue
        words = stems_of[sentence]
        shared = topic & words
        if not shared or (strong and not strong & words):
            continue
        score = (
            2.0 * sum(weight.get(s, 1.0) for s in shared)
            + len(topic & section)
            + (3.0 if in_role else 0.0)
        )
        if why and _CAUSE.search(sentence):
            score += 2.0
        if when and TIME.search(sentence):
            score += 2.0
        seen.add(sentence)
        passage = Passage(n, chunk, sentence, score, in_role)
        # A sentence with a figure not asked for is kept apart: it is the answer only
        # when no figure-free sentence speaks to the topic ("TRIF" is only ever
        # printed with its figure), or speaks to it as much (J&J's "will now present its
        # Consumer Health business financial results as discontinued operations,
        # including a gain of approximately $20 billion" against boilerplate that shares
        # only "operating" and "business").
        (with_figures if carries_other_figure(sentence, metrics) else found).append(passage)
    if not found and strong:
        found = with_figures
    elif found:
        bar = max(p.score for p in found)
        found += [p for p in with_figures if p.score > bar]
    if why and any(_CAUSE.search(p.sentence) for p in found):
        found = [p for p in found if _CAUSE.search(p.sentence)]
    if when and any(TIME.search(p.sentence) for p in found):
        found = [p for p in found if TIME.search(p.sentence)]
    found.sort(key=lambda p: (-p.score, -p.chunk.fiscal_year, p.n))
    found = found[:limit]
    if similarity is not None and found:
        found = _with_closest_in_meaning(
            question, found, candidates, similarity, metrics, limit, why, when
        )
    return [
        Passage(
            p.n,
            p.chunk,
            _continued(_preceded(p.sentence, p.chunk, metrics), p.chunk),
            p.score,
            p.from_role,
        )
        for p in found[:limit]
    ]
