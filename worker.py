"""The worker: the one registry of every workflow and activity, and the Qdrant owner.

Run as `python worker.py`. It applies database migrations, registers the search
attributes turns upsert, opens Qdrant (local mode: only this process may), loads the
embedder, and reports liveness to PostgreSQL every few seconds so the API's /healthz can
show Qdrant and the corpus version.
"""

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
from prometheus_client import start_http_server
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.client import Client
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.service import RPCError, RPCStatusCode
from temporalio.worker import Worker

import logsetup
import payloads
import tracing
from activities.contracts import SuiteRunRequest
from activities.steps import declared_name
from backends.answer_cache import AnswerCache
from backends.coverage import PinCoverage, reader_for
from backends.embeddings import (
    CachedEmbedder,
    Embedder,
    LocalEmbedder,
    OpenAIEmbedder,
    VectorCache,
)
from backends.engines.protocol import Engine
from backends.live_cases import LiveCaseActivities
from backends.memory import CacheActivities, MemoryActivities
from backends.model_steps import GroundingActivities, ModelActivities
from backends.probes import ProbeActivities
from backends.report_activities import ReportActivities
from backends.reports import IndexClient, ReportIndex, open_qdrant
from backends.rerank import CohereReranker
from backends.sessions import SessionActivities
from backends.shadow import ShadowActivities
from backends.steplog import StepLog
from backends.suite_runs import suite_metrics
from backends.turn_sweeper import SweepActivities
from db.migrate import migrate
from db.pool import make_pool
from domain.usage import Price
from evals.commands import stack as eval_stack
from evals.real import Stack
from evals.scheduled import SuiteActivities
from settings import PROJECT_ROOT, EngineName, Settings, load_settings
from workflows import attributes
from workflows.chat_turn import ChatTurn
from workflows.evaluation import EvaluateJudge, EvaluateRetrieval, EvaluateRouting
from workflows.forget import ForgetUser
from workflows.ingest import IngestDocuments
from workflows.live_cases import DraftCase, ListCaseCandidates, ReadShadowRuns
from workflows.passages import LoadPassages
from workflows.policy import WITHOUT_INDEX
from workflows.probes import (
    ProbeRequest,
    RunGoldenProbes,
    ensure_probe_schedule,
    remove_probe_schedule,
)
from workflows.retention import PurgeDecisionRecords, ensure_retention_schedule
from workflows.search import SearchReports
from workflows.suites import RunSuites, ensure_suite_schedule, remove_suite_schedule
from workflows.sweep import SweepTurns, ensure_sweep_schedule

HEARTBEAT_SECONDS = 3.0
log = logging.getLogger("turnstile.worker")

WORKFLOW_TASK_SLOTS = 8
"""Workflow tasks a worker runs at once (the SDK's default is 100). A turn's local steps
run inside one workflow task, so this is how many turns compute at a time; the rest wait
in Temporal's queue, where waiting costs nothing. On this 2-core machine 50 clients with
the default ran all 50 turns at once: 1.6 turns/s at 0.38 worker CPU s a turn, against
4.8 turns/s and 0.20 s at 10 clients; with 8 slots, 3.5 turns/s at 0.24 s (bench/load.py,
the same hour; docs/benchmarks.md)."""
PROBE_DIR = PROJECT_ROOT / "evals" / "probes"
# What a cluster answers when it does not let this client manage search attributes (a
# managed cluster registers them out of band, through its own console or API).
_FORBIDDEN = (
    RPCStatusCode.PERMISSION_DENIED,
    RPCStatusCode.UNAUTHENTICATED,
    RPCStatusCode.UNIMPLEMENTED,
)


def workflows() -> Sequence[type]:
    return [
        ChatTurn,
        IngestDocuments,
        SearchReports,
        SweepTurns,
        PurgeDecisionRecords,
        ForgetUser,
        EvaluateRouting,
        EvaluateRetrieval,
        EvaluateJudge,
        RunGoldenProbes,
        LoadPassages,
        ListCaseCandidates,
        DraftCase,
        ReadShadowRuns,
        RunSuites,
    ]


def activities(
    index: ReportIndex,
    pool: AsyncConnectionPool,
    engine: Engine,
    prices: Mapping[str, Price] | None = None,
    cache: AnswerCache | None = None,
    context_budget: int = 16_000,
    probe_dir: Path = PROBE_DIR,
    ocr: bool = False,
    evidence_budget: int | None = None,
    suite_stack: Callable[[], AbstractAsyncContextManager[Stack]] | None = None,
) -> Sequence[Callable[..., Any]]:
    """Every activity the worker runs; `workflows.policy.POLICY` must list each one.

    `cache` defaults to the answer cache beside `index` with the default thresholds."""
    boundaries = (
        ReportActivities(index, pool, ocr),
        SessionActivities(pool, prices),
        SweepActivities(pool),
        ModelActivities(engine, index, context_budget, evidence_budget),
        GroundingActivities(index),
        MemoryActivities(pool, engine),
        CacheActivities(cache or AnswerCache(index)),
        ProbeActivities(pool, index, probe_dir),
        LiveCaseActivities(pool, index),
        ShadowActivities(pool),
        SuiteActivities(suite_stack or _no_suite_stack),
        suite_metrics(),
    )
    return [fn for boundary in boundaries for fn in boundary.activities()]


def _no_suite_stack() -> AbstractAsyncContextManager[Stack]:
    raise RuntimeError("this worker was started without the stack a suite run goes through")


def suite_stack_of(settings: Settings) -> Callable[[], AbstractAsyncContextManager[Stack]]:
    """The running stack as the scheduled suite run sees it: this stack's API (with
    TURNSTILE_API_KEY when keys are configured) and Temporal."""
    return lambda: eval_stack(settings, Settings.auth_headers)


def worker_pool(settings: Settings) -> AsyncConnectionPool:
    """A worker's PostgreSQL pool. Activities wait longer for a connection than the API
    does: a turn's save is retried until it succeeds, and a short outage should cost a
    wait, not an attempt."""
    return make_pool(
        settings.effective_database_url,
        timeout=10.0,
        connect_timeout=settings.database_connect_timeout_seconds,
        query_timeout=settings.worker_database_query_timeout_seconds,
    )


def turn_activities(
    pool: AsyncConnectionPool, engine: Engine, prices: Mapping[str, Price] | None = None
) -> Sequence[Callable[..., Any]]:
    """The activities a worker without the report index runs: a turn's steps in
    `WITHOUT_INDEX` (its other steps go to the index holder's queue)."""
    boundaries = (SessionActivities(pool, prices), MemoryActivities(pool, engine))
    return [
        fn
        for boundary in boundaries
        for fn in boundary.activities()
        if declared_name(fn) in WITHOUT_INDEX
    ]


async def run_turn_worker(settings: Settings) -> None:
    """`--role turn`: ChatTurn on `turn_task_queue`, with no report index (the index
    holder's queue, `task_queue`, runs the steps that need it). Any number may run."""
    await asyncio.to_thread(migrate, settings.effective_database_url)
    client = await _connect(settings, serve_metrics(settings))
    pool = worker_pool(settings)
    await pool.open()
    prices = {m: Price(input=i, output=o) for m, (i, o) in settings.prices.items()}
    worker = Worker(
        client,
        task_queue=settings.turn_task_queue,
        workflows=[ChatTurn],
        activities=turn_activities(pool, make_engine(settings), prices),
        interceptors=[StepLog()],
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=2),
        max_concurrent_workflow_tasks=WORKFLOW_TASK_SLOTS,
    )
    stop = _stop_on_signals()
    async with worker:
        log.info("worker polling %s", settings.turn_task_queue)
        await stop.wait()
    await pool.close()


def make_embedder(settings: Settings) -> Embedder:
    """The local model (default, offline) or an OpenAI-compatible embeddings endpoint,
    its document vectors kept in `embedding_cache_dir` (a text is embedded once)."""
    inner: Embedder
    if settings.embedding_provider == "local":
        inner = LocalEmbedder()
    else:
        key = settings.embedding_api_key or settings.openai_api_key
        inner = OpenAIEmbedder(
            base_url=settings.embedding_base_url or settings.openai_base_url or "",
            api_key=key.get_secret_value() if key else "",
            model=settings.openai_embedding_model,
            dimensions=settings.openai_embedding_dimensions,
            timeout_seconds=settings.model_timeout_seconds,
        )
    directory = settings.embedding_cache_dir or settings.home / "embedding-cache"
    return CachedEmbedder(inner, VectorCache(directory, inner.name, inner.dimension))


def make_cache(settings: Settings, index: ReportIndex) -> AnswerCache:
    """The semantic answer cache beside the report index, with the configured thresholds."""
    return AnswerCache(
        index,
        hit_at=settings.cache_hit_similarity,
        hint_at=settings.cache_hint_similarity,
        ttl_seconds=settings.cache_ttl_seconds,
    )


def make_reranker(settings: Settings) -> CohereReranker | None:
    """Cohere rerank when a key is set; otherwise none (Qdrant's fused order)."""
    if settings.cohere_api_key is None:
        return None
    return CohereReranker(
        api_key=settings.cohere_api_key.get_secret_value(),
        model=settings.rerank_model,
        base_url=settings.cohere_base_url,
    )


def make_engine(settings: Settings, embedder: Embedder | None = None) -> Engine:
    """Build the engine `settings.engine` names (Settings already refused any other); the
    offline engine reads measures by meaning too with the worker's `embedder`."""
    match settings.engine:
        case EngineName.OFFLINE:
            from backends.engines.offline.engine import OfflineEngine

            return OfflineEngine(embedder)
        case EngineName.OPENAI:
            from backends.engines.openai_engine import ModelConfig, OpenAIEngine

            if settings.judge_is_generator:
                log.warning(
                    "the judge uses the same model as the synthesiser (%s): a model grading "
                    "its own answers is not an independent check; set TURNSTILE_MODEL_JUDGE",
                    settings.model_synthesize,
                )
            key = settings.openai_api_key
            return OpenAIEngine(
                ModelConfig(
                    base_url=settings.openai_base_url or "",
                    api_key=key.get_secret_value() if key else "",
                    route_model=settings.model_route,
                    grade_model=settings.model_grade,
                    synthesize_model=settings.model_synthesize,
                    judge_model=settings.model_judge,
                    summarize_model=settings.model_summarize,
                    structured=settings.openai_structured_output,
                    timeout_seconds=settings.model_timeout_seconds,
                    temperature=settings.model_temperature,
                )
            )


async def register_search_attributes(client: Client, namespace: str) -> list[str]:
    """Register the search attributes turns upsert; return the names this call added.

    Idempotent on any cluster: lists what exists and adds only what is missing; another
    worker adding them first (ALREADY_EXISTS) is success. A cluster that forbids it gets
    a warning naming what to register out of band and the worker still starts, because
    without them every turn's workflow task fails at its first upsert and retries until
    they exist, and the warning is where an operator learns why. Other RPC errors raise.
    """
    # long: one call per attribute with its already-registered case.
    wanted = {
        key.name: IndexedValueType.ValueType(key.indexed_value_type.value) for key in attributes.ALL
    }
    try:
        listed = await client.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace=namespace)
        )
        existing = {**listed.system_attributes, **listed.custom_attributes}
        for name in sorted(set(wanted) & set(existing)):
            if existing[name] != wanted[name]:
                log.warning("search attribute %s has another type; turns need Keyword", name)
        missing = {name: kind for name, kind in wanted.items() if name not in existing}
        if not missing:
            return []
        await client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(namespace=namespace, search_attributes=missing)
        )
    except RPCError as exc:
        if exc.status == RPCStatusCode.ALREADY_EXISTS:
            return []
        if exc.status in _FORBIDDEN:
            log.warning(
                "this cluster does not let the worker register search attributes (%s);"
                " register %s as Keyword on namespace %s out of band, or turns cannot"
                " record their outcome",
                exc.status.name,
                ", ".join(sorted(wanted)),
                namespace,
            )
            return []
        raise
    log.info("registered search attributes %s", ", ".join(sorted(missing)))
    return sorted(missing)


async def _heartbeat(
    pool: AsyncConnectionPool, index: ReportIndex, worker_id: str, task_queue: str
) -> None:
    """Report this worker's task queue, Qdrant's health and the corpus version to
    PostgreSQL every few seconds: /healthz counts a worker up only while its reports
    are fresh."""
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
                    "INSERT INTO worker_heartbeats (worker_id, task_queue, qdrant_ok,"
                    " corpus_version, chunks, seen_at) VALUES (%s, %s, %s, %s, %s, now())"
                    " ON CONFLICT (worker_id) DO UPDATE SET task_queue = excluded.task_queue,"
                    " qdrant_ok = excluded.qdrant_ok, corpus_version = excluded.corpus_version,"
                    " chunks = excluded.chunks, seen_at = now()",
                    (worker_id, task_queue, ok, version, chunks),
                )
        except (psycopg.Error, PoolTimeout):
            log.exception("heartbeat write failed")
        await asyncio.sleep(HEARTBEAT_SECONDS)


def serve_metrics(settings: Settings) -> Runtime | None:
    """Serve this worker's metrics (turn outcomes, degradations, tokens: backends/metrics)
    on `worker_metrics_port`, and return a Temporal runtime exporting the SDK's own (step
    latency, schedule-to-start, task failures) on `temporal_metrics_port`.

    A port already taken is a warning, not a failed start: metrics are for operators,
    and a worker that cannot serve them still answers turns.
    """
    if settings.worker_metrics_port is not None:
        try:
            start_http_server(settings.worker_metrics_port, addr=settings.metrics_host)
        except OSError as exc:
            log.warning(
                "worker metrics not served on port %s: %s", settings.worker_metrics_port, exc
            )
    if settings.temporal_metrics_port is None:
        return None
    address = f"{settings.metrics_host}:{settings.temporal_metrics_port}"
    try:
        return Runtime(telemetry=TelemetryConfig(metrics=PrometheusConfig(bind_address=address)))
    except Exception as exc:  # the SDK reports a taken port as a generic runtime error
        log.warning("Temporal SDK metrics not served on %s: %s", address, exc)
        return None


async def run_worker(settings: Settings) -> None:
    """`--role all`: every workflow and step, holding the report index; the turns' queue
    as well when several workers run, and the shadow's queue when shadows are sampled."""
    await asyncio.to_thread(migrate, settings.effective_database_url)
    client = await _connect(settings, serve_metrics(settings))
    await register_search_attributes(client, settings.temporal_namespace)
    qdrant, index = await _open_index(settings)
    pool = worker_pool(settings)
    await pool.open()
    # The coverage the activities resolve names against: read now, then kept current (a
    # turn pins its own, read by its first step).
    coverage = reader_for(index, pool)
    coverage.owns_process = True
    await coverage.read(0)
    refresh = asyncio.create_task(coverage.keep_fresh())
    worker, turns = _index_workers(client, settings, index, pool)
    await _ensure_schedules(client, settings)
    stop = _stop_on_signals()
    worker_id = f"{socket.gethostname()}:{os.getpid()}"
    beat = asyncio.create_task(_heartbeat(pool, index, worker_id, settings.task_queue))
    shadow = shadow_worker(client, settings, index, pool) if settings.shadow_sample > 0 else None
    async with worker, turns or contextlib.nullcontext(), shadow or contextlib.nullcontext():
        log.info("worker polling %s", settings.task_queue)
        await stop.wait()
    beat.cancel()
    refresh.cancel()
    await pool.close()
    qdrant.close()


async def _connect(settings: Settings, runtime: Runtime | None) -> Client:
    """The worker's Temporal client, on `runtime` when it serves the SDK's metrics."""
    return await Client.connect(
        settings.effective_temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=payloads.data_converter(settings),
        runtime=runtime or Runtime.default(),
        interceptors=tracing.interceptors(settings, "worker"),
    )


async def _open_index(settings: Settings) -> tuple[IndexClient, ReportIndex]:
    """Qdrant and the report index over it, its collection created if missing."""
    qdrant = open_qdrant(
        settings.qdrant_url,
        settings.qdrant_path,
        settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None,
        settings.qdrant_embedded,
    )
    index = ReportIndex(
        qdrant, await asyncio.to_thread(make_embedder, settings), make_reranker(settings)
    )
    await asyncio.to_thread(index.ensure_collection)
    return qdrant, index


def _index_workers(
    client: Client, settings: Settings, index: ReportIndex, pool: AsyncConnectionPool
) -> tuple[Worker, Worker | None]:
    """The index holder's worker on `task_queue` (every workflow and step) and, when
    several workers run, its worker on the turns' queue (ChatTurn, the same steps)."""
    served = activities(
        index,
        pool,
        make_engine(settings, index.embedder),
        {m: Price(input=i, output=o) for m, (i, o) in settings.prices.items()},
        make_cache(settings, index),
        settings.context_budget,
        settings.probe_dir,
        settings.ocr,
        settings.evidence_budget,
        suite_stack_of(settings),
    )
    worker = Worker(
        client,
        task_queue=settings.task_queue,
        workflows=workflows(),
        activities=served,
        interceptors=[StepLog(), PinCoverage()],
        # A worker killed without a goodbye leaves its turns' next workflow tasks on its
        # own (sticky) queue until this runs out; the default 10 s would dominate recovery.
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=2),
        max_concurrent_workflow_tasks=WORKFLOW_TASK_SLOTS,
    )
    if settings.workers <= 1:
        return worker, None
    turns = Worker(
        client,
        task_queue=settings.turn_task_queue,
        workflows=[ChatTurn],
        activities=served,
        interceptors=[StepLog(), PinCoverage()],
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=2),
        max_concurrent_workflow_tasks=WORKFLOW_TASK_SLOTS,
    )
    return worker, turns


async def _ensure_schedules(client: Client, settings: Settings) -> None:
    """The sweep and retention schedules, and the probe and suite schedules as configured
    (a schedule switched off is removed, so none is left from an earlier start)."""
    await ensure_sweep_schedule(
        client, settings.task_queue, timedelta(seconds=settings.sweep_interval_seconds)
    )
    await ensure_retention_schedule(
        client,
        settings.task_queue,
        settings.decision_retention_days,
        settings.pii_retention_days,
        settings.conversation_retention_days,
    )
    if settings.probe_interval_minutes:
        every = timedelta(minutes=settings.probe_interval_minutes)
        await ensure_probe_schedule(client, settings.task_queue, every, _probe_request(settings))
    else:  # 0: no probes, and no schedule left from an earlier start either
        await remove_probe_schedule(client, settings.task_queue)
    if settings.suite_interval_hours:
        await ensure_suite_schedule(
            client,
            settings.task_queue,
            timedelta(hours=settings.suite_interval_hours),
            SuiteRunRequest(sample_every=settings.suite_sample_every),
        )
    else:  # off by default: no schedule, and none left from an earlier start
        await remove_suite_schedule(client, settings.task_queue)


def _probe_request(settings: Settings) -> ProbeRequest:
    """What each scheduled golden-probe run is judged with."""
    return ProbeRequest(
        healthy_rate=settings.probe_healthy_rate,
        false_alarm_rate=settings.probe_false_alarm_rate,
        engine_in_process=settings.engine == EngineName.OFFLINE,
        turn_budget_seconds=settings.turn_budget_seconds,
        judge_policy=settings.judge_policy,
        classifier_policy=settings.classifier_policy,
    )


def _stop_on_signals() -> asyncio.Event:
    """An event SIGTERM or SIGINT sets: the cue to stop polling and shut down."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    return stop


def shadow_worker(
    client: Client, settings: Settings, index: ReportIndex, pool: AsyncConnectionPool
) -> Worker:
    """The shadow configuration's worker (TURNSTILE_SHADOW_SAMPLE): ChatTurn and every
    step with the shadow's engine, on its own queue, in the process that holds the index
    (its steps read it). A shadow run writes only its record (`TurnInput.shadow_of`)."""
    shadow = settings.shadow_settings()
    log.info(
        "shadow runs of %.0f%% of questions on %s: %s",
        100 * settings.shadow_sample,
        settings.shadow_task_queue,
        shadow.engine_label,
    )
    served = activities(
        index,
        pool,
        make_engine(shadow, index.embedder),
        {m: Price(input=i, output=o) for m, (i, o) in settings.prices.items()},
        make_cache(settings, index),
        shadow.context_budget,
        settings.probe_dir,
        settings.ocr,
    )
    return Worker(
        client,
        task_queue=settings.shadow_task_queue,
        workflows=[ChatTurn],
        activities=served,
        interceptors=[StepLog(), PinCoverage()],
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=2),
        max_concurrent_workflow_tasks=WORKFLOW_TASK_SLOTS,
    )


def keep_bytecode(settings: Settings) -> None:
    """Cache compiled modules even where the environment asks not to write bytecode.

    The Temporal sandbox loads the workflow module afresh for every workflow it starts,
    so without a bytecode cache every turn compiles `workflows/chat_turn.py` from source
    (a few ms of CPU per turn, measured with py-spy under load). When
    PYTHONDONTWRITEBYTECODE is set the cache goes to `bytecode_dir` (the user's cache
    unless set), never into the source tree, which is what that setting protects.
    """
    if sys.dont_write_bytecode:
        sys.pycache_prefix = str(settings.bytecode_dir or user_cache() / "pycache")
        sys.dont_write_bytecode = False


def user_cache() -> Path:
    """The user's cache directory for Turnstile (XDG's rule: `$XDG_CACHE_HOME`, else ~/.cache)."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "turnstile"


def main() -> None:
    parser = argparse.ArgumentParser(description="a Turnstile worker")
    parser.add_argument(
        "--role",
        choices=("all", "turn"),
        default="all",
        help="all: hold the report index and run every workflow and step (default);"
        " turn: run turns only, with no index (`turnstile up --workers N`)",
    )
    role = parser.parse_args().role
    settings = load_settings()  # a bad setting exits here, one line, before any I/O
    keep_bytecode(settings)
    logsetup.configure("worker")
    asyncio.run(run_worker(settings) if role == "all" else run_turn_worker(settings))


if __name__ == "__main__":
    main()
