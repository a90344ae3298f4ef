"""Every turn settles: cancellation, unexpected failures, bad replies and closed workflows.

Real dev server, real activities, PostgreSQL and Qdrant; a scripted engine only where a
failure has to come from the model side.
"""

import asyncio
from collections.abc import Callable
from datetime import timedelta

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.contracts import RouteDecision, SaveTurnRequest, SweepRequest
from backends.sessions import SessionActivities
from backends.turn_sweeper import SweepActivities
from db import turns as turn_store
from domain.models import Slots
from domain.turns import TurnResult
from settings import Settings
from tests.conftest import Turns, TurnWorker, WorkerFactory, outcome, unique
from tests.workflows.scripted_engine import ScriptedEngine
from workflows.chat_turn import ChatTurn
from workflows.contracts import CancelRequest, ClarificationReply
from workflows.rules.gate import INTERNAL_ERROR
from workflows.sweep import SweepTurns, ensure_sweep_schedule
from workflows.turn.outcome import CANCELLED_TEXT


async def stored(pool: AsyncConnectionPool, turn_id: str) -> TurnResult:
    async with pool.connection() as conn:
        result = await turn_store.get_turn(conn, turn_id)
    assert result is not None
    return result


async def roles(pool: AsyncConnectionPool, conversation_id: str) -> list[str]:
    async with pool.connection() as conn:
        return [m.role for m in await turn_store.list_messages(conn, conversation_id)]


async def test_cancel_signal_settles_a_waiting_turn_as_cancelled(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns], pool: AsyncConnectionPool
) -> None:
    async with turn_worker() as tq:
        t = turns_on(tq)
        handle = await t.start("Tell me about this company")
        waiting = await outcome(handle, 0)
        assert waiting.status == "needs_clarification"
        await handle.signal(ChatTurn.cancel_turn, CancelRequest(round=waiting.clarification_round))
        result = await handle.result()
    assert result.status == "cancelled"
    assert result.answer == CANCELLED_TEXT
    assert (await stored(pool, handle.id)).status == "cancelled"
    assert await roles(pool, result.conversation_id) == ["user", "assistant"]


async def test_cancel_for_a_round_not_waiting_is_ignored(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    async with turn_worker() as tq:
        t = turns_on(tq)
        handle = await t.start("Tell me about this company")
        waiting = await outcome(handle, 0)
        await handle.signal(
            ChatTurn.cancel_turn, CancelRequest(round=waiting.clarification_round + 3)
        )
        still = await handle.query(ChatTurn.current)
        assert still is not None and still.status == "needs_clarification"
        result = await t.reply(handle, waiting.clarification_round, "BHP")
    assert result.status == "answered"


async def test_operator_cancel_from_temporal_settles_the_turn_as_cancelled(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns], pool: AsyncConnectionPool
) -> None:
    async with turn_worker() as tq:
        handle = await turns_on(tq).start("Tell me about this company")
        await outcome(handle, 0)
        await handle.cancel()
        result = await handle.result()
    assert result.status == "cancelled"
    assert result.failure_reason == "cancelled by an operator"
    assert (await stored(pool, handle.id)).status == "cancelled"


async def test_unexpected_exception_in_the_turn_settles_it_as_failed_with_the_fallback(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns], pool: AsyncConnectionPool
) -> None:
    # A classifier naming a "company" that is no ticker makes the fan-out build a search
    # request its contract refuses (ValidationError in workflow code): a bug class, not a
    # planned outcome.
    engine = ScriptedEngine(
        route=[
            RouteDecision(
                route="needs_retrieval",
                reason="scripted",
                slots=Slots(companies=["no such company!"]),
            )
        ]
    )
    conversation = unique("c")
    async with turn_worker(engine) as tq:
        t = turns_on(tq)
        handle = await t.start("What was BHP's revenue in FY2024?", conversation)
        result = await handle.result()
        after = await t.ask("What was BHP's revenue in FY2024?", conversation)
    assert result.status == "failed"
    assert result.fallback_reason == INTERNAL_ERROR
    assert result.failure_reason and "ValidationError" in result.failure_reason
    assert result.answer and "Something went wrong" in result.answer
    assert (await handle.describe()).status == WorkflowExecutionStatus.COMPLETED
    assert (await stored(pool, handle.id)).status == "failed"
    assert after.status == "answered", "the conversation is usable after a failed turn"


async def test_reply_with_a_nul_sent_past_the_api_is_ignored_and_the_turn_still_waits(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns], pool: AsyncConnectionPool
) -> None:
    async with turn_worker() as tq:
        t = turns_on(tq)
        handle = await t.start("Tell me about this company")
        waiting = await outcome(handle, 0)
        await handle.signal(
            ChatTurn.clarification_reply,
            ClarificationReply(round=waiting.clarification_round, reply="BHP\x00 FY2024"),
        )
        progress = await handle.query(ChatTurn.progress)
        assert any("NUL" in line for line in progress), progress
        assert (await stored(pool, handle.id)).status == "needs_clarification"
        result = await t.reply(handle, waiting.clarification_round, "BHP FY2024")
    assert result.status == "answered"


async def test_save_of_text_postgres_cannot_store_is_a_non_retryable_error(
    pool: AsyncConnectionPool,
) -> None:
    conversation = unique("c")
    async with pool.connection() as conn:
        alloc = await turn_store.allocate_turn(conn, conversation, None, "BHP revenue")
    bad = TurnResult(
        turn_id=alloc.turn_id,
        conversation_id=conversation,
        status="answered",
        question="BHP revenue",
        answer="BHP\x00 revenue",
    )
    with pytest.raises(ApplicationError) as caught:
        await ActivityEnvironment().run(
            SessionActivities(pool).save_turn, SaveTurnRequest(result=bad, final=True)
        )
    assert caught.value.non_retryable and caught.value.type == "InvalidInput"
    assert (await stored(pool, alloc.turn_id)).status == "running"


async def test_sweep_records_a_terminated_turn_as_failed_and_frees_its_conversation(
    worker: WorkerFactory,
    turn_worker: TurnWorker,
    turns_on: Callable[[str], Turns],
    pool: AsyncConnectionPool,
    temporal_client: Client,
) -> None:
    conversation = unique("c")
    async with turn_worker() as tq:
        t = turns_on(tq)
        handle = await t.start("Tell me about this company", conversation)
        await outcome(handle, 0)
        await handle.terminate(reason="operator test")
        async with worker(
            workflows=[SweepTurns], activities=[SweepActivities(pool).sweep_turns]
        ) as sweep_queue:
            first = await temporal_client.execute_workflow(
                SweepTurns.run,
                SweepRequest(quiet_for_seconds=0),
                id=unique("sweep"),
                task_queue=sweep_queue,
            )
            second = await temporal_client.execute_workflow(
                SweepTurns.run,
                SweepRequest(quiet_for_seconds=0),
                id=unique("sweep"),
                task_queue=sweep_queue,
            )
        after = await t.ask("What was BHP's revenue in FY2024?", conversation)
    assert handle.id in first.settled
    assert handle.id not in second.settled
    result = await stored(pool, handle.id)
    assert result.status == "failed"
    assert result.failure_reason == "the turn was terminated by an operator"
    assert await roles(pool, conversation) == ["user", "assistant", "user", "assistant"]
    assert after.status == "answered"


async def test_turn_that_no_worker_runs_is_closed_by_its_execution_timeout_and_reconciled(
    turns_on: Callable[[str], Turns], pool: AsyncConnectionPool, temporal_client: Client
) -> None:
    t = turns_on(unique("nobody-polls"))
    conversation = unique("c")
    async with pool.connection() as conn:
        alloc = await turn_store.allocate_turn(conn, conversation, None, "BHP revenue")
    from workflows.contracts import TurnInput

    handle = await temporal_client.start_workflow(
        ChatTurn.run,
        TurnInput(
            turn_id=alloc.turn_id,
            conversation_id=conversation,
            seq=alloc.seq,
            question="BHP revenue",
        ),
        id=alloc.turn_id,
        task_queue=t.task_queue,
        execution_timeout=timedelta(seconds=1),
    )
    for _ in range(100):
        if (await handle.describe()).status == WorkflowExecutionStatus.TIMED_OUT:
            break
        await asyncio.sleep(0.1)
    from db import reconcile

    async with pool.connection() as conn:
        result = await reconcile.reconcile_turn(temporal_client, conn, handle.id)
    assert result is not None and result.status == "failed"
    assert result.failure_reason == "the turn ran past its time limit"


async def test_sweep_schedule_is_created_once_and_updated_on_restart(
    temporal_client: Client,
) -> None:
    queue = unique("sweep-schedule")
    await ensure_sweep_schedule(temporal_client, queue, timedelta(minutes=1))
    await ensure_sweep_schedule(temporal_client, queue, timedelta(minutes=2))
    handle = temporal_client.get_schedule_handle(f"turnstile-sweep-turns-{queue}")
    description = await handle.describe()
    assert description.schedule.spec.intervals[0].every == timedelta(minutes=2)
    await handle.delete()


async def listed(client: Client, query: str, at_least: int = 1) -> list[str]:
    """The workflow types `query` lists, once it lists `at_least` (visibility lags)."""
    types: list[str] = []
    for _ in range(100):
        types = [w.workflow_type async for w in client.list_workflows(query)]
        if len(types) >= at_least:
            break
        await asyncio.sleep(0.2)
    return types


async def test_the_sweep_stays_out_of_the_operators_list_and_says_what_it_is(
    worker: WorkerFactory, pool: AsyncConnectionPool, temporal_client: Client
) -> None:
    """The sweep runs every ten minutes by default (at most 144 runs a day, not 1,440),
    each run names itself, and the operators' query `TemporalScheduledById IS NULL`
    (docs/operations.md) lists what people started, never a scheduled run."""
    default = Settings.model_fields["sweep_interval_seconds"].default
    assert default >= 600 and 86_400 / default <= 144
    async with worker(
        workflows=[SweepTurns], activities=[SweepActivities(pool).sweep_turns]
    ) as queue:
        await ensure_sweep_schedule(temporal_client, queue, timedelta(seconds=default))
        schedule = temporal_client.get_schedule_handle(f"turnstile-sweep-turns-{queue}")
        try:
            await schedule.trigger()  # one scheduled run now, not in ten minutes
            # and one started by hand, as an operator might
            await temporal_client.execute_workflow(
                SweepTurns.run,
                SweepRequest(),
                id=unique("sweep-by-hand"),
                task_queue=queue,
                static_summary="sweep started by hand",
            )
            everything = await listed(temporal_client, f'TaskQueue = "{queue}"', at_least=2)
            operators = await listed(
                temporal_client, f'TaskQueue = "{queue}" AND TemporalScheduledById IS NULL'
            )
            scheduled = [
                w
                async for w in temporal_client.list_workflows(
                    f'TaskQueue = "{queue}" AND TemporalScheduledById IS NOT NULL'
                )
            ]
            run = await temporal_client.get_workflow_handle(scheduled[0].id).describe()
        finally:
            await schedule.delete()
    assert sorted(everything) == ["SweepTurns", "SweepTurns"]
    assert operators == ["SweepTurns"]  # the one by hand; the scheduled run is left out
    assert await run.static_summary() == (
        "sweep: settle turns whose workflow closed without saying so"
    )
    assert "every 10 minutes by a Temporal Schedule" in (await run.static_details() or "")
