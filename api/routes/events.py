"""GET /v1/turns/{turn_id}/events: a turn's progress as server-sent events.

`step` events carry the decisions the workflow has taken (route, grading, retries, gate);
one final `outcome` event carries the TurnResult. Answer text appears only in that
outcome, which exists only after the final gate: unchecked text is never streamed.
"""

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Path
from fastapi.responses import StreamingResponse
from temporalio.client import WorkflowHandle
from temporalio.service import RPCError

from api.deps import PoolDep, TemporalDep
from api.errors import ApiError
from db import turns
from workflows.chat_turn import ChatTurn
from workflows.contracts import SETTLED, WAITING, TurnResult

router = APIRouter(prefix="/v1", tags=["turns"])
POLL_SECONDS = 0.25
MAX_STREAM_SECONDS = 600.0


def _event(kind: str, data: object) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


@router.get("/turns/{turn_id}/events", response_class=StreamingResponse)
async def turn_events(
    turn_id: Annotated[str, Path(max_length=100)], client: TemporalDep, pool: PoolDep
) -> StreamingResponse:
    async with pool.connection() as conn:
        if await turns.get_turn(conn, turn_id) is None:
            raise ApiError(404, "NotFound", f"no turn {turn_id}", turn_id)
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
            except RPCError:
                steps = []  # no worker to answer queries: the table still settles the turn
            for step in steps[sent:]:
                yield _event("step", {"step": step})
            sent = max(sent, len(steps))
            async with pool.connection() as conn:
                stored = await turns.get_turn(conn, turn_id)
            if stored is not None and (stored.status in SETTLED or stored.status == WAITING):
                yield _event("outcome", stored.model_dump(mode="json"))
                return
            await asyncio.sleep(POLL_SECONDS)
        yield _event("timeout", {"turn_id": turn_id})

    return StreamingResponse(stream(), media_type="text/event-stream")
