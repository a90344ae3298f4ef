"""Personal data in user text: find it, and the token format that stands in for it.

The API replaces every match with a token before anything is stored or a workflow
starts (`api.redaction`), so Temporal history, logs, caches, the decision record and metric
labels only ever hold tokens. This module is pure: patterns, checksums and the token
syntax, no storage.

Hand-written because the well-kept detectors (Presidio and friends) pull in spaCy
models that would be downloaded at run time, and this product needs exactly five
kinds with their checksums: email, phone (Australian and international), payment card
(Luhn), bank account (BSB + account, IBAN with its mod-97 check) and Australian tax
file number (its weighted mod-11 check). Digits are read as runs of groups joined by a
space, hyphen or dot; digits touching digits across "," or "." are a figure and never
match. Checksums, shapes (3-3-3 for a TFN) and context ("BSB", "TFN", "ACN" before the
number) keep figures, year lists and company numbers from being taken for personal data.
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
# An account number a keyword announces: "account number 12345678", "acc 1234 5678".
_KEYWORD_ACCOUNT = re.compile(
    r"(?i)\b(?:bank\s+)?(?:account|acct|acc)\s*(?:number|no\.?|#)?\s*[:=]?\s*"
    r"(\d(?:[ -]?\d){5,11})(?!\d|[.,]\d)"
)
_IBAN = re.compile(r"(?i)\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
# A run of digit groups joined by one space, hyphen or dot, maybe led by "+" or an area
# code in brackets: where cards, TFNs, BSB + account and phone numbers are looked for.
# Digits that touch other digits across "." or "," are part of a figure (1,234.5), so a
# run needs a boundary that is neither; a trailing comma or full stop is punctuation.
_RUN = re.compile(r"(?<![\w+])(?<!\d[.,])(?:\+|\(0?\d{1,4}\)[ .-]?)?\d+(?:[ .-]\d+)*(?!\d|[.,]\d)")
_GROUP = re.compile(r"\d+")
_TFN_WORDS = re.compile(r"(?i)\b(?:tfn|tax\s+file)")
_BSB_WORDS = re.compile(r"(?i)\bbsb\b")
_COMPANY_NUMBER = re.compile(r"(?i)\b(?:acn|abn|arbn)\W*$")


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
    compact = text.replace(" ", "").upper()
    if not 15 <= len(compact) <= 34:
        return False
    rearranged = compact[4:] + compact[:4]
    number = "".join(str(int(ch, 36)) for ch in rearranged)
    return int(number) % 97 == 1


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def _years(groups: list[str]) -> bool:
    """Every group a plausible year: "2017 2018 2019 2020" is a list of years."""
    return all(len(g) == 4 and 1900 <= int(g) <= 2100 for g in groups)


def _kind_of(groups: list[str], led_by_plus: bool, bracketed: bool, before: str) -> PiiKind | None:
    """What a window of a run's digit groups is, if it is personal data at all."""
    digits = "".join(groups)
    n = len(digits)
    shape = [len(g) for g in groups]
    if 13 <= n <= 19 and not led_by_plus and luhn_valid(digits) and not _years(groups):
        return PiiKind.CARD
    tfn_shape = (n == 9 and shape in ([9], [3, 3, 3])) or (n == 8 and shape == [8])
    if tfn_shape and tfn_valid(digits):
        # Round figures written with spaces (250 000 000) pass the check one time in
        # eleven; without "TFN" or "tax file" before them they stay figures.
        round_figure = digits.endswith("000") or all(g.endswith("00") for g in groups)
        if not round_figure or _TFN_WORDS.search(before[-40:]):
            return PiiKind.TFN
    bsb_shape = shape[:2] == [3, 3] and len(groups) >= 3 and 5 <= sum(shape[2:]) <= 10
    if bsb_shape and _BSB_WORDS.search(before[-40:]):
        return PiiKind.BANK_ACCOUNT
    if 8 <= n <= 13 and not _COMPANY_NUMBER.search(before):
        domestic = re.match(r"0[2-478]|1[38]00", digits) is not None
        international = led_by_plus or (digits.startswith("61") and digits[2:3] in "2478")
        if domestic or international or bracketed:
            return PiiKind.PHONE
    return None


def _in_run(text: str, at: int, run: str) -> list[tuple[PiiKind, int, int]]:
    """The personal values in one run of digit groups, longest first from the left.

    Windows start and end on group boundaries, so a valid card followed by stray digits,
    or two phone numbers in a row, are each still found.
    """
    groups = [(g.start(), g.end(), g.group()) for g in _GROUP.finditer(run)]
    led_by_plus = run.startswith("+")
    bracketed = run.startswith("(")
    out = []
    i = 0
    while i < len(groups):
        next_i = i + 1
        for j in range(len(groups), i, -1):
            window = [g[2] for g in groups[i:j]]
            start = 0 if i == 0 else groups[i][0]
            kind = _kind_of(window, led_by_plus and i == 0, bracketed and i == 0,
                            text[: at + start])  # fmt: skip
            if kind is not None:
                out.append((kind, at + start, at + groups[j - 1][1]))
                next_i = j
                break
        i = next_i
    return out


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
    for m in _IBAN.finditer(text):
        if iban_valid(m.group()):
            add(PiiKind.BANK_ACCOUNT, m.start(), m.end())
    for m in _RUN.finditer(text):
        for kind, start, end in _in_run(text, m.start(), m.group()):
            add(kind, start, end)
    for m in _KEYWORD_ACCOUNT.finditer(text):
        if not _years(_GROUP.findall(m.group(1))):
            add(PiiKind.BANK_ACCOUNT, m.start(1), m.end(1))
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
