"""The worker registers its search attributes itself, so a turn settles on any fresh cluster."""

from collections.abc import AsyncIterator

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

import worker as registry
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from tests.conftest import TEMPORAL_CLI, Turns, unique
from workflows import attributes

NAMESPACE = "default"


@pytest.fixture
async def bare_env() -> AsyncIterator[WorkflowEnvironment]:
    """A dev server of its own, started WITHOUT our search attributes."""
    env = await WorkflowEnvironment.start_local(
        namespace=NAMESPACE,
        data_converter=pydantic_data_converter,
        dev_server_existing_path=TEMPORAL_CLI,
    )
    try:
        yield env
    finally:
        await env.shutdown()


async def custom_attributes(env: WorkflowEnvironment) -> dict[str, int]:
    listed = await env.client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=NAMESPACE)
    )
    return dict(listed.custom_attributes)


async def test_registration_adds_the_missing_attributes_once_and_a_turn_then_answers(
    bare_env: WorkflowEnvironment, report_index: ReportIndex, pool: AsyncConnectionPool
) -> None:
    names = {key.name for key in attributes.ALL}
    assert not names & set(await custom_attributes(bare_env))

    first = await registry.register_search_attributes(bare_env.client, NAMESPACE)
    second = await registry.register_search_attributes(bare_env.client, NAMESPACE)

    assert set(first) == names
    assert second == []
    registered = await custom_attributes(bare_env)
    assert {name: registered[name] for name in names} == dict.fromkeys(
        names, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD
    )
    task_queue = unique("tq")
    async with Worker(
        bare_env.client,
        task_queue=task_queue,
        workflows=list(registry.workflows()),
        activities=list(registry.activities(report_index, pool, OfflineEngine())),
    ):
        result = await Turns(bare_env.client, pool, task_queue).ask(
            "What was BHP's revenue in FY2024?"
        )

    assert result.status == "answered", result
    assert "55,658" in (result.answer or "")
