"""SearchReports: hybrid search run by the worker, for callers that cannot open Qdrant.

Local-mode Qdrant lets only the worker open its folder, so the API's search route and
`turnstile search` (while the stack runs) come through this workflow.
"""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import SearchRequest
    from domain.models import SearchHitWithText, with_text
    from workflows.policy import step_options


@workflow.defn(name="SearchReports")
class SearchReports:
    @workflow.run
    async def run(self, request: SearchRequest) -> list[SearchHitWithText]:
        result = await workflow.execute_activity(
            steps.qdrant_search_chunks,
            request,
            summary=f"company={request.company} fy={request.fiscal_years or 'any'}",
            **step_options(steps.qdrant_search_chunks),
        )
        texts = await workflow.execute_activity(
            steps.qdrant_load_chunks,
            [hit.chunk_id for hit in result.hits],
            **step_options(steps.qdrant_load_chunks),
        )
        return with_text(result.hits, texts)
