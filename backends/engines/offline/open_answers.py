"""Answers for measures a question asks in the reports' own words, which no metric names.

`domain.reports.open_answers` matches a part of the question to the facts that answer it;
here each becomes a figure per company and year, its working for a margin, share or
ratio, how it moved, the highest or lowest of the companies, which of the options listed
is highest, else the closest figure or sentences the reports give.
"""

import itertools
from typing import NamedTuple

from backends.engines.offline.wording import possessive, year_phrase, year_span_of
from domain.companies.roster import companies, display_name
from domain.language.calendar import quarter_dated
from domain.models import ChunkText, Derived, Draft, NotFound
from domain.questions.choices import Choice
from domain.questions.measures import Focus, read_focus, related, terms
from domain.questions.metrics import find_other_measures
from domain.reports.facts import report_facts
from domain.reports.figures import IncompatibleUnits, to_base, unit_spec
from domain.reports.open_answers import (
    ANSWERS,
    BASIS,
    Candidate,
    Similarity,
    best,
    closest,
    derive,
    match,
    moved_in_points,
    phrase,
    shares_most,
    single_figure,
    value_text,
    verb,
)
from domain.reports.passages import find_passages


def _measure_name(part: Focus) -> str:
    """A part's measure as the vocabulary names it, where it does ("C1 unit costs" for
    "C1 costs per tonne"), else in the question's own words (always when a number names
    its kind: "Scope 3 emissions", not "emissions")."""
    named = [] if part.qualifiers else find_other_measures(part.text or part.phrase)
    return part.derived.name if part.derived else (named[0] if named else part.phrase)


class _Valued(NamedTuple):
    """A company's figure of an open part, as `OpenAnswers.ranked` orders them."""

    ticker: str
    value: float
    """On its unit's base (a margin's percentage; an amount in its currency's base)."""
    base: str
    text: str
    """The figure as the answer writes it."""
    cite: str
    """Its citation marks ("[3]", "[3] [4]" for a worked figure)."""


class OpenAnswers:
    """Answers for the parts of a question no metric of the vocabulary names (see
    `domain.reports.open_answers`): one sentence per company and year from the fact that
    answers the part, its working for a margin, share or ratio, else the reports'
    closest sentences, and the exact not-found line for each year without a figure."""

    def __init__(
        self,
        sources: list[ChunkText],
        similarity: Similarity | None,
        scale: str | None,
        change: bool = False,
        quarter: int | None = None,
        whole: set[int] | None = None,
        question: str = "",
    ) -> None:
        self.sources = sources
        self.quarter = quarter
        """The quarter the question asks of its years ("Q2 of FY2023"), or None: a year."""
        self.question = question
        """The question's words: a day it is dated at ("as of August 30, 2023") asks for
        the quarter holding that day, by the company's own year (`quarter_dated`)."""
        self.whole = whole or set()
        """Years the question names on their own ("between FY2023 and Q2 of FY2024"):
        asked whole, the quarter not."""
        self.similarity = similarity
        self.scale = scale
        self.sourced = [
            (f, n) for n, chunk in enumerate(sources, start=1) for f in report_facts(chunk)
        ]
        self.derived: list[Derived] = []
        self.valued: dict[tuple[str, int], list[_Valued]] = {}
        """Each answered part's figures by (part, year), for `ranked` to order."""
        self._matched: dict[str, list[Candidate]] = {}
        self.change = change
        """The question asks how its measures moved: a change line under the years."""

    def joined(self, parts: list[Focus]) -> list[Focus]:
        """Parts the reports name together taken as one ("employees and contractors",
        "capital and exploration expenditure"): two neighbours become one when a label
        holds the words of both."""
        out: list[Focus] = []
        for part in parts:
            if out:
                both = Focus(
                    phrase=f"{out[-1].phrase} and {part.phrase}",
                    terms=out[-1].terms | part.terms,
                )
                if any(c.lexical >= 0.99 for c in self.candidates(both)):
                    out[-1] = both
                    continue
            out.append(part)
        return out

    def candidates(self, focus: Focus) -> list[Candidate]:
        if focus.phrase not in self._matched:
            self._matched[focus.phrase] = match(focus, self.sourced, self.similarity)
        return self._matched[focus.phrase]

    def _quarter(self, year: int, ticker: str) -> int | None:
        """The quarter asked of `year`: named ("Q2 of FY2023"), or holding the day the
        question is dated at; None when the year is asked whole."""
        if year in self.whole:
            return None
        if self.quarter is not None:
            return self.quarter
        dated = quarter_dated(self.question, companies()[ticker].year_end)
        return dated[1] if dated is not None and dated[0] == year else None

    def _best(self, candidates: list[Candidate], ticker: str, year: int) -> Candidate | None:
        """The year's figure, or the quarter's when one is asked of it. A question dated
        at a day ("as of August 30, 2023") takes that quarter's figure, else the year's: a
        report of that day states both (its quarter's gain, the year's proceeds)."""
        q = self._quarter(year, ticker)
        found = best(candidates, ticker, year, (q, companies()[ticker].year_end) if q else None)
        if found is None and q is not None and self.quarter is None:
            return best(candidates, ticker, year)
        return found

    def _when(self, ticker: str, year: int) -> str:
        """The period a figure is said for: the year, or the quarter of it asked."""
        if q := self._quarter(year, ticker):
            return f"Q{q} FY{year}"
        return year_phrase(ticker, year)

    def _short(self, year: int, ticker: str) -> str:
        q = self._quarter(year, ticker)
        return f"Q{q} FY{year}" if q else f"FY{year}"

    def answer(
        self, part: Focus, ticker: str, years: list[int]
    ) -> tuple[list[str], list[NotFound]]:
        lines: list[str] = []
        gaps: list[NotFound] = []
        # The gap is named as the vocabulary names the measure, where it does ("C1 unit
        # costs" for "C1 costs per tonne"), else in the question's own words (always
        # when a number names its kind: "Scope 3 emissions", not "emissions").
        measure = _measure_name(part)
        picked: list[tuple[int, Candidate]] = []
        for year in years:
            line = self.figure(part, ticker, year)
            if line is None:
                gaps.append(NotFound(company=ticker, fiscal_year=year, metric=measure))
            else:
                lines.append(line)
                if part.derived is None and (
                    pick := self._best(self.candidates(part), ticker, year)
                ):
                    picked.append((year, pick))
        if self.change and len(picked) >= 2:
            lines.extend(self._change(ticker, picked))
        if gaps and not lines:
            near = closest(self.candidates(part), ticker, years)
            if near is not None:
                lines.append(_closest_figure(part, ticker, years, near))
            else:
                lines.extend(self._closest(part, ticker, years))
        return lines, gaps

    def _change(self, ticker: str, picked: list[tuple[int, Candidate]]) -> list[str]:
        """How a measure asked in the reports' own words moved between the years asked,
        with its working: a rate in percentage points, an amount in percent."""
        lines: list[str] = []
        for (y1, old), (y2, new) in itertools.pairwise(picked):
            a, b = old.fact, new.fact
            spans = {a.period_months, b.period_months}
            if a.unit != b.unit or a.value == b.value or (len(spans) > 1 and spans & {3, 6, 9}):
                continue  # a year's flow and a quarter's are no change of one measure; two
                # balances are, at a year's end and a quarter's
            subject = f"{possessive(ticker)} {phrase(b)}"
            verb = "rose" if b.value > a.value else "fell"
            first, last = self._short(y1, ticker), self._short(y2, ticker)
            span = f"from {first} to {last}"
            if a.unit == "%":
                line = moved_in_points(subject, span, a, old.n, b, new.n)
                formula = f"{value_text(b)} − {value_text(a)} = {b.value - a.value:+.1f} points"
            elif a.value > 0 and b.value > 0 and unit_spec(a.unit).kind == "money":
                pct = (b.value - a.value) / a.value * 100
                line = (
                    f"{subject} {verb} {abs(pct):.1f}% {span}, from "
                    f"{value_text(a)} [{old.n}] to {value_text(b)} [{new.n}]."
                )
                formula = f"({value_text(b)} − {value_text(a)}) / {value_text(a)} = {pct:+.1f}%"
            else:
                continue
            lines.append(line)
            self.derived.append(
                Derived(
                    label=f"{display_name(ticker)} {phrase(b)} change {first}–{last}",
                    formula=formula,
                )
            )
        return lines

    def choice(self, choice: Choice, ticker: str, years: list[int]) -> Draft | None:
        """Which of the options a question lists is highest or lowest, said first, then
        each option's figure cited; None when fewer than two of them have a figure of one
        kind in a year (the usual reading then answers what it can)."""
        paragraphs: list[str] = []
        gaps: list[NotFound] = []
        for year in years:
            picks = [(o, self._option(choice, o, ticker, year)) for o in choice.options]
            found = [(o, p) for o, p in picks if p is not None]
            if len({id(p.fact) for _, p in found}) < 2:
                continue
            try:
                based = [(o, p, to_base(p.fact.value, p.fact.unit)) for o, p in found]
            except IncompatibleUnits:
                continue
            if len({q.base for _, _, q in based}) > 1:
                continue  # figures of different kinds rank nothing
            ranked = [(o, p) for o, p, _ in sorted(based, key=lambda opq: opq[2].value)]
            missing = [o for o, p in picks if p is None]
            lines = []
            if not missing:
                lines.append(self._chosen(choice, ranked, ticker, year))
            lines.extend(self._sentence(p, ticker, year) for _, p in found)
            gaps.extend(
                NotFound(company=ticker, fiscal_year=year, metric=choice.phrase(o)) for o in missing
            )
            paragraphs.append(" ".join(lines))
        if not paragraphs:
            return None
        text = "\n\n".join([*paragraphs, "\n".join(g.line() for g in gaps)]).strip()
        return Draft(answer=text, not_found=gaps)

    def _chosen(
        self, choice: Choice, ranked: list[tuple[str, Candidate]], ticker: str, year: int
    ) -> str:
        """The option asked for, of every option `ranked` (lowest first), with its figure."""
        top, pick = ranked[-1] if choice.end == "highest" else ranked[0]
        what = (
            f"had the {choice.end} {choice.measure}"
            if choice.measure
            else (f"was the {choice.end}")
        )
        return (
            f"Of the {len(ranked)} asked, {top} {what} for "
            f"{display_name(ticker)} in {self._when(ticker, year)}: "
            f"{value_text(pick.fact)} [{pick.n}]."
        )

    def _option(self, choice: Choice, option: str, ticker: str, year: int) -> Candidate | None:
        """An option's figure: the best fact for it with its measure whose label says what
        sets the option apart from the others ("operations", not the "investing" of a
        row that answers "cash flow" as well)."""
        own = choice.own_terms(option)
        fit = [
            c
            for c in self.candidates(read_focus(choice.phrase(option)))
            if not own or any(related(t) & terms(c.fact.label) for t in own)
        ]
        return self._best(fit, ticker, year)

    def figure(self, part: Focus, ticker: str, year: int) -> str | None:
        pick = self._best(self.candidates(part), ticker, year)
        if part.derived is not None and (pick is None or pick.fact.unit != "%"):
            worked = self._derived(part, ticker, year)
            if worked is not None:
                return worked
        if pick is None:
            return None
        q = to_base(pick.fact.value, pick.fact.unit)
        self.valued.setdefault((part.phrase, year), []).append(
            _Valued(ticker, q.value, q.base, value_text(pick.fact), f"[{pick.n}]")
        )
        others = self._restatements(part, pick)
        if not others:
            return self._sentence(pick, ticker, year)
        f = pick.fact
        lines = [
            f"{possessive(ticker)} {phrase(f)} for {self._when(ticker, year)} {verb(f)} "
            f"{value_text(f)} as first reported in the {f.document} [{pick.n}]."
        ]
        lines += [
            f"The {o.fact.document} restates {possessive(ticker)} FY{year} {phrase(f)} to "
            f"{value_text(o.fact)} [{o.n}]."
            for o in others
        ]
        return " ".join(lines)

    def _restatements(self, part: Focus, pick: Candidate) -> list[Candidate]:
        """Later reports' figures under the same label for the year `pick` answers that
        differ from it (South32's FY2024 revenue from continuing operations, 5,479 as first
        reported, 4,923 in the FY2025 report once a business was sold): the answer gives
        both, as it does for a measure the vocabulary names. None when `pick` is itself a
        later report's figure or a sentence's."""
        f = pick.fact
        if f.report_fiscal_year != f.fiscal_year or f.restated or f.source == "prose":
            return []
        seen: set[int] = set()
        found: list[Candidate] = []
        for c in self.candidates(part):
            o = c.fact
            if (
                (o.company, o.fiscal_year) == (f.company, f.fiscal_year)
                and o.report_fiscal_year > f.report_fiscal_year
                and o.report_fiscal_year not in seen
                and o.annual
                and o.label.lower() == f.label.lower()
                and c.score >= ANSWERS
            ):
                a, b = to_base(f.value, f.unit), to_base(o.value, o.unit)
                if a.base == b.base and abs(a.value - b.value) > 1e-9:
                    seen.add(o.report_fiscal_year)
                    found.append(c)
        return found

    def ranked(self, part: Focus, year: int, asked: str, tickers: list[str]) -> str | None:
        """The company with the highest (or lowest) figure of a part no metric names, of
        those answered for `year` on one base (a margin's percentages compare across
        currencies; amounts only within one), said first, then the others in order. None
        unless every company asked has its figure there: a company whose figure was not
        found may be the one asked for (South32's TRIF was named lowest, with Fortescue's
        and Northern Star's lower TRIFR not read)."""
        entries = self.valued.get((part.phrase, year), [])
        if {e.ticker for e in entries} != set(tickers):
            return None
        bases: dict[str, list[_Valued]] = {}
        for entry in entries:
            bases.setdefault(entry.base, []).append(entry)
        group = max(bases.values(), key=len, default=[])
        if len(group) < 2:
            return None
        top, *rest = sorted(group, key=lambda e: -e.value if asked == "highest" else e.value)
        among = f"Among the figures in {top.base}, " if len(bases) > 1 else ""
        others = "; ".join(f"{display_name(e.ticker)} {e.text} {e.cite}" for e in rest)
        return (
            f"{among}{display_name(top.ticker)} had the {asked} {_measure_name(part)} in FY{year}: "
            f"{top.text} {top.cite}. Then: {others}."
        )

    def _sentence(self, pick: Candidate, ticker: str, year: int) -> str:
        f = pick.fact
        if f.source == "prose" and single_figure(f.context):
            section = self.sources[pick.n - 1].section.split(" — ")[0]
            return (
                f"{possessive(ticker)} FY{f.report_fiscal_year} report ({section}, page "
                f'{f.page}) says: "{f.context}" [{pick.n}]'
            )
        when = self._when(ticker, year)
        return f"{possessive(ticker)} {phrase(f)} for {when} {verb(f)} {value_text(f)} [{pick.n}]."

    def _derived(self, part: Focus, ticker: str, year: int) -> str | None:
        """A margin, share or ratio computed from the two facts it joins, with its working."""
        assert part.derived is not None
        spec = part.derived
        num = self._best(self.candidates(read_focus(spec.numerator)), ticker, year)
        den = self._best(self.candidates(read_focus(spec.denominator)), ticker, year)
        if num is None or den is None or num.fact == den.fact:
            return None
        den = self._same_basis(num, den, spec.denominator, ticker, year)
        worked = derive(spec.kind, num, den)
        if worked is None:
            return None
        unit = "%" if worked.text.endswith("%") else "times"
        cite = f"[{num.n}]" if num.n == den.n else f"[{num.n}] [{den.n}]"
        self.valued.setdefault((part.phrase, year), []).append(
            _Valued(ticker, worked.value, unit, worked.text, cite)
        )
        self.derived.append(
            Derived(
                label=f"{display_name(ticker)} {spec.name} {self._short(year, ticker)}",
                formula=worked.formula,
            )
        )
        return (
            f"{possessive(ticker)} {spec.name} for {self._when(ticker, year)} was "
            f"{worked.text}, worked out from the reported figures: {phrase(num.fact)} of "
            f"{value_text(num.fact)} [{num.n}] divided by {phrase(den.fact)} of "
            f"{value_text(den.fact)} [{den.n}]."
        )

    def _same_basis(
        self, num: Candidate, den: Candidate, denominator: str, ticker: str, year: int
    ) -> Candidate:
        """Both on one basis: an underlying (adjusted) figure is divided by the report's
        underlying denominator when it prints one (South32's underlying EBITDA over its
        underlying revenue, which includes the same equity-accounted share)."""
        basis = BASIS.search(num.fact.label)
        if basis and not BASIS.search(den.fact.label):
            same = self._best(
                self.candidates(read_focus(f"{basis.group(0)} {denominator}")), ticker, year
            )
            if same is not None and BASIS.search(same.fact.label) and same.fact != num.fact:
                return same
        return den

    def _closest(self, part: Focus, ticker: str, years: list[int]) -> list[str]:
        """The sentences of the company's reports that speak to the part, offered as what
        the reports do say (closest available), or nothing."""
        found = find_passages(part.phrase, self.sources, ticker, years, [], limit=2)
        found = [p for p in found if shares_most(part, p.sentence)]
        if not found:
            return []
        lines = [
            f'The reports give no figure of {possessive(ticker)} for "{part.phrase}" for '
            f"{year_span_of(years)}; the closest they say:"
        ]
        for p in found:
            where = f"{p.chunk.section.split(' — ')[0]}, page {p.chunk.page}"
            lines.append(
                f"{possessive(ticker)} FY{p.chunk.fiscal_year} report ({where}): "
                f'"{p.sentence}" [{p.n}]'
            )
        return lines


def _closest_figure(part: Focus, ticker: str, years: list[int], near: Candidate) -> str:
    """The closest figure the reports give to a measure none answers: a sentence's figure
    shown in its sentence (its label alone is a few words cut from it: "company generated
    … in cash proceeds"), a table's with its label."""
    f = near.fact
    said = (
        f'they say: "{f.context.strip()}" [{near.n}]'
        if f.source == "prose" and f.context
        else f"figure they report is its {phrase(f)} for FY{f.fiscal_year}: "
        f"{value_text(f)} [{near.n}]."
    )
    return (
        f'The reports give no figure of {possessive(ticker)} for "{part.phrase}" '
        f"for {year_span_of(years)}; the closest {said}"
    )
