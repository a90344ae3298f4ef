"""Turns: start one, answer or cancel its clarifying question, read it; read a conversation.

The API validates, allocates the turn's seq atomically in PostgreSQL, then starts the
ChatTurn workflow and waits for its first outcome in one request to Temporal
(update-with-start: the start and the `wait_for_outcome` update together). It decides 404/409
from the `turns` table, so replies and reads work while no worker runs. A reply (or a
cancel) first claims the waiting turn in the table, so exactly one of two concurrent
replies wins, then goes to the workflow as a Temporal signal, which the server records
even with no worker running. Before answering 409 for a turn that blocks its
conversation, the API asks Temporal whether that turn's workflow is still open and
records the terminal status of one that closed (the reconciler).
"""

from typing import Annotated

from fastapi import APIRouter, Header, Path, Response
from opentelemetry import trace

from api import redaction
from api import turn_service as service
from api.auth import CallerDep, limit
from api.deps import PoolDep, SettingsDep, TemporalDep, TurnIdPath
from api.errors import ApiError, error_responses
from api.text import ID_CHARS, check_opaque
from api.turn_schemas import (
    STILL_RUNNING,
    ClarificationRequest,
    MessageOut,
    Messages,
    PreferHeader,
    TurnRequest,
    WaitQuery,
)
from db import turns
from domain.turns import TurnResult
from workflows.contracts import CancelRequest, ClarificationReply

router = APIRouter(prefix="/v1", tags=["turns"])


@router.post("/turns", responses={**STILL_RUNNING, **error_responses(401, 404, 409, 429, 503)})
async def start_turn(
    body: TurnRequest,
    response: Response,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
    idempotency_key: Annotated[str | None, Header(max_length=200), ID_CHARS] = None,
    cache_control: Annotated[
        str | None,
        Header(
            max_length=200,
            description="`no-cache` or `no-store`: this turn neither reads nor writes the "
            "answer cache (a fresh answer, as when the cache is off)",
        ),
    ] = None,
    prefer: PreferHeader = None,
    wait: WaitQuery = True,
) -> TurnResult:
    """Start a turn and return its outcome: answered, refused, fallback, or a question.

    With an `Idempotency-Key`, a retried request (same body) returns the first request's
    turn instead of starting another; the key is scoped to the conversation, or to the
    user when the request names no conversation. Personal data in the question (email,
    phone, card, bank account, tax file number) is replaced by tokens before anything is
    stored; the answer shows it back. Another tenant's conversation id is 404.

    With `Prefer: respond-async` (or `wait=false`) the answer is 202 at once, with the
    turn's id, `Location` and a `Link` to its event stream.
    """
    # long: the route's request handling in order (validate, redact, start, wait), each with its
    # error.
    if idempotency_key is not None:
        try:
            check_opaque(idempotency_key)
        except ValueError as exc:
            raise ApiError(422, "InvalidInput", f"Idempotency-Key {exc}") from None
    await limit(caller, body.user_id, pool, settings)
    owner = redaction.owner_of(body.user_id)
    question = await redaction.redact(pool, settings, caller.tenant_id, owner, body.question)
    body = body.model_copy(update={"question": question})
    idem = (idempotency_key, service.request_hash(body)) if idempotency_key else None
    directives = {d.strip() for d in (cache_control or "").lower().split(",")}
    fresh = bool({"no-cache", "no-store"} & directives)
    # The request's span (`service.ask` adds the turn's ids once it is allocated): the
    # workflow's and every step's spans are its children.
    tenant = {"turnstile.tenant_id": caller.tenant_id}
    with trace.get_tracer(__name__).start_as_current_span("turn request", attributes=tenant):
        result = await service.ask(
            client, pool, settings, caller, body, idem, fresh, wait, prefer, response
        )
    return await redaction.reveal(pool, caller, [owner], result)


@router.post(
    "/turns/{turn_id}/clarification",
    responses={**STILL_RUNNING, **error_responses(401, 404, 409, 429, 503)},
)
async def reply_to_clarification(
    turn_id: TurnIdPath,
    body: ClarificationRequest,
    response: Response,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
    prefer: PreferHeader = None,
    wait: WaitQuery = True,
) -> TurnResult:
    """Answer a turn's clarifying question; the reply is merged into the question.

    Exactly one reply per question: a second reply, even sent at the same moment, gets
    409 NotWaiting. Personal data in the reply is tokenised as in a question. With
    `Prefer: respond-async` (or `wait=false`) the answer is 202 once the reply is
    delivered; follow the turn's event stream from the last event seen.
    """
    user_id = await service.owned_turn(pool, turn_id, caller)
    await limit(caller, user_id, pool, settings)
    owner = redaction.owner_of(user_id)
    text = await redaction.redact(pool, settings, caller.tenant_id, owner, body.reply)
    result = await service.signal_waiting(
        client,
        pool,
        settings,
        caller,
        turn_id,
        "clarification_reply",
        lambda round_: ClarificationReply(round=round_, reply=text),
        wait,
        prefer,
        response,
    )
    return await redaction.reveal(pool, caller, [owner], result)


@router.post(
    "/turns/{turn_id}/cancel",
    responses={**STILL_RUNNING, **error_responses(401, 404, 409, 503)},
)
async def cancel_turn(
    turn_id: TurnIdPath,
    response: Response,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
    prefer: PreferHeader = None,
    wait: WaitQuery = True,
) -> TurnResult:
    """Cancel a turn that waits for a clarification; its conversation is free again.

    The turn settles as `cancelled` (written to the conversation like any answer). A
    turn that is not waiting gets 409 NotWaiting.
    """
    user_id = await service.owned_turn(pool, turn_id, caller)
    result = await service.signal_waiting(
        client,
        pool,
        settings,
        caller,
        turn_id,
        "cancel_turn",
        lambda round_: CancelRequest(round=round_),
        wait,
        prefer,
        response,
    )
    return await redaction.reveal(pool, caller, [redaction.owner_of(user_id)], result)


@router.get("/turns/{turn_id}", responses=error_responses(401, 404, 503))
async def get_turn(turn_id: TurnIdPath, pool: PoolDep, caller: CallerDep) -> TurnResult:
    """A turn as stored (another tenant's turn is 404, like one that does not exist)."""
    user_id = await service.owned_turn(pool, turn_id, caller)
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id, caller.tenant_id)
    if stored is None:
        raise service.no_turn(turn_id)
    return await redaction.reveal(pool, caller, [redaction.owner_of(user_id)], stored)


@router.get("/conversations/{conversation_id}/messages", responses=error_responses(401, 404, 503))
async def conversation_messages(
    conversation_id: Annotated[str, Path(max_length=64), ID_CHARS],
    pool: PoolDep,
    caller: CallerDep,
) -> list[MessageOut]:
    """The conversation's messages, oldest first (another tenant's conversation is 404)."""
    async with pool.connection() as conn:
        if not await turns.conversation_exists(conn, conversation_id, caller.tenant_id):
            raise ApiError(404, "NotFound", f"no conversation {conversation_id}")
        rows = await turns.list_messages(conn, conversation_id)
        owners = await turns.conversation_users(conn, conversation_id)
    messages = Messages(
        [
            MessageOut(
                turn_id=r.turn_id,
                role=r.role,
                content=r.content,
                status=r.status,
                citations=r.citations,
                summarised=r.summarised,
            )
            for r in rows
        ]
    )
    owner_ids = [redaction.owner_of(user) for user in owners]
    return (await redaction.reveal(pool, caller, owner_ids, messages)).root
