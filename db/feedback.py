"""Readers' feedback on turns (migration 0013): appended, listed per tenant and per turn."""

from dataclasses import dataclass
from datetime import datetime

from psycopg import AsyncConnection


@dataclass(frozen=True)
class FeedbackRow:
    feedback_id: int
    turn_id: str
    conversation_id: str
    question: str
    user_id: str | None
    rating: str
    comment: str
    created_at: datetime


_SELECT = (
    "SELECT f.feedback_id, f.turn_id, t.conversation_id, t.question, f.user_id, f.rating,"
    " f.comment, f.created_at FROM feedback f JOIN turns t ON t.turn_id = f.turn_id"
)


async def add(
    conn: AsyncConnection,
    turn_id: str,
    tenant_id: str,
    user_id: str | None,
    rating: str,
    comment: str,
) -> FeedbackRow:
    """Append one rating (and its already-redacted comment) to `turn_id`."""
    row = await (
        await conn.execute(
            "INSERT INTO feedback (turn_id, tenant_id, user_id, rating, comment)"
            " VALUES (%s, %s, %s, %s, %s) RETURNING feedback_id",
            (turn_id, tenant_id, user_id, rating, comment),
        )
    ).fetchone()
    assert row is not None
    [added] = await _rows(conn, " WHERE f.feedback_id = %s", (row[0],))
    return added


async def for_turn(conn: AsyncConnection, turn_id: str, tenant_id: str) -> list[FeedbackRow]:
    """A turn's feedback, oldest first (none for another tenant's turn)."""
    return await _rows(
        conn,
        " WHERE f.turn_id = %s AND f.tenant_id = %s ORDER BY f.feedback_id",
        (turn_id, tenant_id),
    )


async def listed(
    conn: AsyncConnection, tenant_id: str, rating: str | None, limit: int
) -> list[FeedbackRow]:
    """The tenant's latest feedback first, of one rating when `rating` is given."""
    return await _rows(
        conn,
        " WHERE f.tenant_id = %s AND f.rating = coalesce(%s, f.rating)"
        " ORDER BY f.feedback_id DESC LIMIT %s",
        (tenant_id, rating, limit),
    )


async def _rows(conn: AsyncConnection, where: str, params: tuple[object, ...]) -> list[FeedbackRow]:
    rows = await (await conn.execute(_SELECT + where, params)).fetchall()
    return [FeedbackRow(*r) for r in rows]
