"""Several turn workers beside one index holder (`turnstile up --workers N`).

Qdrant Edge holds one process per shard, so one worker holds the report index and serves
the main queue; turns run on a queue of their own, served by workers without the index,
and every step that needs the index goes to the holder's queue as a regular activity.
A turn worker that stops mid-turn leaves its turn to another.
"""

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta

from psycopg_pool import AsyncConnectionPool
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Worker

import worker as registry
from backends.coverage import PinCoverage
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from tests.conftest import Turns, outcome, unique
from workflows.chat_turn import ChatTurn
from workflows.policy import WITHOUT_INDEX


@asynccontextmanager
async def turn_worker_without_index(
    client: Client, pool: AsyncConnectionPool, queue: str
) -> AsyncIterator[None]:
    """What `worker.py --role turn` runs: ChatTurn and the steps without the index."""
    async with Worker(
        client,
        task_queue=queue,
        workflows=[ChatTurn],
        activities=list(registry.turn_activities(pool, OfflineEngine())),
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=2),
    ):
        yield


def index_holder(
    client: Client, index: ReportIndex, pool: AsyncConnectionPool, queue: str
) -> Worker:
    """What `worker.py` runs: every workflow and step, over the report index."""
    activities = registry.activities(index, pool, OfflineEngine(index.embedder))
    return Worker(
        client,
        task_queue=queue,
        workflows=registry.workflows(),
        activities=list(activities),
        interceptors=[PinCoverage()],
    )


async def scheduled_queues(client: Client, workflow_id: str) -> dict[str, set[str]]:
    """Each regular activity of a history with the task queues it was scheduled on."""
    found: dict[str, set[str]] = {}
    async for e in client.get_workflow_handle(workflow_id).fetch_history_events():
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            attrs = e.activity_task_scheduled_event_attributes
            found.setdefault(attrs.activity_type.name, set()).add(attrs.task_queue.name)
    return found


async def test_a_turn_on_a_worker_without_the_index_sends_its_index_steps_to_the_holder(
    temporal_client: Client,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
) -> None:
    holder, turns_queue = unique("index"), unique("turns")
    async with (
        index_holder(temporal_client, report_index, pool, holder),
        turn_worker_without_index(temporal_client, pool, turns_queue),
    ):
        t = turns_on(turns_queue)
        t.index_task_queue = holder
        result = await t.ask("What was BHP's revenue in FY2024?")
    assert result.status == "answered" and "55,658" in (result.answer or ""), result
    queues = await scheduled_queues(temporal_client, result.turn_id)
    assert {"postgres_read_coverage", "qdrant_search_chunks", "llm_synthesize_answer"} <= set(
        queues
    )
    for step, where in queues.items():
        assert where == {holder}, (step, where)
        assert step not in WITHOUT_INDEX
    # A step without the index stayed on the turn's own worker, a local activity.
    assert not {"postgres_load_session", "postgres_save_turn"} & set(queues)


async def test_a_turn_worker_that_stops_leaves_its_waiting_turn_to_another(
    temporal_client: Client,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
) -> None:
    holder, turns_queue = unique("index"), unique("turns")
    async with index_holder(temporal_client, report_index, pool, holder):
        t = turns_on(turns_queue)
        t.index_task_queue = holder
        async with turn_worker_without_index(temporal_client, pool, turns_queue):
            handle = await t.start("What was this company's revenue in FY2024?")
            waiting = await outcome(handle, 0)
        assert waiting.status == "needs_clarification"
        async with turn_worker_without_index(temporal_client, pool, turns_queue):
            result = await t.reply(handle, waiting.clarification_round, "BHP")
    assert result.status == "answered" and "55,658" in (result.answer or ""), result


def test_a_worker_without_the_index_implements_every_step_it_keeps() -> None:
    from activities.steps import declared_name

    kept = {declared_name(fn) for fn in registry.turn_activities(None, None)}  # type: ignore[arg-type]
    assert kept == WITHOUT_INDEX
