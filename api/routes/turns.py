"""Turns: start one, answer its clarifying question, read it; read a conversation.

The API validates, allocates the turn's seq atomically in PostgreSQL, starts the
ChatTurn workflow and waits for its next outcome through an update. It decides 404/409
from the `turns` table, so replies and reads work while no worker runs. A reply is a
Temporal signal: the server records it even with no worker, so it is never lost.
"""

import hashlib
import json
import re
import uuid
from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Header, Path, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from temporalio.client import (
    WorkflowHandle,
    WorkflowUpdateFailedError,
    WorkflowUpdateRPCTimeoutOrCancelledError,
)
from temporalio.common import WorkflowIDReusePolicy
from temporalio.service import RPCError

from api.deps import PoolDep, SettingsDep, TemporalDep
from api.errors import ApiError
from db import turns
from settings import Settings
from workflows.chat_turn import ChatTurn
from workflows.contracts import SETTLED, WAITING, ClarificationReply, TurnInput, TurnResult

router = APIRouter(prefix="/v1", tags=["turns"])

CONVERSATION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_QUESTION_CHARS = 4000


def _text(value: str, what: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} must not be empty")
    if len(value) > MAX_QUESTION_CHARS:
        raise ValueError(f"{what} is longer than {MAX_QUESTION_CHARS} characters")
    return value


class TurnRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    question: str
    conversation_id: str | None = None
    user_id: str | None = Field(default=None, max_length=128)

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        return _text(value, "question")

    @field_validator("conversation_id")
    @classmethod
    def _conversation(cls, value: str | None) -> str | None:
        if value is not None and not CONVERSATION_ID.fullmatch(value):
            raise ValueError("conversation_id must be 1-64 characters of A-Z a-z 0-9 _ -")
        return value


class ClarificationRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reply: str

    @field_validator("reply")
    @classmethod
    def _reply(cls, value: str) -> str:
        return _text(value, "reply")


class MessageOut(BaseModel):
    turn_id: str
    role: str
    content: str
    status: str
    citations: list[dict[str, object]]


TurnIdPath = Annotated[str, Path(max_length=100)]


async def _wait(
    handle: WorkflowHandle[ChatTurn, TurnResult],
    after_round: int,
    settings: Settings,
    pool: PoolDep,
    response: Response,
) -> TurnResult:
    """Wait for the next outcome after `after_round`; 202 + Location when it takes longer."""
    try:
        result: TurnResult = await handle.execute_update(
            "wait_for_outcome",
            after_round,
            result_type=TurnResult,
            rpc_timeout=timedelta(seconds=settings.request_timeout_seconds),
        )
    except (WorkflowUpdateRPCTimeoutOrCancelledError, WorkflowUpdateFailedError, RPCError):
        # No worker answered in time, or the workflow already closed: the table knows.
        async with pool.connection() as conn:
            stored = await turns.get_turn(conn, handle.id)
        if stored is not None and (stored.status in SETTLED or (
            stored.status == WAITING and stored.clarification_round > after_round
        )):  # fmt: skip
            return stored
        response.status_code = 202
        response.headers["Location"] = f"/v1/turns/{handle.id}"
        return stored or TurnResult(
            turn_id=handle.id, conversation_id="", status="running", question=""
        )
    return result


def _request_hash(body: TurnRequest) -> str:
    canonical = json.dumps(body.model_dump(), sort_keys=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


@router.post("/turns", responses={202: {"description": "still running; poll Location"}})
async def start_turn(
    body: TurnRequest,
    response: Response,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
    idempotency_key: Annotated[str | None, Header(max_length=200)] = None,
) -> TurnResult:
    """Start a turn and return its outcome: answered, refused, fallback, or a question."""
    conversation_id = body.conversation_id or f"c{uuid.uuid4().hex[:16]}"
    idem = (idempotency_key, _request_hash(body)) if idempotency_key else None
    async with pool.connection() as conn:
        try:
            alloc = await turns.allocate_turn(
                conn, conversation_id, body.user_id, body.question, idem
            )
        except turns.TurnInProgress as exc:
            raise ApiError(
                409, "TurnInProgress",
                f"turn {exc.turn_id} is still running or waiting for a reply in this conversation",
                exc.turn_id,
            ) from exc  # fmt: skip
        except turns.IdempotencyMismatch as exc:
            raise ApiError(
                422, "InvalidInput", "Idempotency-Key was already used with a different request"
            ) from exc
    handle: WorkflowHandle[ChatTurn, TurnResult] = client.get_workflow_handle_for(
        ChatTurn.run, alloc.turn_id
    )
    if not alloc.replayed:
        try:
            handle = await client.start_workflow(
                ChatTurn.run,
                TurnInput(
                    turn_id=alloc.turn_id,
                    conversation_id=conversation_id,
                    seq=alloc.seq,
                    question=body.question,
                    user_id=body.user_id,
                    clarification_timeout_seconds=settings.clarification_timeout_seconds,
                ),
                id=alloc.turn_id,
                task_queue=settings.task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                static_summary=f"turn {alloc.seq} of conversation {conversation_id}",
            )
        except RPCError as exc:
            async with pool.connection() as conn:
                await turns.forget_turn(conn, alloc.turn_id)
            raise ApiError(503, "UpstreamUnavailable", "Temporal is not reachable") from exc
    return await _wait(handle, 0, settings, pool, response)


@router.post("/turns/{turn_id}/clarification")
async def reply_to_clarification(
    turn_id: TurnIdPath,
    body: ClarificationRequest,
    response: Response,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
) -> TurnResult:
    """Answer a turn's clarifying question; the reply is merged into the question."""
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id)
    if stored is None:
        raise ApiError(404, "NotFound", f"no turn {turn_id}", turn_id)
    if stored.status != WAITING:
        raise ApiError(409, "NotWaiting", f"turn {turn_id} is {stored.status}", turn_id)
    handle: WorkflowHandle[ChatTurn, TurnResult] = client.get_workflow_handle_for(
        ChatTurn.run, turn_id
    )
    try:
        await handle.signal(
            ChatTurn.clarification_reply,
            ClarificationReply(round=stored.clarification_round, reply=body.reply),
        )
    except RPCError as exc:
        raise ApiError(503, "UpstreamUnavailable", "Temporal is not reachable", turn_id) from exc
    return await _wait(handle, stored.clarification_round, settings, pool, response)


@router.get("/turns/{turn_id}")
async def get_turn(turn_id: TurnIdPath, pool: PoolDep) -> TurnResult:
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id)
    if stored is None:
        raise ApiError(404, "NotFound", f"no turn {turn_id}", turn_id)
    return stored


@router.get("/conversations/{conversation_id}/messages")
async def conversation_messages(
    conversation_id: Annotated[str, Path(max_length=64)], pool: PoolDep
) -> list[MessageOut]:
    async with pool.connection() as conn:
        if not await turns.conversation_exists(conn, conversation_id):
            raise ApiError(404, "NotFound", f"no conversation {conversation_id}")
        rows = await turns.list_messages(conn, conversation_id)
    return [
        MessageOut(
            turn_id=r.turn_id, role=r.role, content=r.content, status=r.status,
            citations=r.citations,
        )
        for r in rows
    ]  # fmt: skip
