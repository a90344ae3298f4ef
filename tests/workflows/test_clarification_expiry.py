"""An unanswered clarification expires after its configured time (time-skipping server)."""

import os
import sys
import uuid
from collections.abc import AsyncIterator

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import AddSearchAttributesRequest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from db import turns
from workflows import attributes
from workflows.chat_turn import ChatTurn
from workflows.contracts import TurnInput
from workflows.turn.outcome import EXPIRED_TEXT

TEST_SERVER = os.path.join(os.path.dirname(sys.executable), "temporal-test-server")


@pytest.fixture(scope="module")
async def skipping_env() -> AsyncIterator[WorkflowEnvironment]:
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=TEST_SERVER, data_converter=pydantic_data_converter
    )
    # The time-skipping server takes no search attributes at start: register them here,
    # or the workflow's upsert would fail its task forever.
    await env.client.operator_service.add_search_attributes(
        AddSearchAttributesRequest(
            namespace=env.client.namespace,
            search_attributes={
                key.name: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD for key in attributes.ALL
            },
        )
    )
    yield env
    await env.shutdown()


async def test_unanswered_clarification_expires_with_a_defined_outcome(
    skipping_env: WorkflowEnvironment, report_index: ReportIndex, pool: AsyncConnectionPool
) -> None:
    import worker as registry

    conversation = f"c-{uuid.uuid4().hex[:8]}"
    async with pool.connection() as conn:
        alloc = await turns.allocate_turn(conn, conversation, None, "Tell me about this company")
    queue = f"expiry-{uuid.uuid4().hex[:8]}"
    async with Worker(
        skipping_env.client,
        task_queue=queue,
        workflows=[ChatTurn],
        activities=registry.activities(report_index, pool, OfflineEngine()),
    ):
        result = await skipping_env.client.execute_workflow(
            ChatTurn.run,
            TurnInput(
                turn_id=alloc.turn_id,
                conversation_id=conversation,
                seq=alloc.seq,
                question="Tell me about this company",
            ),
            id=alloc.turn_id,
            task_queue=queue,
        )
    assert result.status == "expired"
    assert result.answer == EXPIRED_TEXT
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, alloc.turn_id)
        messages = await turns.list_messages(conn, conversation)
    assert stored is not None and stored.status == "expired"
    assert [m.role for m in messages] == ["user", "assistant"]
