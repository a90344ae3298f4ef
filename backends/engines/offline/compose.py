"""The sentences of one company's figures, each measure in one unit throughout an answer.

`Composer` holds the facts of an answer's sources and picks each figure; it writes a
figure with its restatements, the nearest figure for a line item not given, and how a
figure changed between years, with the working of each change.
"""

import itertools

from backends.engines.offline.facts import Chosen, signed_base
from backends.engines.offline.wording import fmt_number, possessive, year_phrase
from domain.companies.roster import display_name
from domain.models import Derived
from domain.questions.metrics import metric_display
from domain.reports.calculations import Sourced
from domain.reports.figures import (
    Fact,
    IncompatibleUnits,
    common_unit,
    format_value,
    growth_percent,
    rescale,
    to_base,
    unit_in_scale,
    unit_spec,
)


class Composer:
    """Builds the sentences of one answer from the facts found in its sources.

    One measure is written in one unit throughout the answer (`share`): its figures'
    coarsest, or the scale the question asks for ("in millions") when the figure is
    money, so a comparison never puts US$ billion beside US$ million. The conversion is
    a shift of the decimal point, exact: 5,491 (US$M) is written 5.491 (US$bn).
    """

    def __init__(
        self,
        facts: list[Sourced],
        scale: str | None = None,
        commodities: frozenset[str] = frozenset(),
    ) -> None:
        self.facts = facts
        self.scale = scale
        self.commodities = commodities
        """The commodities the question names: production is of them."""
        self.derived: list[Derived] = []
        self.shared: dict[tuple[str | None, str], str] = {}
        """The unit of each measure (and unit base) in this answer."""

    def share(self, picks: list[Sourced]) -> None:
        """Fix the one unit each measure is written in, from the figures the answer gives."""
        groups: dict[tuple[str | None, str], list[Fact]] = {}
        for pick in picks:
            key = (pick.fact.metric, unit_spec(pick.fact.unit).base)
            groups.setdefault(key, []).append(pick.fact)
        for key, facts in groups.items():
            if (unit := self.unit_for(facts)) is not None:
                self.shared[key] = unit

    def unit_for(self, facts: list[Fact]) -> str | None:
        """The one unit `facts` are written in together; None when they cannot share one."""
        keys = {(f.metric, unit_spec(f.unit).base) for f in facts}
        if len(keys) == 1 and (shared := self.shared.get(keys.pop())) is not None:
            return shared
        units = [f.unit for f in facts]
        if self.scale:
            asked = {unit_in_scale(u, self.scale) for u in units}
            if len(asked) == 1 and None not in asked:
                return asked.pop()
        return common_unit(units)

    def _matching(self, ticker: str, year: int, metric: str) -> list[Sourced]:
        return [
            s
            for s in self.facts
            if (s.fact.company, s.fact.fiscal_year, s.fact.metric) == (ticker, year, metric)
            and s.fact.annual  # a quarter's column is no year's figure
            and (metric != "production" or self._of_commodity(s.fact))
        ]

    def _of_commodity(self, fact: Fact) -> bool:
        """A production figure of a commodity the question names ("gold sold" for "who
        mined the most gold", not iron ore shipments); any when it names none."""
        label = fact.label.lower()
        return not self.commodities or any(k in label for k in self.commodities)

    def pick(self, ticker: str, year: int, metric: str) -> Sourced | None:
        """Prefer the figure as reported in that year's own report over a comparative."""
        found = self._matching(ticker, year, metric)
        own = [s for s in found if s.fact.report_fiscal_year == year and not s.fact.restated]
        ranked = own or sorted(found, key=lambda s: -s.fact.report_fiscal_year)
        return ranked[0] if ranked else None

    def restatements(self, pick: Sourced) -> list[Sourced]:
        """Other reports' figures for the same year and metric that differ from `pick`."""
        f = pick.fact
        seen: set[int] = set()
        others: list[Sourced] = []
        for s in self._matching(f.company, f.fiscal_year, f.metric or ""):
            if s.fact.report_fiscal_year == f.report_fiscal_year:
                continue
            if s.fact.report_fiscal_year in seen:
                continue
            a, b = to_base(f.value, f.unit), to_base(s.fact.value, s.fact.unit)
            if a.base == b.base and abs(a.value - b.value) > 1e-9:
                seen.add(s.fact.report_fiscal_year)
                others.append(s)
        return others

    def value(self, fact: Fact, unit: str | None = None) -> str:
        """`fact` as the answer writes it: in `unit` (default: its measure's shared unit),
        a net cash position said as one."""
        unit = unit or self.unit_for([fact]) or fact.unit
        value, decimals = fact.value, fact.decimals
        if unit != fact.unit:
            value, decimals = rescale(fact.value, fact.unit, fact.decimals, unit)
        if fact.metric == "net_debt" and fact.is_net_cash:
            return f"net cash of {format_value(abs(value), unit, decimals)}"
        return format_value(value, unit, decimals, fact.metric)

    def _metric_phrase(self, fact: Fact, metric: str) -> str:
        display = metric_display(metric)
        if fact.label.lower() != display.lower():
            return f"{display} (reported as {fact.label})"
        return display

    def figure_sentences(self, pick: Sourced, ticker: str, year: int, metric: str) -> list[str]:
        f = pick.fact
        subject = f"{possessive(ticker)} {self._metric_phrase(f, metric)}"
        when = year_phrase(ticker, year)
        verb = "were" if metric == "dividends_per_share" else "was"
        if metric == "net_debt" and f.is_net_cash:
            core = (
                f"{display_name(ticker)} reported a net cash position rather than net debt "
                f"for {when}: "
                f"{self.value(f)} (reported as {f.label})"
            )
        else:
            core = f"{subject} for {when} {verb} {self.value(f)}"
        others = self.restatements(pick)
        if f.report_fiscal_year != year or f.restated:
            core += f", as stated in the {f.document}"
        elif others:
            core += f" as first reported in the {f.document}"
        sentences = [f"{core} [{pick.n}]."]
        for other in others:
            o = other.fact
            sentences.append(
                f"The {o.document} restates {possessive(ticker)} FY{year} "
                f"{metric_display(metric)} to {self.value(o)} [{other.n}]."
            )
        return sentences

    def nearest_sentence(
        self, nearest: Sourced, ticker: str, year: int, metric: str, parent: str
    ) -> str:
        """Say that a line item is not in the reports and label the total as the nearest
        figure available — never give the total as if it were the item."""
        f = nearest.fact
        return (
            f"The reports do not give {possessive(ticker)} {metric_display(metric)} for "
            f"{year_phrase(ticker, year)} separately; the nearest figure available is the "
            f"{self._metric_phrase(f, parent)}: {self.value(f)} [{nearest.n}]."
        )

    def change_sentences(
        self,
        chosen: Chosen,
        ticker: str,
        metric: str,
        years: list[int],
    ) -> list[str]:
        have = sorted(y for y in years if (ticker, y, metric) in chosen)
        if len(have) < 2:
            return []
        pairs = list(itertools.pairwise(have))
        if len(have) >= 3:
            pairs.append((have[0], have[-1]))
        sentences: list[str] = []
        display = metric_display(metric)
        for old_year, new_year in pairs:
            new = chosen[(ticker, new_year, metric)]
            old = chosen[(ticker, old_year, metric)]
            basis = ""
            # Like for like: a later report's restated comparative beats the first report.
            comparative = [
                s
                for s in self._matching(ticker, old_year, metric)
                if s.fact.report_fiscal_year == new_year
            ]
            if comparative and comparative[0].fact.value != old.fact.value:
                old = comparative[0]
                basis = f" (FY{old_year} as restated in the {old.fact.document})"
            sentence = self._change_sentence(ticker, display, old, new, old_year, new_year)
            if sentence:
                sentences.append(sentence.replace(" [", f"{basis} [", 1) if basis else sentence)
        return sentences

    def _change_sentence(
        self, ticker: str, display: str, old: Sourced, new: Sourced, y1: int, y2: int
    ) -> str | None:
        # long: one sentence per kind of change, each case beside the next.
        qo, qn = signed_base(old), signed_base(new)
        span = f"from FY{y1} to FY{y2}"
        unit = self.unit_for([old.fact, new.fact])
        values = (
            f"from {self.value(old.fact, unit)} [{old.n}] to {self.value(new.fact, unit)} [{new.n}]"
        )
        subject = f"{possessive(ticker)} {display}"
        try:
            pct = growth_percent(qo, qn) if qo.value > 0 and qn.value > 0 else None
        except IncompatibleUnits:
            return (
                f"{subject} is reported in different units in FY{y1} and FY{y2}, so the "
                "change is not computed."
            )
        if pct is not None:
            if round(pct, 1) == 0:
                linking = "were" if display == "dividends per share" else "was"
                return f"{subject} {linking} unchanged {span}, {values}."
            verb = "rose" if pct > 0 else "fell"
            self.derived.append(
                Derived(
                    label=f"{display_name(ticker)} {display} change FY{y1}–FY{y2}",
                    formula=(
                        f"({fmt_number(qn.value)} − {fmt_number(qo.value)}) / "
                        f"{fmt_number(qo.value)} = {pct:+.1f}%"
                    ),
                )
            )
            return f"{subject} {verb} {abs(pct):.1f}% {span}, {values}."
        if qo.value < 0 and qn.value < 0 and old.fact.metric != "net_debt":
            gap = abs(qn.value - qo.value)
            verb = "widened" if qn.value < qo.value else "narrowed"
            amount = format_value(gap, qn.base)
            self.derived.append(
                Derived(
                    label=f"{display_name(ticker)} {display} change FY{y1}–FY{y2}",
                    formula=f"|{fmt_number(qn.value)} − ({fmt_number(qo.value)})| = "
                    f"{format_value(gap, qn.base)}",
                )
            )
            return f"{possessive(ticker)} loss {verb} by {amount} {span}, {values}."
        return f"{subject} moved {span} {values}; no percentage change is meaningful here."
