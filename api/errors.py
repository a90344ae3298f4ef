"""One error shape for every failure: JSON with `detail`, `error_type` and maybe `turn_id`.

`install(app)` wires it: our `ApiError`, FastAPI's validation errors and Starlette's
HTTP errors become `ErrorResponse` bodies; a database or Temporal outage becomes a 503
`Unavailable`; anything unexpected becomes a JSON 500 (`InternalErrorMiddleware`). The
OpenAPI document says the same: `error_responses()` for a route's own errors, and every
422 and 500 is described as `ErrorResponse` instead of FastAPI's list-shaped default.
"""

import json
import logging
from collections.abc import Callable, Mapping
from typing import Any, Literal

import psycopg
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from temporalio.service import RPCError, RPCStatusCode

logger = logging.getLogger(__name__)

ErrorType = Literal[
    "InvalidInput",
    "Unauthorized",
    "NotFound",
    "TurnInProgress",
    "NotWaiting",
    "Conflict",
    "Forbidden",
    "MethodNotAllowed",
    "RateLimited",
    "PayloadTooLarge",
    "Unavailable",
    "UpstreamRejected",
    "UpstreamUnavailable",
    "InternalError",
]


class ErrorResponse(BaseModel):
    """The body of every 4xx and 5xx the API answers (except /healthz's own report)."""

    model_config = ConfigDict(
        use_attribute_docstrings=True,
        json_schema_extra={
            "examples": [
                {
                    "detail": "turn turn-c35c244d68fec4309-1 is still running or waiting for a"
                    " reply in this conversation; answer it, or cancel it (POST"
                    " /v1/turns/turn-c35c244d68fec4309-1/cancel) if it waits for a"
                    " clarification",
                    "error_type": "TurnInProgress",
                    "turn_id": "turn-c35c244d68fec4309-1",
                },
                {
                    "detail": "question: question is longer than 4000 characters",
                    "error_type": "InvalidInput",
                },
                {
                    "detail": "the database is unavailable; retry shortly",
                    "error_type": "Unavailable",
                },
            ]
        },
    )

    detail: str = Field(examples=["no turn turn-c35c244d68fec4309-9"])
    """One readable sentence; for invalid input, every problem joined with `; `."""
    error_type: ErrorType = Field(examples=["NotFound"])
    """What kind of failure, from the one error table; clients branch on this."""
    turn_id: str | None = Field(default=None, examples=["turn-c35c244d68fec4309-9"])
    """The turn the error is about, where there is one (absent otherwise)."""


class ApiError(Exception):
    """Raise from a route to answer `status_code` with an `ErrorResponse`."""

    def __init__(
        self,
        status_code: int,
        error_type: ErrorType,
        detail: str,
        turn_id: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(detail)
        self.headers = headers
        self.status_code = status_code
        self.error_type: ErrorType = error_type
        self.detail = detail
        self.turn_id = turn_id


def error_response(
    status_code: int,
    error_type: ErrorType,
    detail: str,
    turn_id: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    body = ErrorResponse(detail=detail, error_type=error_type, turn_id=turn_id)
    return JSONResponse(
        body.model_dump(mode="json", exclude_none=True), status_code=status_code, headers=headers
    )


_DESCRIPTIONS = {
    400: "The request is malformed.",
    401: "No API key, or one that is not valid (`WWW-Authenticate: Bearer`).",
    403: "The request is not allowed.",
    404: "The turn or conversation does not exist.",
    409: "The conversation or turn is not in a state that allows this.",
    413: "The request body is larger than this operation accepts (`PayloadTooLarge`).",
    429: "Too many requests for this user; `Retry-After` says when to retry.",
    422: "The request is invalid; `detail` says what, in one line.",
    500: "An unexpected error; it is logged. The connection is closed.",
    502: "A model provider rejected the request.",
    503: "A dependency (PostgreSQL, Temporal, a model provider) is unavailable; retry later.",
}


_EXAMPLES: dict[int, dict[str, str]] = {
    400: {"detail": "malformed HTTP request", "error_type": "InvalidInput"},
    401: {
        "detail": "a valid API key is required (Authorization: Bearer KEY or X-API-Key)",
        "error_type": "Unauthorized",
    },
    403: {"detail": "this route needs an operator's key", "error_type": "Forbidden"},
    404: {
        "detail": "no turn turn-c35c244d68fec4309-9",
        "error_type": "NotFound",
        "turn_id": "turn-c35c244d68fec4309-9",
    },
    409: {
        "detail": "turn turn-c35c244d68fec4309-1 is still running or waiting for a reply in"
        " this conversation; answer it, or cancel it (POST"
        " /v1/turns/turn-c35c244d68fec4309-1/cancel) if it waits for a clarification",
        "error_type": "TurnInProgress",
        "turn_id": "turn-c35c244d68fec4309-1",
    },
    413: {"detail": "the request body is larger than 64 KB", "error_type": "PayloadTooLarge"},
    422: {
        "detail": "question: question is longer than 4000 characters",
        "error_type": "InvalidInput",
    },
    429: {"detail": "too many requests for this user; retry in 3 s", "error_type": "RateLimited"},
    500: {"detail": "an unexpected error; it is logged", "error_type": "InternalError"},
    502: {"detail": "the model provider rejected the request", "error_type": "UpstreamRejected"},
    503: {"detail": "the database is unavailable; retry shortly", "error_type": "Unavailable"},
}
"""Each status's example in the OpenAPI document, of the error type it answers (Swagger UI
and ReDoc show the media type's example, not the first of the model's)."""


def error_responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries documenting each of `codes` as an `ErrorResponse`.

    List every 4xx/5xx the operation can answer itself (404, 409, 503...); 422 and 500
    are added to every operation by `install`, so listing them is harmless but optional.
    """
    return {
        code: {"model": ErrorResponse, "description": _DESCRIPTIONS.get(code, "Error.")}
        for code in codes
    }


MAX_PROBLEMS = 10
"""At most this many validation problems are named; the rest are counted. A body with
10,000 unknown fields would otherwise answer with a 389 KB error."""
MAX_PROBLEM_CHARS = 300


def _readable(exc: RequestValidationError) -> str:
    parts = []
    errors = exc.errors()
    for err in errors[:MAX_PROBLEMS]:
        loc = ".".join(
            str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path", "header")
        )
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        if err.get("type") == "json_invalid":
            parts.append("request body is not valid JSON")
        else:
            part = f"{loc}: {msg}" if loc else msg
            parts.append(part if len(part) <= MAX_PROBLEM_CHARS else part[:MAX_PROBLEM_CHARS] + "…")
    if len(errors) > MAX_PROBLEMS:
        parts.append(f"and {len(errors) - MAX_PROBLEMS} more problems")
    return "; ".join(parts) or "invalid request"


def _http_error_type(status_code: int) -> ErrorType:
    known: dict[int, ErrorType] = {
        401: "Unauthorized",
        403: "Forbidden",
        404: "NotFound",
        405: "MethodNotAllowed",
        409: "Conflict",
        413: "PayloadTooLarge",
        429: "RateLimited",
        503: "Unavailable",
    }
    if status_code in known:
        return known[status_code]
    return "InvalidInput" if status_code < 500 else "InternalError"


# A dead or overloaded Temporal frontend, or an RPC that ran out of time: retrying later
# helps. The SDK reports its own client-side RPC timeout as CANCELLED ("Timeout
# expired"), the server's as DEADLINE_EXCEEDED. Any other status is a call we got wrong,
# so it is a 500.
_TEMPORAL_OUTAGE = frozenset(
    {
        RPCStatusCode.UNAVAILABLE,
        RPCStatusCode.DEADLINE_EXCEEDED,
        RPCStatusCode.CANCELLED,
        RPCStatusCode.RESOURCE_EXHAUSTED,
    }
)


def _internal_error() -> JSONResponse:
    return error_response(500, "InternalError", "internal error", headers={"Connection": "close"})


class InternalErrorMiddleware:
    """Answer an unexpected exception with a JSON 500 and `Connection: close`; don't re-raise.

    Without it Starlette's ServerErrorMiddleware sends a plain-text 500 with no
    `Connection: close` and re-raises, and uvicorn, seeing the response already started,
    drops the socket: a keep-alive client then sends its next request on a connection the
    server is closing and gets a protocol error instead of an answer. Saying
    `Connection: close` makes uvicorn close the connection cleanly after the body, and the
    client opens a new one. The exception is logged here and swallowed because re-raising
    would only make uvicorn log it a second time and abort the connection, and would make
    in-process test clients raise instead of showing the 500 a real client sees.

    If the response has already started (a stream failing midway), no status can be sent
    any more: the exception is re-raised so the server aborts the connection and the
    client sees a truncated response rather than a well-formed end.

    Added with `add_middleware`, it sits inside ServerErrorMiddleware and outside the
    exception handlers, so it sees only exceptions no handler answered.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except Exception:
            logger.exception(
                "unexpected error answering %s %s", scope.get("method"), scope.get("path")
            )
            if started:
                raise
            await _internal_error()(scope, receive, send)


def _document_errors(schema: dict[str, Any]) -> None:
    """Describe every 413, 422 and 500 as `ErrorResponse`, each error status with an example
    of its own error type; drop FastAPI's unused error models."""
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    components.setdefault(
        "ErrorResponse",
        ErrorResponse.model_json_schema(ref_template="#/components/schemas/{model}"),
    )
    for operations in schema.get("paths", {}).values():
        for operation in operations.values():
            _document_operation(operation)
    for name in ("HTTPValidationError", "ValidationError"):
        if f'"#/components/schemas/{name}"' not in json.dumps(schema):
            components.pop(name, None)


def _error_body(status: int) -> dict[str, Any]:
    return {
        "description": _DESCRIPTIONS[status],
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}},
    }


def _document_operation(operation: dict[str, Any]) -> None:
    responses = operation.setdefault("responses", {})
    for status, response in responses.items():
        # Errors are JSON even where the success is not: FastAPI gives a route's error
        # models the route's own media type (an event stream's, say).
        content = response.get("content", {})
        if int(status) >= 400 and list(content) == ["text/event-stream"]:
            response["content"] = {"application/json": content["text/event-stream"]}
    if "requestBody" in operation:  # the body limit (api/guards.BodyLimit)
        responses.setdefault("413", _error_body(413))
    if "422" in responses:
        responses["422"] = _error_body(422)
    responses.setdefault("500", _error_body(500))
    for status, response in responses.items():
        body = response.get("content", {}).get("application/json")
        if int(status) >= 400 and body is not None and int(status) in _EXAMPLES:
            body["example"] = _EXAMPLES[int(status)]


def _with_error_docs(
    app: FastAPI, generate: Callable[[], dict[str, Any]]
) -> Callable[[], dict[str, Any]]:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = generate()
            _document_errors(schema)
            app.openapi_schema = schema
        return app.openapi_schema

    return openapi


def _allowed(request: Request) -> str:
    """Every method any route of this path answers. Starlette's own 405 names only the
    first route that matched the path, so a path with a GET and a DELETE route (two
    operations) would say `Allow: GET`. Each method is tried against the routes (a
    route's own method list is private to FastAPI's router)."""
    routes = request.app.router.routes
    return ", ".join(
        method
        for method in ("DELETE", "GET", "PATCH", "POST", "PUT")
        if any(r.matches({**request.scope, "method": method})[0] == Match.FULL for r in routes)
    )


def install(app: FastAPI) -> None:
    """Register the error handlers, the 500 middleware and the OpenAPI error documentation."""
    # long: wiring: one error handler per error type, then the OpenAPI examples.
    app.add_middleware(InternalErrorMiddleware)
    app.openapi = _with_error_docs(app, app.openapi)  # type: ignore[method-assign]

    @app.exception_handler(ApiError)
    async def _api_error(_: Request, exc: ApiError) -> JSONResponse:
        return error_response(
            exc.status_code, exc.error_type, exc.detail, exc.turn_id, headers=exc.headers
        )

    @app.exception_handler(RequestValidationError)
    async def _validation(_: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(422, "InvalidInput", _readable(exc))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400:
            # FastAPI's one 400: a body it could not decode, such as bytes that are not
            # UTF-8 (so not JSON either). The error table answers unusable input with 422.
            return error_response(422, "InvalidInput", "request body is not valid JSON")
        # Keep the handler's headers: a 405 must say `Allow`.
        headers = exc.headers
        if exc.status_code == 405:
            headers = {**(headers or {}), "Allow": _allowed(request)}
        return error_response(
            exc.status_code, _http_error_type(exc.status_code), str(exc.detail), headers=headers
        )

    # PoolTimeout and PoolClosed are OperationalErrors: a pool that cannot hand out a
    # live connection within its timeout is the same outage as a dropped connection.
    @app.exception_handler(psycopg.OperationalError)
    @app.exception_handler(psycopg.InterfaceError)
    async def _database_down(request: Request, exc: Exception) -> JSONResponse:
        logger.warning(
            "database unavailable answering %s %s: %s",
            request.method,
            request.url.path,
            exc.__class__.__name__,
        )
        return error_response(503, "Unavailable", "the database is unavailable; retry shortly")

    @app.exception_handler(RPCError)
    async def _temporal_error(request: Request, exc: RPCError) -> JSONResponse:
        if exc.status not in _TEMPORAL_OUTAGE:
            logger.error(
                "Temporal refused a call answering %s %s",
                request.method,
                request.url.path,
                exc_info=exc,
            )
            return _internal_error()
        logger.warning(
            "Temporal unavailable answering %s %s: %s",
            request.method,
            request.url.path,
            exc.status.name,
        )
        return error_response(503, "Unavailable", "Temporal is unavailable; retry shortly")
