"""LoadPassages: the full text of report passages by chunk id, for callers without Qdrant.

Local-mode Qdrant lets only the worker open its folder; the API's citation previews
(`GET /v1/turns/{turn_id}/sources`) read the passages a turn cited through this workflow.
"""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from domain.models import ChunkText
    from workflows.policy import step_options


@workflow.defn(name="LoadPassages")
class LoadPassages:
    @workflow.run
    async def run(self, chunk_ids: list[str]) -> list[ChunkText]:
        return await workflow.execute_activity(
            steps.qdrant_load_chunks,
            chunk_ids,
            summary=f"{len(chunk_ids)} cited passages",
            **step_options(steps.qdrant_load_chunks),
        )
