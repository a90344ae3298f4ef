"""The retrieval A/B harness: the same retrieval cases under two configurations.

Retrieval is called directly through the stack (workflow `EvaluateRetrieval`: the query
plan and the search, no grading, no answer). Reported for each configuration: hit within
its own cutoff (`limit`), hit@5, MRR@5 and the mean rank of the first hit (ranx); and per
case: improved (the first hit moved up), regressed (moved down), new hit (found within
the cutoff by B only), new miss (by A only).

A reranker may be rate-limited. Cases are spaced by `--pause` seconds, and a search
that comes back degraded (the reranker throttled or down: the fused order was kept) is
asked again after a pause, up to `RETRIES` times; if it still degrades it is reported
as not scored and left out of both configurations' measures, so throttling never looks
like a quality result.
"""

import asyncio
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from domain.evaluation.scoring import CaseError, EvalCase
from domain.models import RetrievalConfig
from evals.cases import CONFIG_DIR
from evals.ranking import ranx_metrics
from evals.real import CUTOFF, Stack, retrieval_result, retrieve
from evals.results import CaseResult

RETRIES = 3
RETRY_PAUSE = 1.0
"""Seconds before asking a degraded search again (doubling each time)."""
NO_RERANKER = "no reranker is configured"
"""A degradation no wait can mend (the search's own wording): not asked again."""
MEASURES = ("hit@5", "mrr@5", "mean_rank")
Change = Literal["improved", "regressed", "new hit", "new miss", "same", "not scored"]


def load_config(name_or_path: str) -> RetrievalConfig:
    """A shipped configuration by name (evals/configs/NAME.json) or a JSON file's path."""
    path = Path(name_or_path)
    if not path.suffix:
        path = CONFIG_DIR / f"{name_or_path}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return RetrievalConfig.model_validate({"name": path.stem, **data})
    except FileNotFoundError:
        shipped = ", ".join(sorted(p.stem for p in CONFIG_DIR.glob("*.json")))
        raise CaseError(
            f"no retrieval configuration {name_or_path!r} (shipped: {shipped})"
        ) from None
    except (json.JSONDecodeError, ValidationError) as err:
        raise CaseError(f"{path}: not a retrieval configuration: {err}") from None


class CaseChange(BaseModel):
    model_config = ConfigDict(frozen=True)

    id: str
    query: str
    rank_a: int | None
    rank_b: int | None
    change: Change


class ConfigReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    config: RetrievalConfig
    metrics: dict[str, float]
    misses: list[str] = Field(default_factory=list)


class ABReport(BaseModel):
    model_config = ConfigDict(frozen=True)

    cases: int
    a: ConfigReport
    b: ConfigReport
    changes: list[CaseChange]
    not_scored: dict[str, str] = Field(default_factory=dict)
    """Case id → why it was not scored (what the degraded search said)."""

    def count(self, change: Change) -> int:
        return sum(c.change == change for c in self.changes)


async def _scored(
    stack: Stack, case: EvalCase, config: RetrievalConfig, pause: float
) -> CaseResult:
    """One case under one configuration; a degraded search is asked again after a pause
    (at least RETRY_PAUSE, doubling), unless the reason cannot pass (no reranker)."""
    result = None
    for attempt in range(RETRIES + 1):
        if attempt:
            await asyncio.sleep(max(pause, RETRY_PAUSE) * 2 ** (attempt - 1))
        elif pause:
            await asyncio.sleep(pause)
        run = await retrieve(stack, case, config, attempt)
        result = retrieval_result(case, run, config.limit)
        if not run.degraded or any(NO_RERANKER in note for note in run.degraded):
            return result
    assert result is not None
    return result


def _change(a: int | None, b: int | None, cutoff_a: int, cutoff_b: int) -> Change:
    in_a = a is not None and a <= cutoff_a
    in_b = b is not None and b <= cutoff_b
    if in_b and not in_a:
        return "new hit"
    if in_a and not in_b:
        return "new miss"
    if a == b or not (in_a and in_b):
        return "same"
    assert a is not None and b is not None
    return "improved" if b < a else "regressed"


def _measures(ranks: dict[str, int | None], config: RetrievalConfig) -> dict[str, float]:
    at_limit = ranx_metrics(ranks, config.limit)
    at_five = ranx_metrics(ranks, CUTOFF)
    return {
        f"hit@{config.limit} (cutoff)": at_limit[f"hit@{config.limit}"],
        "hit@5": at_five["hit@5"],
        "mrr@5": at_five["mrr@5"],
        "mean_rank": at_limit["mean_rank"],
    }


async def compare(
    stack: Stack,
    cases: list[EvalCase],
    a: RetrievalConfig,
    b: RetrievalConfig,
    pause: float = 0.0,
) -> ABReport:
    """Run every case under A, then under B (sequentially when pausing for a rate limit)."""
    concurrency = 1 if pause else 4
    gate = asyncio.Semaphore(concurrency)

    async def one(case: EvalCase, config: RetrievalConfig) -> CaseResult:
        async with gate:
            return await _scored(stack, case, config, pause)

    runs_a = await asyncio.gather(*(one(c, a) for c in cases))
    runs_b = await asyncio.gather(*(one(c, b) for c in cases))
    not_scored = {
        c.id: "; ".join(p.removeprefix("not scored: ") for p in r.problems)
        for c, ra, rb in zip(cases, runs_a, runs_b, strict=True)
        for r in (ra, rb)
        if r.detail.get("degraded")
    }
    changes, ranks_a, ranks_b = _changes(cases, runs_a, runs_b, not_scored, a, b)
    return ABReport(
        cases=len(cases),
        a=_config_report(a, ranks_a),
        b=_config_report(b, ranks_b),
        changes=changes,
        not_scored=not_scored,
    )


def _changes(
    cases: list[EvalCase],
    runs_a: list[CaseResult],
    runs_b: list[CaseResult],
    not_scored: dict[str, str],
    a: RetrievalConfig,
    b: RetrievalConfig,
) -> tuple[list[CaseChange], dict[str, int | None], dict[str, int | None]]:
    """Each case's rank under A and under B and what changed (the scored cases' ranks)."""
    ranks_a: dict[str, int | None] = {}
    ranks_b: dict[str, int | None] = {}
    changes = []
    for case, ra, rb in zip(cases, runs_a, runs_b, strict=True):
        if case.id in not_scored:
            changes.append(
                CaseChange(
                    id=case.id, query=case.query, rank_a=None, rank_b=None, change="not scored"
                )
            )
            continue
        rank_a, rank_b = ra.detail.get("rank"), rb.detail.get("rank")
        ranks_a[case.id] = rank_a if isinstance(rank_a, int) else None
        ranks_b[case.id] = rank_b if isinstance(rank_b, int) else None
        changes.append(
            CaseChange(
                id=case.id,
                query=case.query,
                rank_a=ranks_a[case.id],
                rank_b=ranks_b[case.id],
                change=_change(ranks_a[case.id], ranks_b[case.id], a.limit, b.limit),
            )
        )
    return changes, ranks_a, ranks_b


def _config_report(config: RetrievalConfig, ranks: dict[str, int | None]) -> ConfigReport:
    misses = [k for k, r in ranks.items() if r is None or r > CUTOFF]
    return ConfigReport(
        config=config, metrics=_measures(ranks, config) if ranks else {}, misses=misses
    )


def render(report: ABReport) -> str:
    lines = [f"retrieval A/B on {report.cases} cases"]
    cutoffs = [n for n in {**report.a.metrics, **report.b.metrics} if n not in MEASURES]
    names = [*cutoffs, *MEASURES] if cutoffs else []
    lines.append(
        f"  {'measure':22} {'A: ' + report.a.config.name:>24} {'B: ' + report.b.config.name:>24}"
    )
    for name in names:
        lines.append(
            f"  {name:22} {report.a.metrics.get(name, float('nan')):>24.4f}"
            f" {report.b.metrics.get(name, float('nan')):>24.4f}"
        )
    kinds: tuple[Change, ...] = (
        "improved",
        "regressed",
        "new hit",
        "new miss",
        "same",
        "not scored",
    )
    counts = ", ".join(f"{report.count(c)} {c}" for c in kinds)
    lines.append(f"  per case: {counts}")
    for change in report.changes:
        if change.change not in ("same", "not scored"):
            lines.append(
                f"  {change.change:10} {change.id}: rank {change.rank_a or '-'} → "
                f"{change.rank_b or '-'}  ({change.query})"
            )
    for case_id, why in report.not_scored.items():
        lines.append(f"  not scored {case_id}: {why}")
    for name, side in (("A", report.a), ("B", report.b)):
        if side.misses:
            lines.append(f"  {name} misses within 5: {', '.join(side.misses)}")
    return "\n".join(lines)
