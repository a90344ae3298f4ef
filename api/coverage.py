"""The API's coverage: the companies and years it validates requests against, re-read
from the company registry every few seconds (a turn reads its own in the worker).

Held on the app's state, not as the process's coverage, and pinned per check
(`pinned`): an app in a test process must not change what the rest of it sees.
"""

import asyncio
import logging

from psycopg import Error as PsycopgError
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from starlette.datastructures import State

from db import companies as companies_db
from domain.companies import coverage

log = logging.getLogger(__name__)

REFRESH_SECONDS = 5.0


async def read_coverage(state: State, pool: AsyncConnectionPool) -> None:
    """Read the registry now into `state.coverage` (the last reading stands when
    PostgreSQL cannot be read)."""
    try:
        async with pool.connection(timeout=5) as conn:
            found = await companies_db.covered_anywhere(conn)
        # What this process already knows stays known (an app run inside another
        # process, as in tests, beside the registry); the API itself starts knowing none.
        tickers = {c.ticker for c in found}
        aliases = {a for c in found for a in c.aliases}
        found += [
            c for c in coverage().companies.values()
            if c.ticker not in tickers and not aliases & set(c.aliases)
        ]  # fmt: skip
        state.coverage = found
    except (PsycopgError, PoolTimeout, OSError) as exc:
        log.warning("the company registry could not be read: %s", exc)


async def keep_coverage(state: State, pool: AsyncConnectionPool) -> None:
    """Re-read the registry for ever (the app cancels it on shutdown)."""
    while True:
        await asyncio.sleep(REFRESH_SECONDS)
        await read_coverage(state, pool)
