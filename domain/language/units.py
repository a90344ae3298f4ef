"""Units and currencies: the one table of how a text writes money and quantities, and the
scale and currency a question asks its figures in ("in billions", "in Australian dollars").

Every reader uses these tables: the question reader (`requested_currency`), the amounts
an answer claims and a report prints (`domain.language.amounts`), the facts and the table
units (`domain.reports.figures`), the PDF statement reader (`ingestion.statements`), the
numeric check's labels, personal-data and memory rules. A currency added to
`CURRENCIES` is known to all of them: its sign before a figure, its code in a header
("GBP m"), its name asked for ("in pounds"), its minor unit per share.
"""

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Currency:
    """One currency as texts write it."""

    sign: str
    """How a figure of it is written and stated ("US$", "€"): the currency of a fact."""
    name: str
    """What a question asking for it reads back as ("US$", "euros")."""
    codes: tuple[str, ...]
    """Its ISO codes as written in headers and text ("USD")."""
    letters: tuple[str, ...] = ()
    """The capitals a "$" is written after ("US" of "US$", "A" and "AU" of "A$")."""
    symbols: tuple[str, ...] = ()
    """A sign of its own ("€", "£"), beside `sign`."""
    words: str = ""
    """Its names in words, as a regular expression ("Australian dollars?")."""
    cents: str = ""
    """Its minor unit as a per-share figure is written after a number ("US cents"), as a
    regular expression; empty when it has none in use."""
    key: str = ""
    """The prefix of its table unit keys ("us$" of "us$m"); the sign lowered if empty."""
    minor: str = ""
    """The table unit key of its minor unit per share ("us cents"), or empty."""
    minor_words: str = ""
    """How a figure in the minor unit reads after its number (" US cents per share")."""

    @property
    def prefix(self) -> str:
        return self.key or self.sign.lower()

    def patterns(self) -> list[str]:
        """Every way a text names it before or instead of a figure, as regular expressions."""
        found = [re.escape(code) + "(?![A-Za-z])" for code in self.codes]
        # "US $" is US$; "A $6.3 billion" opening a sentence is an article, not A$.
        found += [re.escape(s) + (r"\s?\$" if len(s) > 1 else r"\$") for s in self.letters]
        return found + [re.escape(symbol) for symbol in self.symbols]


# Why a table written here rather than a library: babel's and py-moneyed's currency data
# has no "A$"/"US$" forms and no company-report scales ("US$'000", "A cents per share").
CURRENCIES: tuple[Currency, ...] = (
    Currency(
        sign="US$",
        name="US$",
        codes=("USD",),
        letters=("US", "U.S."),
        words=r"US\s*dollars?|U\.S\.\s*dollars?|American\s+dollars?",
        cents=r"US\s+cents|US¢",
        key="us$",
        minor="us cents",
        minor_words=" US cents per share",
    ),
    Currency(
        sign="A$",
        name="A$",
        codes=("AUD",),
        letters=("A", "AU"),
        words=r"Australian\s+dollars?|Aussie\s+dollars?",
        cents=r"Australian\s+cents|A\s?cents|A¢",
        key="a$",
        minor="a cents",
        minor_words=" Australian cents per share",
    ),
    Currency(
        sign="€",
        name="euros",
        codes=("EUR",),
        symbols=("€",),
        words=r"euros?",
        cents=r"euro\s+cents",
        minor="euro cents",
        minor_words=" euro cents per share",
    ),
    Currency(
        sign="£",
        name="pounds sterling",
        codes=("GBP",),
        symbols=("£",),
        words=r"pounds?(?:\s+sterling)?|sterling",
        cents=r"pence",
        minor="pence",
        minor_words=" pence per share",
    ),
    Currency(sign="¥", name="yen", codes=("JPY",), symbols=("¥",), words=r"(?:Japanese\s+)?yen"),
    Currency(sign="CN¥", name="yuan", codes=("CNY", "RMB"), words=r"(?:Chinese\s+)?yuan|renminbi"),
    Currency(sign="R", name="rand", codes=("ZAR",), words=r"(?:South\s+African\s+)?rand"),
    Currency(
        sign="C$",
        name="Canadian dollars",
        codes=("CAD",),
        letters=("C", "CA"),
        words=r"Canadian\s+dollars?",
    ),
    Currency(
        sign="NZ$",
        name="New Zealand dollars",
        codes=("NZD",),
        letters=("NZ",),
        words=r"New\s+Zealand\s+dollars?",
    ),
    Currency(
        sign="₹", name="rupees", codes=("INR",), symbols=("₹",), words=r"(?:Indian\s+)?rupees?"
    ),
    Currency(
        sign="HK$",
        name="Hong Kong dollars",
        codes=("HKD",),
        letters=("HK",),
        words=r"Hong\s+Kong\s+dollars?",
    ),
    Currency(
        sign="S$",
        name="Singapore dollars",
        codes=("SGD",),
        letters=("S",),
        words=r"Singapore\s+dollars?",
    ),
)


@dataclass(frozen=True)
class Scale:
    """A scale of money: its table key suffix and its factor to millions."""

    suffix: str
    factor: float
    word: str
    """How a figure at this scale reads after its number (" million"; "" for whole units)."""
    words: tuple[str, ...]
    """As written after a number in text ("million", "bn")."""
    headers: tuple[str, ...]
    """As written after a currency in a table's unit cell ("m", "millions", "'000")."""


SCALES: tuple[Scale, ...] = (
    Scale("1", 0.000001, "", (), ("(whole dollars)",)),
    Scale("k", 0.001, " thousand", ("thousand",), ("'000", "000", "thousand", "thousands")),
    Scale("m", 1.0, " million", ("million", "mn", "m"), ("m", "million", "millions", "mn")),
    Scale("bn", 1000.0, " billion", ("billion", "bn", "b"), ("bn", "billion", "b")),
    Scale("tn", 1_000_000.0, " trillion", ("trillion",), ()),
)


@dataclass(frozen=True)
class Quantity:
    """A unit of a kind other than money: what it measures and its factor to its base."""

    key: str
    kind: str
    factor: float
    base: str
    words: tuple[str, ...]
    """As written after a number ("million tonnes", "Mt")."""
    headers: tuple[str, ...] = ()
    """As written alone in a table's unit cell, besides its key ("million tonnes")."""
    shown: str = ""
    """How a figure in it reads after its number (" Mt", " Moz", "%")."""
    table: bool = True
    """Whether a table's figures are kept in it (a table in tonnes or ounces is read as
    an open unit of its own)."""


QUANTITIES: tuple[Quantity, ...] = (
    Quantity("mt", "mass", 1.0, "mt", ("million tonnes", "mt", "mtpa"), ("million tonnes",), " Mt"),
    Quantity("kt", "mass", 0.001, "mt", ("thousand tonnes", "kt"), ("thousand tonnes",), " kt"),
    Quantity("t", "mass", 0.000001, "mt", ("tonnes",), table=False),
    Quantity("koz", "gold", 1.0, "koz", ("thousand ounces", "koz"), ("thousand ounces",), " koz"),
    Quantity("moz", "gold", 1000.0, "koz", ("million ounces", "moz"), ("million ounces",), " Moz"),
    Quantity("oz", "gold", 0.001, "koz", ("ounces", "oz"), table=False),
    Quantity(
        "%", "percent", 1.0, "%", ("%", "per cent", "percent", "pct"), ("per cent", "percent"), "%"
    ),
)


def quantity_of(word: str) -> Quantity | None:
    """The quantity a unit word after a number names ("Mt", "per cent"), or None."""
    folded = " ".join(word.lower().split())
    return next((q for q in QUANTITIES if folded in q.words), None)


def scale_of(word: str) -> Scale | None:
    """The money scale a word after a number names ("billion", "m"), or None."""
    folded = " ".join(word.lower().split())
    return next((s for s in SCALES if folded in s.words), None)


def currency_of(token: str) -> Currency | None:
    """The currency a sign, code or name written names ("USD", "A$", "AU $", "€"), or None
    (a bare "$" names none: its currency is the report's or the context's)."""
    folded = " ".join(token.split())
    for currency in CURRENCIES:
        if any(re.fullmatch(p, folded, re.IGNORECASE) for p in currency.patterns()):
            return currency
    return None


def by_sign(sign: str | None) -> Currency | None:
    """The currency a fact's or an amount's currency sign is."""
    return next((c for c in CURRENCIES if c.sign == sign), None)


def _alternatives(patterns: list[str]) -> str:
    return "|".join(sorted(patterns, key=len, reverse=True))


SIGN = (
    r"(?:\b(?:"
    + _alternatives([p for c in CURRENCIES for p in c.patterns() if p[:1].isalpha()])
    + r")|"
    + _alternatives([p for c in CURRENCIES for p in c.patterns() if not p[:1].isalpha()] + [r"\$"])
    + ")"
)
"""Any currency written before a figure: a sign, a code or "$" ("US$", "US $", "AUD", "€").
A currency's letters are capitals joined to its sign: the article of "a $6.3 billion
decrease" is no Australian dollar (callers match it case-sensitively)."""

MARK = _alternatives(
    [re.escape(s) + r"\$" for c in CURRENCIES for s in c.letters]
    + [re.escape(s) for c in CURRENCIES for s in c.symbols]
    + [r"\$"]
)
"""A currency sign as a table prints it glued to a number ("$1,234", "A$", "£5")."""

CODES = _alternatives([re.escape(code) for c in CURRENCIES for code in c.codes])
"""Any currency's ISO code ("USD", "GBP")."""

CURRENCY_WORDS = _alternatives([c.words for c in CURRENCIES if c.words])
"""Any currency's name in words ("US dollars", "euros", "pounds sterling")."""

CENTS = _alternatives([c.cents for c in CURRENCIES if c.cents])
"""Any currency's minor unit written after a per-share figure ("US cents", "pence")."""


def cents_currency(words: str) -> Currency | None:
    """The currency whose minor unit `words` name ("Australian cents" → A$), or None."""
    folded = " ".join(words.split())
    return next(
        (c for c in CURRENCIES if c.cents and re.fullmatch(c.cents, folded, re.IGNORECASE)),
        None,
    )


_SCALE = re.compile(
    rf"\b(?:in|into|as)\s+(?:{SIGN}\s*(?P<a>billions?|bn|b|millions?|mn|m)|"
    r"(?P<b>billions?|millions?|bn|mn))\b",
    re.IGNORECASE,
)


def requested_scale(text: str) -> str | None:
    """The money scale a question asks its figures in ("in billions" → "bn", "in US$m"
    → "m"), or None."""
    match = _SCALE.search(text)
    if not match:
        return None
    word = (match.group("a") or match.group("b") or "").lower()
    return "bn" if word.startswith("b") else "m"


def _named(currency: Currency) -> str:
    return "|".join(p for p in (currency.words, *currency.patterns()) if p)


_CURRENCY = re.compile(
    r"(?:\b(?:in|into|to|as)\s+(?:the\s+)?(?:"
    + "|".join(f"(?P<c{i}>{_named(c)})" for i, c in enumerate(CURRENCIES))
    + r")(?![A-Za-z])"
    + r"|(?P<t>\b(?:"
    + "|".join(_named(c) for c in CURRENCIES)
    + r")\s+terms\b))",
    re.IGNORECASE,
)


def requested_currency(text: str) -> str | None:
    """The currency a question asks its figures in ("in euros" → "euros", "in AUD" →
    "A$"), or None. Only a currency asked for counts, not one quoted in a figure."""
    match = _CURRENCY.search(text)
    if not match:
        return None
    if match.group("t"):
        term = match.group("t")
        for currency in CURRENCIES:
            if re.match(_named(currency), term, re.IGNORECASE):
                return currency.name
        return None
    index = int((match.lastgroup or "c0")[1:])
    return CURRENCIES[index].name


def _written(words: str) -> str:
    pattern = r"\s+".join(re.escape(w) for w in words.split())
    return pattern + (r"\b" if words[-1:].isalnum() else "")


UNIT_WORDS = _alternatives(
    [_written(w) for q in QUANTITIES for w in q.words]
    + [_written(w) for s in SCALES for w in s.words]
)
"""Any quantity or money scale written after a number ("million tonnes", "bn", "%")."""

SIGN_BEFORE = re.compile(rf"{SIGN}\s?$")
"""A currency written right before a figure."""
