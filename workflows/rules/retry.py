"""Bounded retry that changes its input (docs/controls.md, bounded retry), as workflow logic."""

from collections.abc import Callable
from dataclasses import dataclass

from domain.companies.roster import companies, find_companies
from domain.models import NotFound, SubQuery, UnsupportedClaim
from domain.questions.metrics import METRICS

MAX_RETRIES = 2


def metric_synonyms(metric: str) -> list[str]:
    """Report wordings for a metric (by key or display name), to widen a gap's search."""
    for m in METRICS.values():
        if metric in (m.key, m.display):
            return list(m.report_terms)
    return []


def should_retry(
    quality_passed: bool, gaps: int, unsupported: int, retries_done: int, uncovered: int = 0
) -> bool:
    """Retry when quality failed, a requested figure is missing, >2 claims are
    unsupported, or a requested company has no surviving evidence (`uncovered`: a
    question with no figure has no gap to name it) — only while fewer than MAX_RETRIES
    retries have run."""
    if retries_done >= MAX_RETRIES:
        return False
    return not quality_passed or gaps > 0 or unsupported > 2 or uncovered > 0


def retryable(gaps: list[NotFound], other_measures: list[str]) -> list[NotFound]:
    """The gaps another search could fill: not those of a measure the engine has no
    rule for (no query reads a figure the engine cannot extract)."""
    return [g for g in gaps if g.metric not in other_measures]


@dataclass(frozen=True)
class RetryPlan:
    sub_queries: list[SubQuery]
    changes: list[str]


def claim_company(label: str, by_name: bool = False) -> tuple[str | None, list[str]]:
    """The company a claim's label is about and the label's other words: its first word
    ("RIO FY2025 revenue"); with `by_name`, a company the label names as a model judge
    writes it ("Rio Tinto FY2025 revenue", "revenue of Rio Tinto"), the words of its
    name and aliases taken out of the rest."""
    words = label.split()
    if not words:
        return None, []
    named = find_companies(label) if by_name and words[0] not in companies() else []
    if not named:
        return words[0], words[1:]
    held = companies()[named[0]]
    own = {w.lower() for n in (held.name, *held.aliases, held.ticker) for w in n.split()}
    return named[0], [w for w in words if w.lower().strip(",").removesuffix("'s") not in own]


def retry_targets(
    coverage: dict[str, bool],
    gaps: list[NotFound],
    unsupported: list[UnsupportedClaim],
    by_name: bool = False,
) -> list[str]:
    """Companies to search again: not found, with a gap, or with an unverified claim
    (`by_name`: a claim whose label names the company rather than opening with its
    ticker, `claim_company`)."""
    targets = [t for t, ok in coverage.items() if not ok]
    targets += [g.company for g in gaps]
    targets += [t for c in unsupported if (t := claim_company(c.label, by_name)[0])]
    return list(dict.fromkeys(t for t in targets if t in coverage))


def plan_retry(
    sub_queries: list[SubQuery],
    targets: list[str],
    gaps: list[NotFound],
    unsupported: list[UnsupportedClaim],
    retry_number: int,
    synonyms: Callable[[str], list[str]],
    by_name: bool = False,
) -> RetryPlan | None:
    """Change each target company's sub-query; None when nothing can change.

    Failed claim labels are appended as search terms; for a gap the metric's synonyms are
    added; on the second retry (or when no term is new) the fiscal-year filter is widened.
    """
    # long: one change per target, in the order the retry rule tries them.
    changed: list[SubQuery] = []
    changes: list[str] = []
    for sq in sub_queries:
        if sq.company not in targets:
            continue
        words = sq.query.lower().split()
        extra: list[str] = []
        for claim in unsupported:
            company, rest = claim_company(claim.label, by_name)
            if company == sq.company if by_name else claim.label.startswith(sq.company):
                extra += rest
        for gap in gaps:
            if gap.company == sq.company:
                extra += [w for term in synonyms(gap.metric) for w in term.split()]
        new_terms = [w for w in dict.fromkeys(extra) if w.lower() not in words]
        widen = bool(sq.fiscal_years) and (retry_number >= 2 or not new_terms)
        if not new_terms and not widen:
            continue
        changed.append(
            SubQuery(
                company=sq.company,
                query=" ".join([sq.query, *new_terms]),
                fiscal_years=[] if widen else sq.fiscal_years,
                metrics=sq.metrics,
            )
        )
        what = []
        if new_terms:
            what.append(f"+terms {' '.join(new_terms)}")
        if widen:
            what.append("fiscal-year filter widened")
        changes.append(f"{sq.company}: {', '.join(what)}")
    if not changed:
        return None
    return RetryPlan(changed, changes)


@dataclass(frozen=True)
class Attempt:
    pass_number: int
    unsupported: int
    gaps: int


def best_attempt(attempts: list[Attempt]) -> Attempt:
    """Fewest unsupported claims, then most coverage (fewest gaps), then the latest."""
    return min(attempts, key=lambda a: (a.unsupported, a.gaps, -a.pass_number))
