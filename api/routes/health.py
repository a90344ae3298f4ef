"""GET /healthz: each component's state; 503 when any is down."""

import asyncio
from datetime import timedelta

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from temporalio.api.enums.v1 import TaskQueueType
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeTaskQueueRequest

from api.deps import PoolDep, SettingsDep, TemporalDep

router = APIRouter(tags=["health"])
HEARTBEAT_FRESH = timedelta(seconds=15)


@router.get("/healthz")
async def healthz(client: TemporalDep, pool: PoolDep, settings: SettingsDep) -> JSONResponse:
    components: dict[str, dict[str, object]] = {}
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
        components["temporal"] = {"ok": True}
        pollers = len(response.pollers)
        components["worker"] = {"ok": pollers > 0, "pollers": pollers}
    except Exception as exc:  # health must report a down server, whatever the error
        components["temporal"] = {"ok": False, "error": exc.__class__.__name__}
        components["worker"] = {"ok": False, "error": "temporal unreachable"}
    corpus_version = None
    try:
        async with pool.connection(timeout=3) as conn:
            row = await (
                await conn.execute(
                    "SELECT qdrant_ok, corpus_version, chunks, now() - seen_at FROM"
                    " worker_heartbeats ORDER BY seen_at DESC LIMIT 1"
                )
            ).fetchone()
        components["postgres"] = {"ok": True}
        if row is None or row[3] > HEARTBEAT_FRESH:
            components["qdrant"] = {"ok": False, "error": "no recent worker report"}
        else:
            components["qdrant"] = {"ok": bool(row[0]), "chunks": row[2]}
            corpus_version = str(row[1])
    except Exception as exc:  # as above: report, do not raise
        components["postgres"] = {"ok": False, "error": exc.__class__.__name__}
        components["qdrant"] = {"ok": False, "error": "postgres unreachable"}
    components["corpus"] = {
        "ok": corpus_version not in (None, "empty", "unknown"),
        "version": corpus_version,
    }
    ok = all(bool(c["ok"]) for c in components.values())
    body = {"status": "ok" if ok else "degraded", "components": components,
            "corpus_version": corpus_version}  # fmt: skip
    return JSONResponse(body, status_code=200 if ok else 503)
