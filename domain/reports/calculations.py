"""An analyst's calculation answered from the statements: each line item found, cited,
and the working written out so the numeric check can recompute it.

Pure. `answer_calculation` takes what `domain.questions.analyst` read from the question (the
arithmetic over line items, the years, how to state the result), finds each line item
of each year among the evidence's table facts (`domain.reports.line_items`), and writes: the
result with its working ("365 × ((US$25,309 million + US$34,616 million) ÷ 2) ÷ ... =
93.86"), then one sentence per line item with the label as printed and its citation. A
line item that cannot be found is said in its exact "data not found" line, and no result
is given. A figure printed as an outflow in a statement of cash flows ("(1,234)") is
taken as the amount spent, as a definition over it means it ("cash from operations -
capex"); so is an expense an income statement prints in brackets as a deduction, and a
line whose label brackets the expense ("Income tax (expense)/benefit") is read the way
its label says (743 is a benefit: an expense of −743). The answer says which.

A standard ratio the question names but does not define ("effective tax rate") is read
off the line the statements print for it when they print one (`printed_ratio`), and
worked out from the statements only when they do not: the company's own figure is the
one a reader checks against.
"""

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from domain.models import Derived, NotFound
from domain.questions.analyst import AnalystQuestion, Expr, Item, Mean, Num, at_year
from domain.questions.analyst import evaluate as evaluate_expr
from domain.questions.analyst import items as items_of
from domain.questions.analyst import written as written_expr
from domain.reports.figures import Fact, format_value, unit_in_scale, unit_spec
from domain.reports.line_items import company_words, find_items, home_statements, printed_ratio


@dataclass(frozen=True)
class Sourced:
    """A fact and the 1-based number of the source it was read from."""

    fact: Fact
    n: int


@dataclass
class Answered:
    """What the calculation gives the answer: its sentences, its derived figure, and the
    line items it could not find."""

    lines: list[str] = field(default_factory=list)
    derived: list[Derived] = field(default_factory=list)
    not_found: list[NotFound] = field(default_factory=list)
    result: float | None = None
    """The worked-out value (None when an item was not found)."""
    printed: Sourced | None = None
    """The report's own line of a standard ratio, when the value was read off it."""


def _dimension(expr: Expr, money: set[Item]) -> int:
    """How many times money the expression's result is: 1 an amount, 0 a ratio."""
    if isinstance(expr, Item):
        return 1 if expr in money else 0
    if isinstance(expr, Num):
        return 0
    if isinstance(expr, Mean):
        return _dimension(expr.items[0], money)
    a, b = _dimension(expr.left, money), _dimension(expr.right, money)
    if expr.op in ("+", "-"):
        return max(a, b)
    if expr.op == "*":
        return a + b
    if expr.op == "/":
        return a - b
    return 0


def _plain(value: float, decimals: int) -> str:
    text = f"{abs(value):,.{decimals}f}"
    return f"−{text}" if value < 0 else text


def _shown(fact: Fact, value: float) -> str:
    """A line item's figure as the working writes it: `value`, the amount it means."""
    text = format_value(abs(value), fact.unit, fact.decimals)
    return f"(−{text})" if value < 0 else text


def _places(source: Fact, unit: str) -> int:
    """The places a result in `unit` keeps: its input's, moved by the change of scale."""
    shift = round(math.log10(unit_spec(unit).factor / unit_spec(source.unit).factor))
    return max(source.decimals + shift, 0)


def _outflow(fact: Fact, titles: dict[str, str]) -> bool:
    return fact.value < 0 and bool(re.search(r"cash\s+flows?", titles.get(fact.chunk_id, ""), re.I))


_EXPENSE = re.compile(r"\b(?:expenses?|costs?|provisions?|charges?)\b", re.I)
_BENEFIT = re.compile(r"\b(?:benefits?|credits?)\b", re.I)


def _way(item: Item, fact: Fact, titles: dict[str, str]) -> str:
    """How a line item's printed figure gives the amount a calculation means by it:
    "amount" (an outflow, or an expense printed in brackets as a deduction: its amount),
    "opposite" (a line of an expense whose label names it as a benefit: "Income tax
    benefit", "Income tax (expense)/benefit": a figure without brackets is a benefit,
    one in brackets the expense), or "printed"."""
    if _outflow(fact, titles):
        return "amount"
    if _EXPENSE.search(item.phrase):
        unbracketed = re.sub(r"\([^()]*\)", " ", fact.label)
        if _BENEFIT.search(unbracketed) and not _EXPENSE.search(unbracketed):
            return "opposite"
        if fact.value < 0:
            return "amount"
    return "printed"


def _as_printed(fact: Fact, way: str, value: float, titles: dict[str, str]) -> tuple[str, str]:
    """A line item's figure as its statement prints it, and a note when the working
    uses another sign of it (`value`)."""
    amount = format_value(abs(fact.value), fact.unit, fact.decimals)
    if way == "printed" or value == fact.value:
        return format_value(fact.value, fact.unit, fact.decimals), ""
    if way == "opposite":
        if fact.value < 0:
            return f"−{amount}", " (an expense, by its label: its amount is used above)"
        return amount, " (a benefit, by its label: used above as a negative expense)"
    printed = "an outflow" if _outflow(fact, titles) else "a deduction"
    return f"−{amount}", f" (printed as {printed}; its amount is used above)"


def _printed_ratio(
    asked: AnalystQuestion, ticker: str, name: str, facts: Sequence[Sourced]
) -> Answered | None:
    """A named standard ratio read off the statements' own line for it, or None."""
    calc = asked.calculation
    if calc is None or calc.defined or calc.over_years or not asked.named or not asked.years:
        return None
    year = max(asked.years)
    fact = printed_ratio(calc.name, year, [s.fact for s in facts])
    if fact is None:
        return None
    n = next(s.n for s in facts if s.fact is fact)
    figure = format_value(fact.value, fact.unit, fact.decimals)
    out = Answered(result=fact.value / 100, printed=Sourced(fact, n))
    out.lines.append(
        f"{name}'s FY{year} {calc.name}, as the report prints it ({fact.label}): {figure} [{n}]."
    )
    return out


def answer_calculation(
    asked: AnalystQuestion,
    ticker: str,
    name: str,
    facts: Sequence[Sourced],
    titles: dict[str, str],
    names: Sequence[str] = (),
    read_printed: bool = True,
) -> Answered | None:
    """The calculation's answer for one company, or None when the question asks none;
    `read_printed`: a standard ratio named is read off the report's own line of it when
    one prints it."""
    # long: the working, its result and the sentences that cite each line item, in the order said.
    calc = asked.calculation
    if calc is None:
        return None
    years = calc.over_years or ((max(asked.years),) if asked.years else ())
    if not years:
        return None
    if read_printed and (printed := _printed_ratio(asked, ticker, name, facts)) is not None:
        return printed
    exprs = [at_year(calc.expr, y) if calc.over_years else calc.expr for y in years]
    out = Answered()
    found = _line_items(asked, ticker, [name, *names], facts, titles, exprs, out)
    if out.not_found:
        return out
    way = {i: _way(i, s.fact, titles) for i, s in found.items()}
    signed = {i: _signed(s.fact.value, way[i]) for i, s in found.items()}
    values = {i: signed[i] * unit_spec(s.fact.unit).factor for i, s in found.items()}
    expr: Expr = exprs[0] if len(exprs) == 1 else Mean(tuple(exprs))
    try:
        result = evaluate_expr(expr, values)
    except (ZeroDivisionError, KeyError, ValueError, OverflowError):
        return out
    out.result = result
    working = written_expr(expr, {i: _shown(s.fact, signed[i]) for i, s in found.items()})
    stated = _stated(asked, expr, found, result, working)
    cited = sorted({s.n for s in found.values()})
    markers = "".join(f"[{n}]" for n in cited)
    # The years the working reads, said in its sentence: each of its figures is one of them.
    read = sorted({s.fact.fiscal_year for s in found.values()})
    span = f"FY{read[0]}–FY{read[-1]}" if len(read) > 1 else f"FY{read[0]}"
    how = f", as the question defines it ({calc.defined.rstrip('.')})" if calc.defined else ""
    out.lines.append(f"{name}'s {span} {calc.name}{how}: {stated} {markers}.")
    for item in dict.fromkeys(found):
        s = found[item]
        figure, note = _as_printed(s.fact, way[item], signed[item], titles)
        out.lines.append(
            f"{item.phrase[:1].upper()}{item.phrase[1:]} for FY{s.fact.fiscal_year}: "
            f"{s.fact.label}, {figure}{note} [{s.n}]."
        )
    out.derived.append(Derived(label=f"{ticker} {span} {calc.name}"[:80], formula=stated))
    return out


def _line_items(
    asked: AnalystQuestion,
    ticker: str,
    names: list[str],
    facts: Sequence[Sourced],
    titles: dict[str, str],
    exprs: list[Expr],
    out: Answered,
) -> dict[Item, Sourced]:
    """Each line item of the working found for its year; one not found is a gap of `out`."""
    # long: each line item looked up once per year, then a gap for each not found.
    wanted = [i for e in exprs for i in items_of(e)]
    report_year = max(asked.years) if asked.years else None
    years_of: dict[str, set[int]] = {}
    for item in wanted:
        year = item.year if item.year is not None else report_year
        if year is not None:
            years_of.setdefault(item.phrase, set()).add(year)
    hits = {
        phrase: find_items(
            phrase,
            sorted(ys),
            [s.fact for s in facts],
            home_statements(phrase, asked.statements),
            titles,
            report_year,
            company_words(names),
        )
        for phrase, ys in years_of.items()
    }
    by_fact = {id(s.fact): s for s in facts}
    found: dict[Item, Sourced] = {}
    for item in wanted:
        year = item.year if item.year is not None else report_year
        if year is None:
            continue
        hit = hits[item.phrase].get(year)
        if hit is None:
            gap = NotFound(company=ticker, fiscal_year=year, metric=item.phrase)
            if gap not in out.not_found:
                out.not_found.append(gap)
            continue
        found[item] = by_fact[id(hit.fact)]
    return found


def _signed(value: float, way: str) -> float:
    """A line item's value the way the working takes it: its amount, its opposite or as
    printed."""
    if way == "amount":
        return abs(value)
    return -value if way == "opposite" else value


def _stated(
    asked: AnalystQuestion, expr: Expr, found: dict[Item, Sourced], result: float, working: str
) -> str:
    """The working and its result, in the unit or scale the question asks."""
    calc = asked.calculation
    assert calc is not None
    money = {i for i, s in found.items() if unit_spec(s.fact.unit).kind == "money"}
    if calc.percent:
        decimals = asked.decimals if asked.decimals is not None else 1
        return f"({working}) × 100 = {_plain(result * 100, decimals)}%"
    if _dimension(expr, money) == 1:
        # In the unit of its inputs ("A$8,204,107", "US$3,215 million"), or the scale the
        # question asks ("in USD millions").
        source = next(s.fact for i, s in found.items() if i in money)
        unit = source.unit
        if asked.scale in ("m", "bn"):
            unit = unit_in_scale(unit, asked.scale) or unit
        decimals = asked.decimals if asked.decimals is not None else _places(source, unit)
        amount = format_value(abs(result) / unit_spec(unit).factor, unit, decimals)
        # A worked-out amount below zero is minus it ("= −A$8,241,840"), never "a loss
        # of" (a working capital or a change is no profit).
        return f"{working} = {'−' if result < 0 else ''}{amount}"
    decimals = asked.decimals if asked.decimals is not None else 2
    return f"{working} = {_plain(result, decimals)}"
