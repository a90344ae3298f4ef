"""EvaluateRouting and EvaluateRetrieval: the cheapest paths of a turn that still mean
something, for the evaluation suites' real mode and the retrieval A/B harness.

A routing case runs only the routing steps — the scope rules, then `llm_route_question`
— and a retrieval case only retrieval — the turn's query plan (`llm_route_question` for
the slots, `llm_rewrite_query`) and `qdrant_search_chunks` — with the worker's engine,
whichever it is. They run in the worker because local-mode Qdrant lets only the worker
open its folder; each is a workflow of its own, so an evaluation run is visible in the
Temporal UI, case by case.
"""

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import (
        CheckRequest,
        RewritePlan,
        RewriteRequest,
        RouteRequest,
        SearchRequest,
        SearchResult,
    )
    from domain.evaluation.scoring import RoutingOutcome
    from domain.models import (
        with_text,
    )
    from domain.questions.question import extract_slots
    from workflows.chat_turn import CHECKED_DRAFTS_V2
    from workflows.contracts import JudgeProbe, JudgeVerdict, RetrievalProbe, RetrievalRun
    from workflows.policy import step_options
    from workflows.turn.answer import plan_for
    from workflows.turn.scope import turn_scope


@workflow.defn(name="EvaluateRouting")
class EvaluateRouting:
    @workflow.run
    async def run(self, question: str) -> RoutingOutcome:
        # The turn's own scope rules; the patch that chose them is retired (a run that
        # took it replays, a new one records no marker).
        workflow.deprecate_patch(CHECKED_DRAFTS_V2)
        rules = turn_scope(question)
        if rules.refuse:
            return RoutingOutcome(
                route="out_of_scope", by="rules", reason=rules.reason or "scope rules"
            )
        decision = await workflow.execute_activity(
            steps.llm_route_question,
            RouteRequest(question=question),
            summary="classify the question",
            **step_options(steps.llm_route_question),
        )
        return RoutingOutcome(
            route=decision.route,
            by="classifier",
            reason=decision.reason,
            declines=rules.decline is not None,
            companies=decision.slots.companies,
            fiscal_years=decision.slots.fiscal_years,
            metrics=decision.slots.metrics,
        )


@workflow.defn(name="EvaluateRetrieval")
class EvaluateRetrieval:
    @workflow.run
    async def run(self, probe: RetrievalProbe) -> RetrievalRun:
        # long: the workflow's steps in order, as the Temporal UI shows them.
        config = probe.config
        if config.query == "question":
            request = SearchRequest(
                query=probe.question, company=probe.company, limit=config.limit, config=config
            )
        else:
            # Both steps fail open as they do in a turn: the question's own slots, then
            # one sub-query built from the question.
            try:
                decision = await workflow.execute_activity(
                    steps.llm_route_question,
                    RouteRequest(question=probe.question),
                    summary="slots for the query plan",
                    **step_options(steps.llm_route_question),
                )
                slots = decision.slots
            except ActivityError:
                slots = extract_slots(probe.question)
            if slots.companies and probe.company not in slots.companies:
                return RetrievalRun(query="", planned=False)
            try:
                plan = await workflow.execute_activity(
                    steps.llm_rewrite_query,
                    RewriteRequest(question=probe.question, slots=slots),
                    summary=f"sub-query for {probe.company}",
                    **step_options(steps.llm_rewrite_query),
                )
            except ActivityError:
                plan = RewritePlan(sub_queries=[])
            sub = plan_for(plan, probe.question, slots, [probe.company])[0]
            request = SearchRequest(
                query=sub.query,
                company=probe.company,
                fiscal_years=sub.fiscal_years,
                limit=config.limit,
                later_years=sub.later_years,
                config=config,
            )
        result: SearchResult = await workflow.execute_activity(
            steps.qdrant_search_chunks,
            request,
            summary=f"{config.name}: {probe.company} fy={request.fiscal_years or 'any'}",
            **step_options(steps.qdrant_search_chunks),
        )
        texts = await workflow.execute_activity(
            steps.qdrant_load_chunks,
            [hit.chunk_id for hit in result.hits],
            **step_options(steps.qdrant_load_chunks),
        )
        return RetrievalRun(
            query=request.query,
            fiscal_years=request.fiscal_years,
            hits=with_text(result.hits, texts),
            degraded=result.degraded,
        )


@workflow.defn(name="EvaluateJudge")
class EvaluateJudge:
    """The groundedness steps on one labelled pair, exactly as a turn runs them: the
    numeric check, and the judge step when asked (the model judge with a model engine;
    the offline engine's judge is the numeric check)."""

    @workflow.run
    async def run(self, probe: JudgeProbe) -> JudgeVerdict:
        found = await workflow.execute_activity(
            steps.qdrant_find_chunks,
            probe.evidence,
            **step_options(steps.qdrant_find_chunks),
        )
        unresolved = [n for n, c in enumerate(found.chunk_ids, start=1) if c is None]
        if unresolved:
            return JudgeVerdict(unresolved=unresolved)
        request = CheckRequest(
            question=probe.question,
            answer=probe.answer,
            chunk_ids=[c for c in found.chunk_ids if c is not None],
        )
        numeric = await workflow.execute_activity(
            steps.grounding_check_numbers,
            request,
            summary="the numeric check on one calibration pair",
            **step_options(steps.grounding_check_numbers),
        )
        judge = None
        if probe.model_judge:
            grade = await workflow.execute_activity(
                steps.llm_grade_answer,
                request,
                summary="the judge on one calibration pair",
                **step_options(steps.llm_grade_answer),
            )
            judge = grade.unsupported
        return JudgeVerdict(numeric=numeric.unsupported, judge=judge)
