"""The figures an answer reads from its sources, each with its source's number: every
table's facts (`domain.reports.facts.metric_facts`) and, for a metric no table holds,
its sentences' figures of a metric the sentence names
(`domain.reports.facts.metric_prose_facts`): one reader of facts, the vocabulary a filter."""

from domain.models import ChunkText
from domain.reports.calculations import Sourced
from domain.reports.facts import metric_facts, metric_prose_facts
from domain.reports.figures import Quantity, to_base

Chosen = dict[tuple[str, int, str], Sourced]
"""The figure an answer gives for each (company, fiscal year, metric)."""


def sourced_facts(sources: list[ChunkText]) -> list[Sourced]:
    """Every table's facts, then each prose statement of a (company, year, metric) no
    table of the sources gives."""
    facts: list[Sourced] = []
    for n, chunk in enumerate(sources, start=1):
        facts.extend(Sourced(f, n) for f in metric_facts(chunk))
    for n, chunk in enumerate(sources, start=1):
        for f in metric_prose_facts(chunk):
            covered = any(
                (s.fact.company, s.fact.fiscal_year, s.fact.metric)
                == (f.company, f.fiscal_year, f.metric)
                for s in facts
            )
            if not covered:
                facts.append(Sourced(f, n))
    return facts


def signed_base(s: Sourced) -> Quantity:
    q = to_base(s.fact.value, s.fact.unit)
    if s.fact.metric == "net_debt" and s.fact.is_net_cash:
        return Quantity(-abs(q.value), q.base)
    return q


def basis_of(s: Sourced, metric: str) -> tuple[str, str]:
    """What a figure compares and adds on: its unit's base, and for production its own
    label (Pilbara production and Fortescue's shipments are different measures)."""
    label = s.fact.label.lower() if metric == "production" else ""
    return to_base(s.fact.value, s.fact.unit).base, label
