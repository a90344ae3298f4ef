"""The HTTP API in-process against the real dev server, PostgreSQL and a real worker."""

import asyncio
import contextlib
from collections.abc import AsyncIterator

import httpx
import psycopg
import pytest
from psycopg_pool import AsyncConnectionPool

from backends.reports import ReportIndex
from domain.companies.roster import aliases_for
from settings import Settings
from tests.conftest import WorkerFactory, client_for, unique
from worker import _heartbeat


@contextlib.asynccontextmanager
async def heartbeating(
    settings: Settings, index: ReportIndex, pool: AsyncConnectionPool
) -> AsyncIterator[str]:
    """Run the worker's real heartbeat loop until its first report is in PostgreSQL."""
    worker_id = unique("test-worker")
    task = asyncio.create_task(_heartbeat(pool, index, worker_id, settings.task_queue))
    try:
        for _ in range(100):
            async with await psycopg.AsyncConnection.connect(
                settings.effective_database_url
            ) as conn:
                cursor = await conn.execute(
                    "SELECT 1 FROM worker_heartbeats WHERE worker_id = %s", (worker_id,)
                )
                if await cursor.fetchone():
                    break
            await asyncio.sleep(0.05)
        else:
            raise AssertionError("the heartbeat never reached PostgreSQL")
        yield worker_id
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def test_healthz_is_green_while_a_worker_polls_and_reports(
    api_client: httpx.AsyncClient,
    app_settings: Settings,
    worker: WorkerFactory,
    report_index: ReportIndex,
    pool: AsyncConnectionPool,
) -> None:
    async with (
        worker(report_index, task_queue=app_settings.task_queue),
        heartbeating(app_settings, report_index, pool),
    ):
        response = await api_client.get("/healthz")
        for _ in range(50):  # the worker's first poll may lag its start by a moment
            if response.status_code == 200:
                break
            await asyncio.sleep(0.1)
            response = await api_client.get("/healthz")

    body = response.json()
    assert response.status_code == 200, body
    assert body["status"] == "ok"
    assert set(body["components"]) == {"temporal", "worker", "postgres", "qdrant", "corpus"}
    assert all(component["ok"] for component in body["components"].values())
    assert body["components"]["worker"]["pollers"] >= 1
    assert body["components"]["qdrant"]["chunks"] == report_index.chunk_count()
    assert body["corpus_version"] == report_index.corpus_version()
    assert body["engine"] == {"name": "offline", "models": {}}


async def test_healthz_is_503_naming_the_worker_when_none_polls(
    api_client: httpx.AsyncClient,
) -> None:
    response = await api_client.get("/healthz")

    body = response.json()
    assert response.status_code == 503
    assert body["status"] == "degraded"
    assert body["components"]["worker"] == {"ok": False, "pollers": 0}
    assert body["components"]["temporal"]["ok"] is True
    assert body["components"]["postgres"]["ok"] is True


@pytest.mark.parametrize(
    ("params", "detail"),
    [
        ({"q": ""}, "q: String should have at least 1 character"),
        ({"q": "   "}, "query must not be empty"),
        ({"q": "revenue", "company": "ACME"}, "unknown company 'ACME'"),
        ({"q": "revenue", "fy": 2021}, "fiscal year 2021 is outside"),
        ({"q": "revenue", "fy": "last year"}, "fy: "),
        ({"q": "revenue", "limit": 0}, "limit: "),
        ({}, "q: "),
    ],
    ids=["empty", "blank", "unknown-company", "fy-2021", "fy-not-int", "limit-0", "no-q"],
)
async def test_search_rejects_bad_input_with_one_readable_422(
    api_client: httpx.AsyncClient, params: dict[str, str | int], detail: str
) -> None:
    response = await api_client.get("/v1/search", params=params)

    body = response.json()
    assert response.status_code == 422
    assert set(body) == {"detail", "error_type"}
    assert body["error_type"] == "InvalidInput"
    assert isinstance(body["detail"], str)
    assert detail in body["detail"]


async def test_search_returns_hits_with_integer_fiscal_years_and_full_text(
    api_client: httpx.AsyncClient, app_settings: Settings, worker: WorkerFactory
) -> None:
    async with worker(task_queue=app_settings.task_queue):
        response = await api_client.get(
            "/v1/search", params={"q": "BHP revenue", "company": "BHP", "limit": 5}
        )

    hits = response.json()
    assert response.status_code == 200, hits
    assert len(hits) == 5
    for rank, hit in enumerate(hits, start=1):
        assert set(hit) == {
            "rank",
            "score",
            "chunk_id",
            "company",
            "fiscal_year",
            "page",
            "section",
            "document",
            "text",
        }
        assert hit["rank"] == rank
        assert hit["company"] == "BHP"
        assert isinstance(hit["fiscal_year"], int)
        assert hit["text"].startswith("[BHP Group (BHP)")


async def test_unknown_route_is_a_json_404(api_client: httpx.AsyncClient) -> None:
    response = await api_client.get("/v1/nothing-here")

    assert response.status_code == 404
    assert response.json() == {"detail": "Not Found", "error_type": "NotFound"}


async def test_metrics_count_requests_by_route_template_never_by_id(
    api_client: httpx.AsyncClient,
) -> None:
    await api_client.get("/v1/turns/turn-nope-1")
    await api_client.get("/no/such/path/abc123")
    response = await api_client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    text = response.text
    assert 'route="/v1/turns/{turn_id}"' in text
    assert 'route="unmatched"' in text
    assert "turn-nope-1" not in text and "abc123" not in text
    assert "turnstile_http_request_seconds_bucket" in text
    assert "turnstile_turns_started_total" in text


async def test_a_company_registered_after_the_last_reading_is_searchable_at_once(
    app_settings: Settings, fresh_database_url: str
) -> None:
    """The API re-reads its coverage every few seconds; a name that reading lacks is
    checked against a fresh one before it is refused (the sample registered by a worker
    just after the API started was refused as unknown for up to five seconds)."""
    settings = app_settings.model_copy(update={"database_url": fresh_database_url})
    async with client_for(settings) as client:
        before = await client.get("/v1/search", params={"q": "gold", "company": "QCG"})
        async with await psycopg.AsyncConnection.connect(fresh_database_url) as conn:
            await conn.execute(
                "INSERT INTO companies (corpus, ticker, name, aliases, year_end, currency)"
                " VALUES ('elsewhere', 'QCG', 'Quoll Creek Gold', %s, '06-30', 'AUD')",
                (list(aliases_for("QCG", "Quoll Creek Gold", ["Quoll Creek"])),),
            )
            await conn.execute(
                "INSERT INTO documents (corpus, document_id, company, fiscal_year,"
                " source_path, file_sha256, content_hash, chunks) VALUES ('elsewhere',"
                " 'qcg-fy2022', 'QCG', 2022, 'qcg.pdf', 'x', 'y', 1)"
            )
            await conn.commit()
        await asyncio.sleep(0.6)  # past the fresh-reading bound, far inside the period
        after = await client.get("/v1/search", params={"q": "gold", "company": "Quoll Creek"})
        year = await client.get("/v1/search", params={"q": "gold", "fy": 2022})
        still = await client.get("/v1/search", params={"q": "gold", "company": "Wombat Tin"})

    assert before.status_code == 422 and "unknown company 'QCG'" in before.json()["detail"]
    # Known now: past validation to the worker check (none polls this queue).
    assert after.status_code == 503, after.json()
    assert after.json()["error_type"] == "Unavailable"
    assert year.status_code == 503, year.json()
    # Quiet: a name no reading holds is still refused, naming what is held.
    assert still.status_code == 422
    assert "unknown company 'Wombat Tin'; use one of" in still.json()["detail"]
    assert "QCG" in still.json()["detail"]
