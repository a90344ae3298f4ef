"""The API's Prometheus metrics and `GET /metrics`.

Requests are counted by method, route template ("/v1/turns/{turn_id}", never the id)
and status; an unmatched path counts as "unmatched", so a scan of random URLs cannot
grow the label set. The endpoint serves this process's default registry: the API's own
metrics and the Python process collectors.
"""

import logging
import time
from typing import Annotated

from fastapi import APIRouter, Depends, FastAPI, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Histogram, generate_latest
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.auth import operator_when_keyed
from api.errors import error_responses

router = APIRouter(tags=["operations"])

REQUESTS = Counter(
    "turnstile_http_requests",
    "API requests, by method, route template and status",
    ["method", "route", "status"],
)
LATENCY = Histogram(
    "turnstile_http_request_seconds",
    "API request latency, by method and route template",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)
TURNS_STARTED = Counter("turnstile_turns_started", "Turns started through the API")
FEEDBACK = Counter(
    "turnstile_feedback",
    "Readers' ratings of turns (POST /v1/turns/{turn_id}/feedback)",
    ["rating"],
)


def _template(app: FastAPI, scope: Scope) -> str:
    route = scope.get("route")
    if route is not None and hasattr(route, "path"):
        return str(route.path)
    for candidate in app.router.routes:
        match, _ = candidate.matches(scope)
        if match == Match.FULL:
            return str(getattr(candidate, "path", "unmatched"))
    return "unmatched"


ACCESS = logging.getLogger("turnstile.access")

# Path parameters worth an operator's search; a user id could be anything its caller
# chose, so it is left out like the query string (a search query is user text).
_LOGGED_PARAMS = ("turn_id", "conversation_id")


class _CountRequests:
    """Pure ASGI middleware (not BaseHTTPMiddleware, which wraps streaming responses
    such as the SSE route in a second task): counts each request when it ends and
    writes the access log line (route template and ids, never the query string)."""

    def __init__(self, app: ASGIApp, fastapi: FastAPI) -> None:
        self.app = app
        self.fastapi = fastapi

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        noted = False

        def note() -> None:
            nonlocal noted
            if not noted:
                noted = True
                self._note(scope, status, time.perf_counter() - started)

        async def send_and_note(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                # Noted before the last body part goes out, so a caller that has its
                # response can already find the request in the log and the counters.
                note()
            await send(message)

        try:
            await self.app(scope, receive, send_and_note)
        finally:
            note()  # a request that ended without a full response is counted too

    def _note(self, scope: Scope, status: int, seconds: float) -> None:
        route = _template(self.fastapi, scope)
        method = str(scope.get("method", "GET"))
        REQUESTS.labels(method, route, str(status)).inc()
        LATENCY.labels(method, route).observe(seconds)
        params = scope.get("path_params") or {}
        ACCESS.info(
            "%s %s %d",
            method,
            route,
            status,
            extra={
                "event": "request",
                "method": method,
                "route": route,
                "status": status,
                "ms": round(seconds * 1000, 1),
                # A refused id may be anything the caller typed: only real ones.
                **{k: str(params[k]) for k in _LOGGED_PARAMS if k in params if status < 400},
            },
        )


def install(app: FastAPI) -> None:
    """Count every request and serve `GET /metrics`."""
    app.add_middleware(_CountRequests, fastapi=app)
    app.include_router(router)


@router.get(
    "/metrics",
    response_class=Response,
    responses={
        200: {
            "content": {CONTENT_TYPE_LATEST.split(";")[0]: {"schema": {"type": "string"}}},
            "description": "Prometheus text exposition format",
        },
        **error_responses(401, 403),
    },
)
async def metrics(_: Annotated[None, Depends(operator_when_keyed)]) -> Response:
    """The API's metrics in Prometheus's text format (requests, latency, turns started).

    With API keys configured, only an operator's key may read them (their labels name
    tenants): Prometheus sends it as `authorization: {type: Bearer, credentials_file:
    ...}` (ops/prometheus/prometheus.yml). In development mode they are open.
    """
    return Response(generate_latest(REGISTRY), media_type=CONTENT_TYPE_LATEST)
