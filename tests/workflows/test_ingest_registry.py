"""A planted report cannot replace the real one through IngestDocuments unless asked to."""

from collections.abc import Callable
from pathlib import Path

from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client

from activities.contracts import IngestRequest, IngestResult, SearchRequest
from backends.report_activities import ReportActivities
from backends.reports import ReportIndex
from domain.models import SearchHitWithText
from tests.conftest import CORPUS_DIR, WorkerFactory, database_down, unique
from workflows.ingest import IngestDocuments
from workflows.search import SearchReports

BHP_FY2024 = CORPUS_DIR / "BHP_FY2024.md"
REAL_REVENUE = "55,658"
PLANTED_REVENUE = "955,658"


async def test_a_planted_report_is_refused_and_replaces_the_real_one_only_when_asked(
    temporal_client: Client,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    tmp_path: Path,
) -> None:
    index = make_report_index()
    planted = tmp_path / BHP_FY2024.name
    planted.write_text(
        BHP_FY2024.read_text(encoding="utf-8").replace(REAL_REVENUE, PLANTED_REVENUE),
        encoding="utf-8",
    )
    reports = ReportActivities(index, pool)
    activities = [
        reports.search_chunks,
        reports.load_chunks,
        reports.ingest_file,
        reports.corpus_version,
    ]

    async def ingest(request: IngestRequest) -> IngestResult:
        return await temporal_client.execute_workflow(
            IngestDocuments.run, request, id=unique("test-ingest"), task_queue=task_queue
        )

    async def revenue_hits() -> list[SearchHitWithText]:
        return await temporal_client.execute_workflow(
            SearchReports.run,
            SearchRequest(query="BHP revenue", company="BHP", fiscal_years=[2024], limit=5),
            id=unique("test-search"),
            task_queue=task_queue,
        )

    async with worker(index, activities=activities) as task_queue:
        real = await ingest(IngestRequest(paths=[str(BHP_FY2024)]))
        refused = await ingest(IngestRequest(paths=[str(planted)]))
        after_refusal = await revenue_hits()
        replaced = await ingest(IngestRequest(paths=[str(planted)], replace=True))
        after_replacement = await revenue_hits()

    assert [f.status for f in real.files] == ["ingested"]
    (file,) = refused.files
    assert (file.status, file.document_id, file.chunks) == ("refused", "BHP-FY2024", 0)
    assert file.error is not None and str(BHP_FY2024.resolve()) in file.error
    assert refused.corpus_version == real.corpus_version
    assert any(REAL_REVENUE in h.text for h in after_refusal)
    assert not any(PLANTED_REVENUE in h.text for h in after_refusal)

    assert [f.status for f in replaced.files] == ["ingested"]
    assert replaced.corpus_version != real.corpus_version
    assert any(PLANTED_REVENUE in h.text for h in after_replacement)
    async with pool.connection() as conn:
        cursor = await conn.execute(
            "SELECT previous_path, new_path, forced, replaced_at IS NOT NULL"
            " FROM document_replacements WHERE corpus = %s AND document_id = 'BHP-FY2024'",
            (index.corpus_id,),
        )
        rows = await cursor.fetchall()
    assert rows == [(str(BHP_FY2024.resolve()), str(planted.resolve()), True, True)]


async def test_a_companys_other_filings_of_a_year_are_admitted_beside_its_annual_report(
    temporal_client: Client,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    tmp_path: Path,
) -> None:
    """An annual report, a quarter's report, a current report and a results release of
    one company and year are four documents, each searchable; a different annual report
    of that year is still refused (the registry's guard against a planted report)."""
    from tests.unit.test_documents import _KESTREL, FILINGS, _pdf

    paths = {
        kind: _pdf(tmp_path / f"kestrel-{kind}.pdf", [(h, p + _KESTREL[0], _KESTREL[1])])
        for kind, (h, p) in FILINGS.items()
    }
    heading, prose = FILINGS["annual"]
    planted = _pdf(
        tmp_path / "kestrel-annual-planted.pdf",
        [(heading, prose + _KESTREL[0], ["(in millions) 2022", "Total revenue 9,999"])],
    )
    index = make_report_index()
    reports = ReportActivities(index, pool)
    activities = [
        reports.search_chunks,
        reports.load_chunks,
        reports.ingest_file,
        reports.corpus_version,
    ]

    async def ingest(request: IngestRequest) -> IngestResult:
        return await temporal_client.execute_workflow(
            IngestDocuments.run, request, id=unique("test-ingest"), task_queue=task_queue
        )

    async with worker(index, activities=activities) as task_queue:
        filed = await ingest(IngestRequest(paths=[str(p) for p in paths.values()]))
        refused = await ingest(IngestRequest(paths=[str(planted)]))
        hits = await temporal_client.execute_workflow(
            SearchReports.run,
            SearchRequest(
                query="Kestrel total revenue", company="KHH", fiscal_years=[2022], limit=10
            ),
            id=unique("test-search"),
            task_queue=task_queue,
        )

    assert [f.status for f in filed.files] == ["ingested"] * 4, filed.files
    ids = [f.document_id for f in filed.files]
    assert ids[0] == "KHH-FY2022" and len(set(ids)) == 4, ids
    titles = {h.document for h in hits}
    assert len(titles) == 4 and any("Current Report" in t for t in titles), titles
    assert [(f.status, f.document_id) for f in refused.files] == [("refused", "KHH-FY2022")]


async def test_a_file_whose_step_fails_after_its_retries_is_reported_and_the_run_goes_on(
    temporal_client: Client,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
) -> None:
    """The policy table's word for qdrant_ingest_file: the file is reported failed, the
    other files still ingest. The registry's database is down (nothing listens on its
    port), so every attempt fails: the run still ends, each file with why."""
    index = make_report_index()
    paths = [str(BHP_FY2024), str(CORPUS_DIR / "S32_FY2024.md")]
    async with database_down() as down:
        reports = ReportActivities(index, down)
        activities = [reports.ingest_file, reports.corpus_version]
        async with worker(index, activities=activities) as task_queue:
            result = await temporal_client.execute_workflow(
                IngestDocuments.run,
                IngestRequest(paths=paths),
                id=unique("test-ingest"),
                task_queue=task_queue,
            )

    assert [(f.path, f.status) for f in result.files] == [(p, "failed") for p in paths]
    for file in result.files:
        assert file.error is not None
        assert file.error.startswith("not ingested: qdrant_ingest_file failed after its retries")
        assert "PoolTimeout" in file.error, file.error
    assert index.chunk_count() == 0
