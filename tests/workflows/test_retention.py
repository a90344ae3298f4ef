"""The daily retention run: the PurgeDecisionRecords workflow (decision records, personal
values, idle conversations) and its schedule."""

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter

from activities.contracts import PurgeRequest
from backends.turn_sweeper import SweepActivities
from db import audit, expiry, feedback, memory, shadow, turns
from domain.turns import OPEN, TurnResult
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
            await turns.save_turn(conn, result, final=True)


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
            PurgeDecisionRecords.run,
            PurgeRequest(retention_days=1e-6, pii_retention_days=1),
            id=unique("purge"),
            task_queue=tq,
        )
        await settle(own_pool, 2)
        young = await temporal_client.execute_workflow(
            PurgeDecisionRecords.run,
            PurgeRequest(retention_days=30),
            id=unique("purge"),
            task_queue=tq,
        )
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
        assert request.conversation_retention_days == 0  # not given: kept forever
        await ensure_retention_schedule(temporal_client, tq, 90, 7, 60)
        action = (await handle.describe()).schedule.action
        [request] = pydantic_data_converter.payload_converter.from_payloads(
            [action.args[0]],
            [PurgeRequest],  # type: ignore[attr-defined]
        )
        assert request.conversation_retention_days == 60
    finally:
        await handle.delete()


@pytest.fixture
def settings_task_queue() -> Callable[[], str]:
    return lambda: unique("retention")


# ---- conversation expiry ----------------------------------------------------------------


async def converse(
    pool: AsyncConnectionPool, status: str = "answered", conversation: str | None = None
) -> TurnResult:
    """One turn of a conversation saved as the turn would save it: settled (its two
    messages and its decision record), or left waiting for a clarification."""
    async with pool.connection() as conn:
        alloc = await turns.allocate_turn(conn, conversation, "u-expiry", "What was BHP's revenue?")
        result = TurnResult(
            turn_id=alloc.turn_id,
            conversation_id=alloc.conversation_id,
            status=status,
            question="What was BHP's revenue?",
            answer="BHP's revenue was US$55,658 million." if status == "answered" else None,
            clarifying_question="Which year?" if status != "answered" else None,
        )
        await turns.save_turn(conn, result, final=status == "answered")
    return result


async def idle_for(pool: AsyncConnectionPool, conversation: str, days: int) -> None:
    async with pool.connection() as conn:
        await conn.execute(
            "UPDATE conversations SET last_active_at = now() - make_interval(days => %s)"
            " WHERE conversation_id = %s",
            (days, conversation),
        )


async def held(pool: AsyncConnectionPool, conversation: str) -> dict[str, int]:
    """How many rows of each kind the conversation still holds."""
    counts = {}
    async with pool.connection() as conn:
        for table in ("turns", "messages", "conversation_summaries", "shadow_runs"):
            row = await (
                await conn.execute(
                    f"SELECT count(*) FROM {table} WHERE conversation_id = %s", (conversation,)
                )
            ).fetchone()
            counts[table] = row[0] if row else 0
    return counts


async def test_an_idle_conversation_expires_whole_and_its_decision_record_stays(
    own_pool: AsyncConnectionPool, worker: WorkerFactory, temporal_client: Client
) -> None:
    old, recent = await converse(own_pool), await converse(own_pool)
    waiting = await converse(own_pool, "needs_clarification")
    async with own_pool.connection() as conn:
        await feedback.add(conn, old.turn_id, "default", "u-expiry", "wrong_figure", "")
        [message_id] = [
            r[0]
            for r in await (
                await conn.execute(
                    "SELECT message_id FROM messages WHERE turn_id = %s AND role = 'user'",
                    (old.turn_id,),
                )
            ).fetchall()
        ]
        await memory.store_summary(conn, old.conversation_id, [message_id], "BHP FY2024 revenue")
        for kept in (old, recent):  # each answered turn sampled for a shadow run
            assert await shadow.record(conn, kept.turn_id, kept, "offline", "candidate")
    for conversation in (old.conversation_id, waiting.conversation_id):
        await idle_for(own_pool, conversation, 91)
    await idle_for(own_pool, recent.conversation_id, 89)
    async with worker(
        workflows=[PurgeDecisionRecords], activities=SweepActivities(own_pool).activities()
    ) as tq:
        purged = await temporal_client.execute_workflow(
            PurgeDecisionRecords.run,
            PurgeRequest(conversation_retention_days=90),
            id=unique("purge"),
            task_queue=tq,
        )
        again = await temporal_client.execute_workflow(
            PurgeDecisionRecords.run,
            PurgeRequest(conversation_retention_days=90),
            id=unique("purge"),
            task_queue=tq,
        )
    assert (purged.conversations_expired, again.conversations_expired) == (1, 0)
    assert await held(own_pool, old.conversation_id) == {
        "turns": 0,
        "messages": 0,
        "conversation_summaries": 0,
        "shadow_runs": 0,
    }
    assert await held(own_pool, recent.conversation_id) == {
        "turns": 1,
        "messages": 2,
        "conversation_summaries": 0,
        "shadow_runs": 1,
    }
    assert (await held(own_pool, waiting.conversation_id))["turns"] == 1  # waiting: kept
    async with own_pool.connection() as conn:
        assert await feedback.for_turn(conn, old.turn_id, "default") == []
        assert not await turns.conversation_exists(conn, old.conversation_id)
        record = await audit.show(conn, old.turn_id)  # the decision record's own retention
        report = await audit.verify(conn)
    assert record is not None and record["record"]["status"] == "answered"
    assert report.ok and report.rows == 2, report.line()


async def test_an_expired_conversation_id_sent_again_never_reuses_a_turn_id(
    own_pool: AsyncConnectionPool, worker: WorkerFactory, temporal_client: Client
) -> None:
    first = await converse(own_pool)
    await idle_for(own_pool, first.conversation_id, 91)
    async with worker(
        workflows=[PurgeDecisionRecords], activities=SweepActivities(own_pool).activities()
    ) as tq:
        purged = await temporal_client.execute_workflow(
            PurgeDecisionRecords.run,
            PurgeRequest(conversation_retention_days=90),
            id=unique("purge"),
            task_queue=tq,
        )
    assert purged.conversations_expired == 1
    later = await converse(own_pool, conversation=first.conversation_id)
    assert later.turn_id != first.turn_id  # seq 2: the kept record's turn id stays its own
    async with own_pool.connection() as conn:
        assert await turns.conversation_exists(conn, first.conversation_id)  # going on
        assert (await audit.show(conn, later.turn_id)) is not None
        assert (await audit.verify(conn)).rows == 2


async def test_without_a_conversation_retention_nothing_expires(
    own_pool: AsyncConnectionPool, worker: WorkerFactory, temporal_client: Client
) -> None:
    old = await converse(own_pool)
    await idle_for(own_pool, old.conversation_id, 3650)
    async with worker(
        workflows=[PurgeDecisionRecords], activities=SweepActivities(own_pool).activities()
    ) as tq:
        purged = await temporal_client.execute_workflow(
            PurgeDecisionRecords.run, PurgeRequest(), id=unique("purge"), task_queue=tq
        )
    assert purged.conversations_expired == 0
    assert (await held(own_pool, old.conversation_id))["messages"] == 2


def test_expiry_spares_every_open_status() -> None:
    """The expiry's SQL names the open statuses itself (for the partial index)."""
    assert all(f"'{status}'" in expiry._NONE_OPEN for status in OPEN)
