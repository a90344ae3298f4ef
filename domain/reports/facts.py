"""Every figure a report prints, as a fact: what it measures, for which period, in what unit.

Pure. `report_facts(chunk)` reads a chunk's tables and its prose with no list of known
measures: a table row is a fact per period column (its label the row's first cell, its
unit from the table header, the row's own parenthesis or the chunk, its period the
column's year, so a comparative column is the prior year), and every amount in a
sentence is a fact (its label the words the sentence states it for, its unit the words
written with it, its period the year its own clause names, "the prior year" the year
before the report's, else the report's own). The metric vocabulary (`metric`) is one
reading of a label among others, never a filter: a row or a sentence about water
withdrawn is a fact as much as one about revenue.

Ingestion stores these facts (PostgreSQL `facts`, rebuilt with the document); the offline
engine reads the same function over the evidence of a turn, so what it answers from is
what was stored.
"""

import re
from dataclasses import dataclass, field, replace

from domain.companies.roster import companies
from domain.language.amounts import Amount, find_amounts, unit_after
from domain.language.calendar import months_said_before, quarter_end, quarter_said
from domain.language.sentences import split_sentences
from domain.language.units import SIGN
from domain.models import ChunkText
from domain.questions.metrics import DIVIDEND_COMPONENT, metric_mentions, metric_of_cell
from domain.reports.binding import Binding, bind_amounts, figure_clauses
from domain.reports.figures import (
    OPEN,
    UNITS,
    Fact,
    cell_fact,
    metric_fits_unit,
    open_unit,
    share_base,
    table_cells,
    unit_key,
    unit_words,
)

EXTRACTOR_VERSION = 16
"""Bumped when the reading changes: stored facts of an older version are rebuilt."""

_HEADER_LINE = re.compile(r"^\[.*\]$")
_TABLE_CAPTION = re.compile(r"^Table \(.*\):$")
_PRIOR_YEAR = re.compile(
    r"\b(?:(?:the\s+)?(?:prior|previous|preceding|last)\s+(?:financial\s+|fiscal\s+)?year|"
    r"a\s+year\s+(?:earlier|before|ago)|year\s+before)\b",
    re.IGNORECASE,
)
# A unit written in a row label: "Water withdrawn (GL)", "Gold sold (koz)".
_ROW_UNIT = re.compile(r"\(([^()]{1,24})\)\s*$")
_UNIT_TOKEN = re.compile(
    r"^(?:%|[kKmMgGtT]?[lL]|[kKmMgG]?[tT](?:\s*CO2-?e)?|[kKmM]?oz|[kKmM]?[wW]h|"
    r"[kKmMgGtTpP]J|km|ha|m3|ML|GL|kL|Mtpa|wmt|dmt|t|number|no\.|people|FTE)$"
)
_LINKING = re.compile(
    r"(?:\s|^)(?:was|were|is|are|of|at|to|by|totall?ed|totall?ing|reached|stood\s+at|"
    r"amounted\s+to|came\s+(?:in\s+)?at|rose\s+to|fell\s+to|increased\s+to|decreased\s+to|"
    r"declined\s+to|grew\s+to|improved\s+to|dropped\s+to|reduced\s+to|about|around|some|"
    r"approximately|more\s+than|over|nearly|almost|less\s+than|under|up\s+to|"
    r"a\s+total\s+of|an?|the|:|—|–|-)\s*$",
    re.IGNORECASE,
)
_LEADING = re.compile(
    r"^(?:(?:in|during|for|over)\s+(?:the\s+)?(?:year|period)\b[^,]*,\s*|and\s+|while\s+|"
    r"but\s+|whereas\s+|so\s+|then\s+|with\s+|which\s+|that\s+)",
    re.IGNORECASE,
)
_DETERMINER = re.compile(
    r"^(?:the|our|its|their|this|these|a|an|group's|the\s+group's|total\s+of)\s+", re.IGNORECASE
)
_UNIT_WORDS_AFTER = re.compile(
    r"^\s*((?:per\s+(?:million|thousand|hundred|\d{1,3}(?:,\d{3})+|\d+)?\s*[A-Za-z][\w-]*"
    r"(?:\s+(?:worked|hours|employees|tonnes|ounces|shares?))*)"
    r"|(?:[A-Za-z][\w-]*)(?:\s+and\s+(?!the\b|a\b|an\b|our\b|its\b)[A-Za-z][\w-]*)?)"
)
_NOT_A_UNIT = frozenset(
    {
        *("in", "for", "at", "on", "from", "to", "with", "by", "during", "which", "that"),
        *("was", "were", "is", "are", "and", "or", "the", "a", "an", "of", "as", "than"),
        *("compared", "against", "versus", "vs", "year", "years", "ended", "lower", "higher"),
        *("more", "less", "up", "down", "after", "before", "while", "since", "under", "over"),
        *("its", "our", "their", "this", "each", "per", "million", "billion", "thousand"),
        *("when", "where", "because", "reflecting", "including", "excluding", "into"),
    }
)
_MONTH = re.compile(r"^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*$", re.IGNORECASE)
_EMISSIONS = re.compile(r"^\s*(CO2-?e|CO₂-?e|CO2)\b", re.IGNORECASE)
_MAX_LABEL_WORDS = 10
# Units of measurement written as words: a figure in them measures what its clause names
# ("a railway of more than 600 kilometres"); any other word after a number is the thing
# counted ("80,000 employees"). Units are a standard vocabulary; measures are not.
_MEASURE_UNIT = re.compile(
    r"^(?:per\b|(?:kilo|centi|milli)?met(?:re|er)s?\b|km\b|miles?\b|hectares?\b|ha\b|"
    r"(?:mega|giga|kilo)?lit(?:re|er)s?\b|[kmg]l\b|(?:kilo|mega)?tonnes?\b|t\b|kt\b|mt\b|"
    r"ounces?\b|oz\b|koz\b|moz\b|hours?\b|days?\b|weeks?\b|months?\b|years?\b|"
    r"(?:kilo|mega|giga)?watt[\s-]?hours?\b|[kmgt]wh\b|[kmgt]w\b|[tpg]j\b|degrees?\b|"
    r"times\b|x\b|basis\s+points?\b|bps\b)",
    re.IGNORECASE,
)
_SUBORDINATE = re.compile(
    r"^(?:setting|after|before|while|whilst|although|though|since|because|as|when|in|during|"
    r"for|with|without|excluding|including|compared|at|on|by|over|under|finally|overall|"
    r"together|meanwhile|however|today)\b",
    re.IGNORECASE,
)


def report_facts(chunk: ChunkText) -> list[Fact]:
    """Every figure in the chunk: its table rows' cells and its sentences' amounts."""
    lines = [
        ln
        for ln in chunk.text.splitlines()
        if not _HEADER_LINE.match(ln.strip()) and not _TABLE_CAPTION.match(ln.strip())
    ]
    text = "\n".join(lines)
    facts = table_facts(chunk, text)
    prose = "\n".join(ln for ln in lines if not ln.strip().startswith("|"))
    facts.extend(prose_facts(chunk, prose))
    return facts


def _row_unit(label: str) -> str | None:
    match = _ROW_UNIT.search(label)
    if match is None:
        return None
    inner = match.group(1).strip()
    known = unit_key(inner)
    if known is not None:
        return known
    return open_unit(inner) if _UNIT_TOKEN.match(inner) else None


def table_facts(chunk: ChunkText, text: str | None = None) -> list[Fact]:
    """A fact per numeric cell of every table: row label, its own period, unit.

    The unit is the row's own (a parenthesis at the end of its label, or what the row
    says: per share, a count of shares) or the table's (its first header cell, else the
    chunk's); a table with neither states counts or ratios, and its cells are facts with
    no unit rather than dropped. A cell whose period cannot be read (a column headed by
    no year or date, a row of no dated balance) is evidence text, not a fact of a year.
    """
    facts: list[Fact] = []
    for cell in table_cells(chunk.text if text is None else text, chunk.unit, chunk.fiscal_year):
        if cell.period is None:
            continue
        unit = _row_unit(cell.label) or cell.unit or open_unit("")
        context = " | ".join(c for c in (cell.table_unit, cell.section, cell.label) if c)
        facts.append(
            cell_fact(
                chunk,
                cell,
                unit,
                # A share of a base ("as a percentage of net sales", a "%" cell) is no
                # amount of a measure the vocabulary names (each is money or a quantity).
                None
                if share_base(cell.header) or share_base(cell.label) or unit == "%"
                else metric_of_cell(cell.label, chunk.section),
                context=f"{context} | {cell.header}: {cell.raw}",
            )
        )
    return facts


def metric_facts(chunk: ChunkText) -> list[Fact]:
    """The table facts a metric of the vocabulary is read from: the one reader's table
    facts (`table_facts`) in a unit of the units table, each keeping its metric only where
    the metric fits the unit (no revenue in Mt). The vocabulary filters what the reader
    read; it reads nothing itself. A cell whose unit is no unit of the table (an open unit,
    a count) or whose period cannot be read is left out rather than guessed."""
    return [
        f if metric_fits_unit(f.metric, f.unit) else f.model_copy(update={"metric": None})
        for f in table_facts(chunk)
        if f.unit in UNITS
    ]


def metric_prose_facts(chunk: ChunkText) -> list[Fact]:
    """The prose facts a metric of the vocabulary is read from: the one reader's sentence
    facts (`prose_facts`) of the chunk's own fiscal year and a whole year, in a unit of the
    units table the metric fits, whose sentence names the metric before the figure
    ("underlying NPAT was US$5.66 billion"; not "a repayment of CAD 1m of debt"). Each is
    labelled with those words, as a row label would read; a dividend's component is left
    to the tables. The vocabulary filters what the reader read; it reads nothing itself."""
    if chunk.is_table:
        return []
    body = "\n".join(ln for ln in chunk.text.splitlines()[1:] if not ln.startswith("|"))
    kept = []
    read_to: dict[str, int] = {}  # per sentence: where its last figure was found
    for fact in prose_facts(chunk, body):
        # A sentence's figures come in order: each is looked for after the one before
        # (two written alike, "US$500 million" twice, are two places).
        at = fact.context.find(fact.raw, read_to.get(fact.context, 0))
        at = fact.context.find(fact.raw) if at < 0 else at
        read_to[fact.context] = at + len(fact.raw) if at >= 0 else read_to.get(fact.context, 0)
        if (
            fact.metric in (None, DIVIDEND_COMPONENT)
            or fact.fiscal_year != chunk.fiscal_year
            or fact.period_months not in (None, 12)
            or fact.unit not in UNITS
            or not metric_fits_unit(fact.metric, fact.unit)
        ):
            continue
        before = fact.context[: max(at, 0)]
        named = [(start, end) for start, end, m in metric_mentions(before) if m == fact.metric]
        if named:
            said = before[named[-1][0] : named[-1][1]]
            kept.append(fact.model_copy(update={"label": said[:1].upper() + said[1:]}))
    return kept


def _unit_of(amount: Amount, sentence: str) -> tuple[str, str]:
    """The unit key of a prose amount and the text it spans ("US$55,658 million")."""
    written = unit_after(sentence[amount.end :])
    end = amount.end + (written.end() if written else 0)
    if amount.kind == "mass" and (emissions := _EMISSIONS.match(sentence[end:])):
        return open_unit(f"Mt {emissions.group(1)}"), sentence[amount.start : end + emissions.end()]
    known = _known_unit(amount)
    if known is not None:
        if amount.kind == "per_share":
            tail = re.match(r"^\s*per\s+(?:ordinary\s+)?share\b", sentence[end:], re.IGNORECASE)
            end += tail.end() if tail else 0
        return known, sentence[_written_start(amount, sentence) : end]
    words = _UNIT_WORDS_AFTER.match(sentence[end:])
    unit_text = ""
    if words:
        candidate = words.group(1)
        first = candidate.split()[0].lower()
        if first not in _NOT_A_UNIT or first == "per":
            unit_text = candidate
            end += words.end()
    return open_unit(unit_text), sentence[_written_start(amount, sentence) : end]


def _written_start(amount: Amount, sentence: str) -> int:
    """Where the amount starts as written: its currency sign or opening parenthesis."""
    before = sentence[: amount.start]
    sign = re.search(rf"{SIGN}\s?[-−]?\s?$|\(\s*$", before)
    return sign.start() if sign else amount.start


def _known_unit(amount: Amount) -> str | None:
    if amount.factor is None:
        return None
    for key, unit in UNITS.items():
        if (unit.kind, unit.currency, unit.factor) == (amount.kind, amount.currency, amount.factor):
            return key
    return None


_TIME_PHRASE = re.compile(
    r"\s*(?:(?:for|in|during|over|at|by|as\s+at)\s+(?:the\s+)?"
    r"(?:(?:financial|fiscal|calendar)\s+)?(?:year|period|half|quarter)"
    r"(?:\s+(?:ended|ending|to)\s+(?:\d{1,2}\s+\w+\s+)?\d{4})?(?:\s+end)?"
    r"|at\s+year[\s-]end|at\s+\d{1,2}\s+\w+\s+\d{4}|(?:in|for)\s+(?:FY|CY)?\d{4})\s*$",
    re.IGNORECASE,
)
_FILLER = re.compile(r"\s+(?:therefore|then|also|again|still|only|just|now)\s*$", re.IGNORECASE)


def _trim(phrase: str) -> str:
    """A label's words without what links them to the figure or says when."""
    phrase = phrase.strip(" ,;")
    while True:
        trimmed = _LINKING.sub("", phrase)
        trimmed = _FILLER.sub("", trimmed)
        trimmed = _TIME_PHRASE.sub("", trimmed).rstrip(" ,;")
        if trimmed == phrase:
            break
        phrase = trimmed
    if phrase.count("(") > phrase.count(")"):  # an aside the figure interrupts
        phrase = phrase[: phrase.rfind("(")].rstrip()
    phrase = _LEADING.sub("", phrase)
    return _DETERMINER.sub("", phrase).strip()


_COMPARED_WITH = re.compile(
    r"\b(?:differ(?:s|ed)?\s+from|than|compared\s+(?:with|to)|against|versus|vs\.?)\s+"
    r"(?:the\s+|a\s+|an\s+|its\s+|our\s+|their\s+)?"
    r"(?P<thing>[A-Za-z][\w.'’-]*(?:\s+[A-Za-z][\w.'’-]*){0,5})\s+of\s*$",
    re.IGNORECASE,
)
"""A figure set after the thing a sentence compares its subject with ("... than the
industry average of 3.1", "... differed from the U.S. statutory rate of 21%")."""


def _label(sentence: str, lead_start: int, amount: Amount, unit: str, unit_end: int) -> str:
    """What the sentence states the figure for: its clause's words before it ("Revenue of
    US$X", "Our TRIFR was X"), the thing counted ("80,000 employees and contractors"),
    or what follows it ("45% of Board seats")."""
    counted = unit_words(unit)
    if unit.startswith(OPEN) and counted and not _MEASURE_UNIT.match(counted):
        return counted  # a count: the thing counted ("employees and contractors")
    before = sentence[lead_start : _written_start(amount, sentence)]
    before = before.rsplit(";", 1)[-1]
    before = re.sub(r"\s*\([^()]*\d[^()]*\)", "", before)  # "(100% basis)": a qualifier
    head, comma, tail = before.rpartition(",")
    if comma and _SUBORDINATE.match(head.strip()) and re.search(r"[A-Za-z]", tail):
        before = tail  # "Setting those items aside, underlying profit was X"
    if other := _COMPARED_WITH.search(before):
        # "The effective tax rate differed from the U.S. statutory rate of 21%": the
        # figure is the statutory rate's, the thing compared with, not the subject's.
        before = other.group("thing")
    label = _trim(before)
    after = sentence[unit_end:]
    of = re.match(r"^\s*of\s+((?:(?!and\b|at\b|in\b|for\b)[\w'-]+\s*){1,5})", after) or (
        # "The Company generated $13.2 billion in cash proceeds": what it is in, unless a
        # time ("in FY2024", "in the first half", "in March").
        _IN_THING.match(after)
    )
    words = label.split()
    if words:
        label = " ".join(words[-_MAX_LABEL_WORDS:])
        if of and len(words) <= 3:
            label = f"{label} … {of.group(0).split()[0]} {_trim(of.group(1))}"
        return label
    if of:
        return _trim(of.group(1))
    rest = re.match(r"^\s*((?:[\w'-]+\s*){1,6})", after)
    return _trim(rest.group(1)) if rest else ""


_IN_THING = re.compile(
    r"^\s*in\s+(?!(?:the\s+)?(?:FY|CY|H[12]\b|Q[1-4]\b|\d|fiscal|financial|calendar|year|"
    r"quarter|half|period|first|second|third|fourth|prior|previous|current|last|next|same|"
    r"each|every|total|aggregate|addition|respect|line|cash\s+and|connection)|"
    r"(?:January|February|March|April|May|June|July|August|September|October|November|"
    r"December)\b)((?:(?!and\b|at\b|in\b|for\b|from\b|as\b|to\b)[A-Za-z'-]+\s*){1,4})",
    re.IGNORECASE,
)


_BREAK = re.compile(
    r"[,;:]|\b(?:and|while|whilst|whereas|but|versus|vs\.?|compared\s+(?:with|to)|against|"
    r"than|to)\b",
    re.IGNORECASE,
)
_COMPARED = re.compile(r"^(?:versus|vs\.?|compared\s+(?:with|to)|against)$", re.IGNORECASE)
_TARGET_YEAR = re.compile(r"\bby\s+(?:the\s+end\s+of\s+)?(?:FY|CY)?\s?((?:19|20)\d{2})\b", re.I)


def _period(
    report_year: int, sentence: str, lead: int, amount: Amount, tail: int, years: tuple[int, ...]
) -> int | None:
    """The fiscal year a prose figure describes; None for a range of years.

    A target's year ("30% lower by FY2030") first; then the year its own clause names;
    then the prior year when its own words say so ("a year earlier", "compared with a
    restated X"); else the report's own year. Only the figure's own part of a clause
    counts: "X, as the prior year had carried charges, while Y" says nothing about Y.
    """
    after = sentence[amount.end : tail]
    if target := _TARGET_YEAR.search(after):
        return int(target.group(1))
    if years:
        return years[0] if len(years) == 1 else None
    before = sentence[lead : amount.start]
    breaks = list(_BREAK.finditer(before))
    own = before[breaks[-1].end() :] if breaks else before
    if breaks and _COMPARED.match(breaks[-1].group(0)):
        return report_year - 1  # "compared with US$916 million": the comparative
    if _PRIOR_YEAR.search(own) or _PRIOR_YEAR.search(after):
        return report_year - 1
    return report_year


def _quarter_ended(ticker: str, year: int, said: list[str]) -> str | None:
    """Where the quarter a sentence names for its figure ends ("a gain of approximately
    $20 billion in the third quarter of 2023": 30 September 2023 for a calendar year), so
    the figure is that quarter's for a question about it; None when it names none or the
    company's year end is not known."""
    company = companies().get(ticker)
    quarter = next(
        (q for text in said if months_said_before(text) and (q := quarter_said(text))), None
    )
    if company is None or quarter is None:
        return None
    return quarter_end(company.period_end(year), quarter).isoformat()


def _reporting_currency(ticker: str) -> str | None:
    company = companies().get(ticker)
    return company.currency if company is not None else None


def prose_facts(chunk: ChunkText, prose: str) -> list[Fact]:
    """Every amount stated in the chunk's sentences, each bound to its own period."""
    return [
        fact for sentence in split_sentences(prose) for fact in _sentence_facts(chunk, sentence)
    ]


@dataclass
class _Reading:
    """One sentence read left to right: where the last figure's unit and the last listed
    figure end, the facts read so far, each figure's value and unit, the spans taken."""

    units_end: int = 0
    listed_end: int = 0
    facts: list[Fact] = field(default_factory=list)
    seen: list[tuple[float, str]] = field(default_factory=list)
    taken: list[tuple[int, int]] = field(default_factory=list)


def _sentence_facts(chunk: ChunkText, sentence: str) -> list[Fact]:
    amounts = find_amounts(sentence)
    if not amounts:
        return _small_counts(chunk, sentence, [])
    reading = _Reading()
    bindings = bind_amounts(sentence, amounts, follow=False)
    clauses = figure_clauses(sentence, amounts)
    for amount, bound, clause in zip(amounts, bindings, clauses, strict=True):
        if amount.start < reading.units_end:
            continue  # part of the previous figure's unit ("0.37 per 200,000 hours")
        if not _no_figure(sentence, amount):
            fact = _amount_fact(chunk, sentence, amount, bound, clause, reading)
            if fact is not None:
                reading.facts.append(fact)
    return reading.facts + _small_counts(chunk, sentence, reading.taken)


def _no_figure(sentence: str, amount: Amount) -> bool:
    """A whole number that is part of a name, an address or an identifier."""
    if amount.kind != "bare" or amount.decimals:
        return False
    if _NAMED.search(sentence[: amount.start]):
        return True  # a name: "FTSE 100 company", "the FAST-41 process"
    # "330 West 34th Street", "New York 10001", "1-3215", "732-524-0400"
    return _address_number(sentence, amount.start, amount.end) or _identifier_number(
        sentence, amount.start, amount.end
    )


def _amount_fact(
    chunk: ChunkText,
    sentence: str,
    amount: Amount,
    bound: Binding,
    clause: tuple[int, int],
    reading: _Reading,
) -> Fact | None:
    """The fact of one amount of a sentence; None for a figure of a range of years."""
    # long: one amount's unit, period and label read in order, then its fact with each field named.
    lead, tail = clause
    if amount.kind == "money" and amount.currency is None:
        # A bare "$62 million" is in the company's reporting currency, as a bare "$'m"
        # column is (never a count of the word after it: "million due").
        amount = replace(amount, currency=_reporting_currency(chunk.company))
    unit, written = _unit_of(amount, sentence)
    unit_end = sentence.find(written, _written_start(amount, sentence)) + len(written)
    reading.units_end = unit_end
    if unit == open_unit(""):
        # A bare number restating an earlier figure of the sentence ("US$173 million,
        # shown in our accounts as (173)") is in that figure's unit.
        unit = next((u for v, u in reading.seen if v == abs(amount.value)), unit)
    reading.seen.append((abs(amount.value), unit))
    reading.taken.append((amount.start, unit_end))
    year = _period(chunk.fiscal_year, sentence, lead, amount, tail, bound.years)
    if year is None:
        return None  # a figure stated for a range of years is no one year's
    # A figure its sentence says is of a quarter or some months ("2022 Fourth-Quarter ...
    # adjusted EPS of $2.35") is no whole year's, though it names one.
    said = [sentence[: amount.start], sentence[amount.end : tail]]
    months = months_said_before(said[0]) or months_said_before(said[1])
    label = _label(sentence, lead, amount, unit, unit_end)
    gap = sentence[reading.listed_end : _written_start(amount, sentence)]
    if reading.facts and _LISTED.fullmatch(gap):
        # "21.6 percent and 24.6 percent for 2022 and 2021, respectively", "X in 2022 and
        # Y in 2021": a figure listed after another is of the same thing.
        label = reading.facts[-1].label
    reading.listed_end = unit_end
    return Fact(
        chunk_id=chunk.chunk_id,
        company=chunk.company,
        document=chunk.document,
        page=chunk.page,
        report_fiscal_year=chunk.fiscal_year,
        fiscal_year=year,
        restated=bool(re.search(r"\brestat\w*", sentence[lead:tail], re.IGNORECASE)),
        label=label[:1].upper() + label[1:],
        metric=None if unit == "%" else bound.metric,  # a share is no amount
        value=-amount.value if amount.negative else amount.value,
        raw=written.strip(),
        unit=unit,
        decimals=amount.decimals,
        context=sentence,
        source="prose",
        period_months=months,
        period_end=_quarter_ended(chunk.company, year, said) if months == 3 else None,
    )


_LISTED = re.compile(
    r"\s*(?:(?:in|for|during|at|of)\s+)?(?:(?:FY|CY)\s?)?(?:(?:19|20)\d{2})?\s*"
    r"(?:,\s*(?:and|or)?|and|or)\s*",
    re.IGNORECASE,
)
"""What may stand between two listed figures of one thing: a separator, after the first's
own year ("X in 2022 and Y", "X, Y and Z")."""


_SMALL_COUNT = re.compile(
    r"(?<![\w$.,/-])(?P<n>\d{1,2})\s+(?:of\s+(?:whom|them|which)\s+(?:were|are|was|is)\s+)?"
    r"(?P<noun>[a-z][a-z-]+(?:\s+[a-z][a-z-]+){0,3})"
)
_NUMBERED = re.compile(
    r"\b(?:stage|scope|phase|tier|level|note|table|section|figure|chart|step|train|line|item|"
    r"option|question|part|appendix|top|page|pages|downs|unit|block|pit|shaft|no\.?)"
    r"(?:\s+\d+(?:\s*(?:,|and|&|or)\s*\d+)*\s*(?:,|and|&|or))?\s*$",
    re.IGNORECASE,
)
_NAMED = re.compile(r"\b[A-Z][A-Z&]{1,}[-\s]$")
"""An integer right after a capitalised name is part of it: "FTSE 100", "FAST-41"."""


def _address_number(sentence: str, start: int, end: int) -> bool:
    """A number of an address, not a figure: three or more digits written without a
    thousands separator before a capitalised word (a street number: "330 West 34th
    Street"), or four or five after one (a postcode: "New York 10001", "Perth WA 6000").
    A report writes its figures of a thousand or more with separators ("10,001")."""
    digits = sentence[start:end]
    if not digits.isdigit() or len(digits) < 3:
        return False
    if re.match(r"\s+[A-Z][a-z]", sentence[end:]):
        return True
    after_name = re.search(r"\b[A-Z][A-Za-z]*,?\s$", sentence[:start]) is not None
    return 4 <= len(digits) <= 5 and after_name


_JOINED_DIGITS = re.compile(r"\d+(?:-\d+)+")
_YEAR = re.compile(r"(?:19|20)\d{2}")


def _identifier_number(sentence: str, start: int, end: int) -> bool:
    """A number of an identifier, not a figure: digit groups joined by hyphens, one of
    four or more digits that is not a year, or one that opens with a zero (a file number
    "1-3215", a tax id "22-1024240", a telephone "732-524-0400"). A range of years
    ("2028-2032") or of counts ("20-30") is no identifier."""
    for match in _JOINED_DIGITS.finditer(sentence):
        if match.start() <= start and end <= match.end():
            groups = match.group(0).split("-")
            return any(
                (len(g) >= 4 and not _YEAR.fullmatch(g)) or (len(g) > 1 and g.startswith("0"))
                for g in groups
            )
    return False


def _small_counts(chunk: ChunkText, sentence: str, taken: list[tuple[int, int]]) -> list[Fact]:
    """Counts of twelve or fewer ("11 directors", "10 of whom were independent"), which
    the numeric check's reader leaves alone as list numbers and names ("Scope 1")."""
    facts: list[Fact] = []
    for match in _SMALL_COUNT.finditer(sentence):
        start = match.start("n")
        if any(a <= start < b for a, b in taken) or _NUMBERED.search(sentence[:start]):
            continue
        words: list[str] = []
        for word in match.group("noun").split():
            if word in _NOT_A_UNIT or _MONTH.match(word):
                break
            words.append(word)
        if not words or not words[-1].endswith("s") or _MEASURE_UNIT.match(words[0]):
            continue  # not a plural thing counted ("3 year", "2 hours" is a duration)
        noun = " ".join(words)
        facts.append(
            Fact(
                chunk_id=chunk.chunk_id,
                company=chunk.company,
                document=chunk.document,
                page=chunk.page,
                report_fiscal_year=chunk.fiscal_year,
                fiscal_year=chunk.fiscal_year,
                restated=False,
                label=noun[:1].upper() + noun[1:],
                metric=None,
                value=float(match.group("n")),
                raw=f"{match.group('n')} {noun}",
                unit=open_unit(noun),
                decimals=0,
                context=sentence,
                source="prose",
            )
        )
    return facts
