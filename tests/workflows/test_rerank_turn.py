"""A turn with the Cohere reranker in its searches (the fake Cohere server): a reranker
outage keeps the fused order and is recorded as a degradation of the search step."""

from collections.abc import Callable, Iterator

import pytest
from psycopg_pool import AsyncConnectionPool

from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from backends.rerank import CohereReranker
from domain.turns import TurnResult
from testkit.fake_servers import FakeCohere
from tests.conftest import Turns, WorkerFactory


@pytest.fixture(scope="module")
def cohere_fake() -> Iterator[FakeCohere]:
    with FakeCohere().running() as server:
        yield server


async def ask_with_reranker(
    fake: FakeCohere,
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    question: str,
) -> TurnResult:
    import worker as registry  # here, as conftest does: collecting never loads the worker

    reranker = CohereReranker(api_key=fake.api_key, model="rerank-fake", base_url=fake.base_url)
    index = ReportIndex(report_index.client, report_index.embedder, reranker)
    async with worker(activities=registry.activities(index, pool, OfflineEngine())) as tq:
        return await turns_on(tq).ask(question)


async def test_a_reranked_turn_answers_without_degradation(
    cohere_fake: FakeCohere,
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
) -> None:
    cohere_fake.queue.clear()
    result = await ask_with_reranker(
        cohere_fake, worker, report_index, pool, turns_on, "What was BHP's net debt in FY2024?"
    )
    assert result.status == "answered" and "US$9.12 billion" in (result.answer or "")
    assert result.degraded == [] and cohere_fake.requests


async def test_a_reranker_outage_is_a_recorded_degradation_not_a_failure(
    cohere_fake: FakeCohere,
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
) -> None:
    cohere_fake.queue.clear()
    cohere_fake.fail_next("500", "500", "500", "500")
    result = await ask_with_reranker(
        cohere_fake, worker, report_index, pool, turns_on, "What was BHP's net debt in FY2024?"
    )
    assert result.status == "answered" and "US$9.12 billion" in (result.answer or "")
    layers = [(d.layer, d.reason.split(":")[0]) for d in result.degraded]
    assert ("qdrant_search_chunks", "BHP") in layers, result.degraded
    assert any("reranker unavailable" in d.reason for d in result.degraded)
