"""Read-only share links to a turn (migration 0018): made, read and revoked."""

import secrets

from psycopg import AsyncConnection

TOKEN_BYTES = 24
"""A share id's randomness: 192 bits, URL-safe base64 (32 characters)."""


async def create(conn: AsyncConnection, turn_id: str, tenant_id: str) -> str:
    """A new share id for the tenant's turn (the caller has checked the turn is theirs)."""
    share_id = secrets.token_urlsafe(TOKEN_BYTES)
    await conn.execute(
        "INSERT INTO shares (share_id, turn_id, tenant_id) VALUES (%s, %s, %s)",
        (share_id, turn_id, tenant_id),
    )
    return share_id


async def shared(conn: AsyncConnection, share_id: str) -> tuple[str, str] | None:
    """(turn id, tenant) of a share that is not revoked, or None."""
    row = await (
        await conn.execute(
            "SELECT turn_id, tenant_id FROM shares WHERE share_id = %s AND revoked_at IS NULL",
            (share_id,),
        )
    ).fetchone()
    return None if row is None else (str(row[0]), str(row[1]))


async def revoke(conn: AsyncConnection, share_id: str, tenant_id: str) -> bool:
    """Revoke the tenant's share; False when it is unknown, another tenant's or revoked."""
    cursor = await conn.execute(
        "UPDATE shares SET revoked_at = now()"
        " WHERE share_id = %s AND tenant_id = %s AND revoked_at IS NULL",
        (share_id, tenant_id),
    )
    return cursor.rowcount == 1
