"""The decision record, read-only: one turn's row, and the whole chain verified."""

from datetime import datetime
from typing import Any

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from api import redaction
from api.auth import CallerDep, require_operator
from api.deps import PoolDep, TurnIdPath
from api.errors import ApiError, error_responses
from api.routes.feedback import FeedbackList, FeedbackOut, feedback_out
from db import audit, feedback
from domain.provenance import PassageCheck

router = APIRouter(prefix="/v1", tags=["audit"])


class DecisionRecord(BaseModel):
    """A settled turn's append-only row: what was decided and checked, and its place in
    the hash chain."""

    seq: int
    turn_id: str
    conversation_id: str
    recorded_at: datetime
    record: dict[str, Any]
    prev_hash: str
    hash: str
    feedback: list[FeedbackOut] = []
    """Readers' ratings of the turn, oldest first: beside the record, not part of its hash
    chain (they come later and are appended on their own)."""
    passages: list[PassageCheck] = []
    """Each cited passage compared with the report index today, by the text hash the
    record kept: beside the record, not part of its hash chain (it is read when asked)."""


class ChainReport(BaseModel):
    ok: bool
    rows: int
    """Rows verified (up to the first broken one)."""
    broken_seq: int | None = None
    broken_turn_id: str | None = None
    reason: str | None = None
    summary: str


@router.get("/turns/{turn_id}/audit", responses=error_responses(401, 404, 503))
async def turn_audit(turn_id: TurnIdPath, pool: PoolDep, caller: CallerDep) -> DecisionRecord:
    """The decision record of a settled turn (404 while it runs, when it does not exist,
    or when it is another tenant's), with each cited passage checked against the report
    index today (`passages`: unchanged, changed, gone or unknown)."""
    async with pool.connection() as conn:
        row = await audit.show(conn, turn_id, caller.tenant_id)
        rated = await feedback.for_turn(conn, turn_id, caller.tenant_id)
        passages = [] if row is None else await audit.passages_today(conn, row["record"])
    if row is None:
        raise ApiError(404, "NotFound", f"no decision record for turn {turn_id}", turn_id)
    # The record stays as stored (tokens); the comments read as their writers' own text.
    owners = sorted({redaction.owner_of(r.user_id) for r in rated})
    listed = FeedbackList(items=[feedback_out(r) for r in rated])
    listed = await redaction.reveal(pool, caller, owners, listed)
    return DecisionRecord.model_validate(row).model_copy(
        update={"feedback": listed.items, "passages": passages}
    )


@router.get(
    "/audit/verify",
    responses=error_responses(401, 403, 503),
    dependencies=[Depends(require_operator)],
)
async def verify_chain(pool: PoolDep) -> ChainReport:
    """Recompute every hash of the chain; `ok` false names the first row that breaks it.

    The chain spans every tenant, so only an operator's key (`TURNSTILE_OPERATOR_TENANTS`)
    may walk it; others get 403.
    """
    async with pool.connection() as conn:
        result = await audit.verify(conn)
    return ChainReport(
        ok=result.ok,
        rows=result.rows,
        broken_seq=result.broken_seq,
        broken_turn_id=result.broken_turn_id,
        reason=result.reason,
        summary=result.line(),
    )
