"""RunSuites: the evaluation suites through the running stack, on a Temporal Schedule.

Off by default (TURNSTILE_SUITE_INTERVAL_HOURS=0). When on, each run asks every case of
the suites (`evals/suites/`) as `turnstile eval --mode real` does — routing and retrieval
on their own workflows, the rest as whole turns through the API with the answer cache
off — judges the run against the committed baseline (`evals/baseline.json`: the cases
known to fail and the metric floors), and moves the metrics the drift alert reads: a case
failing that the baseline does not list is a regression (`TurnstileSuiteDrift`). A run
that cannot reach the stack fails visibly; it never reads as "no drift".
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import SuiteRunRequest, SuiteVerdict
    from workflows.policy import step_options
    from workflows.sweep import ensure_schedule, interval_schedule

SCHEDULE_PREFIX = "turnstile-suites"


@workflow.defn(name="RunSuites")
class RunSuites:
    @workflow.run
    async def run(self, request: SuiteRunRequest) -> SuiteVerdict:
        which = ", ".join(request.suites) or "every suite"
        verdict = await workflow.execute_activity(
            steps.evals_run_suites,
            request,
            summary=f"{which}, every {request.sample_every} case(s), against the baseline",
            **step_options(steps.evals_run_suites),
        )
        recorded = await workflow.execute_activity(
            steps.metrics_record_suite_run,
            verdict,
            summary=f"{len(verdict.regressions)} regression(s): the drift alert's metrics",
            **step_options(steps.metrics_record_suite_run),
        )
        workflow.set_current_details(
            f"{recorded.cases} cases, {recorded.failed} failed;"
            f" {len(recorded.regressions)} regression(s), {len(recorded.stale)} stale"
        )
        return recorded


async def ensure_suite_schedule(
    client: Client, task_queue: str, every: timedelta, request: SuiteRunRequest
) -> None:
    """Create the suites' schedule, or bring an existing one up to date."""
    schedule = interval_schedule(
        RunSuites.run,
        request,
        f"run-suites-{task_queue}",
        task_queue,
        every,
        max(every, timedelta(hours=2)),
        "suites: the evaluation suites against the baseline (drift)",
    )
    await ensure_schedule(client, f"{SCHEDULE_PREFIX}-{task_queue}", schedule)


async def remove_suite_schedule(client: Client, task_queue: str) -> None:
    """Delete the suites' schedule if there is one (turned off)."""
    try:
        await client.get_schedule_handle(f"{SCHEDULE_PREFIX}-{task_queue}").delete()
    except RPCError as err:
        if err.status != RPCStatusCode.NOT_FOUND:
            raise
