"""IngestDocuments: ingest report files one activity per file, durably and visibly."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.contracts import IngestFileRequest, IngestRequest, IngestResult
    from activities.report_activities import ReportActivities
    from workflows.policy import activity_options


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
                    summary=path.rsplit("/", 1)[-1],
                    **activity_options("qdrant_ingest_file"),
                )
            )
        version = await workflow.execute_activity_method(
            ReportActivities.corpus_version, **activity_options("qdrant_read_corpus_version")
        )
        counts = {s: sum(f.status == s for f in files) for s in ("ingested", "unchanged", "failed")}
        workflow.set_current_details(f"done: {counts}, corpus {version}")
        return IngestResult(files=files, corpus_version=version)
