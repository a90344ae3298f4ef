"""Live evaluation: ListCaseCandidates and DraftCase, from live turns that went wrong to
regression cases; ReadShadowRuns, the shadow configuration's A/B report.

`turnstile eval candidates` lists the turns worth a case (rated "wrong figure", or the
turn of a failed golden probe); `turnstile eval add-case --from-turn TURN` drafts one
(`domain.evaluation.live_cases`) and writes it for a reviewer to confirm. Each is a workflow of one
step, run by the worker (which holds the index the facts are read beside), so a
reviewer's drafting is visible in the Temporal UI like every evaluation run.
"""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import CandidatesRequest, DraftCaseRequest, ShadowRunsRequest
    from domain.evaluation.live_cases import CaseCandidates
    from domain.evaluation.scoring import EvalCase
    from domain.evaluation.shadow import ShadowReport
    from workflows.policy import step_options


@workflow.defn(name="ListCaseCandidates")
class ListCaseCandidates:
    @workflow.run
    async def run(self, request: CandidatesRequest) -> CaseCandidates:
        return await workflow.execute_activity(
            steps.postgres_list_case_candidates,
            request,
            summary="turns worth a case",
            **step_options(steps.postgres_list_case_candidates),
        )


@workflow.defn(name="DraftCase")
class DraftCase:
    @workflow.run
    async def run(self, request: DraftCaseRequest) -> EvalCase:
        return await workflow.execute_activity(
            steps.postgres_draft_case,
            request,
            summary=f"draft a case from {request.turn_id}",
            **step_options(steps.postgres_draft_case),
        )


@workflow.defn(name="ReadShadowRuns")
class ReadShadowRuns:
    """The shadow configuration's A/B report: each sampled live turn beside its shadow."""

    @workflow.run
    async def run(self, request: ShadowRunsRequest) -> ShadowReport:
        return await workflow.execute_activity(
            steps.postgres_read_shadow_runs,
            request,
            summary="shadow runs beside live turns",
            **step_options(steps.postgres_read_shadow_runs),
        )
