"""Every failure answers one JSON shape, bounded in time, and the OpenAPI document says so.

Some tests register a route on their own app instance to produce a failure no real
route has on purpose (an unexpected exception, a Temporal RPC error); the rest of the
app, its lifespan and the servers behind it are the real ones.
"""

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI, Request
from pydantic import BaseModel
from temporalio.api.workflowservice.v1 import GetSystemInfoRequest
from temporalio.client import Client

from api.app import create_app
from api.errors import ErrorResponse
from api.text import CleanText
from settings import Settings
from stack import postgres
from stack.processes import free_port
from tests.conftest import in_process

ERROR_KEYS = {"detail", "error_type"}


@contextlib.contextmanager
def under_uvicorn(app: FastAPI, **options: Any) -> Iterator[str]:
    """Serve `app` with a real uvicorn (lifespan and all) in a thread; yield its base URL.

    `options` are uvicorn's own (`http="api.protocol:JsonErrorsH11Protocol"`)."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", **options)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        for _ in range(600):
            if server.started or not thread.is_alive():
                break
            time.sleep(0.05)
        assert server.started, "uvicorn did not start"
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)


def assert_error(response: httpx.Response, status: int, error_type: str) -> dict[str, str]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/json"
    body: dict[str, str] = response.json()
    assert ERROR_KEYS <= set(body) <= ERROR_KEYS | {"turn_id"}
    assert body["error_type"] == error_type and isinstance(body["detail"], str)
    return body


def test_unexpected_exception_is_json_500_that_closes_and_the_next_request_succeeds(
    app_settings: Settings, caplog: pytest.LogCaptureFixture
) -> None:
    app = create_app(app_settings)

    @app.get("/test-only/boom")
    async def boom() -> None:
        raise RuntimeError("a bug")

    with under_uvicorn(app) as base_url, httpx.Client(base_url=base_url) as client:
        failed = client.get("/test-only/boom")
        after = client.get("/v1/turns/turn-nobody-1")
        again = client.get("/v1/turns/turn-nobody-2")

    assert assert_error(failed, 500, "InternalError") == {
        "detail": "internal error",
        "error_type": "InternalError",
    }
    assert failed.headers["connection"] == "close"
    assert "unexpected error answering GET /test-only/boom" in caplog.text
    assert "a bug" in caplog.text
    # The keep-alive client's next request is answered, on a fresh connection ...
    assert_error(after, 404, "NotFound")
    # ... and an ordinary error does not close the connection.
    assert "connection" not in after.headers or after.headers["connection"] != "close"
    assert_error(again, 404, "NotFound")


async def test_method_not_allowed_is_json_and_names_the_allowed_methods(
    api_client: httpx.AsyncClient,
) -> None:
    response = await api_client.post("/healthz")

    assert_error(response, 405, "MethodNotAllowed")
    assert response.headers["allow"] == "GET"


async def test_nul_in_a_path_id_is_a_readable_422_not_a_database_error(
    api_client: httpx.AsyncClient,
) -> None:
    response = await api_client.get("/v1/turns/turn%00x/events")

    body = assert_error(response, 422, "InvalidInput")
    assert body["detail"] == "turn_id: must not contain a NUL character (\\u0000)"


def _operations_with_path_ids() -> list[tuple[str, str, str]]:
    schema = create_app(Settings()).openapi()
    found = []
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path":
                    found.append((method.upper(), path, parameter["name"]))
    return found


@pytest.mark.parametrize(("method", "path", "name"), _operations_with_path_ids())
async def test_every_path_id_refuses_nul_with_a_422_naming_it(
    api_client: httpx.AsyncClient, method: str, path: str, name: str
) -> None:
    url = path.replace(f"{{{name}}}", "id%00x")
    response = await api_client.request(method, url, json={} if method == "POST" else None)

    body = assert_error(response, 422, "InvalidInput")
    assert f"{name}: must not contain a NUL character" in body["detail"]


async def test_lone_surrogate_in_a_json_body_is_a_readable_422(app_settings: Settings) -> None:
    app = create_app(app_settings)

    class Echo(BaseModel):
        text: CleanText

    @app.post("/test-only/echo")
    async def echo(body: Echo) -> Echo:
        return body

    async with in_process(app) as client:
        refused = await client.post(
            "/test-only/echo",
            content=b'{"text": "a\\ud800"}',
            headers={"content-type": "application/json"},
        )
        turn = await client.post(
            "/v1/turns",
            content=b'{"question": "BHP revenue \\udc00"}',
            headers={"content-type": "application/json"},
        )
        accepted = await client.post("/test-only/echo", json={"text": "Rio — 😀"})

    body = assert_error(refused, 422, "InvalidInput")
    assert body["detail"] == "text: must not contain a lone surrogate (\\ud800)"
    assert "question" in assert_error(turn, 422, "InvalidInput")["detail"]
    assert accepted.status_code == 200 and accepted.json() == {"text": "Rio — 😀"}


async def test_temporal_deadline_is_503_unavailable_but_other_rpc_errors_are_500(
    app_settings: Settings,
) -> None:
    app = create_app(app_settings)

    @app.get("/test-only/temporal-deadline")
    async def deadline(request: Request) -> None:
        client: Client = request.app.state.temporal
        await client.workflow_service.get_system_info(
            GetSystemInfoRequest(), timeout=timedelta(microseconds=1)
        )

    @app.get("/test-only/temporal-not-found")
    async def not_found(request: Request) -> None:
        client: Client = request.app.state.temporal
        await client.get_workflow_handle("no-such-workflow-anywhere").describe()

    async with in_process(app) as client:
        unavailable = await client.get("/test-only/temporal-deadline")
        refused = await client.get("/test-only/temporal-not-found")

    assert_error(unavailable, 503, "Unavailable")
    assert assert_error(refused, 500, "InternalError")["detail"] == "internal error"


async def test_postgres_outage_is_a_503_within_five_seconds_and_the_api_recovers(
    app_settings: Settings, tmp_path: Path
) -> None:
    """The acceptance line: during a PostgreSQL stop, /v1/turns answers 503 JSON within 5 s.

    This test starts and stops a PostgreSQL of its own; the session's is never touched.
    """
    pgdata, log, port = tmp_path / "pgdata", tmp_path / "postgres.log", free_port()
    await asyncio.to_thread(postgres.start, pgdata, port, log)
    settings = app_settings.model_copy(
        update={
            "database_url": f"postgresql://postgres@127.0.0.1:{port}/postgres",
            "request_timeout_seconds": 1.0,  # no worker: the turn is a quick 202
        }
    )
    try:
        async with in_process(create_app(settings)) as client:
            started = await client.post(
                "/v1/turns", json={"question": "What was BHP's revenue in FY2024?"}
            )
            assert started.status_code == 202, started.text
            turn_url = started.headers["Location"]
            assert (await client.get(turn_url)).status_code == 200

            await asyncio.to_thread(postgres.stop, pgdata)

            t0 = time.monotonic()
            posted = await client.post(
                "/v1/turns", json={"question": "What was Rio Tinto's revenue in FY2024?"}
            )
            post_seconds = time.monotonic() - t0
            t0 = time.monotonic()
            read = await client.get(turn_url)
            get_seconds = time.monotonic() - t0

            assert_error(posted, 503, "Unavailable")
            assert_error(read, 503, "Unavailable")
            assert post_seconds < 5.0 and get_seconds < 5.0, (post_seconds, get_seconds)

            await asyncio.to_thread(postgres.start, pgdata, port, log)
            for _ in range(40):  # the pool reconnects with backoff
                recovered = await client.get(turn_url)
                if recovered.status_code == 200:
                    break
                await asyncio.sleep(0.5)
            assert recovered.status_code == 200, recovered.text
            assert recovered.json()["turn_id"] == started.json()["turn_id"]
    finally:
        await asyncio.to_thread(postgres.stop, pgdata)


def test_openapi_documents_every_error_as_one_error_response(settings: Settings) -> None:
    schema = create_app(settings).openapi()

    text = json.dumps(schema)
    assert "HTTPValidationError" not in text
    assert "ValidationError" not in schema["components"]["schemas"]
    error_ref = {"$ref": "#/components/schemas/ErrorResponse"}
    examples: dict[str, set[str]] = {}
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            responses = operation["responses"]
            where = f"{method.upper()} {path}"
            assert "500" in responses, where
            if operation.get("parameters") or operation.get("requestBody"):
                assert "422" in responses, where
            for status, response in responses.items():
                if int(status) < 400 or (path, status) == ("/healthz", "503"):
                    continue
                assert list(response["content"]) == ["application/json"], (where, status)
                body = response["content"]["application/json"]
                assert body["schema"] == error_ref, (where, status)
                assert set(body) <= {"schema", "example"}, (where, status)
                if "example" in body:  # each status shows an error of its own kind
                    ErrorResponse.model_validate(body["example"])
                    examples.setdefault(status, set()).add(body["example"]["error_type"])
    assert examples["404"] == {"NotFound"} and examples["500"] == {"InternalError"}
    assert examples["422"] == {"InvalidInput"} and examples["503"] == {"Unavailable"}
    error_type = schema["components"]["schemas"]["ErrorResponse"]["properties"]["error_type"]
    assert {"InvalidInput", "NotFound", "Unavailable", "InternalError"} <= set(error_type["enum"])


def test_operation_ids_read_as_names_and_are_unique(settings: Settings) -> None:
    """`start_turn`, not `start_turn_v1_turns_post`: generated clients get readable names."""
    schema = create_app(settings).openapi()
    ids = [
        op["operationId"]
        for path in schema["paths"].values()
        for op in path.values()
        if isinstance(op, dict) and "operationId" in op
    ]

    assert len(ids) == len(set(ids))
    assert {
        "start_turn",
        "get_turn",
        "reply_to_clarification",
        "cancel_turn",
        "turn_events",
        "search",
        "healthz",
    } <= set(ids)
    assert not [i for i in ids if "_v1_" in i or i.endswith(("_get", "_post", "_delete"))]
