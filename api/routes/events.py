"""GET /v1/turns/{turn_id}/events: a turn's progress as server-sent events.

`step` events carry the decisions the workflow has taken (route, grading, retries, gate);
one final `outcome` event carries the TurnResult. Answer text appears only in that
outcome, which exists only after the final gate: unchecked text is never streamed. If
PostgreSQL drops away mid-stream, one `error` event (an ErrorResponse) ends the stream:
the 200 is already sent, so a status code can no longer say it.
"""

import asyncio
import json
from collections.abc import AsyncIterator

import psycopg
from fastapi import APIRouter
from fastapi.responses import StreamingResponse
from temporalio.client import WorkflowHandle, WorkflowQueryFailedError, WorkflowQueryRejectedError
from temporalio.service import RPCError

from api import redaction
from api.auth import CallerDep
from api.deps import PoolDep, TemporalDep, TurnIdPath
from api.errors import ApiError, ErrorResponse, error_responses
from db import turns
from workflows.chat_turn import ChatTurn
from workflows.contracts import SETTLED, WAITING, TurnResult

router = APIRouter(prefix="/v1", tags=["turns"])
POLL_SECONDS = 0.25
MAX_STREAM_SECONDS = 600.0


def _event(kind: str, data: object) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def _event_doc(kind: str, data: dict[str, object]) -> dict[str, object]:
    """One kind of event: its name and its `data` line, a JSON document of schema `data`."""
    return {
        "type": "object",
        "properties": {
            "event": {"const": kind},
            "data": {
                "type": "string",
                "contentMediaType": "application/json",
                "contentSchema": data,
            },
        },
        "required": ["event", "data"],
    }


# Before OpenAPI 3.2's `itemSchema`, an event stream's `schema` describes one event.
_STREAM_DOC = {
    "description": "`step` events, then one `outcome` (the TurnResult), `timeout` or `error`.",
    "content": {
        "text/event-stream": {
            "schema": {
                "oneOf": [
                    _event_doc(
                        "step",
                        {
                            "type": "object",
                            "properties": {"step": {"type": "string"}},
                            "required": ["step"],
                        },
                    ),
                    _event_doc("outcome", {"$ref": "#/components/schemas/TurnResult"}),
                    _event_doc(
                        "timeout",
                        {
                            "type": "object",
                            "properties": {"turn_id": {"type": "string"}},
                            "required": ["turn_id"],
                        },
                    ),
                    _event_doc("error", {"$ref": "#/components/schemas/ErrorResponse"}),
                ]
            }
        }
    },
}


@router.get(
    "/turns/{turn_id}/events",
    response_class=StreamingResponse,
    responses={200: _STREAM_DOC, **error_responses(401, 404, 503)},
)
async def turn_events(
    turn_id: TurnIdPath, client: TemporalDep, pool: PoolDep, caller: CallerDep
) -> StreamingResponse:
    """Stream a turn's progress until it settles or waits for a reply (at most ten minutes)."""
    async with pool.connection() as conn:
        owner = await turns.turn_owner(conn, turn_id)
    if owner is None or owner[0] != caller.tenant_id:
        raise ApiError(404, "NotFound", f"no turn {turn_id}", turn_id)
    owners = [redaction.owner_of(owner[1])]
    handle: WorkflowHandle[ChatTurn, TurnResult] = client.get_workflow_handle_for(
        ChatTurn.run, turn_id
    )

    async def stream() -> AsyncIterator[str]:
        sent = 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + MAX_STREAM_SECONDS
        while loop.time() < deadline:
            try:
                steps = await handle.query(ChatTurn.progress)
            except (RPCError, WorkflowQueryFailedError, WorkflowQueryRejectedError):
                steps = []  # no worker to answer queries: the table still settles the turn
            for step in steps[sent:]:
                yield _event("step", {"step": step})
            sent = max(sent, len(steps))
            try:
                async with pool.connection() as conn:
                    stored = await turns.get_turn(conn, turn_id)
            except (psycopg.OperationalError, psycopg.InterfaceError):
                error = ErrorResponse(
                    detail="the database is unavailable; reconnect shortly",
                    error_type="Unavailable",
                    turn_id=turn_id,
                )
                yield _event("error", error.model_dump(mode="json"))
                return
            if stored is not None and (stored.status in SETTLED or stored.status == WAITING):
                shown = await redaction.reveal(pool, caller.tenant_id, owners, stored)
                yield _event("outcome", shown.model_dump(mode="json"))
                return
            await asyncio.sleep(POLL_SECONDS)
        yield _event("timeout", {"turn_id": turn_id})

    return StreamingResponse(stream(), media_type="text/event-stream")
