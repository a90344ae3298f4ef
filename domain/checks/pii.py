"""Personal data in user text: find it, and the token format that stands in for it.

The API replaces every match with a token before anything is stored or a workflow
starts (`api.redaction`), so Temporal history, logs, caches, the decision record and metric
labels only ever hold tokens. Ids from the client (user, conversation, Idempotency-Key)
are checked with the same `find`, and refused rather than tokenised. This module is
pure: normalisation, patterns, checksums and the token syntax, no storage.

Hand-written because the well-kept detectors (Presidio and friends) pull in spaCy
models that would be downloaded at run time, and this product needs five numbered
kinds with their checksums: email, phone (Australian and international), payment card
(Luhn and the card networks' prefixes and lengths), bank account (BSB + account, IBAN
with its country length and mod-97 check) and Australian tax file number (its weighted
mod-11 check). Four more are written in words and found by their shape
(`domain.checks.personal_words`): a name with a title, a date of birth, a health detail and a
street address.

How a text is read, in one pass each, so the time is linear in its length:

1. **Normalised first** (`_normalise`): Unicode NFKC (full-width digits and `＠` become
   ASCII), zero-width and other format characters dropped, every dash a hyphen, every run
   of white space one space, `[at]`/`(at)` and `[dot]`/`(dot)` read as `@` and `.`. A map
   from each normalised character back to the original keeps every match's span in the
   text as typed, so the replacement covers exactly what the person wrote.
2. **Digit groups joined into runs**: groups joined by one to three separators (space,
   hyphen, slash, underscore, or a dot between groups that are not a decimal), maybe led
   by `+` or an area code in brackets. Digits touching digits across one `,` or `.` are a
   figure (1,234.5) and never part of a run. A run may touch letters before it
   ("card4111…", "tfn865414088"): then it counts as a card on its checksum and prefix, and
   as any other kind only when those letters are that kind's keyword.
3. **Windows of a run on group boundaries**, at most `_MAX_WINDOW_DIGITS` digits, each
   judged by `_kind_of`: checksums, shapes and context decide, so figures, years, dates,
   timestamps, UUIDs and report numbers stay what they are.
"""

import bisect
import re
import unicodedata
from dataclasses import dataclass
from enum import StrEnum

from domain.checks import personal_words
from domain.language.units import SIGN


class PiiKind(StrEnum):
    EMAIL = "email"
    CARD = "card"
    TFN = "tfn"
    BANK_ACCOUNT = "account"
    PHONE = "phone"
    # Written in words (`domain.checks.personal_words`): no checksum, found by their shape.
    ADDRESS = "address"
    BIRTH = "birth"
    HEALTH = "health"
    NAME = "name"


WORD_KINDS = frozenset({PiiKind.ADDRESS, PiiKind.BIRTH, PiiKind.HEALTH, PiiKind.NAME})


@dataclass(frozen=True, slots=True)
class Match:
    kind: PiiKind
    start: int
    end: int
    value: str


TOKEN = re.compile(r"⟦(email|card|tfn|account|phone|address|birth|health|name):([a-z]{10})⟧")
"""A token in stored text: `⟦email:qzkwbfdmxa⟧`. Letters only after the colon, so no
figure or year parser ever reads digits out of a token."""

DESCRIPTIONS = {
    PiiKind.EMAIL: "an email address",
    PiiKind.CARD: "a payment card number",
    PiiKind.TFN: "a tax file number",
    PiiKind.BANK_ACCOUNT: "a bank account number",
    PiiKind.PHONE: "a phone number",
    PiiKind.ADDRESS: "a street address",
    PiiKind.BIRTH: "a date of birth",
    PiiKind.HEALTH: "a health detail",
    PiiKind.NAME: "a person's name",
}
"""What each kind is called in a sentence a person reads ("looks like a phone number")."""


def token_text(kind: PiiKind, token_id: str) -> str:
    return f"⟦{kind.value}:{token_id}⟧"


# ---- normalisation ---------------------------------------------------------------

_OBFUSCATED = re.compile(r"(?i)[\[({](at|dot)[\])}]\s*")


@dataclass(frozen=True, slots=True)
class _Normalised:
    text: str
    starts: list[int]
    """For each character of `text`, where the original character it came from starts."""
    ends: list[int]
    """... and where that original character (or the run of them) ends."""

    def span(self, start: int, end: int) -> tuple[int, int]:
        """The original text's span of the normalised span [start, end)."""
        return self.starts[start], self.ends[end - 1]


def _normalise(text: str) -> _Normalised:
    # long: one case per way a personal value is written.
    out: list[str] = []
    starts: list[int] = []
    ends: list[int] = []

    def emit(chars: str, start: int, end: int) -> None:
        for ch in chars:
            out.append(ch)
            starts.append(start)
            ends.append(end)

    i = 0
    n = len(text)
    while i < n:
        ch = text[i]
        if ch in "[({" and (m := _OBFUSCATED.match(text, i)) is not None:
            if out and out[-1] == " ":  # "jo [at] example": the space before goes too
                out.pop()
                starts.pop()
                ends.pop()
            emit("@" if m.group(1).lower() == "at" else ".", i, m.end())
            i = m.end()
            continue
        if ch.isspace():
            j = i + 1
            while j < n and text[j].isspace():
                j += 1
            emit(" ", i, j)
            i = j
            continue
        category = unicodedata.category(ch)
        if category == "Cf":  # zero-width space, joiners, soft hyphen, BOM: invisible,
            if ends:  # and part of whatever they follow, so a match takes them along
                ends[-1] = i + 1
            i += 1
            continue
        if category == "Pd" or ch == "\u2212":
            emit("-", i, i + 1)
        elif ch.isascii():
            emit(ch, i, i + 1)
        else:
            folded = unicodedata.normalize("NFKC", ch)
            emit(" " if folded.isspace() else folded, i, i + 1)
        i += 1
    return _Normalised("".join(out), starts, ends)


# ---- checksums and shapes ----------------------------------------------------------


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


# The card networks' issuer prefixes (as ranges of the leading digits) and the lengths
# their numbers have: a Luhn-valid run of the wrong shape (a timestamp, an order number)
# is not a card. From the networks' published IIN ranges.
_CARD_RANGES: tuple[tuple[str, str, frozenset[int]], ...] = (
    ("4", "4", frozenset({13, 16, 19})),  # Visa
    ("51", "55", frozenset({16})),  # Mastercard
    ("2221", "2720", frozenset({16})),  # Mastercard 2-series
    ("2200", "2204", frozenset(range(16, 20))),  # Mir
    ("34", "34", frozenset({15})),  # American Express
    ("37", "37", frozenset({15})),
    ("300", "305", frozenset(range(14, 20))),  # Diners Club
    ("36", "36", frozenset(range(14, 20))),
    ("38", "39", frozenset(range(16, 20))),
    ("3528", "3589", frozenset(range(16, 20))),  # JCB
    ("6011", "6011", frozenset(range(16, 20))),  # Discover
    ("644", "649", frozenset(range(16, 20))),
    ("65", "65", frozenset(range(16, 20))),
    ("62", "62", frozenset(range(16, 20))),  # UnionPay
    ("60", "69", frozenset(range(13, 20))),  # Maestro and other 6-series
    ("50", "50", frozenset(range(13, 20))),  # Maestro
    ("56", "58", frozenset(range(13, 20))),
    ("81", "82", frozenset({16})),  # RuPay
)


def card_shaped(digits: str) -> bool:
    """Whether some card network issues numbers with this prefix and length."""
    for low, high, lengths in _CARD_RANGES:
        head = digits[: len(low)]
        if len(digits) in lengths and low <= head <= high:
            return True
    return False


_TFN_WEIGHTS = {8: (10, 7, 8, 4, 6, 3, 5, 1), 9: (1, 4, 3, 7, 5, 8, 6, 9, 10)}


def tfn_valid(digits: str) -> bool:
    weights = _TFN_WEIGHTS.get(len(digits))
    if weights is None:
        return False
    return sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 11 == 0


# IBAN lengths by country (ISO 13616 registry): a country code the registry does not
# know, or the wrong length for it, is not an IBAN whatever its check digits say.
_IBAN_LENGTHS = {
    "AD": 24,
    "AE": 23,
    "AL": 28,
    "AT": 20,
    "AZ": 28,
    "BA": 20,
    "BE": 16,
    "BG": 22,
    "BH": 22,
    "BI": 27,
    "BR": 29,
    "BY": 28,
    "CH": 21,
    "CR": 22,
    "CY": 28,
    "CZ": 24,
    "DE": 22,
    "DJ": 27,
    "DK": 18,
    "DO": 28,
    "EE": 20,
    "EG": 29,
    "ES": 24,
    "FI": 18,
    "FK": 18,
    "FO": 18,
    "FR": 27,
    "GB": 22,
    "GE": 22,
    "GI": 23,
    "GL": 18,
    "GR": 27,
    "GT": 28,
    "HR": 21,
    "HU": 28,
    "IE": 22,
    "IL": 23,
    "IQ": 23,
    "IS": 26,
    "IT": 27,
    "JO": 30,
    "KW": 30,
    "KZ": 20,
    "LB": 28,
    "LC": 32,
    "LI": 21,
    "LT": 20,
    "LU": 20,
    "LV": 21,
    "LY": 25,
    "MC": 27,
    "MD": 24,
    "ME": 22,
    "MK": 19,
    "MN": 20,
    "MR": 27,
    "MT": 31,
    "MU": 30,
    "NI": 28,
    "NL": 18,
    "NO": 15,
    "OM": 23,
    "PK": 24,
    "PL": 28,
    "PS": 29,
    "PT": 25,
    "QA": 29,
    "RO": 24,
    "RS": 22,
    "RU": 33,
    "SA": 24,
    "SC": 31,
    "SD": 18,
    "SE": 24,
    "SI": 19,
    "SK": 24,
    "SM": 27,
    "SO": 23,
    "ST": 25,
    "SV": 28,
    "TL": 23,
    "TN": 24,
    "TR": 26,
    "UA": 29,
    "VA": 22,
    "VG": 24,
    "XK": 20,
    "YE": 30,
}


def iban_valid(text: str) -> bool:
    compact = re.sub(r"[ -]", "", text).upper()
    if _IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact[2:4].isdigit():
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


def _iban_prefix(candidate: str) -> int:
    """The length of the longest valid IBAN that `candidate` starts with, ending on one of
    its groups ("GB82 WEST 1234 5698 7654 32 and" holds one up to "32"), else 0."""
    ends = [m.end() for m in re.finditer(r"[A-Za-z0-9]+", candidate)]
    for end in reversed(ends):
        if iban_valid(candidate[:end]):
            return end
    return 0


def _years(groups: list[str]) -> bool:
    """Every group a plausible year: "2017 2018 2019 2020" is a list of years."""
    return all(len(g) == 4 and 1900 <= int(g) <= 2100 for g in groups)


# ---- patterns (each linear: a start position is tried only where a match can begin) -----

_EMAIL_LOCAL = "A-Za-z0-9._%+-"
_EMAIL = re.compile(
    rf"(?<![{_EMAIL_LOCAL}])[{_EMAIL_LOCAL}]++ ?@ ?[A-Za-z0-9-]++(?:\.[A-Za-z0-9-]++)*+"
)
"""Possessive throughout and started only where a local part can begin, so a long
run of address-like characters is read once. The domain must end in letters
(`_EMAIL_DOMAIN`), checked on the match."""
_EMAIL_DOMAIN = re.compile(r"\.[A-Za-z]{2,}$")
_IBAN = re.compile(
    r"(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}(?:[ -]?[A-Za-z0-9]{4}){2,7}"
    r"(?:[ -]?[A-Za-z0-9]{1,3})?(?![A-Za-z0-9])"
)
_UUID = re.compile(
    r"(?<![A-Za-z0-9])(?:[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-"
    r"[0-9A-Fa-f]{12}|[0-9A-Fa-f]{32}|[0-9A-Fa-f]{40}|[0-9A-Fa-f]{64})(?![A-Za-z0-9])"
)
"""UUIDs and hex digests: identifiers, whose digit groups are never personal data."""
_GROUP = re.compile(r"\d+")
_SEPARATORS = frozenset(" -/_.")
_MAX_GAP = 3
_MAX_WINDOW_DIGITS = 19
"""The longest card number; no personal value read from a run of digits is longer."""
_MIN_DIGITS = 8
"""The shortest personal value read from digits (an 8-digit TFN or phone number)."""
_CONTEXT = 40
"""How many characters before a value are read for its keyword ("TFN", "BSB")."""

_TFN_WORDS = re.compile(r"(?i)\b(?:tfn|tax\s?file)")
_BSB_WORDS = re.compile(r"(?i)\bbsb\b")
_PHONE_WORDS = re.compile(r"(?i)\b(?:ph|phone|tel|telephone|mob|mobile|cell|call|fax|contact)\b")
_COMPANY_NUMBER = re.compile(r"(?i)\b(?:acn|abn|arbn)\W*$")
_UNIT_AFTER = re.compile(
    r"(?i) ?(?:%|t\b|kt\b|mt\b|oz\b|koz\b|moz\b|tonnes?\b|million\b|"
    r"billion\b|m\b|bn\b|km\b|ha\b|people\b|employees\b|shares\b)"
)
# A currency before a number makes it an amount ("US$", "€"; "US" or "A" alone too).
_CURRENCY_BEFORE = re.compile(rf"(?:{SIGN}|\b(?:US|A|AU)) ?$")
_ACCOUNT_BEFORE = re.compile(r"(?i)\b(?:account|acct|acc)\b\W{0,3}(?:number|num|no\.?)?\W{0,3}$")
_KEYWORD_ACCOUNT = re.compile(
    r"(?i)\b(?:bank )?(?:account|acct|acc)(?: ?(?:number|num|no\.?|#))? ?[:=]? ?"
    r"(\d(?:[ -]?\d){5,11})(?!\d|[.,]\d)"
)
_GLUE_KEYWORDS = {
    PiiKind.TFN: re.compile(r"(?i)(?:tfn|taxfile)$"),
    PiiKind.BANK_ACCOUNT: re.compile(r"(?i)(?:bsb|acct|acc|account)$"),
    PiiKind.PHONE: re.compile(r"(?i)(?:ph|phone|tel|mob|mobile|cell|fax)$"),
}


@dataclass(frozen=True, slots=True)
class _Group:
    start: int
    end: int
    digits: str


@dataclass(frozen=True, slots=True)
class _Run:
    groups: list[_Group]
    start: int
    """Where the run begins: its first group, or a leading `+` or bracketed area code."""
    plus: bool
    bracketed: bool
    glued: str
    """The letters the run touches on its left ("card" in "card4111…"), else ''."""
    separated: bool
    """Whether any two groups are joined by a separator (not one unbroken group)."""


def _joins(text: str, left: _Group, right: _Group) -> bool:
    """Whether the gap between two groups is a separator, so both belong to one run."""
    gap = text[left.end : right.start]
    if not 1 <= len(gap) <= _MAX_GAP or any(ch not in _SEPARATORS for ch in gap):
        return False
    if gap == ".":  # a dot joins groups of a phone number (0412.345.678), not a decimal
        return len(left.digits) >= 2 and len(right.digits) >= 3
    return gap.count(".") <= 1


def _figure_joint(text: str, left: _Group, right: _Group) -> bool:
    """Digits touching digits across one `,` or `.`: 1,234.5 is one figure."""
    return right.start - left.end == 1 and text[left.end] in ",."


def _runs(text: str) -> list[_Run]:
    groups = [_Group(m.start(), m.end(), m.group()) for m in _GROUP.finditer(text)]
    # A group joined to its neighbour as part of a figure never starts or joins a run.
    figure = [False] * len(groups)
    for k in range(1, len(groups)):
        if _figure_joint(text, groups[k - 1], groups[k]) and not _joins(
            text, groups[k - 1], groups[k]
        ):
            figure[k - 1] = figure[k] = True
    runs: list[_Run] = []
    k = 0
    while k < len(groups):
        if figure[k]:
            k += 1
            continue
        members = [groups[k]]
        while (
            k + 1 < len(groups) and not figure[k + 1] and _joins(text, members[-1], groups[k + 1])
        ):
            k += 1
            members.append(groups[k])
        k += 1
        runs.append(_lead(text, members))
    return runs


_AREA_CODE = re.compile(r"\(0?\d{1,4}\) ?$")


def _glued(text: str, start: int) -> str:
    """The letters `start` touches on its left ("card" in "card4111"), "?" when those
    letters are the tail of a longer word with digits in it, else ''."""
    j = start
    while j > 0 and text[j - 1].isalpha() and start - j < 16:
        j -= 1
    if j < start and j > 0 and text[j - 1].isalnum():
        return "?"
    return text[j:start]


def _lead(text: str, members: list[_Group]) -> _Run:
    """A run with what comes before its first group: `+`, an area code, or glued letters."""
    start = members[0].start
    plus = bracketed = False
    separated = len(members) > 1
    if start > 0 and text[start - 1] == "+":
        plus, start = True, start - 1
    elif (area := _AREA_CODE.search(text, max(0, start - 8), start)) is not None and (
        area.end() == start
    ):
        # "(02) 9876 5432": the bracketed code is the run's first group.
        bracketed, start, separated = True, area.start(), True
        inner = _GROUP.search(area.group())
        if inner is not None:
            members = [
                _Group(area.start() + inner.start(), area.start() + inner.end(), inner.group()),
                *members,
            ]
    return _Run(members, start, plus, bracketed, _glued(text, start), separated)


def _kind_of(
    run: _Run, window: list[_Group], at_start: bool, anchored: bool, text: str
) -> PiiKind | None:
    """What one window of a run's groups is, if it is personal data at all.

    Shapes first (cheap, and most windows fail them), context only for a candidate. A
    window that starts inside a run, after groups that are no value (the "04 2020 2224"
    in "08-04-2020-2224", a date and a time), can only be a card: its checksum and
    prefix are evidence enough, a phone number's or a TFN's shape alone is not.
    """
    # long: the shapes tried cheapest first, each returning as soon as it decides.
    groups = [g.digits for g in window]
    digits = "".join(groups)
    n = len(digits)
    if n < _MIN_DIGITS:
        return None
    glued = run.glued if at_start else ""
    plus = run.plus and at_start
    shape = [len(g) for g in groups]
    bsb_shape = shape[:2] == [3, 3] and len(groups) >= 3 and 5 <= sum(shape[2:]) <= 10
    if bsb_shape and anchored and _BSB_WORDS.search(_before(run, window, at_start, text)):
        return PiiKind.BANK_ACCOUNT
    card = 13 <= n <= 19 and not plus and card_shaped(digits) and luhn_valid(digits)
    if card and not _years(groups):
        return PiiKind.CARD
    if glued == "?" or not anchored:  # inside a word or a longer number: only a card
        return None
    tfn_shape = (
        not plus
        and ((n == 9 and shape in ([9], [3, 3, 3])) or (n == 8 and shape == [8]))
        and tfn_valid(digits)
    )
    phone_shape = _phone_shape(digits, shape, plus, run.bracketed and at_start)
    if not (tfn_shape or bsb_shape or phone_shape):
        return None
    before = _before(run, window, at_start, text)
    if _COMPANY_NUMBER.search(before):  # ACN 004 028 077: a company's public number
        return None
    if tfn_shape and _is_tfn(window, glued, before, text):
        return PiiKind.TFN
    if bsb_shape and glued and _keyword(PiiKind.BANK_ACCOUNT, _BSB_WORDS, glued, before):
        return PiiKind.BANK_ACCOUNT
    return _phone(run, phone_shape, glued, before)


def _keyword(kind: PiiKind, words: "re.Pattern[str]", glued: str, before: str) -> bool:
    """Whether the word that makes a shape this kind stands before it (or, for a value
    glued to a word, is that word)."""
    if glued:
        return _GLUE_KEYWORDS[kind].search(glued) is not None
    return words.search(before) is not None


def _is_tfn(window: list[_Group], glued: str, before: str, text: str) -> bool:
    """A number of a TFN's shape and checksum: a TFN after its keyword, or grouped 3-3-3
    and no figure. Round figures written with spaces (250 000 000) pass the check one time
    in eleven, and so does any figure; without "TFN" or "tax file" before it, a number
    with a unit after it or a currency before it stays a figure."""
    if _keyword(PiiKind.TFN, _TFN_WORDS, glued, before):
        return True
    # Unbroken, eight or nine digits are as likely a date (20221123), a count or an order
    # number; after "account" they are the account's (found by the caller).
    groups = [g.digits for g in window]
    after = text[window[-1].end : window[-1].end + 12]
    round_figure = "".join(groups).endswith("000") or all(g.endswith("00") for g in groups)
    figure = _UNIT_AFTER.match(after) is not None or _CURRENCY_BEFORE.search(before)
    account = _ACCOUNT_BEFORE.search(before) is not None
    grouped = [len(g) for g in groups] == [3, 3, 3]
    return grouped and not glued and not round_figure and not figure and not account


def _phone(run: _Run, phone_shape: str | None, glued: str, before: str) -> PiiKind | None:
    if phone_shape is None:
        return None
    if glued:
        return PiiKind.PHONE if _keyword(PiiKind.PHONE, _PHONE_WORDS, glued, before) else None
    if phone_shape == "needs context" and not (run.separated or _PHONE_WORDS.search(before[-24:])):
        return None
    return PiiKind.PHONE


def _before(run: _Run, window: list[_Group], at_start: bool, text: str) -> str:
    """The `_CONTEXT` characters before a window (before the run's `+` or bracket)."""
    begin = run.start if at_start else window[0].start
    return text[max(0, begin - _CONTEXT) : begin]


def _phone_shape(digits: str, shape: list[int], plus: bool, bracketed: bool) -> str | None:
    """Whether `digits` are shaped like a phone number: Australian numbers by their
    prefix and length, any number written with its `+` country code.

    "needs context" for shapes that are as likely a count or a timestamp when written
    unbroken (1800123456, 61412345678): those need separators or a word saying they
    are a number to call.
    """
    n = len(digits)
    if plus:
        if digits[0] == "0":  # no country code starts with 0 ("+0000" is a UTC offset)
            return None
        if digits.startswith("61"):
            return "yes" if n == 11 and digits[2] in "23478" else None
        return "yes" if 8 <= n <= 15 else None
    if bracketed:
        return "yes" if n == 10 and digits[0] == "0" else None
    # Written in groups, a number's groups after the first (its area code or prefix) are
    # three digits or more: "07/01/2024 04" is a date and an hour.
    if len(shape) > 1 and (shape[0] > 4 or min(shape[1:]) < 3):
        return None
    if n == 10 and digits[0] == "0" and digits[1] in "234578":
        return "yes"
    if n == 10 and digits[0] == "1" and digits[1] in "38" and digits[2:4] == "00":
        return "needs context"
    if n == 11 and digits.startswith("61") and digits[2] in "23478":
        return "needs context"
    return None


def _in_run(run: _Run, text: str) -> list[tuple[PiiKind, int, int]]:
    """The personal values in one run of digit groups, longest first from the left.

    Windows start and end on group boundaries and hold at most `_MAX_WINDOW_DIGITS`
    digits, so each group starts a bounded number of windows: a valid card followed by
    stray digits, or two phone numbers in a row, are each still found, in linear time.
    """
    groups = run.groups
    out = []
    i = 0
    anchored = True  # at the run's start, or right after a value found in it
    while i < len(groups):
        next_i = i + 1
        ends = []
        total = 0
        for j in range(i, len(groups)):
            total += len(groups[j].digits)
            if total > _MAX_WINDOW_DIGITS:
                break
            ends.append(j + 1)
        for j in reversed(ends):
            kind = _kind_of(run, groups[i:j], i == 0, anchored, text)
            if kind is not None:
                begin = run.start if i == 0 else groups[i].start
                out.append((kind, begin, groups[j - 1].end))
                next_i = j
                break
        anchored = next_i != i + 1 or bool(out and out[-1][2] == groups[i].end)
        i = next_i
    return out


def _before_values(text: str, taken: list[tuple[int, int]], start: int, end: int) -> int:
    """Where a detail in words ends once the values found before it are kept whole: a
    detail running into one ("my name is Jo Lee jo@x.com", "treated for asthma call 0412
    ...") ends where it starts (left whole, the value's token would leave the detail's
    words to be found again); one starting inside a value is none (`start`)."""
    k = bisect.bisect_left(taken, (start, start))
    if k > 0 and taken[k - 1][1] > start:
        return start
    if k < len(taken) and taken[k][0] < end:
        end = taken[k][0]
        while end > start and not text[end - 1].isalnum():
            end -= 1
    return end


def find(text: str) -> list[Match]:
    """Every piece of personal data in `text`, in order, none overlapping.

    Spans and values are the text as typed (zero-width characters, full-width digits
    and all). Earlier kinds win an overlap: an email's digits are not also a phone
    number, a Luhn-valid 16-digit run is a card and not an account.
    """
    norm = _normalise(text)
    t = norm.text
    taken: list[tuple[int, int]] = []  # sorted, never overlapping
    found: list[Match] = []

    def free(start: int, end: int) -> bool:
        k = bisect.bisect_left(taken, (start, end))
        return (k == 0 or taken[k - 1][1] <= start) and (k == len(taken) or end <= taken[k][0])

    def add(kind: PiiKind, start: int, end: int) -> None:
        if free(start, end):
            bisect.insort(taken, (start, end))
            a, b = norm.span(start, end)
            found.append(Match(kind, a, b, text[a:b]))

    # Identifiers (UUIDs, digests): nothing inside them is personal data.
    taken.extend((m.start(), m.end()) for m in _UUID.finditer(t))
    for m in _EMAIL.finditer(t):
        if _EMAIL_DOMAIN.search(m.group()):
            add(PiiKind.EMAIL, m.start(), m.end())
    for m in _IBAN.finditer(t):
        if length := _iban_prefix(m.group()):
            add(PiiKind.BANK_ACCOUNT, m.start(), m.start() + length)
    for run in _runs(t):
        for kind, start, end in _in_run(run, t):
            add(kind, start, end)
    for m in _KEYWORD_ACCOUNT.finditer(t):
        if not _years(_GROUP.findall(m.group(1))):
            add(PiiKind.BANK_ACCOUNT, m.start(1), m.end(1))
    for word_kind, start, end in personal_words.spans(t):
        if (end := _before_values(t, taken, start, end)) > start:
            add(PiiKind(word_kind), start, end)
    return sorted(found, key=lambda m: m.start)


def _plain(value: str) -> str:
    return _normalise(value).text


def normalised(kind: PiiKind, value: str) -> str:
    """The form two spellings of one value share (digits only, a lower-case email)."""
    plain = _plain(value)
    if kind in WORD_KINDS:  # "Dr  Jane Smith" and "dr jane smith" are one person
        return " ".join(re.findall(r"\w+", plain.lower()))
    if kind == PiiKind.EMAIL:
        return plain.replace(" ", "").lower()
    if kind == PiiKind.BANK_ACCOUNT and any(ch.isalpha() for ch in plain):
        return re.sub(r"[ -]", "", plain).upper()
    return "".join(ch for ch in plain if ch.isdigit())


def describe(matches: list[Match]) -> str:
    """The kinds found, for a sentence: "a phone number", "an email address and a card"."""
    names = list(dict.fromkeys(DESCRIPTIONS[m.kind] for m in matches))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def replace(text: str, matches: list[Match], tokens: list[str]) -> str:
    """`text` with each match replaced by its token (`tokens` in the same order)."""
    parts: list[str] = []
    at = 0
    for match, token in zip(matches, tokens, strict=True):
        parts.append(text[at : match.start])
        parts.append(token)
        at = match.end
    parts.append(text[at:])
    return "".join(parts)
