"""Amounts as a text writes them: a number in digits or in words, with its currency,
scale and kind read from the words around it ("US$53.82 billion", "19 per cent",
"two thirds of"). Pure: what reports print and what answers claim are read by these
same rules."""

import math
import re
from dataclasses import dataclass, replace

from domain.language.number_words import word_numbers
from domain.language.units import (
    CENTS,
    SIGN,
    UNIT_WORDS,
    cents_currency,
    currency_of,
    quantity_of,
    scale_of,
)

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

_NUMBER = re.compile(
    r"(?<![A-Za-z0-9.,/_])(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?"
    r"|(?!(?:19|20)\d\d,(?:19|20)\d\d(?!\d))\d+,(?!\d{3}(?!\d))\d+|\d+(?:\.\d+)?)(?![,.]?\d)"
)

"""A number in digits. A comma followed by exactly three digits groups thousands ("53,800",
"1,234,567.8"); a comma followed by any other count of digits is a decimal comma ("53,8",
"4,25"), except between two years ("2023,2024"). A run the two rules cannot tell apart
("1,234,56") is no number."""

UNIT_WORD = re.compile(
    rf"^(?P<space>\s?)(?P<u>{UNIT_WORDS}|(?:{CENTS})(?![A-Za-z])|cents\b|¢|c\b|cps\b)",
    re.IGNORECASE,
)
"""A unit or scale right after a number: the units table's words, a currency's minor unit
("US cents", "pence"), or cents of the figure's own currency ("¢", "c", "cps")."""

PER_SHARE = re.compile(r"^\s*(?:per\s+(?:ordinary\s+)?share|a\s+share|/\s*share)\b", re.I)

# A currency's letters are capitals joined to its sign ("A$", "US$"; "US $" too): the
# article of "a $6.3 billion decrease" is no Australian dollar (matched with case).
_CURRENCY = re.compile(rf"(?P<cur>{SIGN})\s?(?P<neg>[-−])?\s?$")

_QUALIFIED = rf"\s*[~(]?\s*(?:{SIGN})?\s*$"

# One-sided qualifiers: the figure meant lies at or above ("more than US$60 billion",
# "topped US$56 billion"), or at or below ("almost 56", "under 5%", "short of US$56
# billion"), the number written, never on the other side.
_ABOVE_WORDS = (
    r"more\s+than|(?:just\s+|well\s+)?(?:over|above|beyond)|at\s+least|in\s+excess\s+of|"
    r"upwards\s+of|exceed(?:s|ed|ing)?|top(?:s|ped|ping)|surpass(?:es|ed|ing)?"
)

_BELOW_WORDS = (
    r"less\s+than|(?:just\s+|well\s+)?(?:under|below)|at\s+most|nearly|almost|up\s+to|"
    r"(?:just\s+)?short\s+of|approach(?:es|ed|ing)?"
)

APPROX = re.compile(
    r"\b(?:about|around|approximately|approx\.?|roughly|some|close\s+to|circa|c\.|"
    rf"{_ABOVE_WORDS}|{_BELOW_WORDS}){_QUALIFIED}|~\s*(?:{SIGN})?\s*$",
    re.IGNORECASE,
)

_AT_LEAST = re.compile(rf"\b(?:{_ABOVE_WORDS}){_QUALIFIED}", re.IGNORECASE)

_AT_MOST = re.compile(rf"\b(?:{_BELOW_WORDS}){_QUALIFIED}", re.IGNORECASE)

_RESULT_WORD = re.compile(
    r"(?<![/(])\b(loss|losses|deficit|profits?|earnings|income|surplus)\b(?!\))", re.IGNORECASE
)

_PAGE = re.compile(r"\b(?:page|pages|p\.|pp\.)\s*(?:\d+\s*[-–,]\s*)?$", re.IGNORECASE)

_LABEL_NUMBER = re.compile(
    r"\b(?:stage|scope|phase|tier|level|note|table|section|figure|chart|step|train|line|"
    r"item|option|question|part|appendix|top)\s+(?:\d+\s*(?:and|&|or|,)\s*)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Amount:
    """A number as written in text, with what the words around it say it is.

    `value` is the magnitude on the scale written ("53.82" in "US$53.82 billion");
    `factor` takes it to the base of its kind (millions of a currency, cents, Mt, koz, %),
    or is None when the scale is unknown (a bare number, or "US$1.97" without a word).
    """

    value: float
    decimals: int
    kind: str  # "money" | "per_share" | "mass" | "gold" | "percent" | "bare"
    currency: str | None
    factor: float | None
    negative: bool
    sign_known: bool
    approx: bool
    start: int
    end: int
    precision: float | None = None
    """The unit of the last place the figure states, on the scale of `value`, when it is
    not its last decimal: a share written as a fraction ("two thirds of") states it to a
    tenth of its value."""
    words: bool = False
    """Written in words ("fifty-three point eight billion"), not in digits."""
    side: int = 0
    """Which side of the number written a one-sided qualifier puts the figure meant: 1
    at or above ("more than", "over"), -1 at or below ("almost", "under"), 0 either."""

    @property
    def step(self) -> float:
        """The unit of the last place stated: what rounding is measured in."""
        return self.precision if self.precision is not None else 10.0 ** (-self.decimals)


def _currency(token: str) -> str | None:
    currency = currency_of(token)
    return currency.sign if currency else None


def _unit_of(word: str, currency: str | None, after: str) -> tuple[str, str | None, float]:
    """Return (kind, currency, factor) for a unit word following a number."""
    quantity = quantity_of(word)
    if quantity is not None:
        return quantity.kind, None, quantity.factor
    scale = scale_of(word)
    if scale is not None:
        return "money", currency, scale.factor
    minor = cents_currency(word)
    if minor is not None:
        return "per_share", minor.sign, 1.0
    return "per_share", currency, 1.0  # cents, ¢, c, cps


@dataclass(frozen=True)
class _Written:
    """A number as the text writes it, in digits or in words, before its context is read."""

    start: int
    end: int
    value: float
    decimals: int
    digits: str | None
    """As written in digits ("55,658"); None for a number in words."""
    scale: float = 1.0
    scale_end: int = 0
    share: bool = False
    year: bool = False


def _in_digits(text: str) -> list[_Written]:
    found = []
    for match in _NUMBER.finditer(text):
        number = match.group("num")
        value, decimals = _digits_value(number)
        found.append(_Written(*match.span("num"), value, decimals, number))
    return found


def _digits_value(number: str) -> tuple[float, int]:
    """The value of a number `_NUMBER` read, and how many decimals it states: commas that
    group thousands are dropped, a decimal comma is a decimal point."""
    if "," in number and "." not in number and not re.fullmatch(r"\d{1,3}(?:,\d{3})+", number):
        number = number.replace(",", ".")
    decimals = len(number.split(".", 1)[1]) if "." in number else 0
    return float(number.replace(",", "")), decimals


def _in_words(text: str) -> list[_Written]:
    found = []
    for w in word_numbers(text):
        written = _Written(
            w.start, w.end, w.value, w.decimals, None, w.scale, w.scale_end, w.share, w.year
        )
        if w.scale != 1.0 and not UNIT_WORD.match(text[w.end : w.end + 40]):
            # Scale words that are no unit ("twenty-five thousand employees") are part
            # of the number, as "25,000" is.
            places = max(0, w.decimals - round(math.log10(w.scale)))
            written = replace(written, value=w.value * w.scale, decimals=places, end=w.scale_end)
        found.append(written)
    return found


def find_amounts(text: str) -> list[Amount]:
    """Return the amounts `text` claims in digits, skipping years, dates, pages and list
    numbers. A report prints its figures in digits: this is what facts are read from."""
    return _amounts(text, _in_digits(text))


def claimed_amounts(text: str) -> list[Amount]:
    """Return the amounts `text` claims, in digits or in words ("fifty-three point eight
    billion US dollars", "nineteen per cent", "two thirds of revenue"), in text order, each
    read by the same rules: what an answer states, whichever way it writes it."""
    return _amounts(text, sorted([*_in_digits(text), *_in_words(text)], key=lambda w: w.start))


_CURRENCY_BEFORE = re.compile(rf"(?:{SIGN})\s*$")

# After a figure in a label: its unit or scale, a currency's minor unit, and what stands
# for a unit there ("cents", "dollars", "times", "x", "t").
_UNIT_AFTER = re.compile(
    rf"^(?:\s*(?:{UNIT_WORDS}|(?:{CENTS})(?![A-Za-z])|"
    r"\b(?:cents?|us|australian|dollars?|times|x|t)\b))+",
    re.IGNORECASE,
)

_DANGLING = re.compile(
    r"(?:\s+\b(?:of|was|were|is|at|to|from|by|about|around)\b|\s*[=:])+\s*$", re.IGNORECASE
)


def label_without_figures(label: str) -> str:
    """A claim's label with every amount it states taken out ("RIO FY2025 revenue of
    US$55.7 billion" → "RIO FY2025 revenue"), with the currency before it and the scale or
    unit after it: a label names the claim, and every label is shown to the user, so a
    figure the check could not back never reaches them in one. Years stay ("FY2025"), so
    does a number naming a kind ("Scope 3") and a word that is a unit elsewhere ("Mt
    Arthur")."""
    spans = [(a.start, a.end) for a in claimed_amounts(label)]
    if not spans:
        return label
    kept, at = [], 0
    for start, end in spans:
        kept.append(_CURRENCY_BEFORE.sub("", label[at:start]))
        unit = _UNIT_AFTER.match(label[end:])
        at = end + (unit.end() if unit else 0)
    kept.append(label[at:])
    text = _DANGLING.sub("", " ".join(" ".join(kept).split())).strip(" ,;:-")
    return text or "a figure"


def _skipped(text: str, w: _Written, plain: bool) -> bool:
    """Whether a plain number is a year, a date or a count rather than an amount."""
    before, after = text[max(0, w.start - 40) : w.start], text[w.end : w.end + 40]
    if w.digits is not None:
        year = bool(re.fullmatch(r"(?:19|20)\d{2}", w.digits))
        day = bool(re.fullmatch(r"\d{1,2}", w.digits))
    else:
        year = w.year or (w.decimals == 0 and 1900 <= w.value <= 2099)
        day = w.decimals == 0 and w.value < 100
    if plain and year:
        return True
    if (
        plain
        and day
        and (
            re.match(rf"^\s*{_MONTHS}\b", after, re.IGNORECASE)
            or re.search(rf"\b{_MONTHS}\.?\s*$", before, re.IGNORECASE)
        )
    ):
        return True
    paren = before.endswith("(") and after.startswith(")")
    # counts and list numbers ("3 years", "Scope 1")
    return plain and not paren and w.decimals == 0 and w.value <= 12


def _share(text: str, w: _Written) -> Amount:
    """A fraction of something in words, as the percentage it states: "half of" is 50%
    and holds within a twentieth of its value (a fraction is a rounded share)."""
    before = text[max(0, w.start - 40) : w.start]
    return Amount(
        value=w.value,
        decimals=0,
        kind="percent",
        currency=None,
        factor=1.0,
        negative=False,
        sign_known=False,
        approx=bool(APPROX.search(before)),
        start=w.start,
        end=w.end,
        precision=w.value / 10.0,
        words=True,
        side=_side(before),
    )


def _side(before: str) -> int:
    """The side a one-sided qualifier right before a number puts its figure on."""
    return 1 if _AT_LEAST.search(before) else -1 if _AT_MOST.search(before) else 0


def _amounts(text: str, written: list[_Written]) -> list[Amount]:
    """The amounts among `written` (numbers of `text`), each with what its context says."""
    amounts: list[Amount] = []
    last_end = 0
    for w in written:
        amount = _share(text, w) if w.share else _amount(text, w, last_end)
        if amount is not None:
            amounts.append(amount)
            last_end = w.end
    return amounts


def _amount(text: str, w: _Written, last_end: int) -> Amount | None:
    """A number read with the 40 characters around it; None for a number that is no
    amount (a page, a label's number, a year, a date, a count, "1H24")."""
    # long: one number read against the words around it, in the order the cases exclude each other.
    before = text[max(0, w.start - 40) : w.start]
    after = text[w.end : w.end + 40]
    if re.match(r"^[A-Za-z]", after) and not UNIT_WORD.match(after):
        return None  # "1H24", "2Q"
    if _PAGE.search(before) or _LABEL_NUMBER.search(before):
        return None
    cur_match = _CURRENCY.search(before)
    currency_token = cur_match.group("cur") if cur_match else None
    unit_match = UNIT_WORD.match(after)
    if _skipped(text, w, plain=not currency_token and not unit_match):
        return None
    # ("(3.7%)" after a figure is an aside in prose, not a negative share.)
    paren = before.endswith("(") and after.startswith(")")
    if paren and unit_match is None:
        unit_match = UNIT_WORD.match(after[1:])  # "(0.6)%": a negative percentage
    kind, currency, factor = _kind(unit_match, currency_token, after)
    # A minus sign counts only when it is attached ("-173", "-US$173m", "US$-173m"),
    # so a dash used as a separator ("BHP - US$55,658 million") is not a loss.
    minus = bool(re.search(r"(?:^|[\s(])[-−]$|\bminus\s+$", before, re.IGNORECASE))
    if cur_match:
        minus = minus or bool(cur_match.group("neg"))
        minus = minus or bool(re.search(r"(?:^|[\s(])[-−]$", before[: cur_match.start()]))
    # "a loss of US$203 million" is negative; in "from a loss to a profit of US$213
    # million" the nearest result word is "profit", so 213 is not.
    words = _RESULT_WORD.findall(text[last_end : w.start])
    loss = bool(words and words[-1].lower() in ("loss", "losses", "deficit"))
    return Amount(
        value=w.value,
        decimals=w.decimals,
        kind=kind,
        currency=currency,
        factor=factor,
        negative=paren or minus or loss,
        sign_known=paren or minus,
        approx=bool(APPROX.search(before)),
        start=w.start,
        end=w.end,
        words=w.digits is None,
        side=_side(before),
    )


def _kind(
    unit: "re.Match[str] | None", currency_token: str | None, after: str
) -> tuple[str, str | None, float | None]:
    """An amount's kind, currency and factor, from its unit word or its currency sign."""
    currency = _currency(currency_token) if currency_token else None
    if unit:
        kind, unit_currency, factor = _unit_of(unit.group("u"), currency, after)
        return kind, unit_currency or currency, factor
    if currency_token:
        return (
            ("per_share", currency, 100.0) if PER_SHARE.match(after) else ("money", currency, None)
        )
    return "bare", None, None


def unit_after(text: str) -> "re.Match[str] | None":
    """The unit words right after a number ("%", " million", " Mt", " US cents"), as the
    numeric check reads them; None when there are none."""
    return UNIT_WORD.match(text)
