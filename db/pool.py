"""The PostgreSQL connection pool both processes use (API and worker), built one way.

Bounded waits: a checkout gives up after `timeout` (PoolTimeout), a new connection after
`connect_timeout`, and `check` discards a connection the server dropped instead of
handing it out. Reconnection is capped: psycopg_pool doubles its reconnect delay after
every failed attempt without a ceiling, so after a 20 s outage the pool would come back
10-12 s after PostgreSQL did (measured by bench/chaos.py). It has no option for a
ceiling, so `_CappedAttempt` supplies one.
"""

from psycopg_pool import AsyncConnectionPool
from psycopg_pool.base import AttemptWithBackoff

RECONNECT_CEILING_SECONDS = 2.0


class _CappedAttempt(AttemptWithBackoff):
    def update_delay(self, now: float) -> None:
        super().update_delay(now)
        self.delay = min(self.delay, RECONNECT_CEILING_SECONDS)


def _install_ceiling() -> None:
    """Make the pool's reconnect attempts use `_CappedAttempt` (idempotent).

    psycopg_pool builds its attempts from the module-level `AttemptWithBackoff` name in
    `psycopg_pool.pool_async`; pointing that name at the subclass changes only the delay.
    A unit test pins that name, so an upgrade that moves it fails loudly, not silently.
    """
    import psycopg_pool.pool_async as pool_async

    pool_async.AttemptWithBackoff = _CappedAttempt  # type: ignore[attr-defined]


def make_pool(
    url: str,
    *,
    max_size: int = 8,
    timeout: float = 3.0,
    connect_timeout: int = 3,
) -> AsyncConnectionPool:
    """An unopened pool (call `await pool.open()`), autocommit, bounded and self-healing."""
    _install_ceiling()
    return AsyncConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        open=False,
        kwargs={"autocommit": True, "connect_timeout": connect_timeout},
        timeout=timeout,
        check=AsyncConnectionPool.check_connection,
    )
