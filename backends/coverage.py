"""The coverage of one report index: the reports it holds, and who their companies are.

What is held comes from the index itself (its documents' company and fiscal year, read
with the corpus version); who each company is (name, aliases, fiscal-year end,
currency) from the company registry in PostgreSQL, registered by the ingest step. A
company the registry does not describe (an index filled directly, as tests and
benchmarks do) keeps the description the process already had, else goes by its ticker.

Each index has one reader (`reader_for`): the turn's first step
(`postgres_read_coverage`) asks it, every activity bound to that index runs with its
coverage pinned (`PinCoverage`, a worker interceptor, so no implementation has to
remember), and an ingestion marks it stale. The worker's reader also sets the process's
coverage and keeps it fresh, for the short workflows that run domain code unpinned.
When PostgreSQL cannot be read the last descriptions stand and the reading is marked
stale (the turn counts it as a degradation).
"""

import asyncio
import logging
import time
from typing import Any
from weakref import WeakKeyDictionary

from psycopg import Error as PsycopgError
from psycopg_pool import AsyncConnectionPool, PoolTimeout
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from backends.reports import ReportIndex
from db import companies as companies_db
from domain.companies.roster import Company, aliases_for, coverage, pinned, use_coverage

log = logging.getLogger(__name__)


class CoverageReader:
    def __init__(self, index: ReportIndex, pool: AsyncConnectionPool | None) -> None:
        self.index = index
        self.pool = pool
        self._described: dict[str, Company] = {}
        self._last: list[Company] | None = None
        self._read_at = 0.0
        self._lock = asyncio.Lock()
        self.owns_process = False
        """Set the process's coverage on every reading (the worker's own index)."""

    def invalidate(self) -> None:
        """The registry changed (this worker ingested): read it again next time."""
        self._read_at = 0.0

    async def read(self, max_age_seconds: float = 2.0) -> tuple[list[Company], bool]:
        """The covered companies, read at most `max_age_seconds` ago, and whether the
        descriptions are stale (PostgreSQL could not be read)."""
        async with self._lock:
            if self._last is not None and time.monotonic() - self._read_at < max_age_seconds:
                return self._last, False
            held = await asyncio.to_thread(self.index.reports)
            stale = False
            if self.pool is not None:
                try:
                    async with self.pool.connection(timeout=5) as conn:
                        found = await companies_db.registered(conn, self.index.corpus_id)
                    self._described = {c.ticker: c for c in found}
                except (PsycopgError, PoolTimeout, OSError) as exc:
                    log.warning("the company registry could not be read (%s)", exc)
                    stale = True
            companies = _covered(held, self._described, coverage().companies)
            self._last, self._read_at = companies, time.monotonic()
            if self.owns_process:
                use_coverage(companies)
            return companies, stale

    async def keep_fresh(self, every_seconds: float = 5.0) -> None:
        """Re-read the registry every few seconds, for ever (the worker cancels it)."""
        while True:
            await asyncio.sleep(every_seconds)
            try:
                await self.read(every_seconds / 2)
            except Exception as exc:  # the loop must outlive any one failed reading
                log.warning("the coverage could not be read: %s", exc)


def _covered(
    held: dict[str, tuple[int, ...]], described: dict[str, Company], known: dict[str, Company]
) -> list[Company]:
    """The companies with reports held, each with its years: registered ones first in
    registration order, then ones the process knew, then the rest by ticker."""
    order = [*described, *(t for t in known if t not in described), *sorted(held)]
    found: list[Company] = []
    for ticker in dict.fromkeys(order):
        years = held.get(ticker)
        if not years:
            continue
        company = described.get(ticker) or known.get(ticker)
        if company is None:
            company = Company(ticker, ticker, aliases_for(ticker, ticker))
        found.append(company.with_years(years))
    return found


_READERS: "WeakKeyDictionary[ReportIndex, CoverageReader]" = WeakKeyDictionary()


def reader_for(index: ReportIndex, pool: AsyncConnectionPool | None = None) -> CoverageReader:
    """The one reader of an index (given a pool once, it reads the registry)."""
    reader = _READERS.get(index)
    if reader is None:
        reader = _READERS[index] = CoverageReader(index, pool)
    elif reader.pool is None and pool is not None:
        reader.pool = pool
    return reader


class PinCoverage(Interceptor):
    """Run each activity bound to an index with that index's coverage in force."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Pinned(next)


class _Pinned(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        index = _index_of(getattr(input.fn, "__self__", None))
        if index is None:
            return await super().execute_activity(input)
        companies, _ = await reader_for(index).read()
        with pinned(companies):
            return await super().execute_activity(input)


def _index_of(boundary: object) -> ReportIndex | None:
    """The index an activity's class is bound to (directly, or through its cache)."""
    for holder in (boundary, getattr(boundary, "cache", None)):
        index = getattr(holder, "index", None)
        if isinstance(index, ReportIndex):
            return index
    return None
