"""IngestDocuments and SearchReports on the real dev server with the real activities."""

from collections.abc import Callable
from pathlib import Path

from temporalio.client import Client

from activities.contracts import IngestRequest, SearchRequest
from backends.reports import ReportIndex
from tests.conftest import CORPUS_DIR, WorkerFactory, unique
from workflows.ingest import IngestDocuments
from workflows.search import SearchReports


async def test_ingest_workflow_reports_each_file_and_the_new_corpus_version(
    temporal_client: Client,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    tmp_path: Path,
) -> None:
    index = make_report_index()
    unknown = tmp_path / "minutes.docx"
    unknown.write_bytes(b"PK\x03\x04")
    paths = [str(CORPUS_DIR / "FMG_FY2025.md"), str(unknown), str(CORPUS_DIR / "NST_FY2023.md")]

    async with worker(index) as task_queue:
        result = await temporal_client.execute_workflow(
            IngestDocuments.run,
            IngestRequest(paths=paths),
            id=unique("test-ingest"),
            task_queue=task_queue,
        )

    assert [f.status for f in result.files] == ["ingested", "failed", "ingested"]
    assert [f.path for f in result.files] == paths
    assert result.files[1].error is not None and str(unknown) in result.files[1].error
    assert result.corpus_version == index.corpus_version() != "empty"
    assert index.chunk_count() == result.files[0].chunks + result.files[2].chunks


async def test_ingest_workflow_run_twice_leaves_the_corpus_unchanged(
    temporal_client: Client, worker: WorkerFactory, make_report_index: Callable[[], ReportIndex]
) -> None:
    index = make_report_index()
    request = IngestRequest(paths=[str(CORPUS_DIR / "S32_FY2024.md")])

    async with worker(index) as task_queue:
        first = await temporal_client.execute_workflow(
            IngestDocuments.run, request, id=unique("test-ingest"), task_queue=task_queue
        )
        second = await temporal_client.execute_workflow(
            IngestDocuments.run, request, id=unique("test-ingest"), task_queue=task_queue
        )

    assert [f.status for f in second.files] == ["unchanged"]
    assert second.files[0].chunks == first.files[0].chunks == index.chunk_count()
    assert second.corpus_version == first.corpus_version


async def test_search_workflow_returns_ranked_hits_with_full_text(
    temporal_client: Client, worker: WorkerFactory
) -> None:
    async with worker() as task_queue:
        hits = await temporal_client.execute_workflow(
            SearchReports.run,
            SearchRequest(query="BHP revenue", company="bhp", fiscal_years=[2024], limit=5),
            id=unique("test-search"),
            task_queue=task_queue,
        )

    assert [h.rank for h in hits] == [1, 2, 3, 4, 5]
    assert {(h.company, h.fiscal_year) for h in hits} == {("BHP", 2024)}
    assert all(h.text.startswith("[BHP Group (BHP) · BHP Annual Report 2024") for h in hits)
    assert any("55,658" in h.text for h in hits)


async def test_search_workflow_searches_then_loads_chunks_as_named_activities(
    temporal_client: Client, worker: WorkerFactory
) -> None:
    async with worker() as task_queue:
        handle = await temporal_client.start_workflow(
            SearchReports.run,
            SearchRequest(query="remuneration report scorecard", company="RIO", limit=3),
            id=unique("test-search"),
            task_queue=task_queue,
        )
        hits = await handle.result()
        history = await handle.fetch_history()

    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    ]
    assert scheduled == ["qdrant_search_chunks", "qdrant_load_chunks"]
    assert len(hits) == 3 and {h.company for h in hits} == {"RIO"}
