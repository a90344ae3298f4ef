"""Which printed line item a line-item phrase of a question means.

Pure. "COGS", "cost of goods sold" and a statement's "Cost of sales" are one line item;
"cash from operations" is "Net cash provided by (used in) operating activities". A
phrase and a label are compared by their words' stems once each is read through the
phrase synonyms (`ALIKE`, from `line_item_synonyms.txt`: a vocabulary of how statements
name their lines, never a gate: a phrase in no group still meets a label with its own
words), ignoring the words a statement adds to any line ("total", "net", "provided by",
"(used in)"). Every word the phrase says must be in the label; each word more the label
says costs a little, and a line of the statement the question names (its title: "balance
sheet", "statements of cash flows") is preferred. The vocabulary is data, in the text
files beside this module (`line_item_*.txt`, `statement_titles.txt`), read at import.
"""

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from domain.language.words import (
    LEGAL_FORMS,
    group_members,
    read_entries,
    read_groups,
    read_map,
)
from domain.questions.measures import stem
from domain.questions.metrics import BALANCE_SHEET
from domain.reports.figures import Fact, unit_spec

_HERE = Path(__file__)

ALIKE: tuple[tuple[str, ...], ...] = read_groups(_HERE.with_name("line_item_synonyms.txt"))
"""How statements name their lines, as groups of phrases (`line_item_synonyms.txt`)."""
_SOFT = frozenset(stem(w) for w in read_entries(_HERE.with_name("line_item_soft_words.txt")))
"""Words a statement adds to a line, or a question adds to a measure, that say nothing
of which line it is. "current" is here for the question's sake ("current assets" needs
"current" said: it is kept where the phrase says it, see `_need`). Stemmed from
`line_item_soft_words.txt`."""


def _words(text: str) -> list[str]:
    text = re.sub(
        r"\((?:used\s+in|used\s+for|provided\s+by|net|decrease|increase)\)", " ", text, flags=re.I
    )
    return [stem(w) for w in re.findall(r"[A-Za-z][A-Za-z'-]*", text.lower().replace("'s", ""))]


def _canonical(text: str) -> tuple[str, ...]:
    """The text's stems with each synonym phrase read as its group, one word that is no
    other ("net income" and "Net earnings" are "=0003"; "Total comprehensive income" is
    not, for all its "income")."""
    return _read_lines(text)[0]


@lru_cache(maxsize=16384)
def _read_lines(text: str) -> tuple[tuple[str, ...], Mapping[str, frozenset[str]]]:
    """`_canonical`, and the words each group's token took in. Cached: a turn reads the
    same labels and phrases for every chunk it grades (a real report's keep() read one
    label 15,000 times, 14 s of a 28 s test); the result is immutable."""
    words = " ".join(_words(text))
    taken: dict[str, frozenset[str]] = {}
    for number, group in enumerate(ALIKE):
        for phrase in sorted(group, key=len, reverse=True):
            written = " ".join(_words(phrase))
            if written and re.search(rf"(?<![a-z=]){re.escape(written)}(?![a-z])", words):
                token = f"={number:04d}"
                words = re.sub(rf"(?<![a-z=]){re.escape(written)}(?![a-z])", f" {token} ", words)
                taken[token] = frozenset(written.split())
                break
    return tuple(words.split()), MappingProxyType(taken)


def _need(words: tuple[str, ...]) -> frozenset[str]:
    """What a phrase says of its line: its words but the soft ones ("current" kept)."""
    keep = {stem("current")}
    return frozenset(w for w in words if w not in _SOFT or w in keep)


def item_score(phrase: str, label: str, soft: frozenset[str] = frozenset()) -> float:
    """How well a printed label is the line item a phrase names: 0 when it lacks a word
    the phrase says; 1 for the same words; less for each word more. A label named with
    its heading ("Current assets: Inventories") is also read without it."""
    # A line of the item's movement is not the item, under any heading.
    moved = 0.5 if _CHANGE.search(label) and not _CHANGE.search(phrase) else 1.0
    if ": " in label:
        own = label.split(": ", 1)[1]
        return moved * max(_score(phrase, label, soft), 0.95 * _score(phrase, own, soft))
    return moved * _score(phrase, label, soft)


_OPPOSED = tuple(
    (stem(a), stem(b)) for a, b in read_groups(_HERE.with_name("line_item_opposites.txt"))
)
"""Words of a line that make it the opposite of the line a phrase with the other word
names ("Dividends received" is not "dividends paid"), stemmed from
`line_item_opposites.txt`."""
_CHANGE = re.compile(r"\bchanges?\s+in\b|\b(?:increase|decrease)s?\b", re.I)
"""A line of the item's movement ("Changes in operating assets and liabilities:
Inventories", "(Increase) decrease in receivables"), not of the item itself."""
_NOT_MONEY = ("number", "days", "ratio", "percent", "percentage", "margin", "rate", "times")
"""Words that measure an item in days, as a ratio or a count, not in money: a line that
says one is not the item's amount, and a phrase that says one does not ask for money."""
_RATIO_WORDS = frozenset(stem(w) for w in _NOT_MONEY)


def _score(phrase: str, label: str, soft: frozenset[str]) -> float:
    asked = _need(_canonical(phrase))
    printed_words = _canonical(label)
    printed = _need(printed_words) - soft
    if not asked or not asked <= printed:
        return 0.0
    for part in (stem("current"), stem("discontinued")):
        if part in printed_words and part not in asked:
            return 0.0  # "assets" is not "current assets", nor a discontinued line the whole
    # A word of the line the phrase names is that line's ("Profit before income tax
    # expense" for "income before income taxes"): only the label's other words can make
    # it the opposite of the phrase.
    said = set(_words(phrase))
    read = set(_words(label)) - {
        w for token, took in _read_lines(label)[1].items() if token in asked for w in took
    }
    if any(
        (a in said and b in read - said) or (b in said and a in read - said) for a, b in _OPPOSED
    ):
        return 0.0
    if (read & _RATIO_WORDS) - said:
        return 0.0  # "Days payable outstanding" is not "accounts payable"
    score = 1.0 / (1.0 + 0.35 * len(printed - asked))
    if _other_side(asked, label, soft):
        score *= 0.5
    return score


def _other_side(asked: frozenset[str], label: str, soft: frozenset[str]) -> bool:
    """Whether the label joins the phrase's line to another by "and" ("Sales and
    marketing" for "sales"): a side of it that shares no word of the phrase."""
    sides = re.split(r"\s+(?:and|&)\s+", label.split(": ")[-1], maxsplit=1)
    if len(sides) < 2:
        return False
    words = [_need(_canonical(side)) - soft for side in sides]
    # A side of one word met through a synonym ("Sales") is that word in another line's
    # name; a side that says the item in its own words ("Accounts payable and accrued
    # liabilities") is the item's line.
    said = [len([w for w in _words(side) if w not in _SOFT]) for side in sides]
    return any(w and not (w & asked) for w in words) and any(
        w & asked and n == 1 for w, n in zip(words, said, strict=True)
    )


MIN_MATCH = 0.45
"""The weakest label match taken as the line item: below it a label says too much else
("Net mark-to-market revaluation of certain grain inventories" is no "inventory") and
the item is said not found rather than read off another line."""


@dataclass(frozen=True)
class Found:
    """The fact a line-item phrase resolves to, and how sure the match is."""

    fact: Fact
    score: float


STATEMENT_TITLES: dict[str, tuple[str, ...]] = {
    statement: group_members(titles)
    for statement, titles in read_map(_HERE.with_name("statement_titles.txt")).items()
}
"""What the primary statements are titled in print (IFRS and US GAAP): the words a
search for a statement's lines adds (`statement_titles.txt`)."""
_STATEMENT_WORDS = {
    "balance sheet": BALANCE_SHEET,
    "income statement": re.compile(
        r"income|operations|earnings|profit\s+or\s+loss|comprehensive", re.I
    ),
    "cash flow statement": re.compile(r"cash\s+flows?", re.I),
}


def in_statements(title: str, statements: Sequence[str]) -> bool:
    """Whether a table's title names one of the primary statements ("CONSOLIDATED BALANCE
    SHEETS" is the balance sheet)."""
    return any(_STATEMENT_WORDS[s].search(title) for s in statements if s in _STATEMENT_WORDS)


_COUNTED = re.compile(
    r"\b(?:" + "|".join(_NOT_MONEY) + r"|percent\w*|shares?|count|employees|headcount)\b|%", re.I
)
"""A phrase that asks for something other than an amount of money."""


_HOMES = (
    (
        "cash flow statement",
        re.compile(
            r"\bcash\s+(?:flows?\s+)?(?:from|provided|used)|operating\s+activities|investing|"
            r"financing|capital\s+expenditure|\bcapex\b|dividends\s+paid|purchases?\s+of|"
            r"proceeds\s+from",
            re.I,
        ),
    ),
    (
        "balance sheet",
        re.compile(
            r"\bassets?\b|\bliabilit|\bequity\b|\binventor|\breceivables?\b|\bpayables?\b|"
            r"\bdebt\b|\bborrowings\b|cash\s+and\s+cash\s+equivalents|\bgoodwill\b|"
            r"property,?\s+plant",
            re.I,
        ),
    ),
    (
        "income statement",
        re.compile(
            r"\brevenues?\b|\bsales\b|\bcost\s+of\b|\bcogs\b|\bincome\b|\bearnings\b|"
            r"\bprofit\b|\bexpenses?\b|\bebit",
            re.I,
        ),
    ),
)
"""Which primary statement prints a line item, by the words that name it: the first that
matches ("cash from operations" is the cash flow statement's, "accounts payable" the
balance sheet's, "cost of sales" the income statement's). Accounting's own layout, so any
company's; an item none names is looked for in the statements the question names."""


def home_statements(phrase: str, named: Sequence[str] = ()) -> tuple[str, ...]:
    """Where to prefer a line item's line: its own statement when the question names it
    or names none; else the statements the question names."""
    home = next((s for s, words in _HOMES if words.search(phrase)), None)
    if home is None:
        return tuple(named)
    return (home,) if not named or home in named else tuple(named)


def company_words(names: Sequence[str]) -> frozenset[str]:
    """The stems of a company's names and legal forms: words a label says of whose line
    it is ("Net earnings attributable to General Mills"), not of which."""
    return frozenset(stem(w) for n in (*names, *LEGAL_FORMS) for w in re.findall(r"[A-Za-z]+", n))


def find_item(
    phrase: str,
    year: int,
    facts: Sequence[Fact],
    statements: Sequence[str] = (),
    titles: dict[str, str] | None = None,
    report_year: int | None = None,
    soft: frozenset[str] = frozenset(),
) -> Found | None:
    """The table fact of `year` a line-item phrase means, among `facts`: a whole year's
    (or a balance at a year's end), the consolidated group's, in money or a count; the
    best label match, then one in a statement the question names (`titles`: each chunk's
    title), then one of the report asked about (`report_year`), then the largest (a
    statement's total line over its parts)."""
    for drop, variant in enumerate(variants(phrase)):
        found = _best(variant, year, facts, statements, titles, report_year, soft)
        if found is not None:
            return Found(found.fact, found.score * (1 - 0.1 * drop))
    return None


def printed_ratio(name: str, year: int, facts: Sequence[Fact]) -> Fact | None:
    """The statements' own line of a standard ratio (`name`, "effective tax rate") for the
    year: a table's percentage whose label says every word of the name, with the fewest
    words more ("Effective income tax rate"). None when none does, or when the best lines
    disagree (one per segment): the ratio is then worked out from the statements."""
    said = set(_words(name)) - _SOFT
    best: list[tuple[int, Fact]] = []
    for fact in facts:
        if fact.source != "table" or fact.fiscal_year != year or not fact.annual:
            continue
        if unit_spec(fact.unit).kind != "percent":
            continue
        read = set(_words(fact.label.split(": ")[-1])) - _SOFT
        if said and said <= read:
            best.append((len(read - said), fact))
    if not best:
        return None
    fewest = min(extra for extra, _ in best)
    top = [f for extra, f in best if extra == fewest]
    return top[0] if len({f.value for f in top}) == 1 else None


def variants(phrase: str) -> list[str]:
    """A phrase and the same without its first words, one at a time (up to two): the
    head of an English noun phrase is its last words, and a word before them the labels
    do not say ("generate in cash flow from operating activities") is let go. A phrase
    that is a line the statements name (`ALIKE`) is that line alone: "income before
    income taxes" is not "income taxes"."""
    if all(w.startswith("=") for w in _need(_canonical(phrase))):
        return [phrase]
    words = phrase.split()
    return [" ".join(words[drop:]) for drop in range(min(3, max(1, len(words) - 1)))]


def matches_any(phrase: str, labels: Sequence[str], soft: frozenset[str] = frozenset()) -> bool:
    """Whether any label is the line item the phrase (or a variant of it) names. Looser
    than `find_item`'s `MIN_MATCH` on purpose: a table kept for a weak label may print the
    item's own line in another part (graded at `MIN_MATCH`, one of FinanceBench's metric
    questions lost Best Buy's "Net earnings" line)."""
    return any(item_score(v, label, soft) > 0 for v in variants(phrase) for label in labels)


def _placed(
    phrase: str,
    fact: Fact,
    statements: Sequence[str],
    titles: dict[str, str] | None,
    report_year: int | None,
) -> float:
    """What a line gains by where it is printed and how it says the phrase: in the
    statement named, in the report of the year asked, every word said."""
    gain = 0.0
    title = (titles or {}).get(fact.chunk_id, "")
    if statements and any(
        _STATEMENT_WORDS[s].search(title) for s in statements if s in _STATEMENT_WORDS
    ):
        gain += 0.3
    if report_year is not None and fact.report_fiscal_year == report_year:
        gain += 0.05
    if set(_words(phrase)) <= set(_words(fact.label)):
        # Of two lines as near, the one that says every word, the ones any line may
        # add included: "investing activities" is "Net cash from investing
        # activities", not "Payments for investments".
        gain += 0.02
    return gain


def _best(
    phrase: str,
    year: int,
    facts: Sequence[Fact],
    statements: Sequence[str],
    titles: dict[str, str] | None,
    report_year: int | None,
    soft: frozenset[str],
) -> Found | None:
    best: tuple[float, float, Fact] | None = None
    for fact in facts:
        if (
            fact.source != "table"
            or fact.fiscal_year != year
            or not fact.annual
            or fact.parent_only
        ):
            continue
        if unit_spec(fact.unit).kind == "per_share" and "share" not in phrase.lower():
            continue
        score = item_score(phrase, fact.label, soft)
        if score < MIN_MATCH:
            continue
        if unit_spec(fact.unit).kind != "money" and not _COUNTED.search(phrase):
            # An amount asked for: a line of counts, days or percents by the same words
            # ("Property, plant and equipment" in a table of useful lives) is a poor match.
            score -= 0.5
            if score <= 0:
                continue
        score += _placed(phrase, fact, statements, titles, report_year)
        key = (round(score, 6), abs(fact.value))
        if best is None or key > best[:2]:
            best = (key[0], key[1], fact)
    return None if best is None else Found(best[2], best[0])


def find_items(
    phrase: str,
    years: Sequence[int],
    facts: Sequence[Fact],
    statements: Sequence[str] = (),
    titles: dict[str, str] | None = None,
    report_year: int | None = None,
    soft: frozenset[str] = frozenset(),
) -> dict[int, Found]:
    """Each year's fact of a line item (`find_item`), read off one printed line when a line
    that prints every year matches as well as each year's best: a change or an average
    then reads one line, never a segment's "Net sales" for one year and the statement's
    "Total net sales" for the other. Years with no fact are left out."""
    alone = {y: find_item(phrase, y, facts, statements, titles, report_year, soft) for y in years}
    found = {y: f for y, f in alone.items() if f is not None}
    if len(years) < 2 or len(found) < len(years):
        return found
    line = _one_line(
        phrase,
        years,
        facts,
        lambda y, row: find_item(phrase, y, row, statements, titles, report_year, soft),
        soft,
    )
    if (
        line is not None
        and min(f.score for f in line.values()) >= min(f.score for f in found.values()) - 0.05
    ):
        return line
    return found


def _one_line(
    phrase: str,
    years: Sequence[int],
    facts: Sequence[Fact],
    find: Callable[[int, list[Fact]], Found | None],
    soft: frozenset[str],
) -> dict[int, Found] | None:
    """The best printed line (a chunk's row of one label) with a fact of every year: by
    its weakest year's match, then by its size (a statement's total over a part)."""
    rows: dict[tuple[str, str], list[Fact]] = {}
    for fact in facts:
        rows.setdefault((fact.chunk_id, fact.label), []).append(fact)
    labels = {label for _, label in rows}
    matching = {
        label for label in labels if any(item_score(v, label, soft) > 0 for v in variants(phrase))
    }
    best: tuple[float, float, dict[int, Found]] | None = None
    for (_, label), row in rows.items():
        if label not in matching:
            continue
        each = {y: find(y, row) for y in years}
        line = {y: f for y, f in each.items() if f is not None}
        if len(line) < len(years):
            continue
        key = (min(f.score for f in line.values()), sum(abs(f.fact.value) for f in line.values()))
        if best is None or key > best[:2]:
            best = (key[0], key[1], line)
    return None if best is None else best[2]
