"""GET /healthz: each component's state; 503 when any is down."""

import asyncio
from datetime import timedelta
from typing import Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

from api.deps import PoolDep, SettingsDep, TemporalDep
from settings import EngineName, Settings

router = APIRouter(tags=["health"])
HEARTBEAT_FRESH = timedelta(seconds=15)


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


@router.get("/healthz", response_model=HealthReport, responses={503: _REPORT})
async def healthz(client: TemporalDep, pool: PoolDep, settings: SettingsDep) -> JSONResponse:
    """Report every component; 200 when all are up, 503 (same body) when any is down.

    Never raises: a dependency's failure is what this route reports, so each probe is
    bounded (three seconds) and its error recorded by class name.
    """
    components: dict[str, ComponentState] = {}
    try:
        response = await asyncio.wait_for(
            client.workflow_service.describe_task_queue(
                DescribeTaskQueueRequest(
                    namespace=settings.temporal_namespace,
                    task_queue=TaskQueue(name=settings.task_queue),
                    task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
                )
            ),
            timeout=3,
        )
        components["temporal"] = ComponentState(ok=True)
        pollers = len(response.pollers)
        components["worker"] = ComponentState(ok=pollers > 0, pollers=pollers)
    except Exception as exc:  # health must report a down server, whatever the error
        components["temporal"] = ComponentState(ok=False, error=exc.__class__.__name__)
        components["worker"] = ComponentState(ok=False, error="temporal unreachable")
    corpus_version = None
    try:
        async with pool.connection(timeout=3) as conn:
            row = await (
                await conn.execute(
                    "SELECT qdrant_ok, corpus_version, chunks, now() - seen_at FROM"
                    " worker_heartbeats ORDER BY seen_at DESC LIMIT 1"
                )
            ).fetchone()
        components["postgres"] = ComponentState(ok=True)
        if row is None or row[3] > HEARTBEAT_FRESH:
            components["qdrant"] = ComponentState(ok=False, error="no recent worker report")
        else:
            components["qdrant"] = ComponentState(ok=bool(row[0]), chunks=row[2])
            corpus_version = str(row[1])
    except Exception as exc:  # as above: report, do not raise
        components["postgres"] = ComponentState(ok=False, error=exc.__class__.__name__)
        components["qdrant"] = ComponentState(ok=False, error="postgres unreachable")
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
