"""The PostgreSQL connection pool both processes use (API and worker), built one way.

Bounded waits: a checkout gives up after `timeout` (PoolTimeout), a new connection after
`connect_timeout`, every statement after `query_timeout` (on the server through
`statement_timeout`, and on the client by `BoundedConnection`), and `check` discards a
connection the server dropped instead of handing it out. Reconnection is capped:
psycopg_pool doubles its reconnect delay after every failed attempt without a ceiling,
so after a 20 s outage the pool would come back 10-12 s after PostgreSQL did (measured
by bench/chaos/). It has no option for a ceiling, so `_CappedAttempt` supplies one.
"""

from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg import errors as pg_errors
from psycopg.abc import PQGen
from psycopg_pool import AsyncConnectionPool
from psycopg_pool.base import AttemptWithBackoff

RECONNECT_CEILING_SECONDS = 2.0


class QueryTimeout(psycopg.OperationalError):
    """PostgreSQL did not answer a statement within the client's bound."""


class BoundedConnection(AsyncConnection[Any]):
    """A connection whose every wait on the server ends after `query_timeout` seconds.

    A stalled server (its processes stopped, its host frozen) keeps the socket open
    and never answers, so neither `statement_timeout` (the server's own clock) nor TCP
    keep-alives (the kernel still acknowledges) end the wait; psycopg then waits
    forever. Every statement, fetch and commit goes through `wait`, which takes a
    timeout; past it the connection is closed (its state is unknown) and
    `QueryTimeout`, an OperationalError, is raised, which the API answers with 503 and
    the pool discards. psycopg has no setting for this, hence the subclass.
    """

    query_timeout: float | None = None

    async def wait(
        self, gen: PQGen[Any], interval: float = 0.1, timeout: float | None = None
    ) -> Any:
        bound = timeout if timeout is not None else self.query_timeout
        try:
            return await super().wait(gen, interval=interval, timeout=bound)
        except pg_errors._WaitTimeout:
            if timeout is not None:  # the caller's own bound: its error, as psycopg raises
                raise
            self.pgconn.finish()
            raise QueryTimeout(f"PostgreSQL did not answer within {bound:g} s") from None


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
    max_size: int = 16,
    timeout: float = 3.0,
    connect_timeout: int = 3,
    query_timeout: float | None = None,
) -> AsyncConnectionPool:
    """An unopened pool (call `await pool.open()`), autocommit, bounded and self-healing.

    With `query_timeout`, each statement is bounded on both ends (see
    `BoundedConnection`); without it, only by the server's defaults.
    """
    _install_ceiling()
    kwargs: dict[str, Any] = {"autocommit": True, "connect_timeout": connect_timeout}
    if query_timeout is not None:
        # The server cancels a statement a moment after the client stops waiting, so a
        # query the client gave up on does not run on behind it.
        kwargs["options"] = f"-c statement_timeout={int(query_timeout * 1000) + 500}"

    async def configure(conn: AsyncConnection[Any]) -> None:
        if isinstance(conn, BoundedConnection):
            conn.query_timeout = query_timeout

    return AsyncConnectionPool(
        url,
        min_size=1,
        max_size=max_size,
        open=False,
        kwargs=kwargs,
        connection_class=BoundedConnection,
        configure=configure,
        timeout=timeout,
        check=AsyncConnectionPool.check_connection,
    )
