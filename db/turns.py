"""SQL for conversations, turns and messages, shared by the API and the session activities."""

from datetime import timedelta

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from pydantic import BaseModel, ConfigDict

from workflows.contracts import TurnResult

IDEMPOTENCY_TTL = timedelta(hours=24)


class TurnInProgress(Exception):
    def __init__(self, turn_id: str) -> None:
        super().__init__(turn_id)
        self.turn_id = turn_id


class IdempotencyMismatch(Exception):
    """The key was used before with a different request body."""


class Allocation(BaseModel):
    model_config = ConfigDict(frozen=True)
    turn_id: str
    seq: int
    replayed: bool = False


class MessageRow(BaseModel):
    model_config = ConfigDict(frozen=True)
    turn_id: str
    role: str
    content: str
    resolved: str | None
    status: str
    citations: list[dict[str, object]]


def turn_id_for(conversation_id: str, seq: int) -> str:
    return f"turn-{conversation_id}-{seq}"


async def allocate_turn(
    conn: AsyncConnection,
    conversation_id: str,
    user_id: str | None,
    question: str,
    idempotency: tuple[str, str] | None = None,
) -> Allocation:
    """Atomically: lock the conversation, refuse if a turn is open, allocate the next seq,
    insert the turn as `running`, and record the idempotency key.

    `idempotency` is (key, request hash). Raises TurnInProgress or IdempotencyMismatch;
    nothing is written in either case.
    """
    async with conn.transaction():
        await conn.execute(
            "INSERT INTO conversations (conversation_id, user_id) VALUES (%s, %s)"
            " ON CONFLICT (conversation_id) DO NOTHING",
            (conversation_id, user_id),
        )
        await conn.execute(
            "SELECT 1 FROM conversations WHERE conversation_id = %s FOR UPDATE",
            (conversation_id,),
        )
        if idempotency is not None:
            key, request_hash = idempotency
            row = await (
                await conn.execute(
                    "SELECT request_hash, turn_id FROM idempotency_keys WHERE conversation_id = %s"
                    " AND key = %s AND created_at > now() - %s",
                    (conversation_id, key, IDEMPOTENCY_TTL),
                )
            ).fetchone()
            if row is not None:
                if row[0] != request_hash:
                    raise IdempotencyMismatch(key)
                seq_row = await (
                    await conn.execute("SELECT seq FROM turns WHERE turn_id = %s", (row[1],))
                ).fetchone()
                return Allocation(turn_id=row[1], seq=seq_row[0] if seq_row else 0, replayed=True)
        open_row = await (
            await conn.execute(
                "SELECT turn_id FROM turns WHERE conversation_id = %s"
                " AND status IN ('running', 'needs_clarification') ORDER BY seq DESC LIMIT 1",
                (conversation_id,),
            )
        ).fetchone()
        if open_row is not None:
            raise TurnInProgress(open_row[0])
        seq_row = await (
            await conn.execute(
                "UPDATE conversations SET last_seq = last_seq + 1 WHERE conversation_id = %s"
                " RETURNING last_seq",
                (conversation_id,),
            )
        ).fetchone()
        assert seq_row is not None
        seq = int(seq_row[0])
        turn_id = turn_id_for(conversation_id, seq)
        await conn.execute(
            "INSERT INTO turns (turn_id, conversation_id, seq, status, question)"
            " VALUES (%s, %s, %s, 'running', %s)",
            (turn_id, conversation_id, seq, question),
        )
        if idempotency is not None:
            await conn.execute(
                "INSERT INTO idempotency_keys (conversation_id, key, request_hash, turn_id)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (conversation_id, key) DO UPDATE"
                " SET request_hash = excluded.request_hash, turn_id = excluded.turn_id,"
                " created_at = now()",
                (conversation_id, idempotency[0], idempotency[1], turn_id),
            )
        return Allocation(turn_id=turn_id, seq=seq)


async def forget_turn(conn: AsyncConnection, turn_id: str) -> None:
    """Undo an allocation whose workflow never started (nothing half-written)."""
    async with conn.transaction():
        await conn.execute("DELETE FROM idempotency_keys WHERE turn_id = %s", (turn_id,))
        await conn.execute("DELETE FROM turns WHERE turn_id = %s AND result IS NULL", (turn_id,))


async def get_turn(conn: AsyncConnection, turn_id: str) -> TurnResult | None:
    row = await (
        await conn.execute(
            "SELECT conversation_id, status, question, result FROM turns WHERE turn_id = %s",
            (turn_id,),
        )
    ).fetchone()
    if row is None:
        return None
    if row[3] is not None:
        return TurnResult.model_validate(row[3])
    return TurnResult(turn_id=turn_id, conversation_id=row[0], status=row[1], question=row[2])


async def conversation_exists(conn: AsyncConnection, conversation_id: str) -> bool:
    row = await (
        await conn.execute(
            "SELECT 1 FROM conversations WHERE conversation_id = %s", (conversation_id,)
        )
    ).fetchone()
    return row is not None


async def recent_user_questions(
    conn: AsyncConnection, conversation_id: str, before_seq: int, limit: int = 10
) -> list[str]:
    """Resolved user questions of earlier turns, oldest first."""
    rows = await (
        await conn.execute(
            "SELECT coalesce(m.resolved, m.content) FROM messages m JOIN turns t USING (turn_id)"
            " WHERE m.conversation_id = %s AND m.role = 'user' AND t.seq < %s"
            " ORDER BY t.seq DESC LIMIT %s",
            (conversation_id, before_seq, limit),
        )
    ).fetchall()
    return [r[0] for r in reversed(rows)]


async def list_messages(conn: AsyncConnection, conversation_id: str) -> list[MessageRow]:
    rows = await (
        await conn.execute(
            "SELECT turn_id, role, content, resolved, status, citations FROM messages"
            " WHERE conversation_id = %s ORDER BY message_id",
            (conversation_id,),
        )
    ).fetchall()
    return [
        MessageRow(
            turn_id=r[0], role=r[1], content=r[2], resolved=r[3], status=r[4], citations=r[5]
        )
        for r in rows
    ]


async def save_turn(conn: AsyncConnection, result: TurnResult, final: bool) -> None:
    """Write the turn's status and result; when final, its two messages. Idempotent."""
    async with conn.transaction():
        await conn.execute(
            "UPDATE turns SET status = %s, result = %s, updated_at = now() WHERE turn_id = %s",
            (result.status, Jsonb(result.model_dump(mode="json")), result.turn_id),
        )
        if not final:
            return
        await conn.execute(
            "INSERT INTO messages (conversation_id, turn_id, role, content, resolved, status)"
            " VALUES (%s, %s, 'user', %s, %s, %s) ON CONFLICT (turn_id, role) DO NOTHING",
            (
                result.conversation_id,
                result.turn_id,
                result.question,
                result.resolved_question,
                result.status,
            ),
        )
        await conn.execute(
            "INSERT INTO messages (conversation_id, turn_id, role, content, status, citations)"
            " VALUES (%s, %s, 'assistant', %s, %s, %s) ON CONFLICT (turn_id, role) DO NOTHING",
            (
                result.conversation_id,
                result.turn_id,
                result.answer or result.clarifying_question or "",
                result.status,
                Jsonb([c.model_dump(mode="json") for c in result.citations]),
            ),
        )
