"""Personal data in user text: find it, and the token format that stands in for it.

The API replaces every match with a token before anything is stored or a workflow
starts (`api.pii`), so Temporal history, logs, caches, the decision record and metric
labels only ever hold tokens. This module is pure: patterns, checksums and the token
syntax, no storage.

Hand-written because the well-kept detectors (Presidio and friends) pull in spaCy
models that would be downloaded at run time, and this product needs exactly five
kinds with their checksums: email, phone (Australian and international), payment card
(Luhn), bank account (BSB + account, IBAN with its mod-97 check) and Australian tax
file number (its weighted mod-11 check). A checksum keeps a nine-digit figure from
being taken for a TFN (one in eleven would pass, so figures with thousands separators
never match: the patterns accept only spaces or hyphens between digit groups).
"""

import re
from dataclasses import dataclass
from enum import StrEnum


class PiiKind(StrEnum):
    EMAIL = "email"
    CARD = "card"
    TFN = "tfn"
    BANK_ACCOUNT = "account"
    PHONE = "phone"


@dataclass(frozen=True, slots=True)
class Match:
    kind: PiiKind
    start: int
    end: int
    value: str


TOKEN = re.compile(r"⟦(email|card|tfn|account|phone):([a-z]{10})⟧")
"""A token in stored text: `⟦email:qzkwbfdmxa⟧`. Letters only after the colon, so no
figure or year parser ever reads digits out of a token."""


def token_text(kind: PiiKind, token_id: str) -> str:
    return f"⟦{kind.value}:{token_id}⟧"


_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
# 13-19 digits, optionally in groups separated by one space or hyphen.
_CARD = re.compile(r"(?<!\d)(?<!\d[.,])\d(?:[ -]?\d){12,18}(?!\d|[.,]\d)")
# Nine digits (or the older eight), plain or as 3-3-3 groups.
_TFN = re.compile(r"(?<!\d)(?<!\d[.,])(?:\d{3}[ -]?\d{3}[ -]?\d{3}|\d{8})(?!\d|[.,]\d)")
# A BSB (6 digits, usually 3-3) followed by an account number of 5-10 digits.
_BSB_ACCOUNT = re.compile(r"(?<!\d)(?<!\d[.,])\d{3}[ -]?\d{3}[ /-]+\d{5,10}(?!\d|[.,]\d)")
# An account number a keyword announces: "account number 12345678", "acct no. 1234 5678".
_KEYWORD_ACCOUNT = re.compile(
    r"(?i)\b(?:bank\s+)?(?:account|acct)\s*(?:number|no\.?|#)?\s*[:=]?\s*"
    r"(\d(?:[ -]?\d){5,11})(?!\d|[.,]\d)"
)
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
# Digits that touch other digits across "." or "," are part of a figure (1,234.5), so
# the patterns require a boundary that is neither; a trailing comma or full stop is
# punctuation.
# A phone number starts with + (international) or 0 (Australian trunk prefix), or is a
# 1300/1800 service number; 8-12 digits in all, groups separated by space, hyphen,
# dot or brackets. Figures in the reports never start with 0 or +.
_PHONE = re.compile(
    r"(?<![\w])(?<!\d[.,])(?:\+\d{1,3}[ .-]?(?:\(0?\d{1,4}\)|\d{1,4})|\(0\d\)|0\d{1,3}|1[38]00)"
    r"(?:[ .-]?\d){5,10}(?!\d|[.,]\d)"
)


def luhn_valid(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        n = int(ch)
        if i % 2 == 1:
            n = n * 2 - 9 if n > 4 else n * 2
        total += n
    return total % 10 == 0


_TFN_WEIGHTS = {8: (10, 7, 8, 4, 6, 3, 5, 1), 9: (1, 4, 3, 7, 5, 8, 6, 9, 10)}


def tfn_valid(digits: str) -> bool:
    weights = _TFN_WEIGHTS.get(len(digits))
    if weights is None:
        return False
    return sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 11 == 0


def iban_valid(text: str) -> bool:
    compact = text.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def find(text: str) -> list[Match]:
    """Every piece of personal data in `text`, in order, none overlapping.

    Earlier kinds win an overlap: an email's digits are not also a phone number, a
    Luhn-valid 16-digit run is a card and not an account.
    """
    found: list[Match] = []

    def free(start: int, end: int) -> bool:
        return all(end <= m.start or start >= m.end for m in found)

    def add(kind: PiiKind, start: int, end: int) -> None:
        if free(start, end):
            found.append(Match(kind, start, end, text[start:end]))

    for m in _EMAIL.finditer(text):
        add(PiiKind.EMAIL, m.start(), m.end())
    for m in _CARD.finditer(text):
        if luhn_valid(_digits(m.group())):
            add(PiiKind.CARD, m.start(), m.end())
    for m in _IBAN.finditer(text):
        if iban_valid(m.group()):
            add(PiiKind.BANK_ACCOUNT, m.start(), m.end())
    for m in _TFN.finditer(text):
        if tfn_valid(_digits(m.group())):
            add(PiiKind.TFN, m.start(), m.end())
    for m in _BSB_ACCOUNT.finditer(text):
        add(PiiKind.BANK_ACCOUNT, m.start(), m.end())
    for m in _KEYWORD_ACCOUNT.finditer(text):
        add(PiiKind.BANK_ACCOUNT, m.start(1), m.end(1))
    for m in _PHONE.finditer(text):
        if 8 <= len(_digits(m.group())) <= 13:
            add(PiiKind.PHONE, m.start(), m.end())
    return sorted(found, key=lambda m: m.start)


def normalised(kind: PiiKind, value: str) -> str:
    """The form two spellings of one value share (digits only, a lower-case email)."""
    if kind == PiiKind.EMAIL:
        return value.lower()
    if kind == PiiKind.BANK_ACCOUNT and any(ch.isalpha() for ch in value):
        return value.replace(" ", "").upper()
    return _digits(value)


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
