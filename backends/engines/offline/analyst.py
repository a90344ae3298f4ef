"""The offline engine's steps for a question asked as an analyst asks it.

A question that defines what it asks ("DPO is defined as: ..."), names the statement to
read ("using the cash flow statement"), says how to state the figure ("in USD
millions", "round to two decimal places") or asks for an average over years or a
compound growth rate (`domain.questions.analyst.analyst_path`) is searched for its line items,
graded by them, and answered by the calculation or the line item itself, worked out
and cited (`domain.reports.calculations`). A question that asks for a judgement ("Is X a high
growth company?") gets the figures that bear on it and a plain line that the judgement
is the reader's. Any other question is the engine's usual path.
"""

import itertools
import re
from collections.abc import Sequence

from domain.companies.roster import companies, display_name
from domain.models import ChunkText, Draft, NotFound
from domain.questions.analyst import (
    TREND_YEARS,
    WORKED_LINES,
    AnalystQuestion,
    Calculation,
    Item,
    analyst_path,
    asked_at,
    items,
    parse_expression,
    trend_years,
    written,
)
from domain.questions.measures import stem
from domain.reports.calculations import Answered, Sourced, answer_calculation
from domain.reports.facts import report_facts
from domain.reports.figures import Fact, format_value, rescale, unit_in_scale, unit_spec
from domain.reports.line_items import (
    ALIKE,
    STATEMENT_TITLES,
    company_words,
    find_item,
    home_statements,
    in_statements,
    item_score,
    matches_any,
    printed_ratio,
)
from domain.reports.open_answers import moved_in_points, without_figures

JUDGEMENT_LINE = (
    "Whether that is so is a judgement the reports leave to the reader: the figures above "
    "are what they print."
)


def _company_words() -> str:
    names: list[str] = []
    for company in companies().values():
        names.extend([company.name, *company.aliases, company.ticker])
    return "|".join(dict.fromkeys(n for n in names if n))


def analyst_question(question: str) -> AnalystQuestion | None:
    """The question as an analyst's, when it is asked as one (see the module docstring)."""
    return analyst_path(question, _company_words())


def _lookup(asked: AnalystQuestion) -> Calculation | None:
    """A line item asked for with an analyst's instructions ("What is the year end FY2019
    total amount of inventories? Answer in USD millions."): the item itself."""
    if asked.calculation is not None or not asked.measure or not asked.years:
        return None
    return Calculation(asked.measure, Item(asked.measure, max(asked.years)), False)


def _phrases(asked: AnalystQuestion) -> list[str]:
    if asked.among is not None:
        return list(asked.among[1])
    calc = asked.calculation or _lookup(asked)
    phrases = [i.phrase for i in items(calc.expr)] if calc else [asked.measure]
    return list(dict.fromkeys(p for p in phrases if p))


def _item_words(phrase: str) -> list[str]:
    """A line item's phrase and the other names statements print it under."""
    words = [phrase]
    for group in ALIKE:
        if any(item_score(phrase, alike) >= 1.0 for alike in group):
            words.extend(group[:3])
    return words


def _titles(statements: Sequence[str]) -> list[str]:
    return [w for s in statements for w in STATEMENT_TITLES.get(s, (s,))]


def search_terms(asked: AnalystQuestion) -> list[str]:
    """Words to search the reports with: each line item's phrase and the other names
    statements print it under, and the statements named (for lines ranked within a
    statement, its titles and the kind of line)."""
    if asked.ranked is not None:
        return [*_titles(asked.statements), asked.ranked[1]]
    words = [w for phrase in _phrases(asked) for w in _item_words(phrase)]
    if asked.named and asked.calculation is not None:
        words.insert(0, asked.calculation.name)  # the statements may print it
    return list(dict.fromkeys(w for w in [*words, *_titles(asked.statements)] if w))


def search_facets(asked: AnalystQuestion) -> list[list[str]]:
    """Words to search for each line item apart, under the titles of the statement that
    prints it, when the calculation reads two or more, is a standard ratio named, or the
    question names a statement:
    a statement prints each on its own line, often in its own part of the report."""
    phrases = _phrases(asked)
    if len(phrases) < 2 and not asked.statements and not asked.named:
        # A standard ratio named is read from a statement's lines though the question
        # names none ("a high growth company": revenue, in two years' columns).
        return []
    return [
        list(dict.fromkeys([*_item_words(p), *_titles(home_statements(p, asked.statements))]))
        for p in phrases
    ]


def search_years(asked: AnalystQuestion) -> list[int]:
    """The years the calculation reads (every year of an average, both ends of a change)."""
    years: set[int] = set()
    for one in trend_years(asked):
        calc = one.calculation or _lookup(one)
        years |= set(one.years) | set(calc.over_years if calc else ())
        if calc is not None:
            years |= {i.year for i in items(calc.expr) if i.year is not None}
    return sorted(years)


def latest_years(asked: AnalystQuestion, reported: Sequence[int]) -> list[int]:
    """For a ratio named with no year ("Are X's gross margins historically consistent?"),
    the company's latest years to search: those a trend is shown over, and the year
    before them (an average balance opens there); [] for any other question."""
    if asked.years or not asked.named or not reported:
        return []
    latest = max(reported)
    return list(range(latest - TREND_YEARS, latest + 1))


def keep(asked: AnalystQuestion, chunks: Sequence[ChunkText], tickers: Sequence[str]) -> list[int]:
    """The chunks that print a line item the calculation reads, of the companies asked;
    for lines ranked within a statement, the chunks of that statement's tables."""
    phrases = _phrases(asked)
    # A ratio the question allows may not suit the company: its statements' own tables,
    # to say which line they lack.
    homes = [h for p in phrases for h in home_statements(p, asked.statements)]
    homes = homes if asked.offered else []
    kept: list[int] = []
    for n, chunk in enumerate(chunks):
        if tickers and chunk.company not in tickers:
            continue
        title = chunk.section.split(" · ")[-1].strip()
        if homes and chunk.is_table and _statement_titled(title, homes):
            kept.append(n)
            continue
        if asked.ranked is not None:
            if chunk.is_table and _primary(chunk.section, asked.statements):
                kept.append(n)
            continue
        facts = [f for f in report_facts(chunk) if f.source == "table"]
        labels = [f.label for f in facts]
        if any(matches_any(p, labels) for p in phrases) or _prints_ratio(asked, facts):
            kept.append(n)
    return kept


def _prints_ratio(asked: AnalystQuestion, facts: Sequence[Fact]) -> bool:
    """Whether a table prints the named ratio asked, for a year asked."""
    calc = asked.calculation
    if not asked.named or calc is None:
        return False
    return any(printed_ratio(calc.name, y, facts) for y in search_years(asked))


def _stated(asked: AnalystQuestion, value: float, unit: str, decimals: int) -> str:
    """A figure in the scale the question asks for ("in USD millions")."""
    if asked.scale in ("m", "bn") and unit_spec(unit).kind == "money":
        target = unit_in_scale(unit, asked.scale)
        if target is not None and target != unit:
            value, decimals = rescale(value, unit, decimals, target)
            return format_value(value, target, decimals)
    return format_value(value, unit, decimals)


def _line_item(
    asked: AnalystQuestion,
    ticker: str,
    sourced: list[Sourced],
    titles: dict[str, str],
    names: list[str],
) -> tuple[list[str], list[NotFound]]:
    year = max(asked.years)
    facts = [s.fact for s in sourced]
    soft = company_words([display_name(ticker), *names])
    home = home_statements(asked.measure, asked.statements)
    hit = find_item(asked.measure, year, facts, home, titles, year, soft)
    if hit is None:
        return [], [NotFound(company=ticker, fiscal_year=year, metric=asked.measure)]
    source = next(s for s in sourced if s.fact is hit.fact)
    fact = hit.fact
    where = titles.get(fact.chunk_id, "")
    said = f" ({fact.label}{', ' + where if where else ''})"
    figure = _stated(asked, fact.value, fact.unit, fact.decimals)
    return [
        f"{display_name(ticker)}'s FY{year} {asked.measure}{said} was {figure} [{source.n}]."
    ], []


def _at_latest(
    asked: AnalystQuestion,
    ticker: str,
    own: list[Sourced],
    titles: dict[str, str],
    names: list[str],
) -> AnalystQuestion:
    """A named ratio asked with no year, asked of the latest year whose statements print
    every line item it reads (a quarterly report's year prints no year's figures)."""
    if asked.years or not asked.named:
        return asked
    for year in sorted({s.fact.report_fiscal_year for s in own}, reverse=True):
        at = asked_at(asked, year)
        out = answer_calculation(at, ticker, display_name(ticker), own, titles, names)
        if out is not None and not out.not_found:
            return at
    return asked


def _calculated(
    asked: AnalystQuestion,
    ticker: str,
    own: list[Sourced],
    titles: dict[str, str],
    names: list[str],
) -> tuple[Answered, bool]:
    """One company's calculation, and whether a sign asked was said. A trend judged is
    worked out for each year printed; a year before the one asked that the reports do
    not print is left out, not said missing."""
    each = trend_years(_at_latest(asked, ticker, own, titles, names))
    said = Answered()
    signed = False
    printed: list[tuple[int, Sourced]] = []
    for n, (one, out) in enumerate(
        zip(each, _one_basis(asked, each, ticker, own, titles, names), strict=True), start=1
    ):
        if out is None or (out.not_found and n < len(each)):
            continue
        said.lines.extend(out.lines)
        said.derived.extend(out.derived)
        said.not_found.extend(out.not_found)
        if asked.sign and out.result is not None and n == len(each):
            said.lines.append(_sign_line(asked, display_name(ticker), one, out.result))
            signed = True
        if out.printed is not None:
            printed.append((max(one.years), out.printed))
    if asked.compared and len(printed) == len(each) > 1:
        said.lines.extend(_moved(asked, ticker, printed))
    return said, signed


def _one_basis(
    asked: AnalystQuestion,
    each: list[AnalystQuestion],
    ticker: str,
    own: list[Sourced],
    titles: dict[str, str],
    names: list[str],
) -> list[Answered | None]:
    """Each year's answer, on one basis: years compared of which some are read off the
    report's own line of the ratio and some worked out are all worked out, when the
    statements give every year's lines (Corning's FY2021 rate was read off its FY2021
    10-K, its FY2022 rate worked out)."""
    who = display_name(ticker)
    outs = [answer_calculation(one, ticker, who, own, titles, names) for one in each]
    read = [o for o in outs if o is not None and o.printed is not None]
    if not asked.compared or not read or len(read) == len(outs):
        return outs
    worked = [
        answer_calculation(one, ticker, who, own, titles, names, read_printed=False) for one in each
    ]
    return worked if all(w is not None and not w.not_found for w in worked) else outs


def _moved(asked: AnalystQuestion, ticker: str, printed: list[tuple[int, Sourced]]) -> list[str]:
    """How a ratio the report prints moved between the years compared, in percentage
    points, with its working over the two cited rates (the numeric check recomputes it).
    A rate worked out from the statements is not an operand anyone could cite: its years'
    results are given, not their difference."""
    name = asked.calculation.name if asked.calculation else asked.measure
    lines = []
    for (y1, old), (y2, new) in itertools.pairwise(printed):
        if old.fact.unit == new.fact.unit and old.fact.value != new.fact.value:
            subject = f"{display_name(ticker)}'s {name}"
            span = f"from FY{y1} to FY{y2}"
            lines.append(moved_in_points(subject, span, old.fact, old.n, new.fact, new.n))
    return lines


def _one_company(
    asked: AnalystQuestion,
    ticker: str,
    own: list[Sourced],
    titles: dict[str, str],
    names: list[str],
) -> tuple[Answered, bool]:
    """One company's answer (lines ranked, a calculation, or a line item), and whether a
    sign asked was said."""
    if asked.ranked is not None and asked.years:
        lines, gaps = _ranked(asked, ticker, own, titles)
        return Answered(lines=lines, not_found=gaps), False
    if asked.among is not None and asked.years:
        lines, gaps = _chosen(asked, ticker, own, titles, names)
        return Answered(lines=lines, not_found=gaps), False
    if asked.calculation is not None:
        return _calculated(asked, ticker, own, titles, names)
    if asked.measure and asked.years:
        lines, gaps = _line_item(asked, ticker, own, titles, names)
        return Answered(lines=lines, not_found=gaps), False
    return Answered(), False


def _company_answer(
    asked: AnalystQuestion, ticker: str, sourced: list[Sourced], titles: dict[str, str]
) -> tuple[Answered, bool] | None:
    """One company's answer and whether it settles what the question asks (a sign said,
    a ratio said not given); None to leave the question to the usual path (what moved a
    ratio the statements give is the reports' words)."""
    own = [s for s in sourced if s.fact.company == ticker]
    company = companies().get(ticker)
    names = [company.name, *company.aliases] if company else []
    out, signed = _one_company(asked, ticker, own, titles, names)
    if asked.why and asked.offered and out.lines:
        return None
    given = _not_given(asked, ticker, own, titles, out.not_found) if asked.offered else []
    if given and not out.lines:
        return Answered(lines=given), True
    return out, signed


def compose(
    asked: AnalystQuestion, tickers: Sequence[str], sources: Sequence[ChunkText]
) -> Draft | None:
    """The answer to an analyst's question, or None to leave it to the usual path (a
    question with neither a calculation nor a line item to read, or a ratio it names or
    line items it chooses among that no statement prints the lines of: the usual path may
    find them said)."""
    sourced = [
        Sourced(f, n)
        for n, chunk in enumerate(sources, start=1)
        for f in report_facts(chunk)
        if f.source == "table"
    ]
    titles = {c.chunk_id: c.section for c in sources}
    said = Answered()
    judged = True  # a judgement left to the reader, unless a sign asked is said
    for ticker in tickers:
        answered = _company_answer(asked, ticker, sourced, titles)
        if answered is None:
            return None
        out, signed = answered
        judged = judged and not signed
        said.lines.extend(out.lines)
        said.derived.extend(out.derived)
        said.not_found.extend(out.not_found)
    lines, not_found = said.lines, said.not_found
    if not lines and (not not_found or asked.named or asked.among is not None):
        return None
    if asked.judgement and lines and judged:
        lines.append(JUDGEMENT_LINE)
    text = "\n\n".join(lines)
    if gaps_said := [nf.line() for nf in not_found]:
        text = f"{text}\n\n" + "\n".join(gaps_said) if text else "\n".join(gaps_said)
    return Draft(answer=text.strip(), derived=said.derived, not_found=not_found)


_TOTAL = re.compile(r"^\s*(?:total|subtotal|net\s+(?:assets|liabilities|total))\b", re.IGNORECASE)
"""A line that sums others (or nets two totals: "Net assets" under the liabilities)."""


def _primary(title: str, statements: Sequence[str]) -> bool:
    """A primary statement's own table ("Consolidated balance sheets"), not a note's that
    names it ("Note 18 ... recognised in the statement of financial position")."""
    short = len(title.split()) <= 8
    return short and not re.match(r"\W*note\b", title, re.I) and in_statements(title, statements)


def _sections(fact_context: str, label: str) -> list[str]:
    """The headings a table row sits under, from its context ("US$M | Liabilities |
    Customer deposits | FY2022 ...": "Liabilities")."""
    parts = [p.strip() for p in fact_context.split(" | ")]
    return parts[1 : parts.index(label)] if label in parts else []


def _lines_of_kind(
    asked: AnalystQuestion, kind: str, year: int, own: list[Sourced], titles: dict[str, str]
) -> list[Sourced]:
    """The year's lines of money of the named statement's own table that sit under a
    heading of `kind` ("Liabilities", "Current liabilities"), one per label, no totals."""
    want = {stem(w) for w in kind.split()}
    seen: dict[str, Sourced] = {}
    for s in own:
        f = s.fact
        if (
            f.fiscal_year != year
            or not f.annual
            or f.parent_only
            or f.source != "table"
            or unit_spec(f.unit).kind != "money"
            or _TOTAL.match(f.label)
            or f.value == 0
            or not _primary(titles.get(f.chunk_id, ""), asked.statements)
        ):
            continue
        headings = " ".join(_sections(f.context, f.label))
        if want <= {stem(w) for w in re.findall(r"[A-Za-z]+", headings)}:
            seen.setdefault(f.label, s)
    return list(seen.values())


def _ranked(
    asked: AnalystQuestion, ticker: str, own: list[Sourced], titles: dict[str, str]
) -> tuple[list[str], list[NotFound]]:
    """The statement's lines of the kind asked, ranked ("the largest liability in the
    balance sheet"): the lines under a heading of that kind, totals left out, each cited."""
    assert asked.ranked is not None
    end, kind = asked.ranked
    year = max(asked.years)
    seen = _lines_of_kind(asked, kind, year, own, titles)
    if not seen:
        return [], [NotFound(company=ticker, fiscal_year=year, metric=f"{end} {kind}")]
    rows = sorted(seen, key=lambda s: s.fact.value * unit_spec(s.fact.unit).factor)
    if end == "highest":
        rows.reverse()
    top, rest = rows[0], rows[1:]
    size = "largest" if end == "highest" else "smallest"
    # The statement as its table is titled ("statement of financial position"), which
    # is how the question may name it too.
    statement = titles.get(top.fact.chunk_id, "").split(" · ")[-1].strip().lower()
    statement = re.sub(r"^(?:consolidated|condensed|group)\s+", "", statement)
    if asked.statements[0] not in statement:
        statement = f"{statement} (the {asked.statements[0]})".lstrip()
    lines = [
        f"Of the {kind} lines of {display_name(ticker)}'s FY{year} {statement}, the {size} "
        f"was {without_figures(top.fact.label)}: {_figure(top)} [{top.n}]."
    ]
    if rest:
        others = "; ".join(f"{without_figures(s.fact.label)} {_figure(s)} [{s.n}]" for s in rest)
        lines.append(f"The others, in order: {others}.")
    return lines, []


def _read_choices(
    asked: AnalystQuestion,
    ticker: str,
    own: list[Sourced],
    titles: dict[str, str],
    names: list[str],
) -> tuple[list[tuple[str, Sourced]], list[NotFound]]:
    """Each line item a question chooses among, read from the statements, or its gap."""
    assert asked.among is not None
    year = max(asked.years)
    facts = [s.fact for s in own]
    soft = company_words([display_name(ticker), *names])
    read: list[tuple[str, Sourced]] = []
    gaps: list[NotFound] = []
    for item in asked.among[1]:
        home = home_statements(item, asked.statements)
        hit = find_item(item, year, facts, home, titles, year, soft)
        if hit is None:
            gaps.append(NotFound(company=ticker, fiscal_year=year, metric=item))
            continue
        read.append((item, next(s for s in own if s.fact is hit.fact)))
    return read, gaps


def _chosen(
    asked: AnalystQuestion,
    ticker: str,
    own: list[Sourced],
    titles: dict[str, str],
    names: list[str],
) -> tuple[list[str], list[NotFound]]:
    """The line items a question chooses among, each read and cited, and the highest or
    lowest of them named, by their values as printed (an outflow is below an inflow: the
    one that "lost the least" is the highest). None chosen when one is not found."""
    assert asked.among is not None
    end, choices = asked.among
    year = max(asked.years)
    read, gaps = _read_choices(asked, ticker, own, titles, names)
    if gaps or len({unit_spec(s.fact.unit).kind for _, s in read}) != 1:
        return [], gaps or [NotFound(company=ticker, fiscal_year=year, metric=choices[0])]
    who = display_name(ticker)
    lines = [
        f"{who}'s FY{year} {item} ({without_figures(s.fact.label)}): {_figure(s)} [{s.n}]."
        for item, s in read
    ]

    def value(s: Sourced) -> float:
        return s.fact.value * unit_spec(s.fact.unit).factor

    best = (max if end == "highest" else min)(value(s) for _, s in read)
    tied = [s for _, s in read if value(s) == best]
    top = tied[0]
    which = (
        f"is {without_figures(top.fact.label)}"
        if len(tied) == 1
        else ("are " + " and ".join(without_figures(s.fact.label) for s in tied) + ", equal")
    )
    lines.append(
        f"Of the {len(read)} ({', '.join(choices)}), the {end} {which}: {_figure(top)} [{top.n}]."
    )
    return lines, []


_SUBTOTAL = re.compile(r"^\s*total\b|\b(?:income|earnings|profit|loss)\s*$", re.I)
"""A statement line that sums or nets others: what a statement's shape is read by."""
SHAPE_LINES = 8
"""How many of a statement's subtotals are shown to say what it prints instead."""


def _not_given(
    asked: AnalystQuestion,
    ticker: str,
    own: list[Sourced],
    titles: dict[str, str],
    gaps: list[NotFound],
) -> list[str]:
    """A standard ratio the question allows may not suit the company, which its statement
    gives no line for ("If operating margin is not a useful metric ..., state that"):
    the statement's own table read, the line it lacks named, and its subtotals shown.
    Nothing when the statement itself is not among the sources: not found, not absent."""
    calc = asked.calculation
    if calc is None or not gaps:
        return []
    year = max(g.fiscal_year for g in gaps)
    missing = sorted({g.metric for g in gaps if g.fiscal_year == year})
    tables: dict[str, list[Sourced]] = {}
    for phrase in missing:
        table = _statement_lacking(asked, phrase, year, own, titles)
        if table is None:
            return []
        tables.setdefault(*table)
    who = display_name(ticker)
    definition = written(calc.expr, {i: i.phrase for i in items(calc.expr)})
    where = " and ".join(f"{t.lower()} [{rows[0].n}]" for t, rows in tables.items())
    said = [
        f"There is no {' or '.join(missing)} line in {who}'s FY{year} {where}, and "
        f"{calc.name} is {definition}: {calc.name} is not a measure {who}'s statements "
        "give, so it cannot be judged from them."
    ]
    rows = next(iter(tables.values()))
    shape = {s.fact.label: s for s in rows if s.fact.value and _SUBTOTAL.search(s.fact.label)}
    if shape:
        shown = [f"{without_figures(label)} {_figure(s)} [{s.n}]" for label, s in shape.items()]
        said.append(f"What that statement prints instead: {'; '.join(shown[:SHAPE_LINES])}.")
    return said


def _statement_lacking(
    asked: AnalystQuestion, phrase: str, year: int, own: list[Sourced], titles: dict[str, str]
) -> tuple[str, list[Sourced]] | None:
    """The year's primary statement that would print `phrase` (its title and lines, the
    longest table of that title), when it is among the sources and does not give it."""
    rows: dict[str, list[Sourced]] = {}
    home = home_statements(phrase, asked.statements)
    for s in own:
        title = titles.get(s.fact.chunk_id, "").split(" · ")[-1].strip()
        f = s.fact
        own_year = f.fiscal_year == year and f.annual and not f.parent_only
        if own_year and _statement_titled(title, home):
            rows.setdefault(title, []).append(s)
    if not rows or _worked_out(phrase, year, [s for r in rows.values() for s in r], titles):
        return None
    return max(rows.items(), key=lambda t: len(t[1]))


def _worked_out(phrase: str, year: int, rows: list[Sourced], titles: dict[str, str]) -> bool:
    """Whether a statement that prints no line of `phrase` prints the lines it is worked
    out of (`WORKED_LINES`), whole or in pieces: Boeing's income statement has no gross
    profit line, but its revenues and its "Cost of products" and "Cost of services"."""
    parts = dict(WORKED_LINES).get(phrase)
    if parts is None:
        return False
    facts = [s.fact for s in rows]
    for item in items(parse_expression(parts, year)):
        head = " ".join(item.phrase.split()[:2]).lower()
        pieces = any(f.label.lower().lstrip().startswith(head) for f in facts)
        if not pieces and find_item(item.phrase, year, facts, (), titles, year) is None:
            return False
    return True


def _statement_titled(title: str, statements: Sequence[str]) -> bool:
    """A primary statement's own title ("Consolidated Statements of Income"), not a
    note's, a table's or a segment's that names one ("Table 9: USCS selected income
    statement data")."""
    if re.match(r"\W*(?:note|table)\b", title, re.I) or len(title.split()) > 12:
        return False
    plain = re.sub(r"\b(statement|sheet)s\b", r"\1", title.lower())
    return any(t in plain for s in statements for t in STATEMENT_TITLES.get(s, ()))


def _figure(s: Sourced) -> str:
    """A figure as printed; an amount below zero as minus it (an outflow, a net loss)."""
    f = s.fact
    if f.value < 0 and unit_spec(f.unit).kind == "money":
        return f"−{format_value(-f.value, f.unit, f.decimals)}"
    return format_value(f.value, f.unit, f.decimals)


def _sign_line(asked: AnalystQuestion, name: str, one: AnalystQuestion, result: float) -> str:
    """Whether the worked-out figure is positive or negative, as the question asks: a
    sign is read off the figure, not judged."""
    sign = "positive" if result > 0 else "negative" if result < 0 else "zero"
    what = one.calculation.name if one.calculation else asked.measure
    yes = "Yes" if sign == asked.sign else "No"
    return f"{yes}: {name}'s FY{max(one.years)} {what}, worked out above, is {sign}."


def measure_words(asked: AnalystQuestion) -> str:
    """What the question asks, in words for the relevance check and the search."""
    calc = asked.calculation
    return calc.name if calc is not None else re.sub(r"\s+", " ", asked.measure)
