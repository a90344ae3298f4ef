"""The HTTP API: it starts, signals and reads workflows; it never opens Qdrant."""

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware

from api import coverage, errors, guards, metrics, streams, temporal
from api.routes import (
    audit,
    codec,
    conversations,
    docs,
    events,
    feedback,
    health,
    ingest,
    page,
    search,
    shares,
    sources,
    turns,
    users,
)
from api.routes.ingest import INGEST_MAX_BODY_BYTES
from db.migrate import migrate
from db.pool import make_pool
from settings import DEV_API_KEY, DEV_PII_KEY, DEV_TENANT, Settings, load_settings

logger = logging.getLogger(__name__)


TAG_ORDER = ("turns", "feedback", "search", "users", "audit", "ingest", "health", "operations")
"""The groups of /docs in the order users need them: asking first, operations last."""


def create_app(settings: Settings | None = None) -> FastAPI:
    # Without explicit settings a bad environment exits here with one line (uvicorn's
    # --factory would print a traceback for anything but SystemExit).
    settings = settings or load_settings()
    app = FastAPI(
        title="Turnstile",
        description="Guarded, durable answers about listed companies' annual reports.",
        version="0.1.0",
        lifespan=_lifespan(settings),
        openapi_tags=[{"name": name} for name in TAG_ORDER],
        # Operation ids that read as names (`start_turn`, not `start_turn_v1_turns_post`):
        # each route's function name, unique across the API (checked by a test).
        generate_unique_id_function=lambda route: route.name,
        # FastAPI's own /docs and /redoc load their scripts from a CDN: `docs` serves
        # the same pages from files installed with the package.
        docs_url=None,
        redoc_url=None,
    )
    errors.install(app)
    metrics.install(app)
    docs.install(app)
    _include_routes(app, settings)
    _add_guards(app, settings)
    return app


def _lifespan(settings: Settings) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's start-up (migrations, the Temporal client, the pool, the coverage it
    keeps fresh) and its shutdown."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        import asyncio

        await asyncio.to_thread(migrate, settings.effective_database_url)
        _warn_of_development_defaults(settings)
        app.state.settings = settings
        app.state.temporal = await temporal.connect(settings)
        app.state.streams = streams.TurnStreams(app.state.temporal)
        # Bounded waits so a PostgreSQL outage or stall is a quick 503, not a hung request.
        pool = make_pool(
            settings.effective_database_url,
            timeout=settings.database_pool_timeout_seconds,
            connect_timeout=settings.database_connect_timeout_seconds,
            query_timeout=settings.database_query_timeout_seconds,
        )
        await pool.open()
        app.state.pool = pool
        app.state.coverage = []
        await coverage.read_coverage(app.state, pool)
        refresh = asyncio.create_task(coverage.keep_coverage(app.state, pool))
        try:
            yield
        finally:
            refresh.cancel()
            await pool.close()

    return lifespan


def _warn_of_development_defaults(settings: Settings) -> None:
    if settings.dev_auth:
        logger.warning(
            "development mode: TURNSTILE_API_KEYS is unset, so the key %r (tenant %r) is"
            " the only key and a request without one is taken as it",
            DEV_API_KEY,
            DEV_TENANT,
        )
    if settings.pii_key.get_secret_value() == DEV_PII_KEY:
        logger.warning("TURNSTILE_PII_KEY is the development default; set your own")


def _include_routes(app: FastAPI, settings: Settings) -> None:
    """Every router, in the order of the OpenAPI document; the web page's last."""
    app.include_router(health.router)
    app.include_router(search.router)
    app.include_router(ingest.router)
    app.include_router(turns.router)
    app.include_router(conversations.router)
    app.include_router(events.router)
    app.include_router(sources.router)
    app.include_router(shares.router)
    app.include_router(feedback.router)
    app.include_router(audit.router)
    app.include_router(users.router)
    app.include_router(codec.router)
    if settings.payload_key is not None:
        # The Temporal UI calls the codec endpoint from the browser.
        app.add_middleware(
            CORSMiddleware,
            allow_origins=_codec_origins(settings),
            allow_methods=["POST"],
            allow_headers=["Content-Type", "X-Namespace", "Authorization", "X-API-Key"],
            allow_credentials=True,
        )
    app.include_router(page.router)


def _add_guards(app: FastAPI, settings: Settings) -> None:
    """The guards around every route, added after the codec's CORS middleware so that
    they wrap it. Outermost last: every answer, errors included, gets the security
    headers."""
    app.add_middleware(guards.SameOriginWrites, allowed_origins=_codec_origins(settings))
    app.add_middleware(
        guards.BodyLimit,
        limit=settings.max_body_bytes,
        limits={"/codec/": settings.codec_max_body_bytes, "/v1/ingest": INGEST_MAX_BODY_BYTES},
    )
    app.add_middleware(guards.SecurityHeaders)


def _codec_origins(settings: Settings) -> list[str]:
    """The Temporal UI's origins, which POST to the codec endpoint from the browser."""
    if settings.payload_key is None:
        return []
    ui = settings.temporal_ui_port
    return [*settings.codec_cors_origins, f"http://127.0.0.1:{ui}", f"http://localhost:{ui}"]
