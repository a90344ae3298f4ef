"""Sentences that weigh companies' figures against one another.

A yes or no to "is that more than Rio's?", one company's share of a total, and a year's
ranking with the difference between the top two; figures on different bases or in
different currencies are said not comparable, never converted.
"""

from backends.engines.offline.compose import Composer
from backends.engines.offline.facts import Chosen, basis_of, signed_base
from backends.engines.offline.wording import fmt_number, listed, possessive
from domain.companies.roster import display_name, find_companies
from domain.language.units import QUANTITIES, by_sign
from domain.models import Derived
from domain.questions.intent import than_asked
from domain.questions.metrics import metric_display
from domain.reports.calculations import Sourced
from domain.reports.figures import Fact, format_value, rescale, to_base, unit_spec
from domain.reports.open_answers import without_figures


def than_pair(question: str, asked: list[str]) -> tuple[tuple[str, str], str] | None:
    """((the company talked about, the one named after "than"), "higher" or "lower") for
    a yes-or-no comparison of two companies ("is that more than Rio's?"), else None."""
    read = than_asked(question)
    if read is None or not read[0] or len(asked) != 2:
        return None
    named = [t for t in asked if t in find_companies(read[1])]
    if len(named) != 1:
        return None
    subject = next(t for t in asked if t != named[0])
    return (subject, named[0]), read[0]


def than_sentence(
    composer: Composer,
    chosen: Chosen,
    pair: tuple[str, str],
    year: int,
    metric: str,
    direction: str,
) -> str | None:
    """Yes or no to "is that more than Rio's?" (`direction` "higher" or "lower"): the
    figure talked about against the one named, on one base; a figure alone on its side
    of zero decides across currencies. None when the two cannot be weighed."""
    subject, other = pair
    a, b = chosen.get((subject, year, metric)), chosen.get((other, year, metric))
    if a is None or b is None:
        return None
    qa, qb = signed_base(a), signed_base(b)
    shared = basis_of(a, metric) == basis_of(b, metric)
    if not shared and (qa.value < 0) == (qb.value < 0):
        return None  # different currencies or bases: the comparison says so
    unit_a = composer.unit_for([a.fact, b.fact] if shared else [a.fact])
    unit_b = composer.unit_for([a.fact, b.fact] if shared else [b.fact])
    was = "higher" if qa.value > qb.value else "lower" if qa.value < qb.value else "the same as"
    verb = "were" if metric == "dividends_per_share" else "was"
    return (
        f"{'Yes' if was == direction else 'No'}: {possessive(subject)} "
        f"{metric_display(metric)} in FY{year}, {composer.value(a.fact, unit_a)} [{a.n}], "
        f"{verb} {was}{'' if was == 'the same as' else ' than'} {possessive(other)}, "
        f"{composer.value(b.fact, unit_b)} [{b.n}]."
    )


def share_of_total(
    composer: Composer,
    chosen: Chosen,
    asked: list[str],
    year: int,
    metric: str,
) -> str | None:
    """The first company's share of the total of every asked company's figure in its
    currency and unit, worked out, and the total; a company reporting in another
    currency is named and left out (no currency is converted), and so is one with no
    figure. None when fewer than two figures share a base; no share when one is not
    positive (a share of a total with net cash in it means nothing), and why."""
    # long: the figures split by base, then the share, the total and what is left out.
    mine = chosen.get((asked[0], year, metric))
    if mine is None or unit_spec(mine.fact.unit).kind in ("per_share", "percent"):
        return None  # amounts per share or rates add to no total
    base, basis = signed_base(mine).base, basis_of(mine, metric)
    same = [(t, chosen[(t, year, metric)]) for t in asked if (t, year, metric) in chosen]
    other = [t for t, s in same if basis_of(s, metric) != basis]
    same = [(t, s) for t, s in same if basis_of(s, metric) == basis]
    values = [signed_base(s).value for _, s in same]
    if len(same) < 2:
        return None
    if below := [(t, s) for t, s in same if signed_base(s).value <= 0]:
        had = listed(
            [
                f"{display_name(t)} had "
                f"{composer.value(s.fact, composer.unit_for([s.fact]))} [{s.n}]"
                for t, s in below
            ]
        )
        return (
            f"No share of a combined {metric_display(metric)} is worked out for FY{year}: "
            f"{had}, so the figures do not add to one total."
        )
    total, display = sum(values), metric_display(metric)
    pct = values[0] / total * 100.0
    terms = " + ".join(format_value(v, base) for v in values)
    names = listed([display_name(t) for t, _ in same])
    cites = "[" + ",".join(dict.fromkeys(str(s.n) for _, s in same)) + "]"
    working = f"{format_value(values[0], base)} ÷ ({terms}) × 100 = {pct:.1f}%"
    composer.derived.append(
        Derived(
            label=f"{display_name(asked[0])} share of combined {display} FY{year}", formula=working
        )
    )
    sentences = [
        f"{possessive(asked[0])} share of the combined {display} of {names} in FY{year} "
        f"was {working} {cites}.",
        f"Together, {names} had {display} in FY{year} of {terms} = "
        f"{format_value(total, base)} {cites}.",
    ]
    if other:
        sentences.append(
            f"{listed([display_name(t) for t in other])} "
            f"{'reports' if len(other) == 1 else 'report'} {display} in another currency "
            f"or on another basis and {'is' if len(other) == 1 else 'are'} not added: no "
            "currency is converted."
        )
    if missing := [t for t in asked if (t, year, metric) not in chosen]:
        sentences.append(
            f"The total leaves out {listed([display_name(t) for t in missing])}, whose {display} "
            f"for FY{year} the reports do not give."
        )
    return " ".join(sentences)


def compare_sentences(
    composer: Composer,
    chosen: Chosen,
    companies: list[str],
    year: int,
    metric: str,
    listing: bool = True,
    asked: str | None = None,
) -> str | None:
    """The ranking of one year's figures (unless a table already ranks them), the
    difference between the top two, and why figures on different bases are not
    compared. `asked` ("highest" or "lowest"): the question wants the top or the
    bottom, so that is said first, within each group of comparable figures."""
    # long: the ranking and its sentences composed in reading order.
    present = [(t, chosen[(t, year, metric)]) for t in companies if (t, year, metric) in chosen]
    if len(present) < 2:
        return None
    display = metric_display(metric)
    # Operational figures compare only on the same basis (the same row wording):
    # Pilbara production (100%) and Fortescue's shipments are different measures.
    groups: dict[tuple[str, str], list[tuple[str, Sourced]]] = {}
    for ticker, s in present:
        groups.setdefault(basis_of(s, metric), []).append((ticker, s))
    sentences: list[str] = []
    across = _decided_by_sign(present, asked) if asked and len(groups) > 1 else None
    if across is not None:
        # Net cash is below any net debt, whatever the currencies: the sign ranks.
        pick, s = across
        sentences.append(
            f"{display_name(pick)} had the {asked} {display} in FY{year}: "
            f"{composer.value(s.fact, composer.unit_for([s.fact]))} [{s.n}], the only figure "
            f"{'below' if asked == 'lowest' else 'above'} zero, whatever the currency."
        )
    for group in groups.values():
        if len(group) < 2:
            continue
        ranked = sorted(group, key=lambda p: -signed_base(p[1]).value)
        unit = composer.unit_for([s.fact for _, s in group])
        if asked and across is None:
            pick, s = ranked[0] if asked == "highest" else ranked[-1]
            among = (
                f"Among the figures in {_currency_words(s.fact.unit)}, " if len(groups) > 1 else ""
            )
            sentences.append(
                f"{among}{display_name(pick)} had the {asked} {display} in FY{year}: "
                f"{composer.value(s.fact, unit)} [{s.n}]."
            )
        ranking = ", ".join(
            f"{display_name(t)} {composer.value(s.fact, unit)} [{s.n}]" for t, s in ranked
        )
        if listing:
            sentences.append(f"Ranked by {display} for FY{year}: {ranking}.")
        (top, a), (second, b) = ranked[0], ranked[1]
        qa, qb = signed_base(a), signed_base(b)
        # The top two's difference answers "which is highest", never "which is lowest".
        if qa.value > 0 and qb.value > 0 and qa.value != qb.value and asked != "lowest":
            gap, decimals, unit = _difference(a.fact, b.fact, unit)
            pct = (qa.value - qb.value) / qb.value * 100.0
            composer.derived.append(
                Derived(
                    label=f"{display_name(top)} vs {display_name(second)} {display} "
                    f"difference FY{year}",
                    formula=f"{format_value(qa.value, qa.base)} − "
                    f"{format_value(qb.value, qb.base)} = "
                    f"{format_value(qa.value - qb.value, qa.base)}; "
                    f"({fmt_number(qa.value)} − {fmt_number(qb.value)}) / "
                    f"{fmt_number(qb.value)} = {pct:+.1f}%",
                )
            )
            verb = "were" if metric == "dividends_per_share" else "was"
            sentences.append(
                f"In FY{year}, {possessive(top)} {display} {verb} "
                f"{format_value(gap, unit, decimals)} ({pct:.1f}%) higher than "
                f"{possessive(second)} [{a.n},{b.n}]."
            )
    if len(groups) > 1 and metric == "production":
        bases = [
            f"{display_name(t)}: {without_figures(s.fact.label)}"
            for g in groups.values()
            for t, s in g
        ]
        sentences.append(
            f"These {display} figures are measured on different bases or units "
            f"({'; '.join(bases)}), so they are not directly comparable and no "
            "difference is computed across them."
        )
    elif len(groups) > 1:
        by_currency = [
            f"{', '.join(display_name(t) for t, _ in g)} in {_currency_words(g[0][1].fact.unit)}"
            for g in groups.values()
        ]
        sentences.append(
            f"These {display} figures are in different currencies or units "
            f"({'; '.join(by_currency)}), so they are not directly comparable and no "
            "difference is computed across them."
        )
    return " ".join(sentences) if sentences else None


def _decided_by_sign(present: list[tuple[str, Sourced]], asked: str) -> tuple[str, Sourced] | None:
    """The one figure on its own side of zero when a question asks for the lowest (or
    highest) of figures in different currencies: Northern Star's net cash of A$358
    million is lower than any company's net debt in US$. None when no single figure is."""
    side = [(t, s) for t, s in present if (signed_base(s).value < 0) == (asked == "lowest")]
    zero = any(signed_base(s).value == 0 for _, s in present)
    return side[0] if len(side) == 1 and not zero else None


def _difference(a: Fact, b: Fact, unit: str | None = None) -> tuple[float, int | None, str]:
    """Express a − b in `unit` (default: the coarser of the two), at the precision
    the two figures allow in it."""
    qa, qb = to_base(a.value, a.unit), to_base(b.value, b.unit)
    unit = unit or (a.unit if unit_spec(a.unit).factor >= unit_spec(b.unit).factor else b.unit)
    factor = unit_spec(unit).factor
    decimals = max(rescale(f.value, f.unit, f.decimals, unit)[1] for f in (a, b))
    return round((qa.value - qb.value) / factor, decimals), decimals, unit


def _currency_words(unit: str) -> str:
    spec = unit_spec(unit)
    currency = by_sign(spec.currency)
    if spec.kind == "per_share" and currency is not None and currency.minor_words:
        return currency.minor_words.removesuffix(" per share").strip()
    return spec.currency or next((q.shown.strip() for q in QUANTITIES if q.key == spec.base), unit)
