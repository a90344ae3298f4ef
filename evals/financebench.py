"""Scoring answers to FinanceBench's questions (Islam et al. 2023, arXiv:2311.11944).

FinanceBench's gold answers are either a figure ("$11588.00", "30.8%", "1.73", "-3.7")
or a sentence. A figure gold is scored automatically, by these rules:

- the answer's figures are read as the numeric check reads them (`find_amounts`): money
  on its written scale ("US$11,588 million", "US$11.6 billion" are both 11,588 millions),
  percentages as percentages, bare numbers as numbers;
- a money gold is in USD millions when the question asks for USD millions ("Answer in
  USD millions"), else in dollars; a percentage gold compares with percentages; any other
  figure with numbers, percentages or days;
- a figure matches when it is within 1% of the gold, or within half a unit of the last
  place the less precise of the two states (93.9 matches 93.86; 1.7 matches 1.73);
- an answer that gives no figure (the turn declined, asked back, fell back, or every
  line is a "data not found" one) is `declined`; one that gives figures of which none
  matches is `wrong`; one with a matching figure is `correct`.

A sentence gold is labelled `answered` or `declined` only; whether an answered one is
right takes a person (the benchmark's report lists them for that).
"""

import re
from dataclasses import dataclass
from typing import Literal

from domain.language.amounts import Amount, find_amounts

Label = Literal["correct", "wrong", "declined", "answered"]

_FIGURE_GOLD = re.compile(
    r"^\s*(?P<sign>-)?\s*(?P<cur>\$)?\s*(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?P<pct>%)?\s*$"
)
_IN_MILLIONS = re.compile(r"\bin\s+(?:usd|us\$|\$)?\s*millions?\b|\bUSD\s+millions\b", re.I)
_NOT_FOUND = re.compile(r"data not found in provided documents", re.I)


@dataclass(frozen=True)
class Gold:
    """A figure gold: its value, its kind, and the decimals it is written with."""

    value: float
    kind: Literal["money", "percent", "number"]
    decimals: int
    millions: bool
    """A money gold stated in millions of dollars."""


def gold_figure(answer: str, question: str) -> Gold | None:
    """The gold answer as a figure, or None when it is a sentence."""
    match = _FIGURE_GOLD.match(answer)
    if match is None:
        return None
    number = match["num"].replace(",", "")
    value = float(number) * (-1 if match["sign"] else 1)
    decimals = len(number.split(".", 1)[1]) if "." in number else 0
    if match["pct"]:
        return Gold(value, "percent", decimals, False)
    if match["cur"]:
        return Gold(value, "money", decimals, bool(_IN_MILLIONS.search(question)))
    return Gold(value, "number", decimals, False)


def _on_gold_scale(amount: Amount, gold: Gold) -> float | None:
    """The amount as the gold states figures of its kind, or None when it is of another
    kind (a percentage for a money gold)."""
    signed = -amount.value if amount.negative else amount.value
    if gold.kind == "percent":
        return signed if amount.kind == "percent" else None
    if gold.kind == "money":
        if amount.kind != "money":
            return None
        if amount.factor is None:  # "US$1,234" with no scale word: dollars
            return signed / 1e6 if gold.millions else signed
        millions = signed * amount.factor
        return millions if gold.millions else millions * 1e6
    if amount.kind in ("bare", "percent"):
        return signed
    return None


def matches(amount: Amount, gold: Gold) -> bool:
    """Whether a figure of the answer is the gold figure (the rules above)."""
    value = _on_gold_scale(amount, gold)
    if value is None:
        return False
    step = max(10.0 ** (-gold.decimals), amount.step * (amount.factor or 1.0))
    if gold.kind == "money" and not gold.millions and amount.factor is not None:
        step = max(step, amount.step * amount.factor * 1e6)
    return abs(value - gold.value) <= max(0.01 * abs(gold.value), step / 2 + 1e-9)


def answer_figures(text: str) -> list[Amount]:
    """The figures an answer gives: every amount outside its "data not found" lines."""
    lines = [ln for ln in text.splitlines() if not _NOT_FOUND.search(ln)]
    return [a for ln in lines for a in find_amounts(ln)]


def label(gold_answer: str, question: str, status: str, answer: str) -> Label:
    """A turn's label against FinanceBench's gold answer."""
    figures = answer_figures(answer) if status == "answered" else []
    gold = gold_figure(gold_answer, question)
    if gold is None:
        substantive = status == "answered" and any(
            ln.strip() and not _NOT_FOUND.search(ln) for ln in answer.splitlines()
        )
        return "answered" if substantive else "declined"
    if not figures:
        return "declined"
    return "correct" if any(matches(a, gold) for a in figures) else "wrong"
