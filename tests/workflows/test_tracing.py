"""Tracing: a turn's spans through the Temporal SDK's OpenTelemetry interceptor, collected
in memory, with the turn's ids on them; a replay adds no span; off by default."""

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client
from temporalio.contrib.opentelemetry import TracingInterceptor
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer, Worker

import tracing
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from backends.steplog import StepLog
from settings import Settings
from tests.conftest import Turns, unique
from workflows.chat_turn import ChatTurn


@pytest.fixture
def spans() -> Iterator[tuple[TracerProvider, InMemorySpanExporter]]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield provider, exporter
    provider.shutdown()


def names(finished: tuple[ReadableSpan, ...]) -> list[str]:
    return [s.name for s in finished]


async def test_a_turn_is_one_trace_from_the_start_through_every_step_and_replay_adds_none(
    spans: tuple[TracerProvider, InMemorySpanExporter],
    temporal_client: Client,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
) -> None:
    import worker as registry

    provider, exporter = spans
    tracer = provider.get_tracer("test")
    interceptor = TracingInterceptor(tracer)
    traced = Client(
        temporal_client.service_client,
        namespace=temporal_client.namespace,
        data_converter=pydantic_data_converter,
        interceptors=[interceptor],
    )
    queue = unique("tq")
    async with Worker(
        traced,
        task_queue=queue,
        workflows=[ChatTurn],
        activities=registry.activities(report_index, pool, OfflineEngine()),
        interceptors=[StepLog()],
    ):
        # As the API does: one request span around starting the turn and waiting for it.
        with tracer.start_as_current_span("turn request"):
            result = await Turns(traced, pool, queue).ask("What was BHP's revenue in FY2024?")
    assert result.status == "answered"
    finished = exporter.get_finished_spans()
    assert "turn request" in names(finished)
    assert "StartWorkflow:ChatTurn" in names(finished)
    assert "RunWorkflow:ChatTurn" in names(finished)
    steps = [s for s in finished if s.name.startswith("RunActivity:")]
    assert {"RunActivity:qdrant_search_chunks", "RunActivity:postgres_save_turn"} <= set(
        names(tuple(steps))
    )
    # One trace, and each step knows its turn.
    traces: dict[int, list[str]] = {}
    for s in finished:
        traces.setdefault(s.context.trace_id if s.context else 0, []).append(s.name)
    assert len(traces) == 1, traces
    for step in steps:
        assert step.attributes is not None
        assert step.attributes["turnstile.turn_id"] == result.turn_id
        assert step.attributes["turnstile.conversation_id"] == result.conversation_id

    before = len(finished)
    history = await traced.get_workflow_handle(result.turn_id).fetch_history()
    await Replayer(
        workflows=[ChatTurn], data_converter=pydantic_data_converter, interceptors=[interceptor]
    ).replay_workflow(history)
    assert len(exporter.get_finished_spans()) == before


def test_tracing_is_off_unless_an_endpoint_is_set(settings: Settings) -> None:
    assert settings.otlp_endpoint is None
    assert tracing.interceptors(settings, "test") == []
