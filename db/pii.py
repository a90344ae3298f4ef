"""The token map: the one table that holds personal data, keyed by the tokens stored
everywhere else (see `domain.checks.pii` for the token format)."""

import hashlib
import hmac
import secrets
import string
from datetime import datetime

from psycopg import AsyncConnection

from domain.checks.pii import TOKEN, Match, normalised, token_text

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

    One statement for all of them, so a text holding hundreds of values costs one round
    trip, not hundreds (holding a pooled connection meanwhile). Raises psycopg errors as
    they come: the caller must not store the text then.
    """
    rows: dict[str, tuple[str, str, str, str, str, str]] = {}
    digests = [digest(key, tenant_id, owner, match) for match in matches]
    for match, value_digest in zip(matches, digests, strict=True):
        rows.setdefault(
            value_digest,
            (
                token_text(match.kind, _new_id()),
                tenant_id,
                owner,
                match.kind.value,
                value_digest,
                match.value,
            ),
        )
    placeholders = ", ".join(["(%s, %s, %s, %s, %s, %s)"] * len(rows))
    cursor = await conn.execute(
        "INSERT INTO pii_tokens AS t (token, tenant_id, owner, kind, digest, value)"
        f" VALUES {placeholders}"
        " ON CONFLICT (tenant_id, owner, digest) DO UPDATE SET last_used_at = now()"
        " RETURNING t.digest, t.token",
        [field for row in rows.values() for field in row],
    )
    token_of = {str(d): str(t) for d, t in await cursor.fetchall()}
    missing = set(digests) - set(token_of)
    if missing:
        raise RuntimeError("the token map returned no token for a value")
    return [token_of[d] for d in digests]


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
