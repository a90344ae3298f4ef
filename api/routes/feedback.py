"""Readers' feedback on turns: POST a rating (and a comment) on a turn you were shown,
GET the tenant's feedback. Comments are redacted before they are stored, like questions;
each rating is counted in /metrics (`turnstile_feedback_total{rating}`), and a turn's
feedback is shown beside its decision record (GET /v1/turns/{turn_id}/audit)."""

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from api import redaction
from api.auth import CallerDep, limit
from api.deps import PoolDep, SettingsDep, TurnIdPath
from api.errors import ApiError, error_responses
from api.metrics import FEEDBACK
from api.text import STORABLE
from api.turn_service import no_turn, owned_turn
from db import feedback as store
from db import turns
from db.feedback import FeedbackRow
from domain.evaluation.feedback import MAX_COMMENT_CHARS, Rating

router = APIRouter(prefix="/v1", tags=["feedback"])


class FeedbackIn(BaseModel):
    rating: Rating = Field(examples=["wrong_figure"])
    """`helpful`, `wrong_figure` (a figure shown is not what the report says) or `other`."""
    comment: Annotated[
        str,
        Field(max_length=MAX_COMMENT_CHARS, examples=["The revenue is FY2023's, not FY2024's"]),
        STORABLE,
    ] = ""


class FeedbackOut(BaseModel):
    feedback_id: int
    turn_id: str
    conversation_id: str
    question: str
    """The question the rated turn answered, as stored (personal values as tokens unless
    they are the caller's own)."""
    user_id: str | None
    rating: Rating
    comment: str
    created_at: datetime


class FeedbackList(BaseModel):
    items: list[FeedbackOut]


def feedback_out(row: FeedbackRow) -> FeedbackOut:
    return FeedbackOut.model_validate(row, from_attributes=True)


@router.post(
    "/turns/{turn_id}/feedback",
    status_code=201,
    responses=error_responses(401, 404, 409, 429, 503),
)
async def give_feedback(
    turn_id: TurnIdPath,
    body: FeedbackIn,
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
) -> FeedbackOut:
    """Rate a turn you were shown (another tenant's turn is 404; one still running, 409).
    Each call appends: the latest rating is the turn's current one."""
    user_id = await owned_turn(pool, turn_id, caller)
    await limit(caller, user_id, pool, settings)
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id, caller.tenant_id)
    if stored is None:
        raise no_turn(turn_id)
    if stored.status == "running":
        raise ApiError(
            409,
            "Conflict",
            f"turn {turn_id} is still running: rate it once it has answered",
            turn_id,
        )
    owner = redaction.owner_of(user_id)
    comment = await redaction.redact(pool, settings, caller.tenant_id, owner, body.comment)
    async with pool.connection() as conn:
        row = await store.add(conn, turn_id, caller.tenant_id, user_id, body.rating, comment)
    FEEDBACK.labels(body.rating).inc()
    return await redaction.reveal(pool, caller, [owner], feedback_out(row))


@router.get("/feedback", responses=error_responses(401, 503))
async def list_feedback(
    pool: PoolDep,
    caller: CallerDep,
    rating: Annotated[Rating | None, Query()] = None,
    limit_: Annotated[int, Query(alias="limit", ge=1, le=500)] = 50,
) -> FeedbackList:
    """The caller tenant's feedback, latest first; `rating` keeps one kind
    (`wrong_figure`: the turns to review as regression cases)."""
    async with pool.connection() as conn:
        rows = await store.listed(conn, caller.tenant_id, rating, limit_)
    owners = sorted({redaction.owner_of(r.user_id) for r in rows})
    listed = FeedbackList(items=[feedback_out(r) for r in rows])
    return await redaction.reveal(pool, caller, owners, listed)
