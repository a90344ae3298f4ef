"""The metric vocabulary: the headline metrics, the other measures, and how a text names them.

Pure and deterministic: the route classifier, the offline engine, the numeric grounding
check and entity carry-forward all read text through this one lexicon, so "NPAT", "net
earnings" and "profit after tax attributable to members" mean the same metric everywhere.
The lexicon is rule-based on words, not a list of corpus labels, so a renamed report row
("Total sales revenue") still classifies. It is one signal of the open-vocabulary reading
(`domain/questions/measures.py`), not its gate.
"""

import re
from dataclasses import dataclass
from difflib import SequenceMatcher

from wordfreq import top_n_list

from domain.language.text import blank


@dataclass(frozen=True)
class Metric:
    """A canonical metric: its key, how answers name it, and how reports label its rows.

    `question_terms` are regular expressions (case-insensitive, matched on word boundaries)
    for the phrasings users and reports use; `report_terms` are plain words added to search
    queries so retrieval finds the rows whatever a company calls them.
    """

    key: str
    display: str
    question_terms: tuple[str, ...]
    report_terms: tuple[str, ...]


METRICS: dict[str, Metric] = {
    m.key: m
    for m in (
        Metric(
            "revenue",
            "revenue",
            (
                r"(?:consolidated\s+|total\s+|group\s+)?sales\s+revenues?",
                r"revenues?",
                r"sales",
                r"turnover",
                r"top[\s-]+line",
            ),
            ("revenue", "sales revenue", "revenue from continuing operations"),
        ),
        Metric(
            "underlying_revenue",
            "underlying revenue",
            (r"underlying\s+revenues?", r"underlying\s+sales"),
            ("underlying revenue",),
        ),
        Metric(
            "underlying_ebitda",
            "underlying EBITDA",
            (
                r"(?:underlying\s+)?ebitda(?:\s*\(underlying\s+ebitda\))?",
                r"earnings\s+before\s+interest,?\s+tax(?:es|ation)?,?\s+depreciation,?"
                r"\s+and\s+amorti[sz]ation",
            ),
            ("underlying EBITDA",),
        ),
        Metric(
            "underlying_profit",
            "underlying profit",
            (
                r"underlying\s+net\s+profit\s+after\s+tax(?:\s*\(npat\))?",
                r"underlying\s+(?:attributable\s+)?(?:net\s+)?"
                r"(?:profits?|earnings|npat|net\s+income)(?:\s+after\s+tax)?(?:\s*\(npat\))?",
            ),
            ("underlying attributable profit", "underlying earnings", "underlying NPAT"),
        ),
        Metric(
            "net_profit",
            "net profit after tax",
            (
                r"net\s+profit\s+after\s+tax(?:\s*\(npat\))?",
                r"(?:statutory\s+)?profit\s*(?:/\s*\(?loss\)?)?\s+after\s+tax"
                r"(?:\s+attributable\s+to\s+(?:members|owners|shareholders|equity\s+holders))?",
                r"(?:statutory\s+)?attributable\s+profit",
                r"statutory\s+(?:net\s+)?(?:profits?|npat|earnings)(?:\s+after\s+tax)?"
                r"(?:\s*\(npat\))?",
                r"net\s+(?:profits?|earnings|income|loss)",
                r"loss\s+after\s+tax",
                r"npat",
                r"bottom[\s-]+line",
                r"earnings",
                r"profits?",
                r"profitab\w*",
                r"loss(?:es)?",
            ),
            ("net profit after tax", "attributable profit", "net earnings", "NPAT"),
        ),
        Metric(
            "dividends_per_share",
            "dividends per share",
            (
                r"(?:total\s+|ordinary\s+)?dividends?(?:\s+per\s+share)?",
                r"payouts?",
                r"distributions?\s+per\s+share",
                r"dps",
            ),
            ("dividends per share", "total dividends", "ordinary dividend"),
        ),
        Metric(
            "dividends_per_share_interim",
            "interim dividend per share",
            (
                r"interim\s+(?:ordinary\s+)?dividends?(?:\s+per\s+share)?",
                r"half[\s-]+year(?:ly)?\s+dividends?(?:\s+per\s+share)?",
            ),
            ("interim dividend", "dividends per share"),
        ),
        Metric(
            "dividends_per_share_final",
            "final dividend per share",
            (r"final\s+(?:ordinary\s+)?dividends?(?:\s+per\s+share)?",),
            ("final dividend", "dividends per share"),
        ),
        Metric(
            "net_profit_total",
            "profit after tax including non-controlling interests",
            (
                r"(?:total\s+|net\s+)?profits?\s+(?:after\s+tax\s+)?(?:including|incl\.?|"
                r"attributable\s+to)\s+(?:non[\s-]+controlling|minority)\s+interests?",
                r"profit\s+for\s+the\s+(?:year|period)\s+including\s+minorit(?:y|ies)",
            ),
            ("profit after tax", "non-controlling interests"),
        ),
        Metric(
            "net_debt",
            "net debt",
            (r"net\s+debt(?:\s*/\s*\(?net\s+cash\)?)?", r"net\s+cash", r"debt"),
            ("net debt", "net cash"),
        ),
        Metric(
            "capex",
            "capital expenditure",
            (
                r"capital\s+(?:and\s+exploration\s+)?expenditures?",
                r"capex",
                r"purchases\s+of\s+property,?\s+plant\s+and\s+equipment"
                r"(?:\s+and\s+intangible\s+assets)?",
                r"investment\s+spend(?:ing)?",
                r"capital\s+spend(?:ing)?",
            ),
            ("capital expenditure", "capital and exploration expenditure", "purchases of PP&E"),
        ),
        Metric(
            "production",
            "production",
            (
                r"sales\s+volumes?",
                r"(?:gold|ounces|tonnes|ore)\s+sold",
                r"production",
                r"produced",
                r"output",
                r"shipments?",
                r"shipped",
            ),
            ("production", "shipments", "gold sold"),
        ),
    )
}

HEADLINE_METRICS: tuple[str, ...] = (
    "revenue",
    "underlying_ebitda",
    "net_profit",
    "dividends_per_share",
)
DIVIDEND_COMPONENT = "dividends_per_share_component"

# A line item and the total it belongs to. The answer gives the row asked for when the
# report has it; when it does not, it says so and labels the total as the nearest figure
# available — it never gives the total in its place silently.
LINE_ITEM_OF: dict[str, str] = {
    "dividends_per_share_interim": "dividends_per_share",
    "dividends_per_share_final": "dividends_per_share",
    "underlying_profit": "net_profit",
    "underlying_revenue": "revenue",
    "net_profit_total": "net_profit",
}

# Commodity words alone ("how much gold") point at production only when nothing else does.
_WEAK_PRODUCTION = re.compile(r"\b(?:iron\s+ore|gold|alumini?um|copper)\b", re.IGNORECASE)

# The order of alternatives matters: at one position the first matching term wins, so the
# specific phrases ("underlying earnings", "sales volumes") come before the general ones.
_METRIC_ORDER: tuple[str, ...] = (
    "net_profit_total",
    "dividends_per_share_interim",
    "dividends_per_share_final",
    "underlying_revenue",
    "underlying_ebitda",
    "underlying_profit",
    "production",
    "net_profit",
    "revenue",
    "dividends_per_share",
    "net_debt",
    "capex",
)
_TERMS: list[tuple[str, str]] = [(k, t) for k in _METRIC_ORDER for t in METRICS[k].question_terms]
_METRIC_PATTERN = re.compile(
    r"(?<![A-Za-z0-9])(?=[A-Za-z])(?:"
    + "|".join(f"(?P<m{i}>{term})" for i, (_, term) in enumerate(_TERMS))
    + r")(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def metric_display(metric: str) -> str:
    """Return how answers name a metric ("underlying EBITDA"); unknown keys pass through."""
    found = METRICS.get(metric)
    return found.display if found else metric.replace("_", " ")


@dataclass(frozen=True)
class OtherMeasure:
    """A measure people ask for that the engine has no extraction rule for.

    Naming it matters: a question about free cash flow must get "free cash flow: data
    not found", never the headline figures, and its words must not be read as a metric
    the engine does know ("earnings per share" is not net profit, "net cash flow" is not
    net debt, "EBITDA margin" is not EBITDA).
    """

    display: str
    terms: tuple[str, ...]


OTHER_MEASURES: tuple[OtherMeasure, ...] = (
    OtherMeasure("free cash flow", (r"free\s+cash\s+flows?",)),
    OtherMeasure(
        "operating cash flow",
        (
            r"(?:net\s+)?operating\s+cash\s+flows?",
            r"(?:net\s+)?cash\s+(?:flows?\s+)?(?:generated\s+)?from\s+operat\w+(?:\s+activities)?",
            # "Net cash provided by (used in) operating activities", as statements print it
            r"net\s+cash\s+(?:\(?\s*(?:provided|generated|used)\s+(?:by|from|in)\s*\)?\s*)+"
            r"operat\w+(?:\s+activities)?",
        ),
    ),
    OtherMeasure(
        "cash flow",
        (
            r"(?:net\s+)?cash\s+flows?",
            # A statement's "Net cash provided by (used in) financing activities", "Net cash
            # used in investing activities": a flow of the year, not a net cash position.
            r"net\s+cash\s+\(?\s*(?:provided|used|generated|inflows?|outflows?)\b",
            r"net\s+cash\s+from\s+(?:investing|financing)(?:\s+activities)?",
        ),
    ),
    OtherMeasure("all-in sustaining costs", (r"all[\s-]+in\s+sustaining\s+costs?", r"aisc")),
    OtherMeasure("C1 unit costs", (r"c1\s+(?:unit\s+)?costs?(?:\s+per\s+\w+)?",)),
    OtherMeasure(
        "unit costs",
        (
            r"(?:unit|cash|site|operating|production)\s+costs?(?:\s+per\s+\w+)?",
            r"costs?\s+per\s+(?:tonne|ton|ounce|oz|unit|pound|lb|wet\s+metric\s+tonne|wmt)",
        ),
    ),
    OtherMeasure(
        "employees",
        (
            r"(?:number\s+of\s+)?employees",
            r"workforce(?:\s+size)?",
            r"head\s*count",
            r"staff\s+numbers?",
            r"(?:how\s+many\s+)?people\s+(?:employed|work)",
            r"full[\s-]+time\s+equivalents?",
        ),
    ),
    OtherMeasure(
        "injury frequency rate",
        (
            r"trifr",
            r"ltifr",
            r"(?:total\s+recordable\s+|lost[\s-]+time\s+)?injur(?:y|ies)\s+"
            r"frequency(?:\s+rates?)?",
            r"fatalit(?:y|ies)",
        ),
    ),
    OtherMeasure(
        "emissions",
        (r"(?:scope\s+[123]\s+)?(?:greenhouse\s+gas\s+|ghg\s+|carbon\s+|co2\s+)?emissions",),
    ),
    OtherMeasure("basic earnings per share", (r"basic\s+(?:earnings\s+per\s+share|eps)",)),
    OtherMeasure("diluted earnings per share", (r"diluted\s+(?:earnings\s+per\s+share|eps)",)),
    OtherMeasure("earnings per share", (r"earnings\s+per\s+share", r"eps")),
    OtherMeasure(
        "return on capital",
        (
            r"return\s+on\s+(?:capital|equity|assets|invested\s+capital)(?:\s+employed)?",
            r"roce",
            r"roe",
            r"roic",
        ),
    ),
    OtherMeasure(
        "margin",
        (r"(?:(?:underlying\s+)?ebitda|ebit|profit|gross|operating|net)\s+margins?",),
    ),
    OtherMeasure("gearing", (r"gearing(?:\s+ratio)?", r"debt[\s-]+to[\s-]+equity")),
    OtherMeasure("payout ratio", (r"(?:dividend\s+)?payout\s+ratio",)),
    OtherMeasure("market capitalisation", (r"market\s+cap(?:itali[sz]ation)?",)),
    OtherMeasure("share price", (r"(?:share|stock)\s+prices?",)),
    OtherMeasure("royalties", (r"royalt(?:y|ies)",)),
    OtherMeasure(
        "tax paid",
        (r"(?:income\s+|corporate\s+)?tax(?:es)?\s+paid", r"effective\s+tax\s+rate"),
    ),
    OtherMeasure("ore reserves", (r"(?:ore|mineral|gold)\s+reserves",)),
    OtherMeasure("total assets", (r"total\s+assets",)),
    OtherMeasure("cash balance", (r"cash\s+(?:and\s+cash\s+equivalents|balance|on\s+hand)",)),
)
_OTHER_TERMS: list[tuple[str, str]] = [(m.display, t) for m in OTHER_MEASURES for t in m.terms]
_OTHER_PATTERN = re.compile(
    r"(?<![A-Za-z0-9])(?:"
    + "|".join(f"(?P<o{i}>{term})" for i, (_, term) in enumerate(_OTHER_TERMS))
    + r")(?![A-Za-z0-9])",
    re.IGNORECASE,
)


def other_measure_mentions(text: str) -> list[tuple[int, int, str]]:
    """Return (start, end, display) for each measure the engine has no rule for."""
    return [
        (m.start(), m.end(), _OTHER_TERMS[int((m.lastgroup or "o0")[1:])][0])
        for m in _OTHER_PATTERN.finditer(text)
    ]


def find_other_measures(text: str) -> list[str]:
    """The measures a text asks for that the engine has no rule for, in order, no repeats."""
    return list(dict.fromkeys(display for _, _, display in other_measure_mentions(text)))


def metric_mentions(text: str) -> list[tuple[int, int, str]]:
    """Return (start, end, metric) for each metric phrase in `text`, left to right.

    The words of a measure the engine has no rule for are not read as a metric it has:
    "earnings per share" names no net profit, "net cash flow" no net debt.
    """
    for start, end, _ in other_measure_mentions(text):
        text = blank(text, start, end)
    mentions: list[tuple[int, int, str]] = []
    for match in _METRIC_PATTERN.finditer(text):
        index = int((match.lastgroup or "m0")[1:])
        mentions.append((match.start(), match.end(), _TERMS[index][0]))
    return mentions


# Words the metric phrasings are made of: a misspelt one ("revnue", "captial", "net dett")
# is read as the word it is one slip away from, so a typo does not lose the metric.
_METRIC_WORDS = frozenset(
    [
        "revenue",
        "revenues",
        "sales",
        "turnover",
        "ebitda",
        "underlying",
        "profit",
        "profits",
        "earnings",
        "income",
        "dividend",
        "dividends",
        "payout",
        "debt",
        "capital",
        "expenditure",
        "capex",
        "production",
        "produced",
        "output",
        "shipments",
        "shipped",
        "attributable",
        "statutory",
        "interim",
        "final",
    ]
)
_WORD = re.compile(r"[A-Za-z]+")


def _one_slip(word: str, known: str) -> bool:
    """One typing slip apart: for short words one swapped or replaced letter (difflib's
    ratio underrates those); for longer ones difflib's similarity ≥ 0.85."""
    if word[0] != known[0]:
        return False
    if len(word) <= 5:
        if len(word) != len(known):
            return False
        diffs = [i for i, (a, b) in enumerate(zip(word, known, strict=True)) if a != b]
        swapped = (
            len(diffs) == 2
            and diffs[1] == diffs[0] + 1
            and (word[diffs[0]] == known[diffs[1]] and word[diffs[1]] == known[diffs[0]])
        )
        return len(diffs) == 1 or swapped
    return SequenceMatcher(None, word, known).ratio() >= 0.85


# Informal phrasings of a metric, read as the report's own term. Like the typo reading,
# only the routing step applies them (`read_metric_words`): the workflow's own rules
# (scope, carry-forward) read questions as they always did, so in-flight turns replay.
_INFORMAL_METRICS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), term)
    for pattern, term in (
        (r"\bborrowings?(?:\s+net\s+of\s+(?:its\s+)?cash)?\b", "net debt"),
        (r"\b(?:owe[ds]?|owing|indebted(?:ness)?)\b", "net debt"),
        (r"\b(?:sen[dt]|deliver(?:ed)?|sold)\s+to\s+customers\b", "shipments"),
        (r"\bpa(?:y|id)\s+out\b", "payout"),
        (r"\bhand(?:s|ed)?\s+(?:back|out)\s+to\s+(?:share|stock)holders\b", "payout"),
    )
)


# An acronym spelt out ("earnings before interest, tax, depreciation and amortisation",
# "before D&A, interest and tax"): the words of its definition in any order. A standard
# accounting definition, not a phrasing of one question.
_SPELT_OUT = re.compile(
    r"\b(?:(?:operating|adjusted|underlying)\s+)?(?:(?:earnings|profits?)\s+)?before\s+"
    r"(?:(?:interest|tax(?:es|ation)?|depreciation|amorti[sz]ation|d\s?&\s?a)"
    r"(?:\s*,\s*|\s+and\s+|,?\s+and\s+|\s+)?){2,}",
    re.IGNORECASE,
)


def read_definitions(text: str) -> str:
    """`text` with a spelt-out EBITDA or EBIT given its acronym."""

    def acronym(match: re.Match[str]) -> str:
        words = match.group(0).lower()
        if not ("interest" in words and "tax" in words):
            return match.group(0)
        lead = "underlying " if re.search(r"adjusted|underlying", words) else ""
        full = re.search(r"depreciation|amorti|d\s?&\s?a", words)
        return f"{lead}{'EBITDA' if full else 'EBIT'} "

    return _SPELT_OUT.sub(acronym, text)


def read_metric_words(text: str) -> str:
    """`text` as the routing step reads it: misspelt metric words corrected, informal
    phrasings ("how much did BHP owe", "pay out") and spelt-out acronyms given the
    report's term."""
    text = read_definitions(text)
    for pattern, term in _INFORMAL_METRICS:
        text = pattern.sub(term, text)
    return correct_metric_words(text)


COMMON_ENGLISH = 30_000
"""How many of English's most used words are never read as a slip: wordfreq's "small"
list, whose 30,000th word is used about once in 100,000 words (Zipf 3)."""

_COMMON_RANK = {w: i for i, w in enumerate(top_n_list("en", COMMON_ENGLISH, wordlist="small"))}
_COMMON_WORDS = frozenset(_COMMON_RANK)
"""Read when the module loads (wordfreq's data ships in its wheel, nothing is fetched), not
on first use: a workflow may not open a file."""


def english_rank(word: str) -> int | None:
    """Where `word` stands among English's most used words (0 is the most used; None
    outside the first `COMMON_ENGLISH`): a name typed in lower case ("newmont") is rare."""
    return _COMMON_RANK.get(word.lower())


def correct_metric_words(text: str, keep_common: bool = True) -> str:
    """`text` with each misspelt metric word replaced by the closest word it is a slip
    away from (unchanged when none is, or two are equally close).

    A word English commonly uses is what it says, not a slip ("divided by" is not
    "dividend by", "dept" not "debt"): `keep_common` leaves it. False reads as before the
    ChatTurn patch that added it (`workflows/turn/carry.py`), for turns begun then."""

    def fix(match: re.Match[str]) -> str:
        word = match.group(0)
        low = word.lower()
        if len(low) < 4 or low in _METRIC_WORDS:
            return word
        if keep_common and low in _COMMON_WORDS:
            return word
        near = sorted(
            (
                (SequenceMatcher(None, low, known).ratio(), known)
                for known in _METRIC_WORDS
                if _one_slip(low, known)
            ),
            reverse=True,
        )
        if not near or (len(near) > 1 and near[0][0] == near[1][0]):
            return word
        return near[0][1]

    return _WORD.sub(fix, text)


def find_metrics(text: str, commodity_means_production: bool = True) -> list[str]:
    """Return the metrics a text names, in order of first mention, without repeats.

    A commodity word alone ("how much gold") means production, unless the caller says it
    cannot ("what is BHP's strategy for copper?" asks for no figure).
    """
    found: list[str] = []
    for _, _, metric in metric_mentions(text):
        if metric not in found:
            found.append(metric)
    weak = commodity_means_production and _WEAK_PRODUCTION.search(text)
    if not found and not find_other_measures(text) and weak:
        found.append("production")
    return found


_SEGMENT_WORDS = re.compile(
    r"\b(?:iron\s+ore|copper|coal|nickel|potash|gold|alumini?um|alumina|zinc|manganese|"
    r"lithium|silver|lead|segment|division)\b"
)
TOTAL_WORDS = re.compile(r"\b(?:total|group|consolidated|continuing)\b")
"""Words that name the whole of a measure, not a part of it."""


def metric_of_row_label(label: str) -> str | None:
    """Classify a report's table row label into a metric key, or None if it is none of ours.

    Rules on words, not exact labels: "Total sales revenue", "Net earnings" and
    "Profit/(loss) after tax attributable to members" classify; per-share earnings,
    pre-tax and gross profit, margins and commodity segment rows do not. Interim and final
    dividend rows are their own line items, so a question about the total gets the total
    row and one about the interim dividend gets the interim row; a special dividend is a
    component (`DIVIDEND_COMPONENT`) that answers neither.
    """
    text = " ".join(label.lower().replace("–", "-").split())
    if "dividend" in text or "distribution" in text:
        if re.search(r"\b(?:total|full[- ]year)\b", text):
            return "dividends_per_share"
        if re.search(r"\b(?:interim|half[- ]year(?:ly)?)\b", text):
            return "dividends_per_share_interim"
        if re.search(r"\bfinal\b", text):
            return "dividends_per_share_final"
        if re.search(r"\bspecial\b", text):
            return DIVIDEND_COMPONENT
        return "dividends_per_share"
    if re.search(r"\bmargin\b|\bbefore\s+tax\b|\bgross\b|\bper\s+share\b|\bratio\b", text):
        return None
    mentions = [m for _, _, m in metric_mentions(text)]
    if not mentions:
        return None
    metric = mentions[0]
    if metric == "net_debt" and not re.search(r"\bnet\s+\(?(?:debt|cash|borrowings)\b", text):
        # A question's "debt" means net debt ("how much debt does BHP carry?"); a row is
        # net debt only when it says so: "Debt with subsidiaries and affiliates", "Total
        # debt", "Long-term debt" are gross borrowings, not net of cash.
        return None
    money = metric in ("revenue", "underlying_revenue", "net_profit", "underlying_profit")
    if money and _SEGMENT_WORDS.search(text) and not TOTAL_WORDS.search(text):
        return None
    return metric


BALANCE_SHEET = re.compile(r"balance\s+sheet|financial\s+(?:position|condition)", re.I)
"""How a balance sheet is titled in print (IFRS and US GAAP)."""


def metric_of_cell(label: str, title: str) -> str | None:
    """The metric of the vocabulary a table row states (`metric_of_row_label`), read with
    the title of its table. A balance sheet's rows are balances at a date: "Deferred
    revenue" there is a liability, never the year's revenue (every metric of the vocabulary
    is an amount over a year but net debt, a balance)."""
    metric = metric_of_row_label(label)
    if metric is not None and metric != "net_debt" and BALANCE_SHEET.search(title):
        return None
    return metric
