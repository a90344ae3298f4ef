"""Activities at the Qdrant report-chunk boundary: search, load by id, ingest a file."""

import asyncio
from pathlib import Path

from temporalio import activity

from activities.contracts import (
    ChunkText,
    IngestFileRequest,
    IngestFileResult,
    SearchRequest,
    SearchResult,
)
from activities.reports import ReportIndex


class ReportActivities:
    """Bound to the worker's one `ReportIndex` (the worker owns the Qdrant folder)."""

    def __init__(self, index: ReportIndex) -> None:
        self.index = index

    @activity.defn(name="qdrant_search_chunks")
    async def search_chunks(self, request: SearchRequest) -> SearchResult:
        """Hybrid search (dense + BM25, RRF). Read-only, so safe to retry."""
        hits = await asyncio.to_thread(
            self.index.search,
            request.query,
            request.company,
            request.fiscal_year,
            request.limit,
            request.fiscal_years,
        )
        return SearchResult(hits=hits)

    @activity.defn(name="qdrant_load_chunks")
    async def load_chunks(self, chunk_ids: list[str]) -> list[ChunkText]:
        """Load full chunk text by id (the claim check behind previews in history)."""
        return await asyncio.to_thread(self.index.get_chunks, chunk_ids)

    @activity.defn(name="qdrant_ingest_file")
    async def ingest_file(self, request: IngestFileRequest) -> IngestFileResult:
        """Parse, embed and upsert one file. Idempotent (deterministic point ids).

        A file that cannot be parsed is a result with status `failed`, not an error,
        so the workflow reports it and the other files still ingest.
        """
        return await asyncio.to_thread(
            self.index.ingest_file, Path(request.path), request.company, request.fiscal_year
        )

    @activity.defn(name="qdrant_read_corpus_version")
    async def corpus_version(self) -> str:
        return await asyncio.to_thread(self.index.corpus_version)
