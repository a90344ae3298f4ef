"""Every step of a turn with I/O, one method per step, named by it: how the step is run
(its policy row's options, locally where it may, on the index worker's queue when this
worker has none) and what its failure means (fail-open: recorded in the ledger and a
stated default goes on; fail-closed: recorded, and its part counts as refused). The
activity each runs is the one the Temporal UI shows under that name."""

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from pydantic import BaseModel

    from activities import steps
    from activities.contracts import (
        AnswerGrade,
        CacheLookup,
        CacheLookupRequest,
        CacheWriteRequest,
        CheckRequest,
        CoverageRequest,
        EvidenceRank,
        EvidenceRequest,
        LoadSessionRequest,
        RecordShadowRequest,
        RelevanceRequest,
        RememberRequest,
        RewritePlan,
        RewriteRequest,
        RouteDecision,
        RouteRequest,
        SaveTurnRequest,
        SearchRequest,
        SearchResult,
        Session,
        SummarizeRequest,
    )
    from domain.companies.roster import pin
    from domain.failures import error_class
    from domain.memory.rules import Preference, needs_summary
    from domain.models import ChunkHit, Draft, GroundingReport, Relevance, Slots, SubQuery
    from domain.questions.question import extract_slots
    from domain.turns import TurnResult
    from workflows import attributes, progress
    from workflows.contracts import TurnInput
    from workflows.policy import (
        JUDGE_UNAVAILABLE,
        WITHOUT_INDEX,
        ActivityOptions,
        local_step_options,
        runs_local,
        step_name,
        step_options,
    )
    from workflows.turn.budget import Budget
    from workflows.turn.errors import STEP_FAILED, TurnBudgetSpent, failure_cause
    from workflows.turn.ledger import Ledger
    from workflows.turn.memory import CONTEXT_FOR_MODEL, TurnMemory
    from workflows.turn.stream import TurnStream

_Arg = TypeVar("_Arg")
_Ret = TypeVar("_Ret")
RETRIEVAL_LIMIT = 8
KEPT = "Kept the checked answer for the same question later"
NOT_KEPT = "This answer is not kept for reuse"


class TurnSteps:
    def __init__(
        self,
        inp: TurnInput,
        stream: TurnStream,
        ledger: Ledger,
        budget: Budget,
        memory: TurnMemory,
    ) -> None:
        self._inp = inp
        # The turn's rooms the steps record in (the retrieval passes use them too).
        self.stream, self.ledger, self.budget, self.memory = stream, ledger, budget, memory

    # ---- how a step runs ------------------------------------------------------------

    async def run(
        self, step: Callable[[_Arg], Awaitable[_Ret]], arg: _Arg, *, summary: str
    ) -> _Ret:
        """Run `step` with its own options from the policy table, locally where it may
        (`runs_local`), on the index worker's queue when this worker has no index."""
        options = self.options(step)  # before the step's progress line: it may not start
        arg = self._on_snapshot(arg)
        self.stream.publish(progress.step_started(step_name(step)))
        elsewhere = self._index_queue(step)
        if elsewhere is not None:
            result = await workflow.execute_activity(
                step, arg, summary=summary, task_queue=elsewhere, **self.options(step)
            )
        elif runs_local(step, self._inp.engine_in_process):
            local = local_step_options(step)
            local["start_to_close_timeout"] = options["start_to_close_timeout"]
            local["schedule_to_close_timeout"] = options["schedule_to_close_timeout"]
            result = await workflow.execute_local_activity(step, arg, summary=summary, **local)
        else:
            result = await workflow.execute_activity(
                step, arg, summary=summary, **self.options(step)
            )
        self.ledger.traced(result)
        return result

    def _on_snapshot(self, arg: _Arg) -> _Arg:
        """`arg` to read the turn's frozen snapshot of the index, when it has one and the
        step reads the index (its request has a `snapshot` field)."""
        snapshot = self._inp.snapshot
        if snapshot is None or not isinstance(arg, BaseModel):
            return arg
        if "snapshot" not in type(arg).model_fields:
            return arg
        return arg.model_copy(update={"snapshot": snapshot})

    def options(self, step: Callable[..., Any]) -> ActivityOptions:
        """`step`'s options from the policy table, bounded by the turn's budget."""
        return self.budget.bound(step, step_options(step))

    def _index_queue(self, step: Callable[..., Any]) -> str | None:
        """The index worker's queue for a step that needs the index, when this turn runs
        on workers without it (`TurnInput.index_task_queue`); else None."""
        if self._inp.index_task_queue is None or step_name(step) in WITHOUT_INDEX:
            return None
        return self._inp.index_task_queue

    # ---- the steps, in the order a turn takes them ----------------------------------

    async def read_coverage(self) -> None:
        """Read the coverage and pin it for the rest of the turn (fail-closed: a turn
        that cannot say what it covers settles with its fallback)."""
        read = await self.run(
            steps.postgres_read_coverage, CoverageRequest(), summary="the companies held"
        )
        if read.stale:
            self.ledger.degrade(
                steps.postgres_read_coverage,
                "the company registry could not be read: the worker's last reading was used",
            )
        pin(read.companies)

    async def load_session(self) -> Session:
        """The conversation so far (fail-open: an empty one); its last messages kept for
        synthesis."""
        inp = self._inp
        try:
            session = await self.run(
                steps.postgres_load_session,
                LoadSessionRequest(
                    conversation_id=inp.conversation_id,
                    seq=inp.seq,
                    tenant_id=inp.tenant_id,
                    user_id=inp.user_id,
                ),
                summary=f"conversation {inp.conversation_id} before seq {inp.seq}",
            )
        except STEP_FAILED as err:
            self.ledger.degrade(steps.postgres_load_session, failure_cause(err))
            return Session()
        self.memory.heard(session.recent_messages)
        return session

    async def summarize_history(self, session: Session) -> None:
        """Compress a long conversation's older messages into its summary (fail-open:
        the history stays as it is), and keep what synthesis may be reminded of."""
        summary = session.summary
        # A shadow run writes nothing to the conversation: it reads the summary as is.
        if self._inp.shadow_of is None and needs_summary(session.unsummarised):
            self.ledger.count_model_call()
            try:
                done = await self.run(
                    steps.llm_summarize_history,
                    SummarizeRequest(conversation_id=self._inp.conversation_id, seq=self._inp.seq),
                    summary=f"{session.unsummarised} messages not yet summarised",
                )
                summary, self.memory.summarised = done.summary, done.summarised
                self.stream.note(
                    f"summarised {done.summarised} older messages",
                    f"Summarised {progress.plural(done.summarised, 'earlier message')} of"
                    " the conversation",
                )
            except STEP_FAILED as err:
                self.ledger.degrade(steps.llm_summarize_history, failure_cause(err))
        if summary:
            self.memory.summarised_as(summary)

    async def remember_fact(self, user_id: str, preference: Preference) -> bool:
        """Store a stated preference (fail-closed: nothing stored, and the person told)."""
        inp = self._inp
        if inp.shadow_of is not None:  # a shadow run remembers nothing for anyone
            self.stream.note(
                "shadow run: the preference is not stored", "Checking another configuration"
            )
            return True
        try:
            await self.run(
                steps.postgres_remember_fact,
                RememberRequest(
                    tenant_id=inp.tenant_id,
                    user_id=user_id,
                    turn_id=inp.turn_id,
                    preference=preference,
                ),
                summary=f"remember {preference.kind}",
            )
        except STEP_FAILED as err:
            self.ledger.fail_closed(
                steps.postgres_remember_fact, "remembering", err, "Could not store the preference"
            )
            return False
        self.stream.note(
            f"remembered {preference.describe()}",
            f"Remembered your preference: {preference.describe()}",
        )
        return True

    async def lookup_answer(self, resolved: str) -> CacheLookup:
        """The semantic answer cache (fail-open: a miss)."""
        try:
            lookup = await self.run(
                steps.qdrant_lookup_answer,
                CacheLookupRequest(tenant_id=self._inp.tenant_id, question=resolved),
                summary="look for an answer already given",
            )
        except STEP_FAILED as err:
            self.ledger.degrade(steps.qdrant_lookup_answer, failure_cause(err))
            lookup = CacheLookup(outcome="miss", reason="lookup unavailable")
        self.memory.lookup = lookup
        if lookup.outcome == "hit" and lookup.corpus_version:
            self.ledger.versions[lookup.corpus_version] = None
        similarity = f" at {lookup.similarity:.3f}" if lookup.similarity is not None else ""
        # No source turn id here: progress lines reach the caller's event stream, and
        # another user's turn id names their conversation (the result keeps it).
        self.stream.note(
            f"answer cache: {lookup.outcome}{similarity} {lookup.reason}".rstrip(),
            progress.cache_said(lookup.outcome),
        )
        return lookup

    async def save_answer(self, why_not: str | None, request: CacheWriteRequest) -> None:
        """Write a checked answer to the cache unless `why_not` (fail-open: skipped)."""
        if why_not:
            self.stream.note(f"answer cache: not written ({why_not})", NOT_KEPT)
            return
        try:
            written = await self.run(
                steps.qdrant_save_answer, request, summary="remember this checked answer"
            )
            if written.written:
                self.stream.note("answer cache: written", KEPT)
            else:
                self.stream.note(f"answer cache: not written ({written.reason})", NOT_KEPT)
        except STEP_FAILED as err:
            self.ledger.degrade(steps.qdrant_save_answer, failure_cause(err))

    async def route_question(self, question: str) -> RouteDecision | None:
        """The route (fail-open: retrieval, with the slots read by rule; fail-closed when
        the turn says so, `TurnInput.classifier_policy`: None, the turn falls back)."""
        self.ledger.count_model_call()
        try:
            decision = await self.run(
                steps.llm_route_question,
                RouteRequest(question=question),
                summary="classify the question",
            )
        except STEP_FAILED as err:
            if self._inp.classifier_policy == "closed":
                self.ledger.fail_closed(
                    steps.llm_route_question,
                    "route classifier",
                    err,
                    "Could not tell what kind of question this is",
                )
                return None
            self.ledger.degrade(steps.llm_route_question, failure_cause(err))
            decision = RouteDecision(
                route="needs_retrieval",
                reason="classifier unavailable",
                slots=extract_slots(question),
            )
        self.stream.note(
            f"route: {decision.route} ({decision.reason})", progress.route_said(decision.route)
        )
        workflow.upsert_search_attributes([attributes.ROUTE.value_set(decision.route)])
        return decision

    async def rewrite_query(self, question: str, slots: Slots, requested: list[str]) -> RewritePlan:
        """The per-company sub-queries (fail-open: none, so each company's name plus the
        question is searched)."""
        self.ledger.count_model_call()
        try:
            return await self.run(
                steps.llm_rewrite_query,
                RewriteRequest(question=question, slots=slots),
                summary=f"sub-queries for {', '.join(requested)}",
            )
        except STEP_FAILED as err:
            self.ledger.degrade(steps.llm_rewrite_query, failure_cause(err))
            return RewritePlan(sub_queries=[])

    async def search_chunks(self, sub_queries: list[SubQuery]) -> list[ChunkHit]:
        """Search every company in parallel; a failed branch counts as not found."""
        search = steps.qdrant_search_chunks
        try:
            self.options(search)  # raises when the budget is spent
        except TurnBudgetSpent as err:
            for sq in sub_queries:
                self.ledger.degrade(search, f"{sq.company}: {failure_cause(err)}")
            return []
        for sq in sub_queries:
            self.stream.publish(progress.search_started(sq.company, sq.fiscal_years))
        results = await asyncio.gather(
            *(
                workflow.execute_activity(
                    search,
                    self._search_request(sq),
                    summary=f"{sq.company} fy={sq.fiscal_years or 'any'}",
                    task_queue=self._index_queue(search),
                    **self.options(search),
                )
                for sq in sub_queries
            ),
            return_exceptions=True,
        )
        return self._kept_hits(search, sub_queries, results)

    def _search_request(self, sq: SubQuery) -> SearchRequest:
        return SearchRequest(
            query=sq.query,
            company=sq.company,
            fiscal_years=sq.fiscal_years,
            limit=RETRIEVAL_LIMIT,
            later_years=sq.later_years,
            snapshot=self._inp.snapshot,
            facets=sq.facets,
        )

    def _kept_hits(
        self, search: Callable[..., Any], sub_queries: list[SubQuery], results: list[Any]
    ) -> list[ChunkHit]:
        """Every branch's hits; a failed branch (or a reranker failing open inside
        one) is a degradation of the step, an unexpected error is raised."""
        hits: list[ChunkHit] = []
        for sq, result in zip(sub_queries, results, strict=True):
            if isinstance(result, SearchResult):
                hits.extend(result.hits)
                if result.corpus_version:
                    self.ledger.versions[result.corpus_version] = None
                for note in result.degraded:  # the reranker failed open inside the search
                    self.ledger.degrade(search, f"{sq.company}: {note}")
            elif isinstance(result, ActivityError):
                self.ledger.degrade(search, f"{sq.company}: {failure_cause(result)}")
            elif isinstance(result, BaseException):
                raise result
        return hits

    async def grade_documents(
        self, question: str, slots: Slots, candidates: list[ChunkHit]
    ) -> list[ChunkHit]:
        """The candidates relevant to the question (fail-open: all of them)."""
        if not candidates:
            return []
        self.ledger.count_model_call()
        try:
            grades = await self.run(
                steps.llm_grade_documents,
                EvidenceRequest(
                    question=question, slots=slots, chunk_ids=[h.chunk_id for h in candidates]
                ),
                summary=f"grade {len(candidates)} chunks",
            )
        except STEP_FAILED as err:
            self.ledger.degrade(steps.llm_grade_documents, failure_cause(err))
            return candidates
        kept = [candidates[i] for i in grades.keep if 0 <= i < len(candidates)]
        self.stream.note(
            f"grading kept {len(kept)}/{len(candidates)}",
            f"Kept {len(kept)} of the {progress.plural(len(candidates), 'passage')} found"
            " as relevant to the question",
        )
        return kept

    def evidence_request(
        self, question: str, slots: Slots, sources: list[ChunkHit], refuted: list[str] | None
    ) -> EvidenceRequest:
        """What synthesis is sent: the chunk ids in source order and the notes; past
        `CONTEXT_FOR_MODEL` also the conversation's last messages and each chunk's rank,
        which its evidence budget and order read."""
        ids = [h.chunk_id for h in sources]
        if not workflow.patched(CONTEXT_FOR_MODEL):
            memory = self.memory.notes(refuted)
            return EvidenceRequest(question=question, slots=slots, chunk_ids=ids, memory=memory)
        return EvidenceRequest(
            question=question,
            slots=slots,
            chunk_ids=ids,
            memory=self.memory.notes(refuted, conversation=True),
            ranked=[EvidenceRank(chunk_id=h.chunk_id, rank=h.rank, score=h.score) for h in sources],
        )

    async def synthesize_answer(
        self, question: str, slots: Slots, sources: list[ChunkHit], refuted: list[str] | None
    ) -> Draft | None:
        """A draft from the evidence (fail-closed: None; a timeout spends the budget)."""
        self.ledger.count_model_call()
        try:
            return await self.run(
                steps.llm_synthesize_answer,
                self.evidence_request(question, slots, sources, refuted),
                summary=f"answer from {len(sources)} sources",
            )
        except STEP_FAILED as err:
            self.ledger.fail_closed(
                steps.llm_synthesize_answer,
                "synthesis",
                err,
                "Could not write an answer from the passages found",
            )
            if error_class(failure_cause(err)) == "timeout":
                self.budget.out_of_time = True
            return None

    async def check_numbers(self, check: CheckRequest) -> GroundingReport | None:
        """The numeric check (fail-closed: None, the figures unverified)."""
        try:
            return await self.run(steps.grounding_check_numbers, check, summary="numeric grounding")
        except STEP_FAILED as err:
            self.ledger.fail_closed(
                steps.grounding_check_numbers,
                "numeric check",
                err,
                "Could not check the figures against the reports: none counts as verified",
            )
            return None

    async def check_relevance(
        self, question: str, answer: str, ids: list[str], derived: list[str]
    ) -> tuple[Relevance | None, bool]:
        """The relevance control (fail-closed: unchecked, the answer is shown low)."""
        try:
            relevance = await self.run(
                steps.grounding_check_relevance,
                RelevanceRequest(question=question, answer=answer, chunk_ids=ids, derived=derived),
                summary="does the answer address the question",
            )
        except STEP_FAILED as err:
            self.ledger.fail_closed(
                steps.grounding_check_relevance,
                "relevance check",
                err,
                "Could not check that the answer covers the question",
            )
            return None, False
        missing = relevance.missing()
        self.stream.note(
            "relevance: "
            + ("addressed" if relevance.addressed else f"missing {missing}")
            + (" (off the point)" if relevance.off_point else ""),
            "The answer does not address what was asked"
            if relevance.off_point
            else "The answer covers what was asked"
            if relevance.addressed or not missing
            else "The answer does not cover " + ", ".join(missing),
        )
        return relevance, True

    @property
    def judge_fails_closed(self) -> bool:
        """Whether a judge that is down withholds the draft (`TurnInput.judge_policy`)."""
        return self._inp.judge_policy == "closed"

    async def grade_answer(self, check: CheckRequest) -> AnswerGrade | None:
        """The judge (fail-open: None, the answer passed with its confidence capped; when
        it fails closed, `judge_fails_closed`: None, and the draft is not shown)."""
        self.ledger.count_model_call()
        try:
            return await self.run(steps.llm_grade_answer, check, summary="judge the answer")
        except STEP_FAILED as err:
            if self.judge_fails_closed:
                self.ledger.fail_closed(
                    steps.llm_grade_answer,
                    "judge",
                    err,
                    "Could not have the answer checked, so it is not shown",
                )
                return None
            cause = failure_cause(err)
            self.ledger.degrade(steps.llm_grade_answer, f"{JUDGE_UNAVAILABLE}: {cause}", cause)
            return None

    async def save_turn(self, result: TurnResult, final: bool) -> None:
        """Save the turn as it stands (fail-closed: the turn cannot settle unsaved). A
        shadow run saves nothing of the conversation's: its outcome, once settled, is
        recorded beside the live turn's, and that is its only write."""
        plan = self._inp.shadow
        if self._inp.shadow_of is not None:
            if final:
                await self.run(
                    steps.postgres_record_shadow,
                    RecordShadowRequest(
                        live_turn_id=self._inp.shadow_of,
                        shadow=result,
                        live_config=plan.live_config if plan else "",
                        shadow_config=plan.shadow_config if plan else "",
                    ),
                    summary=f"record beside {self._inp.shadow_of}",
                )
            return
        await self.run(
            steps.postgres_save_turn,
            SaveTurnRequest(result=result, final=final),
            summary=f"save {result.status}",
        )
