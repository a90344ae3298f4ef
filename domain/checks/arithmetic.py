"""Working written out in an answer ("365 × ((25,309 + 34,616) ÷ 2) ÷ 116,520 = 93.86"),
read back and recomputed.

Pure. A figure an answer derives is supported when the numeric check can recompute it
from cited figures (docs/controls.md, claim classes). A calculation of several steps is
written as arithmetic: its figures, the operators between them and parentheses, then
"=" and the result. `worked_results` finds each such result in a sentence, evaluates
the arithmetic before it and says which of the sentence's figures it was computed from;
the numeric check then backs the result only if every one of those figures is backed by
a cited source and the arithmetic gives the result within its rounding.
"""

import re
from dataclasses import dataclass

from domain.language.amounts import Amount, unit_after
from domain.language.units import SIGN_BEFORE

_OPERATORS = {
    "+": "+",
    "-": "-",
    "−": "-",
    "–": "-",
    "×": "*",
    "*": "*",
    "x": "*",
    "÷": "/",
    "/": "/",
    "^": "^",
}
_SPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Worked:
    """A result of written arithmetic: its value recomputed, the figures it was computed
    from (indexes into the sentence's amounts), the constants it used, and the working."""

    value: float
    operands: tuple[int, ...]
    constants: tuple[float, ...]
    working: str


def base_value(amount: "Amount") -> float:
    """A figure on the scale the working is compared on: money in millions of its
    currency, a share in percent, anything else as written."""
    signed = -amount.value if amount.negative else amount.value
    return signed * (amount.factor if amount.factor is not None else 1.0)


class _Parser:
    def __init__(self, tokens: list[tuple[str, float | str]]) -> None:
        self.tokens = tokens
        self.pos = 0

    def peek(self) -> tuple[str, float | str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def expr(self) -> float:
        value = self.term()
        while (t := self.peek()) is not None and t[0] == "op" and t[1] in ("+", "-"):
            self.pos += 1
            right = self.term()
            value = value + right if t[1] == "+" else value - right
        return value

    def term(self) -> float:
        value = self.power()
        while (t := self.peek()) is not None and t[0] == "op" and t[1] in ("*", "/"):
            self.pos += 1
            right = self.power()
            value = value * right if t[1] == "*" else value / right
        return value

    def power(self) -> float:
        base = self.factor()
        if self.peek() == ("op", "^"):
            self.pos += 1
            exponent = self.power()
            if base < 0:
                raise ValueError("a power of a negative figure")
            return float(base**exponent)
        return base

    def factor(self) -> float:
        t = self.peek()
        if t is None:
            raise ValueError("the working ends early")
        self.pos += 1
        if t[0] == "num":
            return float(t[1])
        if t == ("op", "-"):
            return -self.factor()
        if t == ("paren", "("):
            value = self.expr()
            if self.peek() != ("paren", ")"):
                raise ValueError("an unclosed parenthesis")
            self.pos += 1
            return value
        raise ValueError(f"unexpected {t[1]!r}")


def worked_results(text: str, amounts: "list[Amount]") -> dict[int, Worked]:
    """Each amount of `text` that follows "=" after written arithmetic, with what the
    arithmetic recomputes (keyed by the amount's index in `amounts`, which are the
    sentence's figures in order, spans into `text`)."""
    spans = [_written_span(text, a) for a in amounts]
    found: dict[int, Worked] = {}
    for eq in re.finditer(r"(?<![<>!=])=(?!=)", text):
        after = [i for i, (start, _) in enumerate(spans) if start >= eq.end()]
        if not after or text[eq.end() : spans[after[0]][0]].strip(" −-+(") != "":  # "= +2.7"
            continue
        result = after[0]
        scanned, operands, constants = _scan_back(text, eq.start(), spans, amounts)
        tokens = _balanced(scanned)
        if tokens is None or not any(t[0] == "op" for t in tokens):
            continue
        try:
            parser = _Parser(tokens)
            value = parser.expr()
        except (ValueError, ZeroDivisionError):
            continue
        if parser.pos != len(tokens):
            continue
        start = spans[operands[0]][0] if operands else eq.start()
        working = _SPACE.sub(" ", text[start : spans[result][1]]).strip()
        found[result] = Worked(value, tuple(operands), tuple(constants), working)
    return found


def _written_span(text: str, a: "Amount") -> tuple[int, int]:
    """Where an amount is written, with its currency or minus sign before it and its unit
    after it ("−US$3.7 billion")."""
    written = unit_after(text[a.end :])
    sign = SIGN_BEFORE.search(text[: a.start])
    start = sign.start() if sign else a.start
    minus = re.search(r"[-−–]\s?$", text[:start]) if a.negative else None
    return (minus.start() if minus else start, a.end + (written.end() if written else 0))


_Token = tuple[str, float | str]


def _scan_back(
    text: str, pos: int, spans: list[tuple[int, int]], amounts: "list[Amount]"
) -> tuple[list[_Token], list[int], list[float]]:
    """The tokens written before an "=" at `pos`, back to the first that is no figure,
    operator or parenthesis; the amounts among them (by index) and the constants."""
    tokens: list[_Token] = []
    operands: list[int] = []
    constants: list[float] = []
    while pos > 0:
        here = [i for i, (_, end) in enumerate(spans) if end <= pos and not text[end:pos].strip()]
        char = text[pos - 1]
        if here:
            tokens.insert(0, ("num", base_value(amounts[here[-1]])))
            operands.insert(0, here[-1])
            pos = spans[here[-1]][0]
        elif char.isspace():
            pos -= 1
        elif char in "()":
            tokens.insert(0, ("paren", char))
            pos -= 1
        elif char in _OPERATORS and not (char == "x" and text[pos - 2 : pos - 1].isalpha()):
            tokens.insert(0, ("op", _OPERATORS[char]))
            pos -= 1
        elif (digits := re.search(r"(\d[\d,]*(?:\.\d+)?)$", text[:pos])) is not None and not (
            re.search(r"[A-Za-z$]$", text[: digits.start()])
        ):
            value = float(digits.group(1).replace(",", ""))
            tokens.insert(0, ("num", value))
            constants.append(value)
            pos = digits.start()
        else:
            break
    return tokens, operands, constants


def _balanced(tokens: list[_Token]) -> list[_Token] | None:
    """The tokens from the first that can open an expression (no operator, no unmatched
    parenthesis); None when the parentheses do not balance."""
    while tokens and (tokens[0][0] == "op" or tokens[0] == ("paren", ")")):
        tokens = tokens[1:]
    depth = 0
    for t in tokens:
        depth += 1 if t == ("paren", "(") else -1 if t == ("paren", ")") else 0
    while depth > 0 and tokens and tokens[0] == ("paren", "("):
        tokens = tokens[1:]
        depth -= 1
    return tokens if depth == 0 else None


def agrees(worked: Worked, result: "Amount") -> bool:
    """Whether the recomputed value is the result as stated, to the places it states."""
    stated = base_value(result)
    step = result.step * (result.factor if result.factor is not None else 1.0)
    return abs(worked.value - stated) <= step / 2 + 1e-9 * max(1.0, abs(stated))
