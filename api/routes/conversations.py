"""GET /v1/conversations: a user's past conversations, latest first (the page's list and
`turnstile conversations`); GET /v1/conversations/{id}: one, with its latest turn (what
`turnstile chat --conversation` resumes); DELETE /v1/conversations/{id}: delete one (its
turns, messages, feedback and share links, as expiry does)."""

from typing import Annotated

from fastapi import APIRouter, Path, Query, Response
from pydantic import AfterValidator, BaseModel

from api import redaction
from api.auth import CallerDep
from api.deps import PoolDep
from api.errors import ApiError, error_responses
from api.text import ID_CHARS, check_user_id
from db import expiry, turns

router = APIRouter(prefix="/v1", tags=["turns"])
UserIdText = Annotated[str, ID_CHARS, AfterValidator(check_user_id)]


ConversationOut = turns.ConversationRow
"""One conversation as listed: its turn count, first question (its title) and latest turn
(`first_question` and `last_question` as the user's own text)."""


class ConversationList(BaseModel):
    items: list[ConversationOut]


@router.get("/conversations", responses=error_responses(401, 503))
async def list_conversations(
    pool: PoolDep,
    caller: CallerDep,
    user_id: Annotated[UserIdText | None, Query(max_length=128)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> ConversationList:
    """The caller tenant's conversations of `user_id` (without it: those asked without a
    user), the most recently active first."""
    async with pool.connection() as conn:
        rows = await turns.list_conversations(conn, caller.tenant_id, user_id, limit)
    listed = ConversationList(items=[r for r in rows])
    owner = redaction.owner_of(user_id)
    return await redaction.reveal(pool, caller, [owner], listed)


@router.get("/conversations/{conversation_id}", responses=error_responses(401, 404, 503))
async def get_conversation(
    conversation_id: Annotated[str, Path(max_length=64), ID_CHARS],
    pool: PoolDep,
    caller: CallerDep,
) -> ConversationOut:
    """One of the caller tenant's conversations with its latest turn (404 otherwise)."""
    async with pool.connection() as conn:
        row = await turns.get_conversation(conn, conversation_id, caller.tenant_id)
    if row is None:
        raise ApiError(404, "NotFound", f"no conversation {conversation_id}")
    owner = redaction.owner_of(row.user_id)
    return await redaction.reveal(pool, caller, [owner], row)


@router.delete(
    "/conversations/{conversation_id}",
    status_code=204,
    responses=error_responses(401, 404, 409, 503),
)
async def delete_conversation(
    conversation_id: Annotated[str, Path(max_length=64), ID_CHARS],
    pool: PoolDep,
    caller: CallerDep,
) -> Response:
    """Delete one of the caller tenant's conversations: its turns, messages, summaries,
    feedback and share links go, as when it expires (docs/memory.md, "Expiry"); the
    decision records stay. Another tenant's (or an unknown) conversation is 404; one with
    a turn running or waiting for a reply is 409 (cancel it first)."""
    async with pool.connection() as conn:
        deleted = await expiry.delete_conversation(conn, conversation_id, caller.tenant_id)
    if deleted is None:
        raise ApiError(404, "NotFound", f"no conversation {conversation_id}")
    if not deleted.conversations:
        raise ApiError(
            409,
            "Conflict",
            f"conversation {conversation_id} has a turn running or waiting: cancel it first",
        )
    return Response(status_code=204)
