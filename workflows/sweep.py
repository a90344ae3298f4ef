"""SweepTurns: a Temporal Schedule that settles turns whose workflow closed without saying so.

A terminated, timed-out or failed ChatTurn cannot write its own final status; the API
reconciles a blocking turn on demand, and this sweep catches the rest (a conversation
nobody writes to again still shows the truth). Created by the worker at start-up,
idempotently: a second worker, or a restart, updates the schedule instead of failing.
"""

from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.client import (
    Client,
    Schedule,
    ScheduleActionStartWorkflow,
    ScheduleAlreadyRunningError,
    ScheduleIntervalSpec,
    ScheduleOverlapPolicy,
    SchedulePolicy,
    ScheduleSpec,
    ScheduleUpdate,
    ScheduleUpdateInput,
)

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import SweepRequest, SweepResult
    from workflows.policy import step_options

SCHEDULE_PREFIX = "turnstile-sweep-turns"


@workflow.defn(name="SweepTurns")
class SweepTurns:
    @workflow.run
    async def run(self, request: SweepRequest) -> SweepResult:
        result = await workflow.execute_activity(
            steps.postgres_sweep_turns,
            request,
            summary=f"open turns quiet for {request.quiet_for_seconds:.0f}s",
            **step_options(steps.postgres_sweep_turns),
        )
        workflow.set_current_details(f"checked {result.checked}, settled {len(result.settled)}")
        return result


def interval_schedule(
    run: Any,
    arg: Any,
    workflow_id: str,
    task_queue: str,
    every: timedelta,
    timeout: timedelta,
    summary: str,
) -> Schedule:
    """Start `run(arg)` every `every`; a start is skipped while the last run still goes.
    Each run is named in the Temporal UI by `summary`, and says it is scheduled."""
    return Schedule(
        action=ScheduleActionStartWorkflow(
            run,
            arg,
            id=workflow_id,
            task_queue=task_queue,
            execution_timeout=timeout,
            static_summary=summary,
            static_details=(
                f"started every {_every(every)} by a Temporal Schedule; hide scheduled runs"
                " from the workflow list with TemporalScheduledById IS NULL"
            ),
        ),
        spec=ScheduleSpec(intervals=[ScheduleIntervalSpec(every=every)]),
        policy=SchedulePolicy(overlap=ScheduleOverlapPolicy.SKIP),
    )


def _every(every: timedelta) -> str:
    seconds = every.total_seconds()
    for size, name in ((86_400, "day"), (3_600, "hour"), (60, "minute")):
        if seconds >= size and seconds % size == 0:
            n = int(seconds // size)
            return name if n == 1 else f"{n} {name}s"
    return f"{seconds:g} seconds"


def _schedule(task_queue: str, every: timedelta) -> Schedule:
    return interval_schedule(
        SweepTurns.run,
        SweepRequest(),
        f"sweep-turns-{task_queue}",
        task_queue,
        every,
        max(every, timedelta(minutes=1)),
        "sweep: settle turns whose workflow closed without saying so",
    )


async def ensure_sweep_schedule(client: Client, task_queue: str, every: timedelta) -> None:
    """Create the sweep schedule, or bring an existing one up to date."""
    # One per stack sharing a namespace.
    await ensure_schedule(client, f"{SCHEDULE_PREFIX}-{task_queue}", _schedule(task_queue, every))


async def ensure_schedule(client: Client, schedule_id: str, schedule: Schedule) -> None:
    """Create a schedule, or replace an existing one's definition (idempotent at start-up)."""
    try:
        await client.create_schedule(schedule_id, schedule)
    except ScheduleAlreadyRunningError:

        def update(_: ScheduleUpdateInput) -> ScheduleUpdate:
            return ScheduleUpdate(schedule=schedule)

        await client.get_schedule_handle(schedule_id).update(update)
