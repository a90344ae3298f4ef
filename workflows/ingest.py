"""IngestDocuments: ingest report files one activity per file, durably and visibly.

Each file's outcome is in the result (`ingested`, `unchanged`, `failed`, `refused`);
a refused file is a different file for a company and year already registered, which
only `replace` lets through.
"""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import IngestFileRequest, IngestRequest, IngestResult
    from workflows.policy import step_options


@workflow.defn(name="IngestDocuments")
class IngestDocuments:
    @workflow.run
    async def run(self, request: IngestRequest) -> IngestResult:
        files = []
        for path in request.paths:
            workflow.set_current_details(f"ingesting {path}")
            files.append(
                await workflow.execute_activity(
                    steps.qdrant_ingest_file,
                    IngestFileRequest(
                        path=path,
                        company=request.company,
                        fiscal_year=request.fiscal_year,
                        replace=request.replace,
                        details=request.details,
                    ),
                    summary=path.rsplit("/", 1)[-1],
                    **step_options(steps.qdrant_ingest_file),
                )
            )
        version = await workflow.execute_activity(
            steps.qdrant_read_corpus_version, **step_options(steps.qdrant_read_corpus_version)
        )
        statuses = ("ingested", "unchanged", "failed", "refused")
        counts = {s: sum(f.status == s for f in files) for s in statuses}
        workflow.set_current_details(f"done: {counts}, corpus {version}")
        return IngestResult(files=files, corpus_version=version)
