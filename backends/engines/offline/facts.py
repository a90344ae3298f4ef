"""The figures an answer reads from its sources, each with its source's number: every
table's facts (`domain.reports.facts.metric_facts`) and, for a metric no table holds,
prose's "<metric> of <amount>" statements (`prose_facts`)."""

import re

from domain.language.amounts import find_amounts
from domain.language.calendar import months_said_before
from domain.language.sentences import split_sentences
from domain.models import ChunkText
from domain.questions.metrics import DIVIDEND_COMPONENT, metric_mentions, metric_of_row_label
from domain.questions.years import mentioned_years
from domain.reports.calculations import Sourced
from domain.reports.facts import metric_facts
from domain.reports.figures import Fact, Quantity, metric_fits_unit, to_base, unit_of

Chosen = dict[tuple[str, int, str], Sourced]
"""The figure an answer gives for each (company, fiscal year, metric)."""


def sourced_facts(sources: list[ChunkText]) -> list[Sourced]:
    """Every table's facts, then each prose statement of a (company, year, metric) no
    table of the sources gives."""
    facts: list[Sourced] = []
    for n, chunk in enumerate(sources, start=1):
        facts.extend(Sourced(f, n) for f in metric_facts(chunk))
    for n, chunk in enumerate(sources, start=1):
        for f in prose_facts(chunk):
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


def prose_facts(chunk: ChunkText) -> list[Fact]:
    """Read "<metric> of <amount>" statements from prose, for metrics no table holds.

    Only sentences about the chunk's own fiscal year count: a sentence naming another year
    or the prior year is skipped rather than attributed to the wrong year.
    """
    # long: one reading pass over the sentences; its cases share the sentence's state.
    if chunk.is_table:
        return []
    body = "\n".join(ln for ln in chunk.text.splitlines()[1:] if not ln.startswith("|"))
    facts: list[Fact] = []
    for sentence in split_sentences(body):
        years = set(mentioned_years(sentence))
        if (years and years != {chunk.fiscal_year}) or re.search(
            r"\b(?:prior|previous|last)\s+year\b|\ba\s+year\s+(?:earlier|before|ago)\b",
            sentence,
            re.IGNORECASE,
        ):
            continue
        mentions = metric_mentions(sentence)
        amounts = find_amounts(sentence)
        for n, (start, end, mentioned) in enumerate(mentions):
            limit = mentions[n + 1][0] if n + 1 < len(mentions) else len(sentence)
            # Read the mention with the words just before it, as a row label would read:
            # "the interim dividend of 72 US cents" is a component, not the total.
            previous_end = mentions[n - 1][1] if n else 0
            label = sentence[max(previous_end, start - 25) : end]
            metric = metric_of_row_label(label) or mentioned
            if metric == DIVIDEND_COMPONENT:
                continue
            found = next((a for a in amounts if end <= a.start < limit), None)
            if found is None or found.factor is None:
                continue
            if months_said_before(sentence[: found.start]):
                continue  # a quarter's figure ("2022 Fourth-Quarter ... EPS of $2.35")
            unit = unit_of(found.kind, found.currency, found.factor)
            if unit is None:
                continue
            if not metric_fits_unit(metric, unit):
                continue
            raw = sentence[found.start : found.end]
            facts.append(
                Fact(
                    chunk_id=chunk.chunk_id,
                    company=chunk.company,
                    document=chunk.document,
                    page=chunk.page,
                    report_fiscal_year=chunk.fiscal_year,
                    fiscal_year=chunk.fiscal_year,
                    restated=False,
                    label=sentence[start:end][:1].upper() + sentence[start:end][1:],
                    metric=metric,
                    value=-found.value if found.negative else found.value,
                    raw=raw,
                    unit=unit,
                    decimals=found.decimals,
                )
            )
    return facts
