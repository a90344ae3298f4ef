"""Activities at the Qdrant report-chunk boundary: search, load by id, ingest a file.

Each heartbeats while its work runs in a thread (`backends.heartbeat`), so a dead
worker's attempt is retried after the policy's heartbeat timeout.
"""

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool
from temporalio import activity

from activities import steps
from activities.contracts import (
    ChunkLocator,
    CoverageRead,
    CoverageRequest,
    FoundChunks,
    IngestFileRequest,
    IngestFileResult,
    SearchRequest,
    SearchResult,
)
from activities.steps import implements
from backends.coverage import CoverageReader, reader_for
from backends.heartbeat import heartbeating
from backends.reports import ReportIndex, read_index
from db import companies as companies_db
from db import documents, facts
from domain.companies.roster import Company, coverage, pinned
from domain.models import ChunkText
from domain.reports.facts import report_facts
from ingestion.companies import CompaniesFileError, Description, companies_beside
from ingestion.documents import DocumentError, ParsedDocument, parse_document
from ingestion.registry import Registered, admit, refusal


class ReportActivities:
    """Bound to the worker's one `ReportIndex` (the worker owns the Qdrant folder).

    With a `pool`, ingestion goes through the document registry in PostgreSQL; without
    one (tests that only search, or build an index in memory) every file is admitted.
    """

    def __init__(
        self, index: ReportIndex, pool: AsyncConnectionPool | None = None, ocr: bool = False
    ) -> None:
        self.index = index
        self.pool = pool
        self.ocr = ocr  # TURNSTILE_OCR: read pages without a usable text layer by OCR

    @property
    def coverage(self) -> CoverageReader:
        """The index's coverage reader (shared with the worker's other activities)."""
        return reader_for(self.index, self.pool)

    def activities(self) -> list[Callable[..., Any]]:
        """This class's activities, bound, for the worker's registry."""
        return [
            self.search_chunks,
            self.load_chunks,
            self.find_chunks,
            self.ingest_file,
            self.corpus_version,
            self.read_coverage,
        ]

    @implements(steps.postgres_read_coverage)
    async def read_coverage(self, request: CoverageRequest) -> CoverageRead:
        """The companies whose reports the index holds, as the registry describes them."""
        if request.snapshot is None:
            reader = self.coverage
        else:
            reader = reader_for(read_index(self.index, request.snapshot), self.pool)
        found, stale = await reader.read(request.max_age_seconds)
        return CoverageRead(companies=found, stale=stale)

    @implements(steps.qdrant_search_chunks)
    async def search_chunks(self, request: SearchRequest) -> SearchResult:
        """Hybrid search (dense + BM25, RRF). Read-only, so safe to retry."""
        notes: list[str] = []
        async with heartbeating():
            index = read_index(self.index, request.snapshot)
            hits = await asyncio.to_thread(
                index.search,
                request.query,
                request.company,
                request.fiscal_years,
                request.limit,
                request.later_years,
                notes,
                request.config,
                request.facets,
            )
            version = await asyncio.to_thread(index.corpus_version)
        return SearchResult(hits=hits, degraded=notes, corpus_version=version)

    @implements(steps.qdrant_load_chunks)
    async def load_chunks(self, chunk_ids: list[str]) -> list[ChunkText]:
        """Load full chunk text by id (the claim check behind previews in history)."""
        async with heartbeating():
            return await asyncio.to_thread(self.index.get_chunks, chunk_ids)

    @implements(steps.qdrant_find_chunks)
    async def find_chunks(self, locators: list[ChunkLocator]) -> FoundChunks:
        """The id of the one chunk on each locator's page holding its text (None when no
        chunk or several do: an ambiguous locator must not pick one silently)."""
        async with heartbeating():
            ids = []
            for loc in locators:
                found = await asyncio.to_thread(
                    self.index.find, loc.company, loc.fiscal_year, loc.page, loc.contains
                )
                ids.append(found[0] if len(found) == 1 else None)
            return FoundChunks(chunk_ids=ids)

    @implements(steps.qdrant_ingest_file)
    async def ingest_file(self, request: IngestFileRequest) -> IngestFileResult:
        """Parse, check against the registry, embed and upsert one file. Idempotent.

        A file that cannot be parsed is a result with status `failed`, and a different
        file for a company and year already registered is `refused` (unless `replace`),
        not an error, so the workflow reports it and the other files still ingest. The
        registry entry is locked from the check until it is recorded, after the chunks
        are stored: a retried attempt finds either the old entry or the new one, and
        storing the same document again writes nothing.
        """
        async with heartbeating():
            registered, resolvable = await self._companies()
            try:
                doc = await asyncio.to_thread(self._parse, request, resolvable, self.ocr)
                joining = _joining(doc, registered)
            except (DocumentError, CompaniesFileError, ValueError) as exc:
                return IngestFileResult(path=request.path, status="failed", error=str(exc))
            if self.pool is None:
                unregistered = await asyncio.to_thread(self.index.store, doc, request.path)
                self.coverage.invalidate()
                return unregistered
            corpus = self.index.corpus_id
            async with self.pool.connection() as conn, conn.transaction():
                await documents.lock(conn, corpus, doc.document_id)
                current = await documents.registered(conn, corpus, doc.document_id)
                admission = admit(current, doc.source_path, doc.file_sha256, request.replace)
                if admission == "refused" and current is not None:
                    return _refused(request, doc, current)
                result = await asyncio.to_thread(self.index.store, doc, request.path)
                await companies_db.register(conn, corpus, joining)
                await documents.record(
                    conn, corpus, doc, result.chunks, current, forced=admission == "replace"
                )
                result = await _with_facts(conn, corpus, doc, result)
            self.coverage.invalidate()
            return result

    async def _companies(self) -> tuple[list[Company], list[Company]]:
        """The companies the registry holds for this index, and those with the ones this
        process knows besides (what a file's company may resolve to)."""
        known = list(coverage().companies.values())  # what this process knows
        registered: list[Company] = []
        if self.pool is not None:
            async with self.pool.connection() as conn:
                registered = await companies_db.registered(conn, self.index.corpus_id)
        tickers = {c.ticker for c in registered}
        return registered, registered + [c for c in known if c.ticker not in tickers]

    @staticmethod
    def _parse(
        request: IngestFileRequest, registered: list[Company], ocr: bool = False
    ) -> ParsedDocument:
        """Parse with the registry's companies as the coverage names resolve against."""
        company: str | Company | None = request.company
        if request.details is not None and request.company is not None:
            d = request.details
            company = Description(
                request.company,
                d.name,
                tuple(d.aliases),
                d.year_end,
                d.currency,
                tuple(d.commodities),
            ).company()
        with pinned(registered):
            return parse_document(Path(request.path), company, request.fiscal_year, ocr=ocr)

    @implements(steps.qdrant_read_corpus_version)
    async def corpus_version(self) -> str:
        async with heartbeating():
            return await asyncio.to_thread(self.index.corpus_version)


def _refused(
    request: IngestFileRequest, doc: ParsedDocument, current: Registered
) -> IngestFileResult:
    """The result for a second file of a document already registered (logged)."""
    activity.logger.warning(
        "refused a second file for a registered document",
        extra={"document_id": doc.document_id, "path": doc.source_path},
    )
    return IngestFileResult(
        path=request.path,
        document_id=doc.document_id,
        status="refused",
        error=refusal(current, request.path),
    )


async def _with_facts(
    conn: AsyncConnection, corpus: str, doc: ParsedDocument, result: IngestFileResult
) -> IngestFileResult:
    """Store the document's facts when its chunks were written or its facts are not
    current, in the caller's transaction (the facts cite the chunks' ids, so they change
    with them); `result` with how many were stored."""
    if result.status != "ingested" and await facts.current(
        conn, corpus, doc.document_id, doc.content_hash
    ):
        return result
    found = await asyncio.to_thread(
        lambda: [f for chunk in doc.chunks for f in report_facts(chunk)]
    )
    stored = await facts.replace(conn, corpus, doc.document_id, doc.content_hash, found)
    await facts.forget_unregistered(conn, corpus)
    return result.model_copy(update={"facts": stored})


def _joining(doc: ParsedDocument, registered: list[Company]) -> list[Company]:
    """The companies this document registers: its own, when new or described anew, after
    the not yet registered companies listed before it in the companies.toml beside it (a
    folder's companies join in the order its file lists them)."""
    own = doc.described
    if own is None:
        return []
    known = {c.ticker: c for c in registered}
    if own.ticker in known and _same(known[own.ticker], own):
        return []
    beside = companies_beside(Path(doc.source_path))
    listed = [c.ticker for c in beside]
    if own.ticker not in listed:
        return [own]
    before = beside[: listed.index(own.ticker)]
    return [c for c in before if c.ticker not in known] + [own]


def _same(a: Company, b: Company) -> bool:
    """The same registration (years aside)."""

    def registration(c: Company) -> tuple[object, ...]:
        return (c.name, c.aliases, c.year_end, c.currency, c.commodities)

    return registration(a) == registration(b)
