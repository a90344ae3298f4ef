"""Numbers written in words: where a text states one, and what it is worth. Pure.

A model may write a figure in words instead of digits ("fifty-three point eight billion US
dollars", "nineteen per cent", "about forty billion dollars", "half a billion", "one and a
half billion", "two-thirds of revenue"). The numeric check must read those exactly as it
reads digits (`domain/language/amounts.py`, `claimed_amounts`), so this module finds them and
gives each its value; what the words around it say (currency, unit, per cent, a year, a
page) is read there, by the same rules as for digits.

What is read is the grammar of English number words, not a list of phrasings: the
cardinals (zero to nineteen, the tens, hundred and the scales thousand, million, billion,
trillion) joined by spaces, hyphens and "and"; "a" before hundred or a scale ("a
billion"); a decimal part ("point eight"); a fraction added ("one and a half billion") or
of a scale ("half a billion", "a quarter of a million"); and a fraction of something ("two
thirds of", "half of"), which states a share. Not read: ordinals ("the first half", "the
second quarter", "twenty-first"), a fraction named by a determiner or an ordinal ("the
first half of the year"), and sequences that are no number ("five six").

A year spoken as years are ("twenty twenty-four", "nineteen ninety-nine") is returned
marked as one, so the check skips it as it skips "2024".

Hand-written: the libraries that read number words (word2number, number-parser,
text2num) give no position in the text, which the check needs to bind a figure to its
company, year and citation; none reads a decimal part before a scale ("fifty-three point
eight billion": 53, or "53.8 1000000000"), "half a billion" or "one and a half billion";
number-parser reads "the first half" as "the 1 half". The grammar is small, and the
tests hold it (tests/unit/test_number_words.py).
"""

import re
from dataclasses import dataclass

_ONES = {
    word: n
    for n, word in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    word: 10 * n
    for n, word in enumerate(
        ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"], start=2
    )
}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_DENOMINATORS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fifth": 5,
    "fifths": 5,
    "sixth": 6,
    "sixths": 6,
    "seventh": 7,
    "sevenths": 7,
    "eighth": 8,
    "eighths": 8,
    "ninth": 9,
    "ninths": 9,
    "tenth": 10,
    "tenths": 10,
}
_IRREGULAR = {
    "one": "first",
    "two": "second",
    "three": "third",
    "five": "fifth",
    "eight": "eighth",
    "nine": "ninth",
    "twelve": "twelfth",
}
_ORDINALS = frozenset(
    {_IRREGULAR.get(w, f"{w}th") for w in _ONES if w != "zero"}
    | {f"{w[:-1]}ieth" for w in _TENS}
    | {f"{w}th" for w in ("hundred", *_SCALES)}
)
# Words before "half" / "quarter" that make it a part of something named ("the first half
# of the year", "each quarter of FY2024"), not a share: determiners and ordinals.
_NAMES_A_PART = (
    frozenset(
        {
            "the",
            "this",
            "that",
            "these",
            "those",
            "each",
            "every",
            "its",
            "their",
            "our",
            "his",
            "her",
            "same",
            "last",
            "next",
            "latter",
            "former",
            "previous",
            "prior",
            "other",
            "either",
        }
    )
    | _ORDINALS
)

_DIGITS = frozenset(w for w, n in _ONES.items() if n <= 9)
_TOKEN = re.compile(r"[A-Za-z]+")
_JOINS = re.compile(r"\s+|\s*[-‐‑]\s*")  # a space, or a hyphen (with spaces around it or not)


@dataclass(frozen=True)
class WordNumber:
    """A number written in words: where it stands and what it is worth.

    `value` is the number up to `end` ("fifty-three point eight" of "fifty-three point
    eight billion"); scale words right after it ("billion") run to `scale_end` and are
    worth `scale` (1.0 and `scale_end == end` when there are none), so the caller can
    read them as a unit ("billion" of a currency) or multiply them in ("twenty-five
    thousand employees"). `share` marks a fraction of something ("two thirds of"), whose
    `value` is in per cent; `year` a year as spoken ("twenty twenty-four").
    """

    start: int
    end: int
    value: float
    decimals: int
    scale: float = 1.0
    scale_end: int = 0
    share: bool = False
    year: bool = False


@dataclass(frozen=True)
class _Token:
    word: str
    start: int
    end: int


class _Reader:
    """Reads number words from one text's tokens, each joined to the next by a space or a
    hyphen or not (`joined[i]`: tokens i and i+1 are one phrase)."""

    def __init__(self, text: str) -> None:
        self.tokens = [
            _Token(m.group(0).lower(), m.start(), m.end()) for m in _TOKEN.finditer(text)
        ]
        self.joined = [
            _JOINS.fullmatch(text[a.end : b.start]) is not None
            for a, b in zip(self.tokens, self.tokens[1:], strict=False)
        ]

    def word(self, i: int) -> str:
        return self.tokens[i].word if 0 <= i < len(self.tokens) else ""

    def next_word(self, i: int) -> str:
        """The word after token i when it continues the phrase, else ""."""
        return self.word(i + 1) if 0 <= i < len(self.joined) and self.joined[i] else ""

    def read(self) -> list[WordNumber]:
        found: list[WordNumber] = []
        i = 0
        while i < len(self.tokens):
            number, after = self._number_at(i)
            if number is not None and not self._reads_on(number):
                found.append(number)
            i = after
        return found

    def _reads_on(self, number: WordNumber) -> bool:
        """Whether the phrase goes on past `number` in a way that makes it no figure: the
        head of an ordinal ("twenty-first", "one hundred and first"), or a number word
        that did not read with it ("fifty sixty")."""
        last = max(k for k, t in enumerate(self.tokens) if t.end <= number.scale_end)
        nxt = self.next_word(last)
        if nxt == "and":
            nxt = self.next_word(last + 1)
        return nxt in _ORDINALS or (not number.share and nxt in (*_ONES, *_TENS, "hundred"))

    def _number_at(self, i: int) -> tuple[WordNumber | None, int]:
        """The number starting at token i, and the index of the token after it."""
        word = self.word(i)
        if word not in _ONES and word not in _TENS and word not in ("a", "an", "half"):
            return None, i + 1
        if self.next_word(i - 1) == word and self.word(i - 1) in (*_ONES, *_TENS):
            return None, i + 1  # inside a sequence that did not read ("five six")
        for reading in (self._year, self._share, self._fraction_of_scale, self._cardinal):
            number, after = reading(i)
            if number is not None:
                return number, after
        return None, i + 1

    def _make(
        self,
        i: int,
        last: int,
        value: float,
        decimals: int,
        share: bool = False,
        year: bool = False,
    ) -> WordNumber:
        start, end = self.tokens[i].start, self.tokens[last].end
        return WordNumber(start, end, value, decimals, scale_end=end, share=share, year=year)

    def _two_digits(self, i: int) -> tuple[int | None, int]:
        """A number 10-99 in words at token i ("ninety-nine", "twenty", "fourteen")."""
        word = self.word(i)
        if word in _ONES and _ONES[word] >= 10:
            return _ONES[word], i + 1
        if word in _TENS:
            unit = self.next_word(i)
            if unit in _ONES and 1 <= _ONES[unit] <= 9:
                return _TENS[word] + _ONES[unit], i + 2
            return _TENS[word], i + 1
        return None, i

    def _year(self, i: int) -> tuple[WordNumber | None, int]:
        """A year spoken in two halves: "nineteen ninety-nine", "twenty twenty-four"."""
        if self.word(i) not in ("nineteen", "twenty") or not self.next_word(i):
            return None, i
        tail, after = self._two_digits(i + 1)
        if tail is None or self.next_word(after - 1) in ("hundred", *_SCALES):
            return None, i
        century = 19 if self.word(i) == "nineteen" else 20
        return self._make(i, after - 1, century * 100.0 + tail, 0, year=True), after

    def _fraction(self, i: int) -> tuple[tuple[int, int] | None, int]:
        """A fraction in words at token i: (numerator, denominator) and the token after.
        "half" may stand alone; any other denominator needs its numerator ("a third")."""
        word = self.word(i)
        if word == "half":
            return (1, 2), i + 1
        numerator = 1 if word in ("a", "an") else _ONES.get(word)
        denominator = _DENOMINATORS.get(self.next_word(i))
        if numerator is None or not 1 <= numerator <= 9 or denominator is None:
            return None, i
        plural = self.next_word(i).endswith("s")
        if plural != (numerator > 1) or numerator >= denominator:
            return None, i
        return (numerator, denominator), i + 2

    def _share(self, i: int) -> tuple[WordNumber | None, int]:
        """A fraction of something: "two thirds of revenue", "half of its sales", "a
        quarter of the group's EBITDA" (not "the first half of", nor "half of a billion")."""
        fraction, after = self._fraction(i)
        if fraction is None or self.next_word(after - 1) != "of":
            return None, i
        if self.next_word(after) in ("a", "an") and self.next_word(after + 1) in _SCALES:
            return None, i
        if self.word(i - 1) in _NAMES_A_PART:
            return None, i
        n, d = fraction
        return self._make(i, after - 1, 100.0 * n / d, 0, share=True), after + 1

    def _fraction_of_scale(self, i: int) -> tuple[WordNumber | None, int]:
        """ "half a billion", "a quarter of a million", "three quarters of a billion"."""
        fraction, after = self._fraction(i)
        if fraction is None:
            return None, i
        article = after + 1 if self.next_word(after - 1) == "of" else after
        if self.next_word(article - 1) not in ("a", "an") or self.next_word(article) not in _SCALES:
            return None, i
        n, d = fraction
        return self._scaled(self._make(i, article, n / d, _places(n / d)), article + 1)

    def _cardinal(self, i: int) -> tuple[WordNumber | None, int]:
        """A whole number, then a decimal part or a fraction added, then scale words."""
        whole, last, closing = self._whole(i)
        if whole is None:
            return None, i + 1
        if closing is not None:
            # The closing scale word is a unit the caller may read ("... six hundred
            # million US dollars"): the number is counted in it.
            number = self._make(i, closing - 1, whole / _SCALES[self.word(closing)], 0)
            return self._scaled(number, closing)
        value, decimals = float(whole), 0
        if self.next_word(last) == "point" and self.next_word(last + 1) in _DIGITS:
            k = last + 1
            digits = ""
            while self.next_word(k) in _DIGITS:
                k += 1
                digits += str(_ONES[self.word(k)])
            value, decimals, last = float(f"{whole}.{digits}"), len(digits), k
        elif self.next_word(last) == "and":
            fraction, after = self._fraction(last + 2) if self.next_word(last + 1) else (None, 0)
            if fraction is not None:
                value += fraction[0] / fraction[1]
                decimals, last = _places(fraction[0] / fraction[1]), after - 1
        number = self._make(i, last, value, decimals)
        if self.next_word(last) in _SCALES:
            return self._scaled(number, last + 1)
        return number, last + 1

    def _scaled(self, number: WordNumber, k: int) -> tuple[WordNumber, int]:
        """`number` with the scale words from token k on (joined to it) as its scale."""
        scale, end = 1.0, number.end
        while self.word(k) in _SCALES:
            scale *= _SCALES[self.word(k)]
            end = self.tokens[k].end
            k += 1
            if self.next_word(k - 1) not in _SCALES:
                break
        scaled = WordNumber(
            number.start,
            number.end,
            number.value,
            number.decimals,
            scale,
            end,
            number.share,
            number.year,
        )
        return scaled, k

    def _whole(self, i: int) -> tuple[int | None, int, int | None]:
        """A whole number at token i: its value, its last token, and that token's index
        when it is a scale word closing the number (else None)."""
        # long: one pass over the grammar of whole numbers, each word class's rule in turn.
        total, group, last_kind, last_scale = 0, 0, "", float("inf")
        k, last = i, -1
        while True:
            word = self.word(k)
            if word in ("a", "an") and k == i:
                if self.next_word(k) not in ("hundred", *_SCALES):
                    break
                group, kind = 1, "one"
            elif word == "and" and last_kind in ("hundred", "scale"):
                nxt = self.next_word(k)
                if not (nxt in _TENS or (nxt in _ONES and nxt != "zero")):
                    break
                kind = "and"
            elif word in _ONES and (word != "zero" or k == i):
                ones = _ONES[word]
                if last_kind in ("one", "teen") or (last_kind == "tens" and ones >= 10):
                    break
                group += ones
                kind = "teen" if ones >= 10 else "one"
            elif word in _TENS:
                if last_kind in ("one", "teen", "tens"):
                    break
                group += _TENS[word]
                kind = "tens"
            elif word == "hundred":
                if last_kind not in ("one", "teen") or group >= 100:
                    break
                group *= 100
                kind = "hundred"
            elif word in _SCALES:
                scale = _SCALES[word]
                if last_kind in ("", "and", "scale") or scale >= last_scale:
                    break
                total += group * int(scale)
                group, last_scale, kind = 0, scale, "scale"
            else:
                break
            last_kind, last = kind, k
            if not self.next_word(k):
                break
            k += 1
        if last < 0:
            return None, i, None
        return total + group, last, last if last_kind == "scale" else None


def _places(value: float) -> int:
    """Decimal places a fraction is written to in digits: 0.5 → 1, 0.25 → 2, a third → 2."""
    for places in range(4):
        if abs(round(value, places) - value) < 1e-9:
            return places
    return 2


def word_numbers(text: str) -> list[WordNumber]:
    """Every number written in words in `text`, in order (see the module docstring)."""
    return _Reader(text).read()
