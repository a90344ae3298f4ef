"""The scheduled suite run's step (`evals_run_suites`, for RunSuites): the suites through
the running stack, judged against the committed baseline, as `turnstile eval --mode
real --baseline evals/baseline.json` judges them. It lives with the evaluation code
because it is that code: the worker registers it."""

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import steps
from activities.contracts import SuiteRunRequest, SuiteVerdict
from activities.steps import implements
from domain.evaluation.scoring import sample
from evals.cases import BASELINE, SUITE_DIR, load_suites
from evals.commands import engine_of
from evals.real import Stack, run_real
from evals.results import Baseline, SuiteRun, gate

_BEAT_SECONDS = 30.0


class SuiteActivities:
    """`connect` opens the running stack as an evaluation sees it (`evals.commands.stack`
    in the worker; the API in-process in a test)."""

    def __init__(
        self,
        connect: Callable[[], AbstractAsyncContextManager[Stack]],
        suite_dir: Path = SUITE_DIR,
        baseline: Path = BASELINE,
    ) -> None:
        self.connect = connect
        self.suite_dir = suite_dir
        self.baseline = baseline

    def activities(self) -> list[Callable[..., Any]]:
        return [self.run_suites]

    @implements(steps.evals_run_suites)
    async def run_suites(self, request: SuiteRunRequest) -> SuiteVerdict:
        suites = load_suites(request.suites or None, self.suite_dir)
        cases = [c for cases in suites.values() for c in sample(cases, request.sample_every)]
        baseline = Baseline.read(self.baseline)
        async with self.connect() as stack, _heartbeating():
            engine, corpus = await engine_of(stack.http)
            results, metrics = await run_real(stack, cases)
        run = SuiteRun(
            mode="real", engine=engine, corpus_version=corpus, cases=results, metrics=metrics
        )
        # A sampled run is judged case by case: the other cases and the floors are not its.
        return judged(run, baseline, complete=request.sample_every == 1)


def judged(run: SuiteRun, baseline: Baseline, complete: bool) -> SuiteVerdict:
    """The run's verdict against the baseline. A case that could not run (the stack failed
    it: an HTTP or Temporal error, a missing key) fails the step instead: that is no
    verdict on drift, and a run of minutes is not retried (the next scheduled run is)."""
    unrun = [r for r in run.cases if any(p.startswith("could not run") for p in r.problems)]
    if unrun:
        raise ApplicationError(
            f"{len(unrun)} of {len(run.cases)} cases could not run: {unrun[0].problems[0]}",
            non_retryable=True,
        )
    problems = gate(run, baseline, complete=complete)
    regressions = [p for p in problems if p.startswith("regressed")]
    return SuiteVerdict(
        engine=run.engine,
        corpus_version=run.corpus_version,
        cases=len(run.cases),
        failed=sum(not r.passed for r in run.cases),
        regressions=regressions,
        stale=[p for p in problems if p not in regressions],
    )


@contextlib.asynccontextmanager
async def _heartbeating() -> AsyncIterator[None]:
    """Heartbeat while the suites run (minutes), so a worker that died is noticed."""

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(_BEAT_SECONDS)

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
