"""SearchReports: hybrid search run by the worker, for callers that cannot open Qdrant.

Local-mode Qdrant lets only the worker open its folder, so the API's search route and
`turnstile search` (while the stack runs) come through this workflow.
"""

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.contracts import SearchHitWithText, SearchRequest
    from activities.report_activities import ReportActivities
    from activities.reports import with_text


@workflow.defn(name="SearchReports")
class SearchReports:
    @workflow.run
    async def run(self, request: SearchRequest) -> list[SearchHitWithText]:
        result = await workflow.execute_activity_method(
            ReportActivities.search_chunks,
            request,
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=3),
            summary=f"company={request.company} fy={request.fiscal_year}",
        )
        texts = await workflow.execute_activity_method(
            ReportActivities.load_chunks,
            [hit.chunk_id for hit in result.hits],
            start_to_close_timeout=timedelta(seconds=30),
            retry_policy=RetryPolicy(maximum_attempts=3),
        )
        return with_text(result.hits, texts)
