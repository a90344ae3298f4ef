"""Conversation expiry (migration 0016): delete what an idle conversation holds.

A conversation idle since before the cutoff (its `last_active_at`, kept by a trigger on
`turns`) and with no turn running or waiting loses its turns, messages, summaries,
readers' feedback and idempotency keys; its row stays as a tombstone (id, tenant,
`last_seq`; the user id cleared) so that the id, sent again, never reuses a turn id a
kept decision record names. The decision records are not touched: they are append-only
and purged only by their own retention (`db.audit.purge_older_than`).
"""

from dataclasses import dataclass
from datetime import datetime

from psycopg import AsyncConnection

_NONE_OPEN = (
    "NOT EXISTS (SELECT 1 FROM turns t WHERE t.conversation_id = c.conversation_id"
    " AND t.status IN ('running', 'needs_clarification'))"
)
"""No turn of the conversation running or waiting (`domain.turns.OPEN`; written out, as
the partial index `turns_open` is, so the planner can use it)."""


@dataclass(frozen=True)
class Expired:
    conversations: int = 0
    turns: int = 0
    messages: int = 0

    def __add__(self, other: "Expired") -> "Expired":
        return Expired(
            self.conversations + other.conversations,
            self.turns + other.turns,
            self.messages + other.messages,
        )


async def expire_idle(conn: AsyncConnection, cutoff: datetime, limit: int) -> Expired:
    """Expire up to `limit` conversations idle since before `cutoff` with no turn running
    or waiting, in one transaction; idempotent (an expired one is not picked again).

    A turn is allocated only under its conversation's row lock (`db.turns.allocate_turn`),
    so holding the locks taken here, no turn can start in these conversations until the
    deletes commit; a conversation locked by someone else is skipped, for the next run.
    """
    async with conn.transaction():
        rows = await (
            await conn.execute(
                "SELECT c.conversation_id FROM conversations c"
                " WHERE c.expired_at IS NULL AND c.last_active_at < %s"
                f" AND {_NONE_OPEN} ORDER BY c.last_active_at LIMIT %s FOR UPDATE SKIP LOCKED",
                (cutoff, limit),
            )
        ).fetchall()
        # Checked under the locks: a turn still running or waiting is never deleted, nor
        # is a conversation that moved since the scan.
        idle = await (
            await conn.execute(
                "SELECT c.conversation_id FROM conversations c"
                f" WHERE c.conversation_id = ANY(%s) AND c.last_active_at < %s AND {_NONE_OPEN}",
                ([r[0] for r in rows], cutoff),
            )
        ).fetchall()
        ids = [r[0] for r in idle]
        if not ids:
            return Expired()
        return await _delete(conn, ids)


async def delete_conversation(
    conn: AsyncConnection, conversation_id: str, tenant_id: str
) -> Expired | None:
    """Delete one of the tenant's conversations now, as expiry would (its row kept as a
    tombstone). None when it is not the tenant's (or already gone); `Expired()` (nothing
    deleted) when a turn of it is running or waiting, which the caller reports."""
    async with conn.transaction():
        row = await (
            await conn.execute(
                "SELECT c.conversation_id, " + _NONE_OPEN + " FROM conversations c"
                " WHERE c.conversation_id = %s AND c.tenant_id = %s AND c.expired_at IS NULL"
                " FOR UPDATE",
                (conversation_id, tenant_id),
            )
        ).fetchone()
        if row is None:
            return None
        if not row[1]:
            return Expired()
        return await _delete(conn, [conversation_id])


async def _delete(conn: AsyncConnection, ids: list[str]) -> Expired:
    """Delete the conversations' contents, children first, and mark them expired."""
    in_turns = "turn_id IN (SELECT turn_id FROM turns WHERE conversation_id = ANY(%s))"
    await conn.execute(f"DELETE FROM feedback WHERE {in_turns}", (ids,))
    await conn.execute(f"DELETE FROM shares WHERE {in_turns}", (ids,))
    await conn.execute(f"DELETE FROM idempotency_keys WHERE {in_turns}", (ids,))
    messages = await conn.execute("DELETE FROM messages WHERE conversation_id = ANY(%s)", (ids,))
    await conn.execute("DELETE FROM conversation_summaries WHERE conversation_id = ANY(%s)", (ids,))
    # A shadow run holds copies of the live turn's result and the shadow's: the
    # conversation's text, so it goes with it.
    await conn.execute("DELETE FROM shadow_runs WHERE conversation_id = ANY(%s)", (ids,))
    turns = await conn.execute("DELETE FROM turns WHERE conversation_id = ANY(%s)", (ids,))
    await conn.execute(
        "UPDATE conversations SET expired_at = now(), user_id = NULL"
        " WHERE conversation_id = ANY(%s)",
        (ids,),
    )
    return Expired(len(ids), turns.rowcount, messages.rowcount)
