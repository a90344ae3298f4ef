"""Chat-turn helpers: a worker with every real activity, and a way to start turns."""

import contextlib
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import pytest
from activities.engines.offline import OfflineEngine
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client, WorkflowHandle

from activities.engines.protocol import Engine
from activities.reports import ReportIndex
from db import turns
from tests.conftest import WorkerFactory, unique
from workflows.chat_turn import ChatTurn
from workflows.contracts import ClarificationReply, TurnInput, TurnResult


@pytest.fixture(scope="session")
async def pool(postgres_url: str) -> AsyncIterator[AsyncConnectionPool]:
    pool = AsyncConnectionPool(
        postgres_url, min_size=1, max_size=6, open=False, kwargs={"autocommit": True}
    )
    await pool.open()
    yield pool
    await pool.close()


TurnWorker = Callable[..., contextlib.AbstractAsyncContextManager[str]]


@pytest.fixture
def turn_worker(
    worker: WorkerFactory, report_index: ReportIndex, pool: AsyncConnectionPool
) -> TurnWorker:
    """`async with turn_worker(engine) as task_queue:` — every real activity, one engine."""

    def run(engine: Engine | None = None) -> contextlib.AbstractAsyncContextManager[str]:
        import worker as registry

        return worker(activities=registry.activities(report_index, pool, engine or OfflineEngine()))

    return run


class Turns:
    """Start turns the way the API does: allocate in PostgreSQL, then start ChatTurn."""

    def __init__(self, client: Client, pool: AsyncConnectionPool, task_queue: str) -> None:
        self.client = client
        self.pool = pool
        self.task_queue = task_queue

    async def start(
        self,
        question: str,
        conversation_id: str | None = None,
        clarification_timeout: timedelta = timedelta(hours=24),
    ) -> WorkflowHandle[ChatTurn, TurnResult]:
        conversation_id = conversation_id or unique("c")
        async with self.pool.connection() as conn:
            alloc = await turns.allocate_turn(conn, conversation_id, None, question)
        return await self.client.start_workflow(
            ChatTurn.run,
            TurnInput(
                turn_id=alloc.turn_id,
                conversation_id=conversation_id,
                seq=alloc.seq,
                question=question,
                clarification_timeout_seconds=clarification_timeout.total_seconds(),
            ),
            id=alloc.turn_id,
            task_queue=self.task_queue,
        )

    async def ask(self, question: str, conversation_id: str | None = None) -> TurnResult:
        handle = await self.start(question, conversation_id)
        return await handle.execute_update(ChatTurn.wait_for_outcome, 0)

    async def reply(
        self, handle: WorkflowHandle[ChatTurn, TurnResult], round_: int, text: str
    ) -> TurnResult:
        await handle.signal(
            ChatTurn.clarification_reply, ClarificationReply(round=round_, reply=text)
        )
        return await handle.execute_update(ChatTurn.wait_for_outcome, round_)


@pytest.fixture
def turns_on(temporal_client: Client, pool: AsyncConnectionPool) -> Callable[[str], Turns]:
    return lambda task_queue: Turns(temporal_client, pool, task_queue)
