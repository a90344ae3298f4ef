"""The token map: the one table that holds personal data, keyed by the tokens stored
everywhere else (see `domain.pii` for the token format)."""

import hashlib
import hmac
import secrets
import string
from datetime import datetime

from psycopg import AsyncConnection

from domain.pii import TOKEN, Match, normalised, token_text

_ID_LETTERS = string.ascii_lowercase


def _new_id() -> str:
    return "".join(secrets.choice(_ID_LETTERS) for _ in range(10))


def digest(key: bytes, tenant_id: str, owner: str, match: Match) -> str:
    """A keyed hash of the value: equal values of one owner share a token, and the
    table's lookup column reveals nothing without the key."""
    message = "\x00".join((tenant_id, owner, match.kind.value, normalised(match.kind, match.value)))
    return hmac.new(key, message.encode(), hashlib.sha256).hexdigest()


async def tokens_for(
    conn: AsyncConnection, key: bytes, tenant_id: str, owner: str, matches: list[Match]
) -> list[str]:
    """The token text for each match, storing the new values (idempotent per value).

    Raises psycopg errors as they come: the caller must not store the text then.
    """
    out: list[str] = []
    for match in matches:
        row = await (
            await conn.execute(
                "INSERT INTO pii_tokens AS t (token, tenant_id, owner, kind, digest, value)"
                " VALUES (%s, %s, %s, %s, %s, %s)"
                " ON CONFLICT (tenant_id, owner, digest) DO UPDATE SET last_used_at = now()"
                " RETURNING t.token",
                (
                    token_text(match.kind, _new_id()), tenant_id, owner, match.kind.value,
                    digest(key, tenant_id, owner, match), match.value,
                ),
            )
        ).fetchone()  # fmt: skip
        if row is None:
            raise RuntimeError("the token map returned no token")
        out.append(str(row[0]))
    return out


async def values_for(
    conn: AsyncConnection, tenant_id: str, owners: list[str], texts: list[str]
) -> dict[str, str]:
    """token text → value, for the tokens in `texts` that belong to one of `owners`."""
    tokens = sorted({m.group() for text in texts for m in TOKEN.finditer(text)})
    if not tokens:
        return {}
    rows = await (
        await conn.execute(
            "SELECT token, value FROM pii_tokens"
            " WHERE tenant_id = %s AND owner = ANY(%s) AND token = ANY(%s)",
            (tenant_id, owners, tokens),
        )
    ).fetchall()
    return {str(r[0]): str(r[1]) for r in rows}


async def erase_owner(conn: AsyncConnection, tenant_id: str, owner: str) -> int:
    """Forget every value of one user; their stored text keeps bare tokens."""
    cur = await conn.execute(
        "DELETE FROM pii_tokens WHERE tenant_id = %s AND owner = %s", (tenant_id, owner)
    )
    return cur.rowcount


async def purge_unused_since(conn: AsyncConnection, cutoff: datetime) -> int:
    cur = await conn.execute("DELETE FROM pii_tokens WHERE last_used_at < %s", (cutoff,))
    return cur.rowcount


async def count_owner(conn: AsyncConnection, tenant_id: str, owner: str) -> int:
    row = await (
        await conn.execute(
            "SELECT count(*) FROM pii_tokens WHERE tenant_id = %s AND owner = %s",
            (tenant_id, owner),
        )
    ).fetchone()
    return 0 if row is None else int(row[0])
