"""Real mode: the suites through the running stack, each on its cheapest meaningful path.

- routing cases run only the routing steps (workflow `EvaluateRouting`);
- retrieval cases only retrieval (workflow `EvaluateRetrieval`, no grading or answer);
- calculation and boundary cases (and probes asked by hand) are whole turns, started
  through the API as any caller would (`POST /v1/turns`, `Cache-Control: no-cache` so
  the answer cache never answers for the system under test); a turn left waiting for a
  clarification is cancelled, so an evaluation never leaves a turn behind.

The engine is whatever the stack's worker runs; `--engine` only checks that it is the
one the caller meant to evaluate.
"""

import asyncio
import secrets
import string
import uuid
from collections.abc import Coroutine
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeVar

import httpx
from temporalio.client import Client, WorkflowFailureError
from temporalio.service import RPCError

from domain.evaluation.scoring import (
    EvalCase,
    RetrievalExpected,
    RoutingExpected,
    ScopeExpected,
    TurnExpected,
    first_hit_rank,
    score_retrieval,
    score_routing,
    score_scope,
    score_turn,
)
from domain.models import RetrievalConfig
from domain.turns import SETTLED, TurnResult
from evals.ranking import ranx_metrics
from evals.results import CaseResult
from workflows.contracts import RetrievalProbe, RetrievalRun
from workflows.evaluation import EvaluateRetrieval, EvaluateRouting

CUTOFF = 5
T = TypeVar("T")
CONCURRENCY = 4
TURN_WAIT_SECONDS = 180.0
RATE_LIMIT_WAIT_SECONDS = 600.0
EVAL_USER = "turnstile-eval"
"""The user id an evaluation's turns carry, so they are told apart from callers' turns."""


class EvalError(Exception):
    """A run that cannot go on (the stack unreachable, a turn the API refused)."""


@dataclass
class Stack:
    """The running stack as an evaluation sees it: Temporal for the partial paths, the
    API for whole turns."""

    temporal: Client
    task_queue: str
    http: httpx.AsyncClient
    run_id: str = ""

    def __post_init__(self) -> None:
        self.run_id = self.run_id or uuid.uuid4().hex[:8]


async def retrieve(
    stack: Stack, case: EvalCase, config: RetrievalConfig, attempt: int = 0
) -> RetrievalRun:
    assert isinstance(case.expected, RetrievalExpected)
    return await stack.temporal.execute_workflow(
        EvaluateRetrieval.run,
        RetrievalProbe(question=case.query, company=case.expected.company, config=config),
        id=f"eval-{stack.run_id}-{config.name}-{case.id}-{attempt}",
        task_queue=stack.task_queue,
        execution_timeout=timedelta(minutes=2),
        static_summary=f"retrieval case {case.id} ({config.name}): {case.query[:80]}",
    )


def retrieval_result(case: EvalCase, run: RetrievalRun, cutoff: int = CUTOFF) -> CaseResult:
    assert isinstance(case.expected, RetrievalExpected)
    if run.degraded:
        return CaseResult(
            suite=case.suite,
            id=case.id,
            passed=False,
            passes=0,
            problems=[f"not scored: {'; '.join(run.degraded)}"],
            detail={"degraded": True},
        )
    problems = score_retrieval(case.expected, run.hits, cutoff)
    if not run.planned:
        problems = [f"the query plan did not search {case.expected.company}"]
    rank = first_hit_rank(case.expected, run.hits)
    return CaseResult.scored(
        case,
        problems,
        {
            "rank": rank,
            "query": run.query,
            "fiscal_years": run.fiscal_years,
            "returned": [f"{h.company} FY{h.fiscal_year} p.{h.page} {h.section}" for h in run.hits],
        },
    )


async def _routing(stack: Stack, case: EvalCase) -> CaseResult:
    assert isinstance(case.expected, RoutingExpected | ScopeExpected)
    outcome = await stack.temporal.execute_workflow(
        EvaluateRouting.run,
        case.query,
        id=f"eval-{stack.run_id}-routing-{case.id}",
        task_queue=stack.task_queue,
        execution_timeout=timedelta(minutes=2),
        static_summary=f"routing case {case.id}: {case.query[:80]}",
    )
    if isinstance(case.expected, ScopeExpected):
        problems = score_scope(case.expected, outcome)
    else:
        problems = score_routing(case.expected, outcome)
    return CaseResult.scored(case, problems, {"route": outcome.route, "reason": outcome.reason})


async def _settle(http: httpx.AsyncClient, response: httpx.Response) -> TurnResult:
    if response.status_code >= 400:
        raise EvalError(f"the API answered {response.status_code}: {response.text[:200]}")
    result = TurnResult.model_validate(response.json())
    loop = asyncio.get_running_loop()
    deadline = loop.time() + TURN_WAIT_SECONDS
    while result.status == "running":
        if loop.time() > deadline:
            raise EvalError(
                f"turn {result.turn_id} did not settle in {TURN_WAIT_SECONDS:.0f}s "
                "(it settles on its own: the sweep records whatever ends it)"
            )
        await asyncio.sleep(0.25)
        polled = await http.get(f"/v1/turns/{result.turn_id}")
        if polled.status_code != 200:
            raise EvalError(f"reading turn {result.turn_id}: HTTP {polled.status_code}")
        result = TurnResult.model_validate(polled.json())
    return result


async def ask(http: httpx.AsyncClient, question: str, conversation: str | None) -> TurnResult:
    """One whole turn through the API (a new conversation when `conversation` is None);
    a waiting clarification is cancelled afterwards."""
    body: dict[str, str] = {"question": question, "user_id": EVAL_USER}
    if conversation:
        body["conversation_id"] = conversation
    # One key for every attempt: a retry after an unanswered start is the same turn,
    # never a second one (the API's advice in its 503).
    # Letters only: the API reads a key for personal data, and a run of digits can look
    # like a phone or card number.
    key = "eval-" + "".join(secrets.choice(string.ascii_lowercase) for _ in range(24))
    headers = {"Cache-Control": "no-cache", "Idempotency-Key": key}
    loop = asyncio.get_running_loop()
    deadline = loop.time() + RATE_LIMIT_WAIT_SECONDS
    while True:
        response = await http.post("/v1/turns", json=body, headers=headers)
        if response.status_code not in (429, 503) or loop.time() > deadline:
            break
        # 429: the caller's rate limit (TURNSTILE_RATE_LIMIT_PER_MINUTE); 503: Temporal
        # did not answer in time (a busy machine). Wait as told, so a long run is slower,
        # never failed by its own pace or a slow moment.
        await asyncio.sleep(float(response.headers.get("Retry-After", "1")))
    result = await _settle(http, response)
    if result.status not in SETTLED:  # waiting for a clarification: leave nothing behind
        await http.post(f"/v1/turns/{result.turn_id}/cancel", json={})
    return result


async def run_turn_case(http: httpx.AsyncClient, case: EvalCase) -> tuple[CaseResult, TurnResult]:
    assert isinstance(case.expected, TurnExpected)
    conversation: str | None = None
    for earlier in case.before:
        conversation = (await ask(http, earlier, conversation)).conversation_id
    result = await ask(http, case.query, conversation)
    problems = score_turn(case.expected, result)
    return CaseResult.scored(
        case, problems, {"turn_id": result.turn_id, "status": result.status}
    ), result


async def run_case(stack: Stack, case: EvalCase) -> CaseResult:
    """One case; a case that cannot run fails alone, and the run goes on (so every other
    case still settles, and its clarifications are still cancelled)."""
    try:
        return await _run_case(stack, case)
    except (EvalError, httpx.HTTPError, WorkflowFailureError, RPCError) as err:
        return CaseResult(
            suite=case.suite, id=case.id, passed=False, passes=0, problems=[f"could not run: {err}"]
        )


async def _run_case(stack: Stack, case: EvalCase) -> CaseResult:
    if isinstance(case.expected, RoutingExpected | ScopeExpected):
        return await _routing(stack, case)
    if isinstance(case.expected, RetrievalExpected):
        return retrieval_result(case, await retrieve(stack, case, RetrievalConfig()))
    return (await run_turn_case(stack.http, case))[0]


async def gathered(work: list[Coroutine[Any, Any, T]], concurrency: int = CONCURRENCY) -> list[T]:
    """Await `work`, `concurrency` at a time, keeping its order."""
    gate = asyncio.Semaphore(concurrency)

    async def one(job: Coroutine[Any, Any, T]) -> T:
        async with gate:
            return await job

    return list(await asyncio.gather(*(one(j) for j in work)))


async def run_real(
    stack: Stack, cases: list[EvalCase]
) -> tuple[list[CaseResult], dict[str, float]]:
    """Every case, and the retrieval suite's hit@5 and MRR@5 (ranx) when it ran."""
    results = await gathered([run_case(stack, c) for c in cases])
    metrics: dict[str, float] = {}
    # A degraded search (the reranker throttled) fails its case, but is no quality
    # measure: it stays out of hit@5 and MRR.
    retrieval = [r for r in results if r.suite == "retrieval" and not r.detail.get("degraded")]
    retrieval = [r for r in retrieval if not any(p.startswith("could not run") for p in r.problems)]
    if retrieval:
        ranks = {r.id: r.detail.get("rank") for r in retrieval}
        metrics = {
            f"retrieval.{k}": v
            for k, v in ranx_metrics(
                {k: v if isinstance(v, int) else None for k, v in ranks.items()}, CUTOFF
            ).items()
        }
    return results, metrics
