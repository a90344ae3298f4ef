"""IngestDocuments: ingest report files one activity per file, durably and visibly.

Each file's outcome is in the result (`ingested`, `unchanged`, `failed`, `refused`);
a refused file is a different file for a company and year already registered, which
only `replace` lets through.
"""

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import (
        IngestFileRequest,
        IngestFileResult,
        IngestRequest,
        IngestResult,
    )
    from activities.errors import why_step_failed
    from workflows.policy import step_name, step_options

# A file whose step failed after its retries is reported failed (the policy table: the
# other files still ingest); runs recorded before failed whole instead.
FAILED_FILE_REPORTED = "ingest-failed-file-reported-v1"


@workflow.defn(name="IngestDocuments")
class IngestDocuments:
    @workflow.run
    async def run(self, request: IngestRequest) -> IngestResult:
        files = []
        for path in request.paths:
            workflow.set_current_details(f"ingesting {path}")
            try:
                result = await workflow.execute_activity(
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
            except ActivityError as err:
                if not workflow.patched(FAILED_FILE_REPORTED):
                    raise
                result = IngestFileResult(path=path, status="failed", error=_failure(err))
            files.append(result)
        version = await workflow.execute_activity(
            steps.qdrant_read_corpus_version, **step_options(steps.qdrant_read_corpus_version)
        )
        statuses = ("ingested", "unchanged", "failed", "refused")
        counts = {s: sum(f.status == s for f in files) for s in statuses}
        workflow.set_current_details(f"done: {counts}, corpus {version}")
        return IngestResult(files=files, corpus_version=version)


def _failure(err: ActivityError) -> str:
    """What a file's failed step says, in one line."""
    name = step_name(steps.qdrant_ingest_file)
    return (
        f"not ingested: {name} failed after its retries ({why_step_failed(err)}); ingest it again"
    )
