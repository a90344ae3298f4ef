"""Bounded waits on the workflows a request runs: a 503, never a hung request.

Two guards. Before starting, `require_worker` asks Temporal whether any worker polls
the task queue (DescribeTaskQueue, as /healthz does): with none, the request answers
503 within a couple of seconds instead of waiting for a worker that may never come.
After starting, `result_within` waits no longer than the run's own execution timeout
(plus a moment for the server to say so): a worker that polls but is stuck, or work
that takes too long, is a 503 as well, and the server closes the run, so nothing is
left running behind it. `run_short` is the two together: the recipe of every short
workflow a request runs (a search, an ingestion, the passages of a turn).
"""

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any, TypeVar

from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ActivityError
from temporalio.exceptions import TimeoutError as WorkflowTimeoutError
from temporalio.service import RPCError

from activities.errors import why_step_failed
from api.errors import ApiError
from settings import Settings

POLLER_CHECK = timedelta(seconds=3)
# A worker that has just started may not have polled yet: an empty answer is asked again
# for this long before it counts as "no worker".
POLLER_WAIT_SECONDS = 2.0
# The server closes a timed-out run on its own clock; this covers the lag of hearing so.
GRACE_SECONDS = 5.0

SelfType = TypeVar("SelfType")
ReturnType = TypeVar("ReturnType")


async def require_worker(client: Client, settings: Settings) -> None:
    """Raise a 503 ApiError unless a worker polls the task queue (or Temporal is down).

    Takes at most about `POLLER_WAIT_SECONDS` when no worker polls. Temporal remembers
    a poller for a while after its worker dies, so this catches "no worker was started",
    not every crash: `result_within` bounds the rest.
    """
    request = DescribeTaskQueueRequest(
        namespace=settings.temporal_namespace,
        task_queue=TaskQueue(name=settings.task_queue),
        task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    )
    loop = asyncio.get_running_loop()
    deadline = loop.time() + POLLER_WAIT_SECONDS
    while True:
        try:
            response = await client.workflow_service.describe_task_queue(
                request, timeout=POLLER_CHECK
            )
        except RPCError as exc:
            raise ApiError(503, "Unavailable", "Temporal is unavailable; retry shortly") from exc
        if response.pollers:
            return
        if loop.time() >= deadline:
            raise ApiError(
                503, "Unavailable", "no worker is running to do this; retry once one is started"
            )
        await asyncio.sleep(0.2)


async def result_within(
    handle: WorkflowHandle[SelfType, ReturnType], timeout: timedelta, what: str
) -> ReturnType:
    """Wait for a run started with `execution_timeout=timeout`; a 503 ApiError past it.

    A step that failed after its retries is a 503 naming it; any other failure of the run
    propagates unchanged.
    """
    too_slow = ApiError(
        503, "Unavailable", f"{what} did not finish within {timeout.total_seconds():g}s"
    )
    try:
        return await asyncio.wait_for(handle.result(), timeout.total_seconds() + GRACE_SECONDS)
    except WorkflowFailureError as exc:
        if isinstance(exc.cause, WorkflowTimeoutError):
            raise too_slow from exc
        if isinstance(exc.cause, ActivityError):
            # A step that failed after its retries (a worker of another build, an outage)
            # is named, as a 503 to retry, never an "unexpected error".
            raise ApiError(503, "Unavailable", _step_failed(what, exc.cause)) from exc
        raise
    except TimeoutError as exc:
        raise too_slow from exc


def _step_failed(what: str, err: ActivityError) -> str:
    """One line naming the failed step and why its last attempt failed."""
    return (
        f"{what} failed: its step {err.activity_type} failed after its retries "
        f"({why_step_failed(err)}); retry shortly"
    )


async def run_short(
    client: Client,
    settings: Settings,
    run: Callable[[SelfType, Any], Awaitable[ReturnType]],
    arg: Any,
    prefix: str,
    timeout: timedelta,
    what: str,
    *,
    summary: str,
    details: str | None = None,
) -> ReturnType:
    """Run a short workflow for a request and give its result: 503 when no worker polls,
    and 503 past `timeout`, the run's own execution timeout (the server closes it). The
    Temporal UI's workflow list names the run by `summary` (and `details`): what it does
    for whom, never personal data (the caller passes text already redacted)."""
    await require_worker(client, settings)
    handle = await client.start_workflow(
        run,
        arg,
        id=f"{prefix}-{uuid.uuid4().hex[:12]}",
        task_queue=settings.task_queue,
        execution_timeout=timeout,
        static_summary=summary,
        static_details=details,
    )
    return await result_within(handle, timeout, what)
