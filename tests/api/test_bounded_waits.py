"""/v1/search and /v1/ingest answer 503 in bounded time when no worker can do the work."""

import asyncio
import contextlib
import time
from collections.abc import Callable

import httpx
from temporalio.client import Client

from api.bounded import GRACE_SECONDS, require_worker
from api.errors import ApiError
from backends.report_activities import ReportActivities
from backends.reports import ReportIndex
from settings import Settings
from tests.conftest import CORPUS_DIR, WorkerFactory, client_for
from workflows.ingest import IngestDocuments

# Scheduling noise on a busy machine, on top of the bound under test.
MARGIN_SECONDS = 5.0


async def until_polled(client: Client, settings: Settings) -> None:
    """Wait for a just-started worker's first poll to reach the server."""
    for _ in range(100):
        with contextlib.suppress(ApiError):
            return await require_worker(client, settings)
        await asyncio.sleep(0.1)
    raise AssertionError("the worker never polled")


def assert_unavailable(response: httpx.Response) -> str:
    body = response.json()
    assert response.status_code == 503, body
    assert body["error_type"] == "Unavailable"
    assert set(body) == {"detail", "error_type"}
    detail: str = body["detail"]
    return detail


async def test_search_with_no_worker_answers_503_within_its_timeout(
    api_client: httpx.AsyncClient, app_settings: Settings
) -> None:
    started = time.monotonic()
    response = await api_client.get("/v1/search", params={"q": "BHP revenue"})
    elapsed = time.monotonic() - started

    assert "no worker is running" in assert_unavailable(response)
    assert elapsed < app_settings.search_timeout_seconds + MARGIN_SECONDS


async def test_search_a_polling_worker_cannot_finish_answers_503_within_its_timeout(
    app_settings: Settings, worker: WorkerFactory, temporal_client: Client
) -> None:
    settings = app_settings.model_copy(update={"search_timeout_seconds": 2.0})
    # It polls the task queue but does not run SearchReports (an older build, say), so
    # the run can only end by its execution timeout.
    async with (
        worker(task_queue=settings.task_queue, workflows=[IngestDocuments], activities=[]),
        client_for(settings) as client,
    ):
        await until_polled(temporal_client, settings)
        started = time.monotonic()
        response = await client.get("/v1/search", params={"q": "BHP revenue"})
        elapsed = time.monotonic() - started

    assert "the search did not finish within 2s" in assert_unavailable(response)
    assert elapsed < settings.search_timeout_seconds + GRACE_SECONDS + MARGIN_SECONDS


async def test_ingest_with_no_worker_answers_503_within_its_timeout(
    app_settings: Settings,
) -> None:
    settings = app_settings.model_copy(update={"ingest_dir": CORPUS_DIR})
    async with client_for(settings) as client:
        started = time.monotonic()
        response = await client.post(
            "/v1/ingest", json={"paths": [str(CORPUS_DIR / "BHP_FY2024.md")]}
        )
        elapsed = time.monotonic() - started

    assert "no worker is running" in assert_unavailable(response)
    assert elapsed < settings.ingest_timeout_seconds + MARGIN_SECONDS


async def test_search_whose_step_fails_after_its_retries_answers_503_naming_the_step(
    app_settings: Settings,
    worker: WorkerFactory,
    temporal_client: Client,
    make_report_index: Callable[[], ReportIndex],
) -> None:
    """A worker of another build runs SearchReports with none of its search steps (it has
    only the corpus-version one): the search step fails after its retries and the run
    fails. That was a 500 "internal error"; it is a 503 naming the step and why, in the
    API's error shape."""
    from workflows.search import SearchReports

    other_build = [ReportActivities(make_report_index()).corpus_version]
    async with (
        worker(
            task_queue=app_settings.task_queue, workflows=[SearchReports], activities=other_build
        ),
        client_for(app_settings) as client,
    ):
        await until_polled(temporal_client, app_settings)
        response = await client.get("/v1/search", params={"q": "BHP revenue"})

    detail = assert_unavailable(response)
    assert detail.startswith("the search failed: its step qdrant_search_chunks failed"), detail
    assert "retry shortly" in detail
