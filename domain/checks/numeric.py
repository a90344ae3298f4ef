"""Numeric grounding: is every number an answer claims backed by the sources it cites?

Pure and independent of whoever wrote the answer: it sees only the answer text and the
source chunks, never the synthesiser's notes, so it can judge the offline engine and a
model alike (docs/controls.md, groundedness and claim classes).

For each sentence, its `[n]` / `[1,3]` markers select sources (1-based); a figure is bound
to the first marker after it, or the run of markers there ("[1][2]"), and to all the
sentence's markers when none follows. Each figure is also bound to its OWN company, fiscal
year and metric (`bind_amounts`): the nearest mention in its clause, else the scope an
earlier clause opened, so "BHP's revenue was US$X in FY2023 and US$Y in FY2024" binds X to
FY2023 and Y to FY2024, and "Fortescue's net debt was US$X in FY2024, while Rio Tinto's was
US$Y" binds Y to Rio Tinto, FY2024 and net debt. In an answer's Markdown table a cell binds
to its row label and column header. A figure whose company, year or metric cannot be told
is checked against the whole sentence's. Every amount the sentence claims (money,
per-share, percentages, volumes; not fiscal years, dates, page or marker numbers) must
match a number in a cited source, within these tolerances:

- the unit may sit in the table header: a bare 29,016 in a "US$M" table supports
  "US$29,016 million", "US$29.0 billion" and "about US$29 billion";
- rounding to the precision the answer shows ("about" allows one unit of the last digit);
- accounting parentheses: (173) supports "a loss of US$173 million";
- a ratio 0.042 supports 4.2%;
- the number must sit in a source of the company, fiscal year and metric the figure is
  stated for ("year ended 30 June 2024" = FY2024; "EBITDA" = underlying EBITDA; NPAT = net
  profit after tax), else it is unsupported even though the digits exist somewhere: two
  figures swapped between years, companies or metrics are both flagged. A table cell's
  year is its column's; a report's prose figure belongs to the year its own clause names
  ("restated to US$4,923 million for FY2024"), else to the report's fiscal year.

A figure that is not in the sources but recomputes, within the rounding shown, from two
cited numbers of the sentence's companies, years and metrics (growth %, difference, sum,
ratio) is supported and listed as derived with its formula. Everything else is an
unsupported claim with a short label (metric and context, never the number) and a reason:
`interpolation` (estimate words), `calculation` (looks computed from numbers present, but
does not recompute), `general_knowledge`.
"""

import re
from dataclasses import dataclass, field, replace
from typing import TypeVar

from domain.checks.arithmetic import Worked, agrees, worked_results
from domain.companies.roster import (
    companies,
    display_name,
    find_companies,
    fiscal_years,
)
from domain.language.amounts import APPROX, Amount, claimed_amounts, find_amounts
from domain.language.calendar import quarter_of, quarter_of_year, whole_years
from domain.language.sentences import quoted_spans, split_sentences
from domain.language.units import CURRENCIES, QUANTITIES
from domain.models import (
    CheckedFigure,
    ChunkText,
    ClaimReason,
    Derived,
    GroundingReport,
    UnsupportedClaim,
)
from domain.questions.metrics import (
    DIVIDEND_COMPONENT,
    find_metrics,
    metric_display,
    metric_of_cell,
)
from domain.questions.years import find_fiscal_years, mentioned_years
from domain.reports.binding import (
    YEAR_TOKEN,
    Binding,
    bind_amounts,
    company_spans,
    metric_spans,
    without_targets,
    year_spans,
)
from domain.reports.figures import table_blocks, table_cells, unit_spec

_T = TypeVar("_T")
_MARKER = re.compile(r"\[(\s*\d+(?:\s*(?:,|;|-|–)\s*\d+)*\s*)\]")

_NOT_FOUND = re.compile(
    r"^\s*(?:[-*•]\s*)?[A-Z0-9]{2,4}\s+FY\d{4}\s+[^:\n]+:\s*data not found in provided "
    r"documents\.?\s*$"
)

_INTERPOLATION = re.compile(
    r"\b(?:estimat\w*|expect\w*|project(?:ed|ion|ions|s)|forecast\w*|likely|probabl\w*|"
    r"anticipat\w*|predict\w*|extrapolat\w*|would\s+(?:be|have|reach|likely)|could\s+reach|"
    r"on\s+track\s+to|implied|implies|assum\w*|guidance|outlook|trend\s+suggests)\b",
    re.IGNORECASE,
)

_CALCULATION = re.compile(
    r"\b(?:rose|rise|risen|rising|fell|fall|fallen|falling|increase\w*|decrease\w*|grew|"
    r"grow\w*|change\w*|declin\w*|drop\w*|up|down|higher|lower|more|less|difference|differ\w*|"
    r"combined|together|total(?:led)?|sum|margin|ratio|times|average|cagr|compound\w*|"
    r"percentage|share\s+of|widened|narrowed|improv\w*|gap|exceed\w*|lift\w*|rais\w*)\b",
    re.IGNORECASE,
)

_UP = re.compile(
    r"\b(?:rose|rise|risen|rising|increase[sd]?|increasing|grew|grow(?:th|ing|n)?|up|higher|"
    r"gain(?:ed)?|improv\w*|more|exceed\w*|above|larger|bigger|lift(?:ed|ing|s)?|"
    r"rais(?:ed|ing|es)|boost(?:ed|ing|s)?|climb(?:ed|ing|s)?|jump(?:ed|ing|s)?)\b",
    re.IGNORECASE,
)

_DOWN = re.compile(
    r"\b(?:fell|fall(?:en|ing)?|decrease[sd]?|decreasing|declin\w*|drop(?:ped)?|down|lower|"
    r"shrank|less|below|smaller|contract(?:ed|ion)|cut|reduc(?:ed|ing|es|tion)|"
    r"lowered|slump(?:ed|ing|s)?|slid|plunged?)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SourceNumber:
    """A number found in a source chunk, with the context that says what it is."""

    amount: Amount
    source: int  # 0-based index into the sources
    company: str
    years: frozenset[int]
    metric: str | None
    signed: bool  # the sign is known (a table cell or accounting parentheses)
    quarter: tuple[int, int] | None = None
    """The fiscal year and quarter of a cell printed for three months, else None."""


def _base(a: Amount) -> float | None:
    return None if a.factor is None else a.value * a.factor * (-1.0 if a.negative else 1.0)


def _table_numbers(text: str, chunk: ChunkText, index: int) -> list[SourceNumber]:
    """The numbers of a chunk's tables: each cell with its own unit and period
    (`table_cells`); a cell bound to no period backs no figure of a year, and one printed
    for a period shorter than a year ("3 months to ...") is no year's."""
    found: list[SourceNumber] = []
    cells = table_cells(text, chunk.unit, chunk.fiscal_year)
    company = companies().get(chunk.company)
    year_end = company.year_end if company is not None else None
    row_years: dict[str, set[int]] = {}
    for cell in cells:
        if cell.period is not None:
            row_years.setdefault(cell.label, set()).add(cell.period.fiscal_year)
    labels: set[str] = set()
    for cell in cells:
        metric = metric_of_cell(cell.label, chunk.section)
        if cell.label not in labels:
            # A number in a row's label ("production (100%)") is of the row's periods.
            labels.add(cell.label)
            years = frozenset(row_years.get(cell.label, ()))
            for a in find_amounts(cell.label):
                found.append(SourceNumber(a, index, chunk.company, years, metric, False))
        spec = unit_spec(cell.unit) if cell.unit else None
        amount = Amount(
            value=abs(cell.value),
            decimals=cell.decimals,
            kind=spec.kind if spec else "bare",
            currency=spec.currency if spec else None,
            factor=spec.factor if spec else None,
            negative=cell.value < 0,
            sign_known=True,
            approx=False,
            start=0,
            end=0,
        )
        period = cell.period
        annual = period is not None and period.annual
        years = frozenset({period.fiscal_year}) if annual and period else frozenset()
        quarter = quarter_of(period.end, period.months, year_end) if period else None
        found.append(SourceNumber(amount, index, chunk.company, years, metric, True, quarter))
    return found


def source_numbers(chunk: ChunkText, index: int) -> list[SourceNumber]:
    """Return every number in a chunk: table cells with their header unit, prose amounts."""
    lines = chunk.text.splitlines()
    if lines and lines[0].startswith("[") and "page" in lines[0]:
        lines = lines[1:]
    lines = [ln for ln in lines if not re.match(r"^Table \(.*\):$", ln.strip())]
    text = "\n".join(lines)
    found = _table_numbers(text, chunk, index)
    prose = "\n".join(ln for ln in lines if not ln.strip().startswith("|"))
    for sentence in split_sentences(prose):
        amounts = claimed_amounts(sentence)
        # A prose figure belongs to the year its own clause names ("restated to US$4,923
        # million for FY2024"), else to the report's own fiscal year.
        for a, bound in zip(amounts, bind_amounts(sentence, amounts, follow=False), strict=True):
            years = frozenset(bound.years or (chunk.fiscal_year,))
            found.append(SourceNumber(a, index, chunk.company, years, bound.metric, a.sign_known))
    return found


def _marker_sources(group: str, count: int) -> list[int]:
    cited: list[int] = []
    for part in re.split(r"[,;]", group):
        bounds = [int(x) for x in re.split(r"[-–]", part) if x.strip()]
        if not bounds:
            continue
        for n in range(bounds[0], bounds[-1] + 1):
            if 1 <= n <= count and n - 1 not in cited:
                cited.append(n - 1)
    return cited


def cited_sources(sentence: str, count: int) -> list[int]:
    """Return the 0-based sources a sentence's markers cite (out-of-range markers ignored)."""
    cited: list[int] = []
    for match in _MARKER.finditer(sentence):
        cited.extend(i for i in _marker_sources(match.group(1), count) if i not in cited)
    return cited


def _bound_sources(sentence: str, position: int, count: int) -> list[int]:
    """The sources a number at `position` cites: the first marker after it in its sentence.

    "US$53,658 million [1] and US$55,658 million [2]" binds each figure to its own source,
    so two figures swapped between sources are caught; markers written back to back
    ("[1][2]") are one citation. A number with no marker after it takes every marker of
    the sentence.
    """
    cited: list[int] = []
    last_end: int | None = None
    for match in _MARKER.finditer(sentence):
        if match.start() < position:
            continue
        if last_end is not None and sentence[last_end : match.start()].strip(" ,;"):
            break
        cited.extend(i for i in _marker_sources(match.group(1), count) if i not in cited)
        last_end = match.end()
    return cited if last_end is not None else cited_sources(sentence, count)


def _tolerance(claim: Amount) -> float:
    step = claim.step
    tol = 0.5 * step
    if claim.approx:
        tol = max(tol, min(step, 0.05 * claim.value))
    return tol + 1e-9 * max(1.0, claim.value)


def _close(claim: Amount, figure: float) -> bool:
    """Whether `figure` (on the claim's scale) is what the claim states, within its
    rounding: on either side of the number written, or, after a one-sided qualifier, on
    the side it names only ("more than 60" is not 55.7; "almost 56" is 55.7, not 56.3)."""
    tol = _tolerance(claim)
    exact = 1e-9 * max(1.0, claim.value)
    if claim.side > 0:
        return claim.value - exact <= figure <= claim.value + tol
    if claim.side < 0:
        return claim.value - tol <= figure <= claim.value + exact
    return abs(figure - claim.value) <= tol


def _same_kind(claim: Amount, src: Amount) -> bool:
    if claim.kind != src.kind:
        return False
    return not (claim.currency and src.currency and claim.currency != src.currency)


def value_matches(claim: Amount, src: Amount) -> bool:
    """Does a source amount support the claimed amount's value (ignoring context)?"""
    if claim.kind == "percent":
        if src.kind == "percent":
            return _close(claim, src.value)
        if src.kind == "bare" and src.decimals >= 2 and src.value <= 1.5:
            return _close(claim, src.value * 100.0)
        return False
    if claim.factor is not None and src.factor is not None:
        if not _same_kind(claim, src):
            return False
        return _close(claim, src.value * src.factor / claim.factor)
    if src.kind == "percent":
        return False
    if claim.kind in ("money", "per_share") and src.kind not in ("money", "per_share", "bare"):
        return False
    if claim.currency and src.currency and claim.currency != src.currency:
        return False
    return _close(claim, src.value)


def _sign_ok(claim: Amount, src: SourceNumber) -> bool:
    if src.metric == "net_debt" or not src.signed:
        return True
    return claim.negative == src.amount.negative


def _metric_ok(src_metric: str | None, metrics: list[str]) -> bool:
    if src_metric is None or not metrics:
        return True
    if src_metric == DIVIDEND_COMPONENT:
        return "dividends_per_share" in metrics
    return src_metric in metrics


@dataclass(frozen=True)
class _Context:
    companies: list[str]
    years: list[int]
    metrics: list[str]
    quarter: int | None = None
    """The quarter of its years the sentence states figures for ("Q2 FY2023"), or None."""
    whole: frozenset[int] = frozenset()
    """Years the sentence names on their own before its quarter ("from FY2023 to Q2
    FY2024"): their figures are the whole year's."""

    def allows(self, src: SourceNumber) -> bool:
        if self.companies and src.company not in self.companies:
            return False
        if self.quarter and src.signed and src.quarter is None and src.years & self.whole:
            pass  # a year named whole beside the quarter: its year's figure
        elif self.quarter and src.quarter is not None:
            # A quarter's figure backs a figure said for that quarter of the year.
            year, quarter = src.quarter
            if quarter != self.quarter or (self.years and year not in self.years):
                return False
        elif self.quarter and src.signed:
            return False  # a year's cell (or a cell of another span) is no quarter's
        elif self.years and not (src.years & set(self.years)):
            return False
        return _metric_ok(src.metric, self.metrics)

    def narrowed(self, binding: Binding) -> "_Context":
        """One figure's own context: what it binds to, else the whole sentence's."""
        return _Context(
            [binding.company] if binding.company else self.companies,
            list(binding.years) if binding.years else self.years,
            [binding.metric] if binding.metric else self.metrics,
            self.quarter,
            self.whole,
        )


def _fmt(value: float) -> str:
    text = f"{abs(value):,.3f}".rstrip("0").rstrip(".")
    return f"−{text}" if value < 0 else text


_BASE_UNITS: dict[tuple[str, str | None], tuple[str, str]] = {
    **{("money", c.sign): (c.sign, " million") for c in CURRENCIES},
    **{("per_share", c.sign): ("", c.minor_words) for c in CURRENCIES if c.minor_words},
    **{(q.kind, None): ("", q.shown) for q in QUANTITIES if q.key == q.base != "%"},
}
"""How a derived figure's unit is written, from the units table ("US$3,629 million")."""

"""How a base-unit figure is written, before and after the number: "US$3,629 million"."""


def _in_unit(value: float, unit: tuple[str, str]) -> str:
    """A base-unit figure with its unit the way people write it ("US$3,629 million",
    "263 Mt"), never the number then the currency ("3,629 US$ million")."""
    before, after = unit
    text = _fmt(value)
    sign, digits = ("−", text[1:]) if text.startswith("−") else ("", text)
    return f"{sign}{before}{digits}{after}"


def _derived_label(op: str, inputs: list[SourceNumber], metrics: list[str]) -> str:
    companies: list[str] = []
    for src in inputs:
        if src.company not in companies:
            companies.append(src.company)
    periods = sorted(
        {f"FY{y}" for src in inputs for y in src.years}
        | {f"Q{s.quarter[1]} FY{s.quarter[0]}" for s in inputs if s.quarter and not s.years},
        key=lambda p: (p[-4:], p),
    )
    metric = next((s.metric for s in inputs if s.metric), None) or (metrics[0] if metrics else "")
    span = "–".join(dict.fromkeys([periods[0], periods[-1]])) if periods else ""
    names = [display_name(c) for c in companies]  # people read names, not tickers
    parts = [" vs ".join(names), metric_display(metric) if metric else "figure", op, span]
    return " ".join(p for p in parts if p)


# A word that introduces what a change or comparison is measured from: "from FY2023",
# "than in FY2024", "compared with Rio Tinto's", "on FY2023".
_BASE_WORD = re.compile(
    r"\b(?:from|since|than|compared\s+(?:with|to)|versus|vs\.?|against|relative\s+to|on|over)"
    r"\s+(?:(?:the|in|for|that\s+of|those\s+of)\s+)*$",
    re.IGNORECASE,
)


def _stated_base(text: str, mentions: list[tuple[int, _T]], keys: set[_T]) -> _T | None:
    """Which of two `keys` (years or companies) the text measures from: the one its
    mention follows a base word for ("than in FY2024"), when just one does."""
    based = {
        key for at, key in mentions if key in keys and _BASE_WORD.search(text[max(0, at - 40) : at])
    }
    return based.pop() if len(based) == 1 else None


def _year_tokens(text: str, claim: Amount) -> list[tuple[int, int]]:
    """Each fiscal year the text names, with where it is, in text order ("from FY2023 to
    FY2024" is two)."""
    tokens: list[tuple[int, int]] = []
    for start, end, _ in year_spans(text, [claim]):
        for token in re.finditer(YEAR_TOKEN, text[start:end], re.IGNORECASE):
            years = mentioned_years(token.group(0))
            if years:
                tokens.append((start + token.start(), years[0]))
    return tokens


def _year_of(n: SourceNumber) -> int | None:
    """A source figure's year: its earliest, or its quarter's year."""
    if n.years:
        return min(n.years)
    return n.quarter[0] if n.quarter is not None else None


def _change_orders(
    text: str, claim: Amount, a: SourceNumber, b: SourceNumber
) -> list[tuple[SourceNumber, SourceNumber]]:
    """The (from, to) order a change between `a` and `b` is stated in. Between years: from
    the year a base word introduces ("than in FY2024", "compared with FY2023"), else from
    the earlier year to the later; a change is never read backwards in time. Between
    companies of one year: from the one a base word introduces, else from the second
    named to the first ("BHP's revenue was 4% higher than Rio Tinto's"). Both orders only
    when the text names neither."""
    year_a, year_b = _year_of(a), _year_of(b)
    if year_a != year_b and year_a is not None and year_b is not None:
        base = _stated_base(text, _year_tokens(text, claim), {year_a, year_b})
        base = min(year_a, year_b) if base is None else base
        return [(a, b) if year_a == base else (b, a)]
    if a.company != b.company:
        named = [(s, t) for s, _, t in company_spans(text) if t in (a.company, b.company)]
        base_company = _stated_base(text, named, {a.company, b.company})
        order = list(dict.fromkeys(t for _, t in named))
        if base_company is None and len(order) == 2:
            base_company = order[1]
        if base_company is not None:
            return [(a, b) if a.company == base_company else (b, a)]
    return [(a, b), (b, a)]


def _direction(text: str, claim: Amount) -> int | None:
    """Which way the text says a claimed change goes: 1 up, -1 down, 0 not said; None when
    it says both ("fell +3%"). Read from the figure's own sign ("-3.3%", "+3.4%"), else
    from the change word nearest it ("rose 3.4%", "3.3% lower"), a one-sided qualifier
    ("more than") not being one."""
    before = text[: claim.start]
    qualifier = APPROX.search(before)
    if qualifier:
        before = before[: qualifier.start()]
    said: set[int] = set()
    if claim.sign_known and claim.negative:
        said.add(-1)
    elif re.search(r"(?:^|[\s(])\+\s?$", text[: claim.start]):
        said.add(1)
    else:
        after = text[claim.end :]
        nearest: tuple[int, int] | None = None  # (distance, direction)
        for pattern, way in ((_UP, 1), (_DOWN, -1)):
            last = next(reversed(list(pattern.finditer(before))), None)
            if last is not None:
                distance = len(before) - last.end()
                nearest = min(nearest or (distance, way), (distance, way))
            following = pattern.search(after)
            if following is not None:
                nearest = min(nearest or (following.start(), way), (following.start(), way))
        if nearest is not None:
            said.add(nearest[1])
    return None if len(said) > 1 else (said.pop() if said else 0)


def _change(
    claim: Amount, text: str, a: SourceNumber, b: SourceNumber, metrics: list[str]
) -> Derived | None:
    """The claimed percentage as the change between `a` and `b`, in the order and the
    direction the text states it; else as one's share of the other, where the text states
    no change."""
    direction = _direction(text, claim)
    for old, new in _change_orders(text, claim, a, b) if direction is not None else []:
        vo, vn = _base(old.amount), _base(new.amount)
        if vo is None or vn is None or vo == 0:
            continue
        pct = (vn - vo) / abs(vo) * 100.0
        if direction and (pct >= 0) != (direction > 0):
            continue
        if _close(claim, abs(pct)):
            return Derived(
                # "BHP vs RIO … change": the first named is compared to the second.
                label=_derived_label("change", [new, old], metrics),
                formula=f"({_fmt(vn)} − {_fmt(vo)}) / {_fmt(vo)} = {pct:+.1f}%",
            )
    # A sentence that says the figure moved states a change, never a share: "fell 41.5%"
    # is not 380 as a share of 916.
    if _UP.search(text) or _DOWN.search(text):
        return None
    first, second = sorted((a, b), key=lambda s: _year_of(s) or 0)
    for part, whole in ((first, second), (second, first)):
        vp, vw = _base(part.amount), _base(whole.amount)
        if vp is None or not vw:
            continue
        ratio = vp / vw * 100.0
        if _close(claim, abs(ratio)):
            return Derived(
                label=_derived_label("ratio", [part, whole], metrics),
                formula=f"{_fmt(vp)} / {_fmt(vw)} = {ratio:.1f}%",
            )
    return None


def _recompute(
    claim: Amount, sentence: str, candidates: list[SourceNumber], metrics: list[str]
) -> Derived | None:
    """Find two cited numbers from which the claimed figure recomputes, within rounding."""
    # long: the formulas tried in order, each with its rounding rule.
    usable = [c for c in candidates if c.amount.factor is not None and c.amount.kind != "percent"]
    for i, a in enumerate(usable):
        for b in usable[i + 1 :]:
            if not _same_kind(a.amount, b.amount) or a.amount.kind != b.amount.kind:
                continue
            va, vb = _base(a.amount), _base(b.amount)
            if va is None or vb is None or va == vb:
                continue
            unit = _BASE_UNITS.get(
                (a.amount.kind, a.amount.currency or b.amount.currency), ("", "")
            )
            if claim.kind == "percent":
                found = _change(claim, sentence, a, b, metrics)
                if found is not None:
                    return found
                continue
            if claim.kind == "bare" and claim.factor is None:
                # A quotient of two figures of one kind ("net debt to EBITDA, 0.24
                # times"): either way round, within the claim's own rounding.
                for top, bottom in ((a, b), (b, a)):
                    vt, vb_ = _base(top.amount), _base(bottom.amount)
                    if vt is None or not vb_:
                        continue
                    if _close(claim, vt / vb_):
                        formula = f"{_fmt(vt)} / {_fmt(vb_)} = {vt / vb_:.{claim.decimals}f}"
                        return Derived(
                            label=_derived_label("ratio", [top, bottom], metrics), formula=formula
                        )
                continue
            if claim.factor is None or not _same_kind(claim, a.amount):
                continue
            for op, result, text in (
                (
                    "difference",
                    abs(va - vb),
                    f"{_in_unit(max(va, vb), unit)} − {_in_unit(min(va, vb), unit)}",
                ),
                ("sum", va + vb, f"{_in_unit(va, unit)} + {_in_unit(vb, unit)}"),
            ):
                if _close(claim, abs(result) / claim.factor):
                    formula = f"{text} = {_in_unit(result, unit)}"
                    larger_first = [a, b] if va >= vb else [b, a]
                    return Derived(label=_derived_label(op, larger_first, metrics), formula=formula)
    return None


def _claim_label(
    ctx: _Context, claim: Amount, cited: list[SourceNumber], sources: list[ChunkText], reason: str
) -> str:
    companies = ctx.companies or sorted({sources[s.source].company for s in cited})
    covered = fiscal_years()
    years = [y for y in ctx.years if y in covered] or ctx.years
    if not years:
        span = ""
    elif len(years) == 1:
        span = f"FY{years[0]}"
    else:
        span = f"FY{years[0]}–FY{years[-1]}"
    if ctx.metrics:
        what = " and ".join(metric_display(m) for m in ctx.metrics[:2])
    else:
        what = {
            "percent": "percentage",
            "per_share": "per-share figure",
            "mass": "volume",
            "gold": "volume",
            "money": "amount",
        }.get(claim.kind, "figure")
    words = [" and ".join(companies[:2]) or "Unattributed", span, what]
    if reason == "calculation":
        words.append("calculation")
    elif reason == "interpolation":
        words.append("estimate")
    label = " ".join(w for w in words if w)
    return " ".join(label.split()[:8])


def _answer_table_headers(answer: str) -> dict[str, list[str]]:
    """The header cells of the Markdown table each body row of the answer sits in."""
    headers: dict[str, list[str]] = {}
    for block in table_blocks(answer):
        header, body = block[0], block[1:]
        for line in answer.splitlines():
            row = line.strip()
            parsed = table_blocks(row) if row.startswith("|") else []
            if parsed and parsed[0][0] in body:
                headers.setdefault(row, header)
    return headers


def _row_bindings(row: str, claims: list[Amount], header: list[str]) -> list[Binding]:
    """Bind the figures of an answer's table row: from its own cell, else the row label
    (the first cell), else the column header ("| BHP | 55,658 |" under "| | FY2024 |"),
    else the header's first cell ("| FY2024 | BHP | Rio Tinto |")."""
    bars = [i for i, ch in enumerate(row) if ch == "|"]
    if not row.startswith("|"):
        bars.insert(0, -1)
    if not row.endswith("|"):
        bars.append(len(row))
    cells = [(bars[i] + 1, bars[i + 1]) for i in range(len(bars) - 1)]
    label = _cell_context(row[cells[0][0] : cells[0][1]]) if cells else Binding(None, (), None)
    bindings: list[Binding] = []
    for claim in claims:
        column = next((i for i, (s, e) in enumerate(cells) if s <= claim.start < e), 0)
        start, end = cells[column] if cells else (0, len(row))
        local = [
            replace(c, start=c.start - start, end=c.end - start)
            for c in claims
            if start <= c.start < end
        ]
        own = bind_amounts(row[start:end], local)[
            next(i for i, c in enumerate(local) if c.start == claim.start - start)
        ]
        named = _cell_context(header[column] if column < len(header) else "")
        corner = _cell_context(header[0] if header else "")
        fills = [own, *([label] if column else []), named, corner]
        bindings.append(
            Binding(
                company=next((b.company for b in fills if b.company), None),
                years=next((b.years for b in fills if b.years), ()),
                metric=next((b.metric for b in fills if b.metric), None),
            )
        )
    return bindings


def _cell_context(cell: str) -> Binding:
    """What a table cell names: its company (if just one), its years, its first metric."""
    companies = find_companies(cell)
    metrics = [m for _, _, m in metric_spans(cell)]
    return Binding(
        company=companies[0] if len(companies) == 1 else None,
        years=tuple(mentioned_years(cell)),
        metric=metrics[0] if metrics else None,
    )


def _asked(question: str | None) -> _Context:
    """What a question asks for: its companies, covered fiscal years and metrics (each
    empty when it names none: then a sentence's own words are all that bind)."""
    if not question:
        return _Context([], [], [])
    return _Context(
        find_companies(question),
        find_fiscal_years(question),
        find_metrics(question, commodity_means_production=False),
    )


def check_numbers(
    answer: str, sources: list[ChunkText], question: str | None = None
) -> GroundingReport:
    """Check every number the answer claims against the sources its sentences cite.

    Returns the unsupported claims (label and reason), the derived figures that
    recomputed (label and formula), and how many numbers were checked. Exact "not found"
    lines are not claims. A sentence with numbers and no marker is unsupported.

    With `question`, a sentence that names no company, no fiscal year or no metric is
    bound to the question's: "BHP's revenue was US$51.26 billion [1]" in answer to an
    FY2024 question states the FY2024 figure, so the FY2025 one in its source does not
    back it; in answer to a net debt question an unlabelled figure must be net debt's.
    """
    asked = _asked(question)
    per_source: dict[int, list[SourceNumber]] = {}
    headers = _answer_table_headers(answer)
    tally = _Tally()
    for sentence in split_sentences(answer):
        if _NOT_FOUND.match(sentence):
            continue
        said = _read_sentence(sentence, sources, per_source, headers.get(sentence), asked)
        if said is None:
            continue
        work = _Working.of(said, question, sources)
        seen: set[str] = set()
        for k in range(len(said.claims)):
            tally.checked += 1
            found = _check_claim(said, work, k, sources, question)
            if isinstance(found, Derived):
                tally.derive(found)
            elif isinstance(found, SourceNumber):
                tally.verify(found, said.ctx.narrowed(said.bindings[k]))
            elif found is not None and found.label not in seen:
                seen.add(found.label)
                tally.flag(found, sentence)
    return tally.report()


@dataclass
class _Tally:
    """What the check has found over an answer's sentences so far."""

    unsupported: list[UnsupportedClaim] = field(default_factory=list)
    derived: list[Derived] = field(default_factory=list)
    sentences: dict[str, str] = field(default_factory=dict)
    every: dict[str, list[str]] = field(default_factory=dict)
    verified: list[CheckedFigure] = field(default_factory=list)
    checked: int = 0

    def derive(self, found: Derived) -> None:
        if found not in self.derived:
            self.derived.append(found)

    def verify(self, backing: "SourceNumber", own: "_Context") -> None:
        """The figures of the company, years and metric a backed claim is stated for."""
        years = sorted(backing.years & set(own.years)) or sorted(backing.years)
        if not years and backing.quarter is not None and own.quarter:
            years = [backing.quarter[0]]  # a quarter asked of its year, given
        for year in years:
            figure = CheckedFigure(company=backing.company, fiscal_year=year, metric=backing.metric)
            if figure not in self.verified:
                self.verified.append(figure)

    def flag(self, claim: UnsupportedClaim, sentence: str) -> None:
        self.unsupported.append(claim)
        self.sentences.setdefault(claim.label, sentence)
        self.every.setdefault(claim.label, []).append(sentence)

    def report(self) -> GroundingReport:
        return GroundingReport(
            unsupported=self.unsupported,
            derived=self.derived,
            checked_numbers=self.checked,
            sentences=self.sentences,
            every_sentence=self.every,
            verified=self.verified,
        )


def _read_sentence(
    sentence: str,
    sources: list[ChunkText],
    per_source: dict[int, list[SourceNumber]],
    header: list[str] | None,
    asked: "_Context",
) -> "_Read | None":
    """One answer sentence's claims, their bindings and its cited figures; None when it
    claims no amount. `per_source` keeps each source's figures read once per answer."""
    cited = cited_sources(sentence, len(sources))
    text = _MARKER.sub(lambda m: " " * len(m.group(0)), sentence)
    claims = claimed_amounts(text)
    if not claims:
        return None
    ctx = _Context(
        find_companies(text) or asked.companies,
        mentioned_years(without_targets(text)) or asked.years,
        find_metrics(text) or asked.metrics,
        quarter_of_year(text),
        frozenset(whole_years(text)),
    )
    for i in cited:
        if i not in per_source:
            per_source[i] = source_numbers(sources[i], i)
    bindings = (
        _row_bindings(text, claims, header) if header is not None else bind_amounts(text, claims)
    )
    cited_numbers = [n for i in cited for n in per_source[i]]
    return _Read(sentence, claims, bindings, ctx, cited_numbers, len(sources), text, cited)


@dataclass(frozen=True)
class _Working:
    """What written working in a sentence states: each result with its working, the
    numbers of the working itself (365 days, ÷ 2), the operands that are cited amounts,
    and the spans that quote a cited source word for word."""

    worked: dict[int, Worked]
    constants: set[int]
    amounts: set[int]
    quotes: list[tuple[int, int]]

    @classmethod
    def of(cls, said: "_Read", question: str | None, sources: list[ChunkText]) -> "_Working":
        worked = worked_results(said.text, said.claims)
        constants = {
            k for w in worked.values() for k in w.operands if _constant(said.claims[k], question)
        }
        # An outflow the statement prints in brackets, written in the working as the
        # amount spent: backed by the cited figure's amount.
        operands = {k for w in worked.values() for k in w.operands if k not in constants}
        backed = {k for k in operands if said.backing(k, operand=True) is not None}
        amounts = {k for k in operands - backed if said.amount(k) is not None} | backed
        quotes = quoted_spans(said.text, [sources[i].text for i in said.cited_sources])
        return cls(worked, constants, amounts, quotes)


def _check_claim(
    said: "_Read", work: _Working, k: int, sources: list[ChunkText], question: str | None
) -> "Derived | SourceNumber | UnsupportedClaim | None":
    """Claim `k` of a sentence: the cited figure that backs it, the derivation it
    recomputes from, its unsupported claim, or None when it needs no backing (a quote of
    the source, a number of the working or of the question)."""
    claim, text, worked = said.claims[k], said.text, work.worked
    if any(lo <= claim.start and claim.end <= hi for lo, hi in work.quotes):
        return None  # the report's own words, quoted from the source cited
    if k in work.constants or _said_by_question(claim, text, question) or k in work.amounts:
        return None  # a number of the working itself (365 days, ÷ 2), not the report's
    own = said.ctx.narrowed(said.bindings[k])
    backing = said.backing(k)
    if k in worked and not agrees(worked[k], claim):
        backing = None  # a result its own working does not give is wrong, though the
        # same number is printed elsewhere in the source ("= +3.7" of 2.7)
    if k in worked and backing is None:
        step = worked[k]
        backed = all(
            i in work.constants or i in work.amounts or said.backing(i) is not None
            for i in step.operands
        )
        if backed and agrees(step, claim):
            label = _worked_label(text, own, claim, said.cited, sources)
            return Derived(label=label, formula=step.working)
    if backing is not None:
        return backing
    found = _recompute(claim, text, [n for n in said.cited if said.ctx.allows(n)], said.ctx.metrics)
    if found is not None:
        return found
    reason = _reason(said, k, k in worked)
    return UnsupportedClaim(
        label=_claim_label(own, claim, said.cited, sources, reason), reason=reason
    )


def _reason(said: "_Read", k: int, worked: bool) -> ClaimReason:
    """Why a claim no cited figure backs is unsupported: an estimate, a calculation that
    does not recompute, or a figure from outside the sources."""
    claim, text = said.claims[k], said.text
    if _INTERPOLATION.search(text):
        return "interpolation"
    if worked:
        return "calculation"  # its working gives another result
    if not said.cited_sources:
        return "general_knowledge"
    if claim.kind == "percent" or (
        _CALCULATION.search(text) and not any(value_matches(claim, n.amount) for n in said.cited)
    ):
        return "calculation"
    return "general_knowledge"


@dataclass(frozen=True)
class _Read:
    """One answer sentence's claims as the check reads them, with what its citations give."""

    sentence: str
    claims: list[Amount]
    bindings: list[Binding]
    ctx: _Context
    cited: list[SourceNumber]
    sources: int
    text: str
    """The sentence with its citation markers blanked out (same offsets)."""
    cited_sources: list[int]
    """The indices of the sources it cites."""

    def backing(self, k: int, operand: bool = False) -> SourceNumber | None:
        """The cited figure that backs claim `k`; a figure of written working
        (`operand`) is backed by its value, year and company alone: its sentence names
        the result's measure, not each line item's, and any company it names, not the
        nearest (a total of several companies' figures names them before the working)."""
        claim, own = self.claims[k], self.ctx.narrowed(self.bindings[k])
        if operand:
            own = _Context(self.ctx.companies, own.years, [], own.quarter, own.whole)
        marked = set(_bound_sources(self.sentence, claim.end, self.sources))
        return next(
            (
                n
                for n in self.cited
                if n.source in marked
                and own.allows(n)
                and value_matches(claim, n.amount)
                and _sign_ok(claim, n)
            ),
            None,
        )

    def amount(self, k: int) -> SourceNumber | None:
        """A figure of the working that is a cited figure's amount: an outflow a
        statement prints in brackets, written as the amount spent."""
        claim, own = self.claims[k], self.ctx.narrowed(self.bindings[k])
        own = _Context(own.companies, own.years, [], own.quarter, own.whole)
        return next(
            (n for n in self.cited if own.allows(n) and value_matches(claim, n.amount)), None
        )


def _worked_label(
    text: str, own: _Context, claim: Amount, cited: list[SourceNumber], sources: list[ChunkText]
) -> str:
    """A worked result's label: the measure its sentence names before the working
    ("days payable outstanding"), with the company and years; the generic label when it
    names none."""
    head = text.split(":", 1)[0] if ":" in text else ""
    head = re.sub(r"\([^()]*\)|,\s*as\s+the\s+question\s+defines\s+it.*$", " ", head)
    head = re.sub(r"\b(?:FY|CY)\d{4}\b(?:\s*[–-]\s*(?:FY|CY)\d{4})?", " ", head)
    words = [w for w in head.replace("'s", " ").split() if w[:1].islower()]
    generic = _claim_label(own, claim, cited, sources, "calculation")
    if not words:
        return generic
    who = generic.rsplit(" ", 2)[0] if own.metrics else " ".join(generic.split()[:-2])
    return " ".join(f"{who} {' '.join(words[-5:])}".split()[:8])


def _said_by_question(amount: Amount, text: str, question: str | None) -> bool:
    """A bare whole number the question itself states ("365 * ...", a definition quoted
    back): the user's, not a figure of the report."""
    if question is None or amount.kind != "bare" or amount.decimals:
        return False
    value = f"{int(amount.value)}"
    return bool(re.search(rf"(?<![\d.,]){value}(?![\d.,])", question))


def _constant(amount: Amount, question: str | None) -> bool:
    """A number of a calculation's working that is no figure of a report: a bare whole
    number the question's own definition states ("365 *"), 100 (a share in percent), or a
    count of periods averaged (÷ 2, ÷ 3, up to 12)."""
    if amount.kind != "bare" or amount.decimals or amount.negative:
        return False
    value = int(amount.value)
    said = question is not None and re.search(rf"(?<![\d.,]){value}(?![\d.,])", question)
    return bool(said) or value == 100 or 1 <= value <= 12


def merge_claims(*found: list[UnsupportedClaim]) -> list[UnsupportedClaim]:
    """Unsupported claims from several checks, one per label (the last check's reason)."""
    return list({c.label: c for claims in found for c in claims}.values())
