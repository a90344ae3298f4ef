"""The API's coverage: the companies and years it validates requests against, re-read
from the company registry every few seconds (a turn reads its own in the worker).

Held on the app's state, not as the process's coverage, and pinned per check
(`pinned`): an app in a test process must not change what the rest of it sees.
"""

import asyncio
import logging
import time

from psycopg import Error as PsycopgError
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from starlette.datastructures import State

from db import companies as companies_db
from domain.companies.roster import Company, check_company, check_fiscal_year, coverage, pinned

log = logging.getLogger(__name__)

REFRESH_SECONDS = 5.0
FRESH_SECONDS = 0.5
"""A name or year the last reading lacks is checked against a reading at most this old:
a report ingested by a worker (the sample at start-up) or by another API process is
known at once, and a stream of unknown names costs one registry read per half second."""


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
            c
            for c in coverage().companies.values()
            if c.ticker not in tickers and not aliases & set(c.aliases)
        ]
        state.coverage = found
        state.coverage_read_at = time.monotonic()
    except (PsycopgError, PoolTimeout, OSError) as exc:
        log.warning("the company registry could not be read: %s", exc)


async def keep_coverage(state: State, pool: AsyncConnectionPool) -> None:
    """Re-read the registry for ever (the app cancels it on shutdown)."""
    while True:
        await asyncio.sleep(REFRESH_SECONDS)
        await read_coverage(state, pool)


async def checked(
    state: State, pool: AsyncConnectionPool, company: str | None, fiscal_year: int | None
) -> str | None:
    """The ticker of `company` (None for none), when the registry holds it and the year.

    Checked against the last reading first; what that lacks is checked again against a
    fresh one before it is refused (ValueError naming the coverage), since the periodic
    reading can be seconds behind a report just ingested.
    """
    try:
        return _check(state, company, fiscal_year)
    except ValueError:
        if time.monotonic() - getattr(state, "coverage_read_at", 0.0) > FRESH_SECONDS:
            await read_coverage(state, pool)
        return _check(state, company, fiscal_year)


def _check(state: State, company: str | None, fiscal_year: int | None) -> str | None:
    with pinned(state.coverage):
        ticker = check_company(company)
        check_fiscal_year(fiscal_year)
        return ticker


async def held(state: State, pool: AsyncConnectionPool) -> list[Company]:
    """The companies held, read again when the last reading is older than
    `FRESH_SECONDS` (a list shown to people must not lag a report just ingested)."""
    if time.monotonic() - getattr(state, "coverage_read_at", 0.0) > FRESH_SECONDS:
        await read_coverage(state, pool)
    return list(state.coverage)
