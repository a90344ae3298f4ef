"""A worker SIGKILLed mid-activity: its attempt is retried after the heartbeat timeout.

The real `python worker.py` runs as a subprocess against the session's dev server and
PostgreSQL, starts embedding a long report, heartbeats, and is killed. A second worker
(the real registry, in-process) then gets the retried attempt: the history shows the
first attempt ended by a HEARTBEAT timeout, not by the much longer start-to-close one.
"""

import asyncio
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.api.enums.v1 import EventType, PendingActivityState, TimeoutType
from temporalio.client import Client, WorkflowHandle

import worker as registry
from activities.contracts import IngestRequest, IngestResult
from api.bounded import require_worker
from api.errors import ApiError
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from settings import PROJECT_ROOT, Settings
from tests.conftest import WorkerFactory, unique
from workflows.ingest import IngestDocuments

# Long enough to embed that the kill lands mid-attempt even on a fast machine.
PARAGRAPHS = 300


def long_report(path: Path) -> Path:
    words = [f"ore{n}" for n in range(PARAGRAPHS * 7)]
    paragraphs = [
        " ".join(words[(p * 7 + w) % len(words)] for w in range(110)) for p in range(PARAGRAPHS)
    ]
    path.write_text(
        "---\ncompany: BHP\ncompany_name: BHP Group Limited\nfiscal_year: 2024\n---\n\n"
        "# Operations review\n\n" + "\n\n".join(paragraphs) + "\n",
        encoding="utf-8",
    )
    return path


@pytest.fixture
def worker_process(
    settings: Settings, postgres_url: str, tmp_path: Path, temporal_client: Client
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """`python worker.py` on a task queue of its own; yields (process, task queue)."""
    task_queue = unique("crash")
    env = {k: v for k, v in os.environ.items() if not k.startswith("TURNSTILE_")}
    env.update(
        TURNSTILE_HOME=str(tmp_path / "home"),
        TURNSTILE_TEMPORAL_ADDRESS=settings.effective_temporal_address,
        TURNSTILE_TEMPORAL_NAMESPACE=settings.temporal_namespace,
        TURNSTILE_DATABASE_URL=postgres_url,
        TURNSTILE_TASK_QUEUE=task_queue,
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
    )
    with open(tmp_path / "worker.log", "wb") as log:
        process = subprocess.Popen(
            [sys.executable, "worker.py"],
            cwd=PROJECT_ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        yield process, task_queue
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=30)


async def wait_for_poller(
    client: Client, settings: Settings, process: subprocess.Popen[bytes]
) -> None:
    for _ in range(600):
        assert process.poll() is None, "the worker process exited during start-up"
        try:
            return await require_worker(client, settings)
        except ApiError:
            await asyncio.sleep(0.2)
    raise AssertionError("the worker process never polled")


async def wait_for_a_heartbeat(handle: WorkflowHandle[IngestDocuments, IngestResult]) -> None:
    """Wait until the ingest attempt is running and the server has seen it heartbeat."""
    for _ in range(6000):
        description = await handle.describe()
        for pending in description.raw_description.pending_activities:
            if (
                pending.activity_type.name == "qdrant_ingest_file"
                and pending.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
                and pending.HasField("last_heartbeat_time")
            ):
                return
        assert description.status is not None and description.status.name == "RUNNING"
        await asyncio.sleep(0.05)
    raise AssertionError("the ingest activity never heartbeated")


async def test_a_killed_workers_ingest_attempt_is_retried_after_the_heartbeat_timeout(
    worker_process: tuple[subprocess.Popen[bytes], str],
    settings: Settings,
    temporal_client: Client,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    tmp_path: Path,
) -> None:
    process, task_queue = worker_process
    report = long_report(tmp_path / "long.md")
    queue_settings = settings.model_copy(update={"task_queue": task_queue})
    await wait_for_poller(temporal_client, queue_settings, process)
    handle = await temporal_client.start_workflow(
        IngestDocuments.run,
        IngestRequest(paths=[str(report)]),
        id=unique("crash-ingest"),
        task_queue=task_queue,
    )
    await wait_for_a_heartbeat(handle)

    process.kill()
    process.wait(timeout=30)
    index = make_report_index()
    async with worker(
        index,
        task_queue=task_queue,
        activities=registry.activities(index, pool, OfflineEngine()),
    ):
        result = await handle.result()

    assert [f.status for f in result.files] == ["ingested"]
    assert result.files[0].chunks == index.chunk_count() > 0
    started = [
        e.activity_task_started_event_attributes
        async for e in handle.fetch_history_events()
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
    ]
    ingest = started[0]
    assert ingest.attempt == 2
    assert ingest.last_failure.timeout_failure_info.timeout_type == (
        TimeoutType.TIMEOUT_TYPE_HEARTBEAT
    )
