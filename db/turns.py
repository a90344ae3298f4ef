"""SQL for conversations, turns and messages, shared by the API and the session activities."""

import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb
from pydantic import BaseModel, ConfigDict

from db import audit
from domain.memory.rules import KEEP_RECENT, RecentMessage
from domain.turns import OPEN, WAITING, TurnResult, TurnStatus
from domain.usage import Price, Usage, usage_of

IDEMPOTENCY_TTL = timedelta(hours=24)


class TurnInProgress(Exception):
    def __init__(self, turn_id: str) -> None:
        super().__init__(turn_id)
        self.turn_id = turn_id


class ConversationNotFound(Exception):
    """The conversation id belongs to another tenant: to this caller it does not exist."""


class IdempotencyMismatch(Exception):
    """The key was used before with a different request body."""


class Allocation(BaseModel):
    model_config = ConfigDict(frozen=True)
    turn_id: str
    conversation_id: str
    seq: int
    replayed: bool = False
    clarifications_before: int = 0
    """Clarifying questions the conversation's earlier turns asked (its cap's count)."""


class Settled(BaseModel):
    """A turn this save settled: how long it took, whose it is, what its models used."""

    model_config = ConfigDict(frozen=True)
    seconds: float
    tenant_id: str
    usage: Usage


class MessageRow(BaseModel):
    model_config = ConfigDict(frozen=True)
    turn_id: str
    role: str
    content: str
    resolved: str | None
    status: str
    citations: list[dict[str, object]]
    summarised: bool = False


def turn_id_for(conversation_id: str, seq: int) -> str:
    return f"turn-{conversation_id}-{seq}"


def new_conversation_id() -> str:
    return f"c{uuid.uuid4().hex[:16]}"


DEFAULT_TENANT = "default"
"""The development tenant, and the owner of rows from before tenants (0006's default)."""


def idempotency_scope(
    conversation_id: str | None, user_id: str | None, tenant_id: str = DEFAULT_TENANT
) -> str:
    """Where an Idempotency-Key is unique: the conversation named, else the user.

    Without a conversation id each request would start a new conversation, so a key
    scoped by conversation could never match its retry; the user (or, with no user id,
    the anonymous caller) is the scope instead.
    """
    if conversation_id is not None:
        return f"conversation:{conversation_id}"
    if tenant_id != DEFAULT_TENANT:
        # Tenant ids have no ":", and this prefix differs from the default tenant's.
        return f"tenant:{tenant_id}:user:{user_id or ''}"
    return f"user:{user_id or ''}"


async def allocate_turn(
    conn: AsyncConnection,
    conversation_id: str | None,
    user_id: str | None,
    question: str,
    idempotency: tuple[str, str] | None = None,
    *,
    tenant_id: str = DEFAULT_TENANT,
) -> Allocation:
    """Atomically: lock the conversation, refuse if a turn is open, allocate the next seq,
    insert the turn as `running`, and record the idempotency key.

    `conversation_id` None starts a new conversation. `idempotency` is (key, request
    hash): a key seen before in its scope (`idempotency_scope`) with the same hash
    returns the first turn (`replayed`), with a different hash raises
    IdempotencyMismatch. Raises TurnInProgress, and ConversationNotFound for another
    tenant's conversation; nothing is written on any error.
    """
    # One transaction: the helpers run their statements on its connection, so the
    # conversation's row lock is held until the turn and its key are written, and any
    # error rolls back everything.
    async with conn.transaction():
        # Scoped by the conversation as the request named it (None: the user's scope).
        scope = idempotency_scope(conversation_id, user_id, tenant_id)
        if idempotency is not None:
            replayed = await _replayed(conn, scope, idempotency, tenant_id)
            if replayed is not None:
                return replayed
        conversation_id = conversation_id or new_conversation_id()
        await _lock_conversation(conn, conversation_id, user_id, tenant_id)
        seq, turn_id = await _insert_turn(conn, conversation_id, question, tenant_id, user_id)
        if idempotency is not None:
            await _remember_key(conn, scope, idempotency, turn_id)
        before = await _clarifications_before(conn, conversation_id, seq)
        return Allocation(
            turn_id=turn_id, conversation_id=conversation_id, seq=seq, clarifications_before=before
        )


async def _replayed(
    conn: AsyncConnection, scope: str, idempotency: tuple[str, str], tenant_id: str
) -> Allocation | None:
    """The turn a live key of `scope` allocated before, or None; IdempotencyMismatch when
    the key came with another request. In `allocate_turn`'s transaction: it takes the
    key's transaction lock."""
    key, request_hash = idempotency
    # Two identical requests at once: the second waits here for the first's key.
    await conn.execute(
        "SELECT pg_advisory_xact_lock(hashtextextended(%s, 7233))", (f"{scope} {key}",)
    )
    row = await (
        await conn.execute(
            "SELECT k.request_hash, k.turn_id, t.conversation_id, t.seq"
            " FROM idempotency_keys k JOIN turns t USING (turn_id)"
            " WHERE k.scope = %s AND k.key = %s AND k.created_at > now() - %s"
            " AND t.tenant_id = %s",
            (scope, key, IDEMPOTENCY_TTL, tenant_id),
        )
    ).fetchone()
    if row is None:
        return None
    if row[0] != request_hash:
        raise IdempotencyMismatch(key)
    before = await _clarifications_before(conn, row[2], row[3])
    return Allocation(
        turn_id=row[1],
        conversation_id=row[2],
        seq=row[3],
        replayed=True,
        clarifications_before=before,
    )


async def _lock_conversation(
    conn: AsyncConnection, conversation_id: str, user_id: str | None, tenant_id: str
) -> None:
    """Create the conversation if new and lock its row until the transaction ends;
    ConversationNotFound when it is another tenant's, TurnInProgress when one of its
    turns is running or waiting for a reply."""
    await conn.execute(
        "INSERT INTO conversations (conversation_id, user_id, tenant_id) VALUES (%s, %s, %s)"
        " ON CONFLICT (conversation_id) DO NOTHING",
        (conversation_id, user_id, tenant_id),
    )
    owner = await (
        await conn.execute(
            "SELECT tenant_id FROM conversations WHERE conversation_id = %s FOR UPDATE",
            (conversation_id,),
        )
    ).fetchone()
    if owner is None or owner[0] != tenant_id:
        raise ConversationNotFound(conversation_id)
    open_row = await (
        await conn.execute(
            "SELECT turn_id FROM turns WHERE conversation_id = %s"
            " AND status IN ('running', 'needs_clarification') ORDER BY seq DESC LIMIT 1",
            (conversation_id,),
        )
    ).fetchone()
    if open_row is not None:
        raise TurnInProgress(open_row[0])


async def _insert_turn(
    conn: AsyncConnection, conversation_id: str, question: str, tenant_id: str, user_id: str | None
) -> tuple[int, str]:
    """Take the conversation's next turn number (its row locked by the caller) and insert
    that turn as `running`; returns (seq, turn id)."""
    seq_row = await (
        await conn.execute(
            "UPDATE conversations SET last_seq = last_seq + 1 WHERE conversation_id = %s"
            " RETURNING last_seq",
            (conversation_id,),
        )
    ).fetchone()
    if seq_row is None:  # inserted in this transaction
        raise RuntimeError(f"conversation {conversation_id} vanished while allocating")
    seq = int(seq_row[0])
    turn_id = turn_id_for(conversation_id, seq)
    await conn.execute(
        "INSERT INTO turns (turn_id, conversation_id, seq, status, question, tenant_id,"
        " user_id) VALUES (%s, %s, %s, 'running', %s, %s, %s)",
        (turn_id, conversation_id, seq, question, tenant_id, user_id),
    )
    return seq, turn_id


async def _remember_key(
    conn: AsyncConnection, scope: str, idempotency: tuple[str, str], turn_id: str
) -> None:
    """Record the key and its request's hash for the turn (an expired key of the same
    scope is taken over)."""
    await conn.execute(
        "INSERT INTO idempotency_keys (scope, key, request_hash, turn_id)"
        " VALUES (%s, %s, %s, %s) ON CONFLICT (scope, key) DO UPDATE"
        " SET request_hash = excluded.request_hash, turn_id = excluded.turn_id,"
        " created_at = now()",
        (scope, idempotency[0], idempotency[1], turn_id),
    )


async def _clarifications_before(conn: AsyncConnection, conversation_id: str, seq: int) -> int:
    """Clarifying questions asked by the conversation's turns before `seq` (each round's
    question is kept in `asked` once shown)."""
    row = await (
        await conn.execute(
            "SELECT coalesce(sum(jsonb_array_length(asked)), 0) FROM turns"
            " WHERE conversation_id = %s AND seq < %s",
            (conversation_id, seq),
        )
    ).fetchone()
    return int(row[0]) if row is not None else 0


async def forget_turn(conn: AsyncConnection, turn_id: str) -> None:
    """Undo an allocation whose workflow never started (nothing half-written)."""
    async with conn.transaction():
        await conn.execute("DELETE FROM idempotency_keys WHERE turn_id = %s", (turn_id,))
        await conn.execute("DELETE FROM turns WHERE turn_id = %s AND result IS NULL", (turn_id,))


async def get_turn(
    conn: AsyncConnection, turn_id: str, tenant_id: str | None = None
) -> TurnResult | None:
    """The turn as stored; its `status` column wins over the stored result's status.

    They differ only between a clarification reply (or cancel) claiming a waiting turn
    (`claim_waiting`) and the workflow's own next save. With `tenant_id`, another
    tenant's turn is None, like one that does not exist.
    """
    row = await (
        await conn.execute(
            "SELECT conversation_id, status, question, result FROM turns WHERE turn_id = %s"
            " AND tenant_id = coalesce(%s, tenant_id)",
            (turn_id, tenant_id),
        )
    ).fetchone()
    if row is None:
        return None
    if row[3] is not None:
        result = TurnResult.model_validate(row[3])
        if result.status != row[1]:
            result = result.model_copy(update={"status": row[1]})
        return result
    return TurnResult(turn_id=turn_id, conversation_id=row[0], status=row[1], question=row[2])


async def claim_waiting(conn: AsyncConnection, turn_id: str) -> int | None:
    """Claim a turn waiting for a clarification, for exactly one reply or cancel.

    Atomically moves the row from `needs_clarification` to `running` and returns the
    round it was waiting in; returns None when it is not waiting (someone else claimed
    it, or it settled). The caller then signals the workflow, or calls `unclaim` if the
    signal could not be sent.
    """
    row = await (
        await conn.execute(
            "UPDATE turns SET status = 'running', updated_at = now()"
            " WHERE turn_id = %s AND status = 'needs_clarification'"
            " RETURNING coalesce((result->>'clarification_round')::int, 0)",
            (turn_id,),
        )
    ).fetchone()
    return None if row is None else int(row[0])


async def unclaim(conn: AsyncConnection, turn_id: str) -> None:
    """Undo `claim_waiting` when the signal was not delivered: the turn waits again."""
    await conn.execute(
        "UPDATE turns SET status = 'needs_clarification' WHERE turn_id = %s"
        " AND status = 'running' AND result->>'status' = 'needs_clarification'",
        (turn_id,),
    )


async def open_turns_to_sweep(conn: AsyncConnection, quiet_for: timedelta, limit: int) -> list[str]:
    """Open turns untouched for `quiet_for`, least recently swept first; marks them swept."""
    rows = await (
        await conn.execute(
            "UPDATE turns SET swept_at = now() WHERE turn_id IN ("
            " SELECT turn_id FROM turns WHERE status IN ('running', 'needs_clarification')"
            " AND updated_at < now() - %s"
            " ORDER BY swept_at NULLS FIRST, updated_at LIMIT %s FOR UPDATE SKIP LOCKED)"
            " RETURNING turn_id",
            (quiet_for, limit),
        )
    ).fetchall()
    return [r[0] for r in rows]


async def settle_closed_turn(
    conn: AsyncConnection, turn_id: str, status: TurnStatus, reason: str, answer: str
) -> TurnResult | None:
    """Record the terminal status of a turn whose workflow closed without saving one.

    Writes the result and the conversation's two messages, like a settled turn, so the
    conversation reads whole. Returns None (and writes nothing) when the turn is not
    open any more: the workflow or another reconciler got there first.
    """
    async with conn.transaction():
        row = await (
            await conn.execute(
                "SELECT conversation_id, status, question, result FROM turns"
                " WHERE turn_id = %s FOR UPDATE",
                (turn_id,),
            )
        ).fetchone()
        if row is None or row[1] not in OPEN:
            return None
        stored = (
            TurnResult.model_validate(row[3])
            if row[3] is not None
            else TurnResult(
                turn_id=turn_id, conversation_id=row[0], status="running", question=row[2]
            )
        )
        result = stored.model_copy(
            update={
                "status": status,
                "answer": answer,
                "clarifying_question": None,
                "expires_at": None,
                "failure_reason": reason,
            }
        )
        await save_turn(conn, result, final=True)
        return result


async def conversation_exists(
    conn: AsyncConnection, conversation_id: str, tenant_id: str | None = None
) -> bool:
    """Whether the conversation exists (for `tenant_id`, when given); an expired one
    (its tombstone, `db.expiry`) does not."""
    row = await (
        await conn.execute(
            "SELECT 1 FROM conversations WHERE conversation_id = %s"
            " AND tenant_id = coalesce(%s, tenant_id) AND expired_at IS NULL",
            (conversation_id, tenant_id),
        )
    ).fetchone()
    return row is not None


async def conversation_users(conn: AsyncConnection, conversation_id: str) -> list[str | None]:
    """The distinct users who asked in a conversation (None for anonymous turns)."""
    rows = await (
        await conn.execute(
            "SELECT DISTINCT user_id FROM turns WHERE conversation_id = %s", (conversation_id,)
        )
    ).fetchall()
    return [r[0] for r in rows]


async def turn_owner(conn: AsyncConnection, turn_id: str) -> tuple[str, str | None] | None:
    """(tenant, user id) of a turn, or None when there is no such turn."""
    row = await (
        await conn.execute("SELECT tenant_id, user_id FROM turns WHERE turn_id = %s", (turn_id,))
    ).fetchone()
    return None if row is None else (str(row[0]), row[1])


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


async def recent_messages(
    conn: AsyncConnection, conversation_id: str, before_seq: int, limit: int = KEEP_RECENT
) -> list[RecentMessage]:
    """The last `limit` messages of earlier turns, oldest first, as stored (summarised or
    not: the summary covers the older ones, these are what was just said)."""
    rows = await (
        await conn.execute(
            "SELECT m.role, m.content FROM messages m JOIN turns t USING (turn_id)"
            " WHERE m.conversation_id = %s AND t.seq < %s"
            " ORDER BY m.message_id DESC LIMIT %s",
            (conversation_id, before_seq, limit),
        )
    ).fetchall()
    return [RecentMessage(role=r[0], text=r[1]) for r in reversed(rows)]


async def list_messages(conn: AsyncConnection, conversation_id: str) -> list[MessageRow]:
    rows = await (
        await conn.execute(
            "SELECT turn_id, role, content, resolved, status, citations,"
            " summary_id IS NOT NULL FROM messages"
            " WHERE conversation_id = %s ORDER BY message_id",
            (conversation_id,),
        )
    ).fetchall()
    return [
        MessageRow(
            turn_id=r[0],
            role=r[1],
            content=r[2],
            resolved=r[3],
            status=r[4],
            citations=r[5],
            summarised=r[6],
        )
        for r in rows
    ]


async def save_turn(
    conn: AsyncConnection,
    result: TurnResult,
    final: bool,
    prices: Mapping[str, Price] | None = None,
) -> Settled | None:
    """Write the turn's status and result; when final, its two messages and its decision
    record (with its usage and cost at `prices`). Idempotent.

    Returns what settled when this call is the one that settled it (it wrote the
    assistant message), else None: a retried save settles nothing twice, so whoever
    counts settled turns counts each once.
    """
    # long: one transaction's statements in order; split, what commits together would be hidden.
    async with conn.transaction():
        await _keep_asked(conn, result)
        cur = await conn.execute(
            "UPDATE turns SET status = %s, result = %s, updated_at = now() WHERE turn_id = %s"
            " RETURNING extract(epoch FROM now() - created_at), tenant_id, asked",
            (result.status, Jsonb(result.model_dump(mode="json")), result.turn_id),
        )
        row = await cur.fetchone()
        if not final:
            return None
        asked = [] if row is None else list(row[2])
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
        inserted = await conn.execute(
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
        usage = usage_of(result.model_trace, prices or {})
        tenant_id = None if row is None else str(row[1])
        if inserted.rowcount != 1 or row is None:
            # Settled before (a retried save, or settled by the sweeper): the record
            # exists unless the turn predates the decision record.
            await audit.append(conn, result, None, tenant_id, usage, asked)
            return None
        settled = Settled(seconds=float(row[0]), tenant_id=str(row[1]), usage=usage)
        await audit.append(conn, result, settled.seconds, tenant_id, usage, asked)
        return settled


async def _keep_asked(conn: AsyncConnection, result: TurnResult) -> None:
    """Keep a clarifying question being shown, once per round: the result keeps only the
    last one, and the decision record names every text the person was shown."""
    if result.status != WAITING or result.clarifying_question is None:
        return
    number = result.clarification_round
    await conn.execute(
        "UPDATE turns SET asked = asked || %s WHERE turn_id = %s AND NOT asked @> %s",
        (
            Jsonb([{"round": number, "text": result.clarifying_question}]),
            result.turn_id,
            Jsonb([{"round": number}]),
        ),
    )


class ConversationRow(BaseModel):
    """One conversation as a list shows it: its first question (what it is about: a
    follow-up such as "and the previous year?" names nothing), its latest turn's question
    and status."""

    model_config = ConfigDict(frozen=True)
    conversation_id: str
    user_id: str | None
    turns: int
    last_turn_id: str
    first_question: str
    last_question: str
    last_status: str
    started_at: datetime
    updated_at: datetime


_CONVERSATIONS = (
    "SELECT c.conversation_id, c.user_id, count(t.turn_id),"
    " (array_agg(t.turn_id ORDER BY t.seq DESC))[1],"
    " (array_agg(t.question ORDER BY t.seq))[1],"
    " (array_agg(t.question ORDER BY t.seq DESC))[1],"
    " (array_agg(t.status ORDER BY t.seq DESC))[1], c.created_at, max(t.updated_at)"
    " FROM conversations c JOIN turns t ON t.conversation_id = c.conversation_id"
)


async def list_conversations(
    conn: AsyncConnection, tenant_id: str, user_id: str | None, limit: int
) -> list[ConversationRow]:
    """A user's conversations in a tenant (the anonymous caller's when `user_id` is None),
    the latest active first."""
    rows = await (
        await conn.execute(
            _CONVERSATIONS + " WHERE c.tenant_id = %s AND c.user_id IS NOT DISTINCT FROM %s"
            " GROUP BY c.conversation_id ORDER BY max(t.updated_at) DESC LIMIT %s",
            (tenant_id, user_id, limit),
        )
    ).fetchall()
    keys = ConversationRow.model_fields
    return [ConversationRow(**dict(zip(keys, r, strict=True))) for r in rows]


async def get_conversation(
    conn: AsyncConnection, conversation_id: str, tenant_id: str
) -> ConversationRow | None:
    """One conversation of the tenant with its latest turn, or None."""
    row = await (
        await conn.execute(
            _CONVERSATIONS + " WHERE c.conversation_id = %s AND c.tenant_id = %s"
            " GROUP BY c.conversation_id",
            (conversation_id, tenant_id),
        )
    ).fetchone()
    keys = ConversationRow.model_fields
    return None if row is None else ConversationRow(**dict(zip(keys, row, strict=True)))
