"""SQL for memory beyond the recent turns: conversation summaries and facts about users.

Summaries never delete a message: they mark the messages they cover. Facts are
versioned (valid_from / valid_to): a new value supersedes the current one, which is kept.
Erasing a user's memory deletes every version of their facts and every summary of a
conversation they asked in (the messages those covered are unmarked, so nothing of the
conversation itself is lost).
"""

from datetime import datetime

from psycopg import AsyncConnection

from domain.memory.rules import KEEP_RECENT, Preference
from domain.models import Frozen


class ToSummarise(Frozen):
    """The messages a summary would cover, and the summary they would extend."""

    message_ids: list[int]
    texts: list[str]
    previous: str | None


class FactVersion(Frozen):
    kind: str
    value: str
    statement: str
    valid_from: datetime
    valid_to: datetime | None


async def latest_summary(conn: AsyncConnection, conversation_id: str) -> str | None:
    row = await (
        await conn.execute(
            "SELECT summary, erased_at IS NOT NULL FROM conversation_summaries"
            " WHERE conversation_id = %s ORDER BY through_message_id DESC LIMIT 1",
            (conversation_id,),
        )
    ).fetchone()
    return None if row is None or row[1] else str(row[0])


async def unsummarised_count(conn: AsyncConnection, conversation_id: str, before_seq: int) -> int:
    row = await (
        await conn.execute(
            "SELECT count(*) FROM messages m JOIN turns t USING (turn_id)"
            " WHERE m.conversation_id = %s AND t.seq < %s AND m.summary_id IS NULL",
            (conversation_id, before_seq),
        )
    ).fetchone()
    return 0 if row is None else int(row[0])


async def to_summarise(
    conn: AsyncConnection, conversation_id: str, before_seq: int, keep: int = KEEP_RECENT
) -> ToSummarise:
    """The unsummarised messages before `before_seq` except the last `keep`, oldest first."""
    rows = await (
        await conn.execute(
            "SELECT m.message_id, m.role, m.content FROM messages m JOIN turns t USING (turn_id)"
            " WHERE m.conversation_id = %s AND t.seq < %s AND m.summary_id IS NULL"
            " ORDER BY m.message_id",
            (conversation_id, before_seq),
        )
    ).fetchall()
    covered = rows[:-keep] if keep else rows
    return ToSummarise(
        message_ids=[int(r[0]) for r in covered],
        texts=[f"{r[1]}: {r[2]}" for r in covered],
        previous=await latest_summary(conn, conversation_id),
    )


async def store_summary(
    conn: AsyncConnection, conversation_id: str, message_ids: list[int], summary: str
) -> bool:
    """Store a summary covering `message_ids` and mark them; idempotent (a retried call
    finds the summary stored and changes nothing). Returns whether it stored one."""
    if not message_ids:
        return False
    async with conn.transaction():
        row = await (
            await conn.execute(
                "INSERT INTO conversation_summaries"
                " (conversation_id, through_message_id, messages, summary)"
                " VALUES (%s, %s, %s, %s) ON CONFLICT (conversation_id, through_message_id)"
                " DO NOTHING RETURNING summary_id",
                (conversation_id, max(message_ids), len(message_ids), summary),
            )
        ).fetchone()
        if row is None:
            return False
        await conn.execute(
            "UPDATE messages SET summary_id = %s WHERE message_id = ANY(%s) AND summary_id IS NULL",
            (row[0], message_ids),
        )
    return True


async def remember(
    conn: AsyncConnection, tenant_id: str, user_id: str, fact: Preference, turn_id: str | None
) -> None:
    """Make `fact` the user's current value of its kind; the previous one is closed, not
    deleted. Idempotent: the same value again (a retried step) changes nothing."""
    async with conn.transaction():
        current = await (
            await conn.execute(
                "SELECT value FROM user_facts WHERE tenant_id = %s AND user_id = %s"
                " AND kind = %s AND valid_to IS NULL FOR UPDATE",
                (tenant_id, user_id, fact.kind),
            )
        ).fetchone()
        if current is not None and current[0] == fact.value:
            return
        await conn.execute(
            "UPDATE user_facts SET valid_to = now() WHERE tenant_id = %s AND user_id = %s"
            " AND kind = %s AND valid_to IS NULL",
            (tenant_id, user_id, fact.kind),
        )
        await conn.execute(
            "INSERT INTO user_facts (tenant_id, user_id, kind, value, statement, turn_id)"
            " VALUES (%s, %s, %s, %s, %s, %s)",
            (tenant_id, user_id, fact.kind, fact.value, fact.statement, turn_id),
        )


async def preferences(conn: AsyncConnection, tenant_id: str, user_id: str) -> list[Preference]:
    """The user's current facts, oldest first."""
    rows = await (
        await conn.execute(
            "SELECT kind, value, statement FROM user_facts WHERE tenant_id = %s"
            " AND user_id = %s AND valid_to IS NULL ORDER BY valid_from, fact_id",
            (tenant_id, user_id),
        )
    ).fetchall()
    return [Preference(kind=r[0], value=r[1], statement=r[2]) for r in rows]


async def fact_history(conn: AsyncConnection, tenant_id: str, user_id: str) -> list[FactVersion]:
    """Every version of the user's facts, current and superseded, oldest first."""
    rows = await (
        await conn.execute(
            "SELECT kind, value, statement, valid_from, valid_to FROM user_facts"
            " WHERE tenant_id = %s AND user_id = %s ORDER BY valid_from, fact_id",
            (tenant_id, user_id),
        )
    ).fetchall()
    return [
        FactVersion(kind=r[0], value=r[1], statement=r[2], valid_from=r[3], valid_to=r[4])
        for r in rows
    ]


async def user_summaries(conn: AsyncConnection, tenant_id: str, user_id: str) -> int:
    row = await (
        await conn.execute(
            "SELECT count(*) FROM conversation_summaries s WHERE s.erased_at IS NULL"
            " AND s.conversation_id IN ("
            " SELECT conversation_id FROM turns WHERE tenant_id = %s AND user_id = %s)",
            (tenant_id, user_id),
        )
    ).fetchone()
    return 0 if row is None else int(row[0])


async def erase_user(conn: AsyncConnection, tenant_id: str, user_id: str) -> tuple[int, int]:
    """Delete every version of the user's facts, and erase every summary of a conversation
    they asked in: its text is emptied and its row kept as a tombstone, so the messages
    it covered (never deleted) stay marked and are not summarised again into a copy of
    what was erased. A summary of a conversation two users shared goes for either.
    Returns (facts, summaries)."""
    async with conn.transaction():
        facts = await conn.execute(
            "DELETE FROM user_facts WHERE tenant_id = %s AND user_id = %s", (tenant_id, user_id)
        )
        summaries = await conn.execute(
            "UPDATE conversation_summaries SET summary = '', erased_at = now()"
            " WHERE erased_at IS NULL AND conversation_id IN ("
            " SELECT conversation_id FROM turns WHERE tenant_id = %s AND user_id = %s)",
            (tenant_id, user_id),
        )
    return facts.rowcount, summaries.rowcount
