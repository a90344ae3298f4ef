"""The worker: the one registry of every workflow and activity, and the Qdrant owner.

Run as `python worker.py`. It applies database migrations, opens Qdrant (local mode:
only this process may), loads the embedder, and reports liveness to PostgreSQL every few
seconds so the API's /healthz can show Qdrant and the corpus version.
"""

import asyncio
import logging
import os
import signal
import socket
from collections.abc import Callable, Sequence
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Worker

from activities.embeddings import LocalEmbedder
from activities.engines.protocol import Engine
from activities.model_steps import GroundingActivities, ModelActivities
from activities.report_activities import ReportActivities
from activities.reports import ReportIndex, open_qdrant
from activities.sessions import SessionActivities
from db.migrate import migrate
from settings import Settings, get_settings
from workflows.chat_turn import ChatTurn
from workflows.ingest import IngestDocuments
from workflows.search import SearchReports

HEARTBEAT_SECONDS = 3.0
log = logging.getLogger("turnstile.worker")


def workflows() -> Sequence[type]:
    return [ChatTurn, IngestDocuments, SearchReports]


def activities(
    index: ReportIndex, pool: AsyncConnectionPool, engine: Engine
) -> Sequence[Callable[..., Any]]:
    """Every activity the worker runs; `workflows.policy.POLICY` must list each one."""
    reports = ReportActivities(index)
    sessions = SessionActivities(pool)
    models = ModelActivities(engine, index)
    grounding = GroundingActivities(index)
    return [
        reports.search_chunks,
        reports.load_chunks,
        reports.ingest_file,
        reports.corpus_version,
        sessions.load_session,
        sessions.save_turn,
        models.route,
        models.rewrite,
        models.grade_documents,
        models.synthesize,
        models.grade_answer,
        grounding.check_numbers,
    ]


def make_engine(settings: Settings) -> Engine:
    if settings.engine == "offline":
        from activities.engines.offline import OfflineEngine

        return OfflineEngine()
    raise ValueError(f"unknown engine {settings.engine!r}; use 'offline'")


async def _heartbeat(pool: AsyncConnectionPool, index: ReportIndex, worker_id: str) -> None:
    """Report Qdrant's health and the corpus version to PostgreSQL every few seconds."""
    while True:
        try:
            version = await asyncio.to_thread(index.corpus_version)
            chunks = await asyncio.to_thread(index.chunk_count)
            ok = True
        except Exception:  # a heartbeat must report a broken Qdrant, not die of it
            log.exception("qdrant check failed")
            version, chunks, ok = "unknown", 0, False
        try:
            async with pool.connection(timeout=5) as conn:
                await conn.execute(
                    "INSERT INTO worker_heartbeats (worker_id, qdrant_ok, corpus_version, chunks,"
                    " seen_at) VALUES (%s, %s, %s, %s, now()) ON CONFLICT (worker_id) DO UPDATE"
                    " SET qdrant_ok = excluded.qdrant_ok, corpus_version = excluded.corpus_version,"
                    " chunks = excluded.chunks, seen_at = now()",
                    (worker_id, ok, version, chunks),
                )
        except (psycopg.Error, PoolTimeout):
            log.exception("heartbeat write failed")
        await asyncio.sleep(HEARTBEAT_SECONDS)


async def run_worker(settings: Settings) -> None:
    await asyncio.to_thread(migrate, settings.effective_database_url)
    client = await Client.connect(
        settings.effective_temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
    )
    qdrant = open_qdrant(
        settings.qdrant_url,
        settings.qdrant_path,
        settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None,
    )
    index = ReportIndex(qdrant, await asyncio.to_thread(LocalEmbedder))
    await asyncio.to_thread(index.ensure_collection)
    pool = AsyncConnectionPool(
        settings.effective_database_url, min_size=1, max_size=8, open=False,
        kwargs={"autocommit": True},
    )  # fmt: skip
    await pool.open()
    worker = Worker(
        client,
        task_queue=settings.task_queue,
        workflows=workflows(),
        activities=activities(index, pool, make_engine(settings)),
    )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    worker_id = f"{socket.gethostname()}:{os.getpid()}"
    beat = asyncio.create_task(_heartbeat(pool, index, worker_id))
    async with worker:
        log.info("worker polling %s", settings.task_queue)
        await stop.wait()
    beat.cancel()
    await pool.close()
    qdrant.close()


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    asyncio.run(run_worker(get_settings()))


if __name__ == "__main__":
    main()
