"""A token bucket per caller, in PostgreSQL so every API process shares it.

Hand-written: the well-kept limiters (`limits`, slowapi) offer fixed and sliding
windows, not a token bucket, and keep their state in memory or Redis; one statement
here refills, checks and takes a token atomically, in the database the API already has.
"""

import math
from datetime import timedelta

from psycopg import AsyncConnection


async def take(conn: AsyncConnection, bucket: str, rate_per_second: float, burst: int) -> float:
    """Take one token; return 0 when taken, else the seconds until one is available."""
    params = {"bucket": bucket, "rate": rate_per_second, "burst": float(burst)}
    available = (
        "LEAST(%(burst)s, b.tokens"
        " + extract(epoch FROM clock_timestamp() - b.updated_at) * %(rate)s)"
    )
    row = await (
        await conn.execute(
            "INSERT INTO rate_buckets AS b (bucket, tokens, updated_at)"
            " VALUES (%(bucket)s, %(burst)s - 1, clock_timestamp())"
            f" ON CONFLICT (bucket) DO UPDATE SET tokens = {available} - 1,"
            " updated_at = clock_timestamp()"
            f" WHERE {available} >= 1 RETURNING b.tokens",
            params,
        )
    ).fetchone()
    if row is not None:
        return 0.0
    left = await (
        await conn.execute(
            f"SELECT {available} FROM rate_buckets b WHERE bucket = %(bucket)s", params
        )
    ).fetchone()
    have = float(left[0]) if left is not None else 0.0
    return max(0.001, (1 - have) / rate_per_second)


async def purge_idle(conn: AsyncConnection, idle: timedelta) -> int:
    """Remove buckets untouched for `idle`: a bucket that old is full, the same as none."""
    cur = await conn.execute(
        "DELETE FROM rate_buckets WHERE updated_at < clock_timestamp() - %s", (idle,)
    )
    return cur.rowcount


def retry_after_header(seconds: float) -> str:
    """Retry-After in whole seconds, never 0 (a client would retry at once)."""
    return str(max(1, math.ceil(seconds)))
