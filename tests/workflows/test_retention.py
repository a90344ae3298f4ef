"""The decision record's retention: the PurgeDecisionRecords workflow and its schedule."""

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from activities.contracts import PurgeRequest
from backends.turn_sweeper import SweepActivities
from db import audit, turns
from domain.turns import TurnResult
from tests.conftest import WorkerFactory, unique
from workflows.retention import SCHEDULE_PREFIX, PurgeDecisionRecords, ensure_retention_schedule


@pytest.fixture
async def own_pool(fresh_database_url: str) -> AsyncIterator[AsyncConnectionPool]:
    """A database of its own: purging must not touch the session's decision records."""
    pool = AsyncConnectionPool(
        fresh_database_url, min_size=1, max_size=3, open=False, kwargs={"autocommit": True}
    )
    await pool.open()
    try:
        yield pool
    finally:
        await pool.close()


async def settle(pool: AsyncConnectionPool, n: int) -> None:
    async with pool.connection() as conn:
        for i in range(n):
            alloc = await turns.allocate_turn(conn, None, None, f"q{i}")
            result = TurnResult(
                turn_id=alloc.turn_id,
                conversation_id=alloc.conversation_id,
                status="refused",
                question=f"q{i}",
                route="out_of_scope",
            )
            await turns.save_turn(conn, result, final=True)  # fmt: skip


async def test_the_purge_workflow_removes_old_records_and_the_chain_still_verifies(
    own_pool: AsyncConnectionPool, worker: WorkerFactory, temporal_client: Client
) -> None:
    await settle(own_pool, 3)
    async with own_pool.connection() as conn:
        for token, age in (("⟦email:oldoldoldo⟧", "2 days"), ("⟦email:newnewnewn⟧", "1 hour")):
            await conn.execute(
                "INSERT INTO pii_tokens (token, tenant_id, owner, kind, digest, value,"
                " last_used_at) VALUES (%s, 'default', '', 'email', %s, 'x@example.com',"
                " now() - %s::interval)",
                (token, token, age),
            )
    await asyncio.sleep(0.3)
    async with worker(
        workflows=[PurgeDecisionRecords], activities=SweepActivities(own_pool).activities()
    ) as tq:
        # 1e-6 days is about 86 ms: everything settled above is older than that.
        old = await temporal_client.execute_workflow(
            PurgeDecisionRecords.run, PurgeRequest(retention_days=1e-6, pii_retention_days=1),
            id=unique("purge"), task_queue=tq,
        )  # fmt: skip
        await settle(own_pool, 2)
        young = await temporal_client.execute_workflow(
            PurgeDecisionRecords.run, PurgeRequest(retention_days=30),
            id=unique("purge"), task_queue=tq,
        )  # fmt: skip
    assert (old.rows, old.through_seq, old.pii_tokens) == (3, 3, 1)
    assert (young.rows, young.through_seq) == (0, None)
    async with own_pool.connection() as conn:
        report = await audit.verify(conn)
        log = await (await conn.execute("SELECT rows_purged FROM decision_purges")).fetchall()
        left = await (await conn.execute("SELECT token FROM pii_tokens")).fetchall()
    assert left == [("⟦email:newnewnewn⟧",)]  # a value used within its retention stays
    assert report.ok and report.rows == 2, report.line()
    assert log == [(3,)]


async def test_the_worker_keeps_one_daily_retention_schedule(
    temporal_client: Client, settings_task_queue: Callable[[], str]
) -> None:
    tq = settings_task_queue()
    await ensure_retention_schedule(temporal_client, tq, 30)
    await ensure_retention_schedule(temporal_client, tq, 90, 7)  # a restart updates it
    handle = temporal_client.get_schedule_handle(f"{SCHEDULE_PREFIX}-{tq}")
    try:
        described = await handle.describe()
        action = described.schedule.action
        assert action.workflow == "PurgeDecisionRecords"  # type: ignore[attr-defined]
        payload = action.args[0]  # type: ignore[attr-defined]
        # A described schedule holds its arguments as payloads: decode as the worker will.
        [request] = pydantic_data_converter.payload_converter.from_payloads(
            [payload], [PurgeRequest]
        )
        assert (request.retention_days, request.pii_retention_days) == (90, 7)
    finally:
        await handle.delete()


@pytest.fixture
def settings_task_queue() -> Callable[[], str]:
    return lambda: unique("retention")
