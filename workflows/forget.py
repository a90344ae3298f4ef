"""ForgetUser: erase everything remembered about one user, in PostgreSQL and in Qdrant.

A workflow because the answer cache lives in Qdrant, which only the worker opens, and
because an erasure must finish once asked: both steps are retried until they succeed,
so a worker restart in between delays the erasure and never drops half of it.
"""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import ForgetRequest, ForgetResult
    from workflows.policy import step_options


def forget_workflow_id(tenant_id: str, user_id: str) -> str:
    """One erasure per user at a time: a second request joins the running one. Tenant ids
    have no ":", so no other tenant's user can share this id."""
    return f"forget:{tenant_id}:{user_id}"


@workflow.defn(name="ForgetUser")
class ForgetUser:
    @workflow.run
    async def run(self, request: ForgetRequest) -> ForgetResult:
        stored = await workflow.execute_activity(
            steps.postgres_forget_user,
            request,
            summary="facts, summaries and personal values",
            **step_options(steps.postgres_forget_user),
        )
        cached = await workflow.execute_activity(
            steps.qdrant_forget_answers,
            request,
            summary="answer-cache entries",
            **step_options(steps.qdrant_forget_answers),
        )
        return stored.model_copy(update={"cached_answers": cached.cached_answers})
