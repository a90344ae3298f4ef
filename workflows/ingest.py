"""IngestDocuments: ingest report files one activity per file, durably and visibly."""

from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.contracts import IngestFileRequest, IngestRequest, IngestResult
    from activities.report_activities import ReportActivities


@workflow.defn(name="IngestDocuments")
class IngestDocuments:
    @workflow.run
    async def run(self, request: IngestRequest) -> IngestResult:
        files = []
        for path in request.paths:
            workflow.set_current_details(f"ingesting {path}")
            files.append(
                await workflow.execute_activity_method(
                    ReportActivities.ingest_file,
                    IngestFileRequest(
                        path=path, company=request.company, fiscal_year=request.fiscal_year
                    ),
                    start_to_close_timeout=timedelta(minutes=5),
                    schedule_to_close_timeout=timedelta(minutes=20),
                    summary=path.rsplit("/", 1)[-1],
                )
            )
        version = await workflow.execute_activity_method(
            ReportActivities.corpus_version, start_to_close_timeout=timedelta(seconds=60)
        )
        counts = {s: sum(f.status == s for f in files) for s in ("ingested", "unchanged", "failed")}
        workflow.set_current_details(f"done: {counts}, corpus {version}")
        return IngestResult(files=files, corpus_version=version)
