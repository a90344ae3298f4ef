"""GET /v1/turns/{turn_id}/events: a turn's progress as server-sent events.

The turn publishes its progress on its own workflow stream (Temporal's Workflow Streams:
an offset-addressed, de-duplicated log kept inside the workflow and read with updates).
This route subscribes and forwards each event as a `step` whose SSE `id` is its offset in
that log, so a client that drops resumes with `Last-Event-ID` (or `?after=`) and misses
nothing. The stream ends with one `outcome` event carrying the TurnResult, read from
PostgreSQL when the turn settles or pauses for a clarification: answer text exists only
there, after the final gate, so unchecked text is never streamed. Keep-alive comments are
FastAPI's own (every 15 s). If PostgreSQL drops away mid-stream, one `error` event (an
ErrorResponse) ends the stream: the 200 is already sent, so a status code cannot say it.

The table also watches: when the stream says nothing for a while (no worker to answer,
a turn begun before the stream existed, a workflow closed by an operator), the stored
turn decides, as it did before the stream.
"""

import asyncio
import contextlib
from collections.abc import AsyncIterable
from dataclasses import dataclass
from typing import Annotated

import psycopg
from fastapi import APIRouter, Depends, Header, Query
from fastapi.sse import EventSourceResponse, ServerSentEvent
from psycopg_pool import PoolTimeout
from temporalio.client import Client
from temporalio.contrib.workflow_streams import WorkflowStreamItem
from temporalio.service import RPCError

from api import redaction
from api.auth import Caller, CallerDep
from api.deps import PoolDep, StreamsDep, TemporalDep, TurnIdPath
from api.errors import ApiError, ErrorResponse, error_responses
from api.streams import Closed, TurnStreams
from api.turn_service import owned_turn
from db import reconcile, turns
from domain.turns import OPEN, SETTLED, WAITING, TurnResult
from workflows.contracts import TurnEvent

router = APIRouter(prefix="/v1", tags=["turns"])
QUIET_SECONDS = 2.0
"""After this long with no event, the stored turn is read: it may have settled without
the stream saying so (no worker, an older turn, a workflow closed from outside)."""
MAX_STREAM_SECONDS = 600.0


def _event_doc(kind: str, data: dict[str, object], with_id: bool = False) -> dict[str, object]:
    """One kind of event: its name and its `data` line, a JSON document of schema `data`."""
    properties: dict[str, object] = {
        "event": {"const": kind},
        "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": data},
    }
    if with_id:
        properties["id"] = {
            "type": "string",
            "description": "the event's offset in the turn's stream; send it back as "
            "Last-Event-ID to resume after it",
        }
    return {"type": "object", "properties": properties, "required": ["event", "data"]}


# OpenAPI 3.2's `itemSchema`: the schema of each event of the stream (FastAPI writes a
# generic one for an EventSourceResponse; this one names each event and its data).
_STREAM_DOC = {
    "description": "`step` events (each a TurnEvent, with its offset as `id`), then one "
    "`outcome` (the TurnResult), `timeout` or `error`. Comment lines (`: ping`) keep the "
    "connection alive.",
    "content": {
        "text/event-stream": {
            "itemSchema": {
                "oneOf": [
                    _event_doc("step", TurnEvent.model_json_schema(), with_id=True),
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
            },
            "example": (
                'id: 0\nevent: step\ndata: {"kind": "step", "text": "Reading the conversation'
                ' so far", "step": "postgres_load_session", "round": null, "status": null}\n\n'
                'id: 7\nevent: step\ndata: {"kind": "step", "text": "Searching BHP\'s reports'
                ' for FY2024", "step": "qdrant_search_chunks", "round": null, "status": null}'
                '\n\nevent: outcome\ndata: {"turn_id": "…", "status": "answered", …}\n\n'
            ),
        }
    },
}


async def _owned(turn_id: TurnIdPath, pool: PoolDep, caller: CallerDep) -> tuple[str, list[str]]:
    """The turn and its PII owners, or 404 when it is not the caller tenant's.

    A dependency, so the 404 is sent before the stream starts.
    """
    return turn_id, [redaction.owner_of(await owned_turn(pool, turn_id, caller))]


def _start_offset(
    last_event_id: Annotated[
        str | None,
        Header(
            max_length=20,
            description="Resume after this event id (the browser sends it on reconnect)",
        ),
    ] = None,
    after: Annotated[
        int | None,
        Query(ge=-1, description="Resume after this event id, as Last-Event-ID does"),
    ] = None,
) -> int:
    """The first offset to send: one past `Last-Event-ID` (or `after`), else 0.

    A dependency, so a bad id is a 422 before the stream starts: inside the stream's
    generator the 200 would already be on its way.
    """
    if last_event_id is not None and last_event_id.strip():
        try:
            seen = int(last_event_id)
        except ValueError:
            seen = -2
        if seen < -1:
            raise ApiError(
                422, "InvalidInput", "Last-Event-ID must be an event id this stream sent"
            )
        return seen + 1
    return 0 if after is None else after + 1


class _Unavailable(Exception):
    """PostgreSQL could not be read mid-stream."""


@router.get(
    "/turns/{turn_id}/events",
    response_class=EventSourceResponse,
    responses={200: _STREAM_DOC, **error_responses(401, 404, 422, 503)},
)
async def turn_events(
    owned: Annotated[tuple[str, list[str]], Depends(_owned)],
    client: TemporalDep,
    streams: StreamsDep,
    pool: PoolDep,
    caller: CallerDep,
    start: Annotated[int, Depends(_start_offset)],
) -> AsyncIterable[ServerSentEvent]:
    """Stream a turn's progress until it settles or waits for a reply (at most ten minutes)."""
    turn_id, owners = owned
    watch = _Watch(turn_id, client, streams, pool, caller, owners)
    try:
        async for event in _events(watch, start):
            yield event
    except _Unavailable:
        error = ErrorResponse(
            detail="the database is unavailable; reconnect shortly",
            error_type="Unavailable",
            turn_id=turn_id,
        )
        yield ServerSentEvent(event="error", data=error.model_dump(mode="json"))


@dataclass(frozen=True)
class _Watch:
    """One watcher's turn and what reading it takes."""

    turn_id: str
    client: Client
    streams: TurnStreams
    pool: PoolDep
    caller: Caller
    owners: list[str]

    async def stored(self, *, reconciling: bool) -> TurnResult | None:
        return await _stored(self.pool, self.client, self.turn_id, reconciling=reconciling)

    async def ending(self, stored: TurnResult, after: int) -> list[ServerSentEvent]:
        """The retained steps from offset `after` on, then the stored turn as the outcome."""
        retained = await self.streams.retained(self.turn_id, after)
        steps = [_step(offset, event) for offset, event in retained]
        return [*steps, await _outcome(self.pool, self.caller, self.owners, stored)]


async def _events(watch: _Watch, start: int) -> AsyncIterable[ServerSentEvent]:
    # Not reconciled here: a running turn's watchers would each ask Temporal about it
    # while holding a pooled connection. A turn whose workflow closed without saying so
    # is reconciled in `_live`, when its stream fails or stays quiet.
    stored = await watch.stored(reconciling=False)
    if stored is not None and stored.status != "running":
        # Settled, or paused for a reply: nothing more will happen until someone acts,
        # so the retained events are read with the stream's query (no long-poll update
        # is left waiting in the workflow, nothing is written to its history).
        for event in await watch.ending(stored, start):
            yield event
        return
    async for event in _live(watch, start):
        yield event


async def _live(watch: _Watch, start: int) -> AsyncIterable[ServerSentEvent]:
    """A running turn's steps as they come, until its outcome or the stream's time limit."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + MAX_STREAM_SECONDS
    closed = False
    next_offset = start
    async with watch.streams.watch(watch.turn_id, start) as queue:
        while loop.time() < deadline:
            try:
                item = await asyncio.wait_for(queue.get(), QUIET_SECONDS)
            except TimeoutError:
                item = None
            if isinstance(item, WorkflowStreamItem):
                if item.offset < next_offset:
                    continue  # already sent (read from the retained log below)
                event: TurnEvent = item.data
                next_offset = item.offset + 1
                yield _step(item.offset, event)
                outcome = await _announced(watch, event)
                if outcome is not None:
                    yield outcome
                    return
                continue
            closed = closed or isinstance(item, Closed)
            ending = await _quiet(watch, next_offset, reconciling=item is not None or closed)
            if ending:
                for ended in ending:
                    yield ended
                return
        yield ServerSentEvent(event="timeout", data={"turn_id": watch.turn_id})


async def _announced(watch: _Watch, event: TurnEvent) -> ServerSentEvent | None:
    """The outcome when `event` says the turn paused or ended and the stored turn (saved
    before the event was published) still says the same; else None."""
    if event.kind not in ("waiting", "settled"):
        return None
    stored = await watch.stored(reconciling=False)
    if stored is not None and (
        (event.kind == "settled" and stored.status in SETTLED)
        or (stored.status == WAITING and stored.clarification_round == event.round)
    ):
        return await _outcome(watch.pool, watch.caller, watch.owners, stored)
    return None


async def _quiet(watch: _Watch, next_offset: int, *, reconciling: bool) -> list[ServerSentEvent]:
    """The stream's last events when it was quiet, failed or closed and the stored turn
    has settled or waits (an open turn whose workflow has closed is settled from
    Temporal's record with `reconciling`); none while the turn still runs."""
    stored = await watch.stored(reconciling=reconciling)
    if stored is not None and (stored.status in SETTLED or stored.status == WAITING):
        # The turn moved on while its events were on their way (a busy process,
        # a subscription being renewed): the steps not yet sent come first.
        return await watch.ending(stored, next_offset)
    return []


def _step(offset: int, event: TurnEvent) -> ServerSentEvent:
    return ServerSentEvent(event="step", id=str(offset), data=event.model_dump(mode="json"))


async def _stored(
    pool: PoolDep, client: Client, turn_id: str, *, reconciling: bool
) -> TurnResult | None:
    """The stored turn; with `reconciling`, an open turn whose workflow closed is settled."""
    try:
        async with pool.connection() as conn:
            stored = await turns.get_turn(conn, turn_id)
            if reconciling and stored is not None and stored.status in OPEN:
                with contextlib.suppress(RPCError):
                    stored = await reconcile.reconcile_turn(client, conn, turn_id) or stored
    except (psycopg.OperationalError, psycopg.InterfaceError, PoolTimeout) as exc:
        raise _Unavailable from exc
    return stored


async def _outcome(
    pool: PoolDep, caller: Caller, owners: list[str], stored: TurnResult
) -> ServerSentEvent:
    shown = await redaction.reveal(pool, caller, owners, stored)
    return ServerSentEvent(event="outcome", data=shown.model_dump(mode="json"))
