"""GET /healthz: each component's state; 503 when any is down."""

import asyncio
from collections.abc import Coroutine
from datetime import timedelta
from typing import Any, Literal, TypeVar

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from psycopg_pool import AsyncConnectionPool
from pydantic import BaseModel, ConfigDict
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest
from temporalio.client import Client

from api.deps import PoolDep, SettingsDep, TemporalDep
from settings import EngineName, Settings

router = APIRouter(tags=["health"])
HEARTBEAT_FRESH = timedelta(seconds=10)
T = TypeVar("T")


class ComponentState(BaseModel):
    """One component: `ok`, and whichever detail applies to it (absent otherwise)."""

    model_config = ConfigDict(use_attribute_docstrings=True)

    ok: bool
    error: str | None = None
    """Why it is down: an exception class name or a short reason."""
    pollers: int | None = None
    """Workers polling the task queue (worker only)."""
    chunks: int | None = None
    """Chunks in the report index, as the worker last reported (qdrant only)."""
    version: str | None = None
    """The corpus version the worker last reported (corpus only)."""


class Components(BaseModel):
    temporal: ComponentState
    worker: ComponentState
    postgres: ComponentState
    qdrant: ComponentState
    corpus: ComponentState


class EngineInfo(BaseModel):
    """The engine that runs the model steps, and (for a model engine) each step's model."""

    name: Literal["offline", "openai"]
    models: dict[str, str] = {}
    """Step → model name; empty for the offline engine."""


class HealthReport(BaseModel):
    status: Literal["ok", "degraded"]
    components: Components
    corpus_version: str | None
    engine: EngineInfo
    auth: Literal["development", "api_keys"] = "api_keys"
    """`development`: no keys configured; requests without a key are tenant `default`."""


def engine_info(settings: Settings) -> EngineInfo:
    """What the settings say runs the model steps (never a key or a base URL's password)."""
    if settings.engine == EngineName.OFFLINE:
        return EngineInfo(name="offline")
    return EngineInfo(
        name="openai",
        models={
            "route": settings.model_route,
            "grade_documents": settings.model_grade,
            "synthesize": settings.model_synthesize,
            "grade_answer": settings.model_judge,
            "summarize": settings.model_summarize,
        },
    )


_REPORT = {"model": HealthReport, "description": "Some component is down; see `components`."}


PROBE_SECONDS = 3.0
"""Each probe's bound; they run side by side, so /healthz answers within about this long
whatever is down or stalled."""


async def _within(work: Coroutine[Any, Any, T], seconds: float) -> T:
    """`work`'s result, or TimeoutError after `seconds`, without waiting for its
    cancellation to finish (a stalled server can hold a cancelled call for seconds)."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        raise TimeoutError(f"no answer within {seconds:g} s")
    return task.result()


async def _temporal(client: Client, settings: Settings) -> tuple[ComponentState, int]:
    response = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=settings.temporal_namespace,
            task_queue=TaskQueue(name=settings.task_queue),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        ),
        timeout=timedelta(seconds=PROBE_SECONDS),
    )
    return ComponentState(ok=True), len(response.pollers)


async def _postgres(pool: AsyncConnectionPool, settings: Settings) -> tuple[Any, ...] | None:
    async with pool.connection(timeout=PROBE_SECONDS) as conn:
        cursor = await conn.execute(
            "SELECT qdrant_ok, corpus_version, chunks, now() - seen_at FROM worker_heartbeats"
            " WHERE task_queue = %s ORDER BY seen_at DESC LIMIT 1",
            (settings.task_queue,),
        )
        return await cursor.fetchone()


@router.get("/healthz", response_model=HealthReport, responses={503: _REPORT})
async def healthz(client: TemporalDep, pool: PoolDep, settings: SettingsDep) -> JSONResponse:
    """Report every component; 200 when all are up, 503 (same body) when any is down.

    Never raises, and answers within `PROBE_SECONDS` (and a moment): a dependency's
    failure or stall is what this route reports, by the error's class name. The worker
    is up while it polls the task queue AND its own heartbeat (every 3 s, in PostgreSQL)
    is fresh: Temporal keeps listing a killed worker's pollers for minutes.
    """
    # long: one probe per component, each with its own timeout and message.
    components: dict[str, ComponentState] = {}
    probes: tuple[
        tuple[ComponentState, int] | BaseException, tuple[Any, ...] | BaseException | None
    ] = await asyncio.gather(
        _within(_temporal(client, settings), PROBE_SECONDS),
        _within(_postgres(pool, settings), PROBE_SECONDS),
        return_exceptions=True,
    )
    temporal, postgres = probes
    if isinstance(postgres, BaseException):
        components["postgres"] = ComponentState(ok=False, error=postgres.__class__.__name__)
        components["qdrant"] = ComponentState(ok=False, error="postgres unreachable")
        beat = None
    else:
        components["postgres"] = ComponentState(ok=True)
        fresh = postgres is not None and postgres[3] <= HEARTBEAT_FRESH
        beat = postgres if fresh else None
        if beat is None:
            components["qdrant"] = ComponentState(ok=False, error="no recent worker report")
        else:
            components["qdrant"] = ComponentState(ok=bool(beat[0]), chunks=beat[2])
    if isinstance(temporal, BaseException):
        components["temporal"] = ComponentState(ok=False, error=temporal.__class__.__name__)
        components["worker"] = ComponentState(ok=False, error="temporal unreachable")
    else:
        components["temporal"], pollers = temporal
        if pollers and beat is None and not isinstance(postgres, BaseException):
            worker = ComponentState(ok=False, pollers=pollers, error="no recent heartbeat")
        else:
            worker = ComponentState(ok=pollers > 0, pollers=pollers)
        components["worker"] = worker
    corpus_version = None if beat is None else str(beat[1])
    components["corpus"] = ComponentState(
        ok=corpus_version not in (None, "empty", "unknown"), version=corpus_version
    )
    ok = all(c.ok for c in components.values())
    report = HealthReport(
        status="ok" if ok else "degraded",
        components=Components.model_validate(components),
        corpus_version=corpus_version,
        engine=engine_info(settings),
        auth="development" if settings.dev_auth else "api_keys",
    )
    body = report.model_dump(mode="json", exclude_none=True)
    body["corpus_version"] = corpus_version  # always present, null until a worker reports
    return JSONResponse(body, status_code=200 if ok else 503)
