"""ChatTurn: one chat turn, the steps of docs/architecture.md in order. Orchestration only.

Deterministic steps (carry-forward, scope rules, retry rule, citation binding, final
gate, confidence, coverage) are plain functions from `workflows.rules`; every step with
I/O is an activity whose options and fail-open/closed policy come from
`workflows.policy.POLICY`. There is one exit point, `_finish`, and the final gate runs
there, so no path can reach the user without passing it.
"""

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, TypedDict, TypeVar, Unpack

from temporalio import workflow
from temporalio.contrib.workflow_streams import WorkflowStream
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.exceptions import TimeoutError as StepTimeout

with workflow.unsafe.imports_passed_through():
    from pydantic import ValidationError

    from activities import steps
    from activities.contracts import (
        AnswerGrade,
        CachedAnswer,
        CacheLookup,
        CacheLookupRequest,
        CacheWriteRequest,
        CheckRequest,
        ChunkHit,
        CoverageRequest,
        Derived,
        Draft,
        EvidenceRequest,
        GroundingReport,
        LoadSessionRequest,
        ModelCall,
        NotFound,
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
        Slots,
        SubQuery,
        SummarizeRequest,
        UnsupportedClaim,
    )
    from domain.budget import MIN_STEP_SECONDS
    from domain.companies import companies, display_name, latest_fiscal_year, pin
    from domain.failures import error_class
    from domain.grounding import merge_claims
    from domain.injection import without_instructions
    from domain.memory import (
        MemoryNote,
        Remembering,
        apply_preferences,
        needs_summary,
        preference_notice,
        read_preference,
        without_markers,
    )
    from domain.models import CheckedFigure, Relevance, Source
    from domain.pii import TOKEN
    from domain.question import asks_figures, extract_slots
    from domain.text import storable, unstorable
    from domain.years import coverage_notice, coverage_warning
    from workflows import attributes, progress
    from workflows.contracts import (
        CancelRequest,
        Carried,
        Citation,
        ClarificationReply,
        Degradation,
        DocumentsUsed,
        StepFailure,
        TurnEvent,
        TurnInput,
        TurnResult,
        TurnStatus,
    )
    from workflows.policy import (
        JUDGE_UNAVAILABLE,
        POLICY,
        WITHOUT_INDEX,
        ActivityOptions,
        local_step_options,
        runs_local,
        step_name,
        step_options,
    )
    from workflows.rules import gate
    from workflows.rules.carry import carry_entities, merge_reply
    from workflows.rules.citations import bind_citations
    from workflows.rules.confidence import shape_answer
    from workflows.rules.coverage import (
        company_status,
        ensure_gap_lines,
        gaps_to_retry,
        unanswered,
    )
    from workflows.rules.refuted import remove_refuted, substance_left
    from workflows.rules.relevance import RelevanceVerdict, relevance_verdict
    from workflows.rules.retry import (
        MAX_RETRIES,
        Attempt,
        best_attempt,
        metric_synonyms,
        plan_retry,
        retry_targets,
        retryable,
        should_retry,
    )
    from workflows.rules.scope import refusal_text, scope_rules

MAX_CLARIFICATIONS = 2
MODEL_STEPS_PER_PASS = 3  # grade documents, synthesize, grade answer
REDRAFT_MODEL_STEPS = 2  # synthesize and grade the answer again, naming the refuted claims
MAX_MODEL_CALLS = (
    1 + (MAX_CLARIFICATIONS + 1) + 1 + (MAX_RETRIES + 1) * MODEL_STEPS_PER_PASS
    + REDRAFT_MODEL_STEPS
)  # fmt: skip
"""Summarise the conversation at most once, route once per clarification round, rewrite
once (retries reuse its sub-queries), then three model steps per retrieval pass, and one
redraft: 1 + 3 + 1 + 3 * 3 + 2 = 16."""
RETRIEVAL_LIMIT = 8
EXPIRED_TEXT = (
    "This question waited for a clarification that did not arrive in time, so it was "
    "closed. Ask it again with the company and fiscal year."
)
CANCELLED_TEXT = (
    "This question was cancelled before it was answered, so nothing was looked up. "
    "Ask again whenever you like."
)
EXECUTION_MARGIN = timedelta(hours=1)
"""Time a turn may spend outside its clarification waits before Temporal closes it."""


def execution_timeout(clarification_timeout_seconds: float) -> timedelta:
    """The bound on a whole turn: every clarification wait it may make, plus a margin.

    Temporal closes a turn that outlives it (timed out); the reconciler then records the
    turn as `failed`, so even a turn whose workflow cannot act never blocks its
    conversation for longer than this.
    """
    return MAX_CLARIFICATIONS * timedelta(seconds=clarification_timeout_seconds) + (
        EXECUTION_MARGIN
    )


class TurnBudgetSpent(Exception):
    """A budgeted step not started: what is left of the turn's budget could not hold it."""


STEP_FAILED = (ActivityError, ApplicationError, StepTimeout, TurnBudgetSpent)
"""What a failed step raises: a regular activity's failure arrives as ActivityError, a
local activity's as the failure itself (ApplicationError, or TimeoutError); a step the
turn's budget could not hold, as TurnBudgetSpent."""
# ---- retired patches ---------------------------------------------------------------
# Each id once guarded a change with `workflow.patched`; every in-flight turn has since
# passed it, so each is deprecated (`workflow.deprecate_patch`: a history with its marker
# replays, a new one records none) and the code before it is gone. The next step deletes
# the ids once no turn with their markers is open (docs/architecture.md, "Retiring
# workflow versions").
LEAN_TURN = "lean-turn-local-steps"
"""Short steps on this machine run as local activities."""
ANSWERS_V2 = "answers-v2"
"""Scope rules that decline advice wrapped around a fact; a follow-up keeps the metric."""
MEMORY = "memory-v1"
"""Summaries, preferences, remembered statements and the semantic answer cache."""
OPEN_ANSWERS = "open-answers-v1"
"""The relevance control on each draft, and scope rules by phrasing, not keywords."""
CHECKED_DRAFTS = "checked-drafts-v1"
"""A refuted figure redrafted once, then taken out of the answer."""
CHECKED_DRAFTS_V2 = "checked-drafts-v2"
"""The turn's budget; sentences speaking to the reader taken out; other companies
read however they are written."""
COVERAGE_FROM_REGISTRY = "coverage-from-registry-v1"
"""The coverage read from the company registry at the start and pinned."""
DEPRECATED_PATCHES = (
    LEAN_TURN, ANSWERS_V2, MEMORY, OPEN_ANSWERS, CHECKED_DRAFTS, CHECKED_DRAFTS_V2,
    COVERAGE_FROM_REGISTRY,
)  # fmt: skip
"""Asked at the start of `run`, in the order their `patched` calls stood."""
FALLBACK_ATTRIBUTE = "fallback-attribute"
"""A turn that falls back also sets `TurnstileFallback`; asked only on that path."""
SPOKE_TO_READER_WARNING = (
    "A sentence of the drafted answer spoke of instructions or called itself verified; it "
    "was taken out (only the checks say what is verified)."
)
NO_USER_TEXT = (
    "I can only remember preferences for a known user (send a user id with your "
    "questions), so nothing was stored."
)
REMEMBER_FAILED_TEXT = (
    "I could not store that preference just now, so nothing was stored. Please say it "
    "again in a moment."
)
_Arg = TypeVar("_Arg")
_Ret = TypeVar("_Ret")
TASK_TIMEOUT = timedelta(seconds=5)
"""A workflow task is milliseconds of our code; when its worker dies mid-task, Temporal
hands it to another after this (the default 10 s dominated recovery after a kill)."""


class TurnError(ApplicationError):
    """A turn that cannot go on: non-retryable, so it settles instead of retrying forever."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message, type=kind, non_retryable=True)


class _Cancelled:
    """What a clarification wait returns when the turn was cancelled instead of answered."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


class Shown(TypedDict, total=False):
    """The TurnResult fields an outcome sets (the rest are the turn's bookkeeping)."""

    answer: str | None
    clarifying_question: str | None
    expires_at: datetime
    citations: list[Citation]
    derived: list[Derived]
    not_found: list[NotFound]
    grounded: Literal["yes", "partial", "no"] | None
    confidence: Literal["high", "medium", "low"] | None
    unsupported_claims: list[UnsupportedClaim]
    figures_checked: int
    warnings: list[str]
    coverage: dict[str, bool]
    relevance: Relevance | None
    route: str | None
    fallback_reason: str | None
    refusal_reason: str | None
    failure_reason: str | None


def _latest_years() -> list[int]:
    """The latest covered fiscal year, as the years a question without one asks about."""
    latest = latest_fiscal_year()
    return [latest] if latest is not None else []


def _cause(err: BaseException) -> str:
    """The first error of the chain with an error type of ours (`ModelOutputInvalid`,
    `ModelTimeout`, ...), else the root error, by its class: what the decision record and
    the degradation metric say failed. The classified error is the one to name: below it
    are the library's own (a JSON or validation error), which say less. Temporal's own
    timeout is named as it is: beneath it is only an earlier attempt's failure."""
    while (
        not isinstance(getattr(err, "type", None), str)
        and not isinstance(err, StepTimeout)  # a timeout, whatever the last attempt said
        and err.__cause__ is not None
    ):
        err = err.__cause__
    typed = getattr(err, "type", None)
    name = typed if isinstance(typed, str) and typed else type(err).__name__
    return name if not str(err) else f"{name}: {str(err)[:120]}"


@dataclass
class _Outcome:
    status: TurnStatus
    text: str | None
    route: str | None
    resolved: str
    carried: Carried
    citations: list[Citation] = field(default_factory=list)
    derived: list[Derived] = field(default_factory=list)
    not_found: list[NotFound] = field(default_factory=list)
    unsupported: list[UnsupportedClaim] | None = None
    """None when the answer was not graded (refusal, direct answer, fallback)."""
    warnings: list[str] = field(default_factory=list)
    coverage: dict[str, bool] = field(default_factory=dict)
    had_evidence: bool = False
    fallback_reason: str | None = None
    refusal_reason: str | None = None
    failure_reason: str | None = None
    judge_unavailable: bool = False
    numbers_unverified: bool = False
    figures_given: bool = True
    """Whether the answer states any figure (the numeric check found one to check)."""
    figures_asked: bool = False
    """Whether the question asks for figures (a measure, and not what the reports say)."""
    figures_checked: int = 0
    """How many figures the numeric check checked in the answer shown."""
    to_cache: CachedAnswer | None = None
    """The clean answer (no notice, decline, warning or disclaimer) the cache may keep:
    set only for an answer composed from the reports this turn whose quality passed."""
    relevance: Relevance | None = None
    verdict: RelevanceVerdict = field(default_factory=RelevanceVerdict)
    removed: int = 0
    """Refuted figures taken out of the answer (they count as missing, not as shown)."""


@dataclass
class _Pass:
    number: int
    draft: Draft | None
    sources: list[ChunkHit]
    unsupported: list[UnsupportedClaim]
    derived: list[Derived]
    quality_passed: bool
    judge_unavailable: bool = False
    numbers_unverified: bool = False
    checked_numbers: int = 0
    relevance: Relevance | None = None
    relevance_checked: bool = True
    """False when the relevance control was due and could not run (fail-closed)."""
    sentences: dict[str, str] = field(default_factory=dict)
    """Each unsupported claim's sentence in the draft, by label (the numeric check's)."""
    spoke_to_reader: int = 0
    """Sentences of the draft taken out for instructions or a claim of being verified."""
    verified: list[CheckedFigure] = field(default_factory=list)
    """The answer's figures the numeric check found backed (company, year, metric)."""

    @property
    def gaps(self) -> list[NotFound]:
        return self.draft.not_found if self.draft else []


def plan_for(
    plan: RewritePlan, question: str, slots: Slots, requested: list[str]
) -> list[SubQuery]:
    """One sub-query per requested company: the rewrite's, or the company's name plus the
    question when the rewrite gave none for it (or failed)."""
    by_company = {sq.company: sq for sq in plan.sub_queries if sq.company in requested}
    for ticker in requested:
        by_company.setdefault(
            ticker,
            SubQuery(
                company=ticker,
                query=f"{display_name(ticker)} {question}",
                fiscal_years=slots.fiscal_years,
                metrics=slots.metrics,
            ),
        )
    return [by_company[t] for t in requested]


@workflow.defn(name="ChatTurn", failure_exception_types=[ValidationError])
class ChatTurn:
    def __init__(self) -> None:
        self._result: TurnResult | None = None
        self._round = 0
        self._settled = False
        self._waiting_round: int | None = None
        self._asked_round = 0
        self._reply: str | None = None
        self._cancel: CancelRequest | None = None
        self._degraded: list[Degradation] = []
        self._trace: list[ModelCall] = []
        # Chunk ids only, for the decision record; dicts keep first-seen order.
        self._retrieved: dict[str, None] = {}
        self._kept: dict[str, None] = {}
        self._model_calls = 0
        self._retries = 0
        self._retry_skipped: str | None = None
        self._details: list[str] = []
        self._decline: str | None = None
        self._redrafted = False
        self._deadline = datetime.max.replace(tzinfo=UTC)  # set at the start of run
        self._out_of_time = False
        """The budget was spent before a step, or the draft's model call timed out."""
        self._failures: list[StepFailure] = []
        self._notes: list[MemoryNote] = []
        """The conversation's summary for synthesis, labelled a claim."""
        self._preference_notes: list[MemoryNote] = []
        """The user's preferences that apply to the current question."""
        self._hint: CacheLookup | None = None
        self._cache: CacheLookup | None = None
        self._corpus_version: str | None = None
        self._summarised = 0
        # The turn's progress for watchers (the API's event stream): an offset-addressed
        # log kept in the workflow and read with updates. Publishing issues no command,
        # so turns that began before the stream replay unchanged. But a watcher's poll
        # completes in the workflow task whose publish satisfied it, and that completion
        # is in the history: adding, moving or removing a publish point changes how a
        # watched turn replays. Treat publish points like commands (workflow.patched).
        self._stream = WorkflowStream()
        self._events = self._stream.topic(progress.EVENTS_TOPIC, type=TurnEvent)
        self._published = 0

    @workflow.run
    async def run(self, inp: TurnInput) -> TurnResult:
        self._inp = inp
        # Every patch a turn's code ever took, deprecated in the order they were taken:
        # each marks the history as before and no turn without it is left
        # (docs/architecture.md, "Retiring workflow versions").
        for patch_id in DEPRECATED_PATCHES:
            workflow.deprecate_patch(patch_id)
        self._deadline = workflow.now() + timedelta(seconds=inp.turn_budget_seconds)
        self._result = TurnResult(
            turn_id=inp.turn_id,
            conversation_id=inp.conversation_id,
            status="running",
            question=inp.question,
        )
        set_at_start = workflow.info().typed_search_attributes.get(attributes.CONVERSATION)
        if not set_at_start:  # a client that did not set it at start (the CLI's own)
            workflow.upsert_search_attributes(
                [attributes.CONVERSATION.value_set(inp.conversation_id)]
            )
        try:
            result = await self._turn(inp)
        except asyncio.CancelledError:
            # Cancelled by an operator (Temporal UI or CLI): settle it so the conversation
            # is free, then finish normally with the cancelled result.
            result = await self._settle_after(
                "cancelled", "cancelled by an operator", CANCELLED_TEXT
            )
        except workflow.NondeterminismError:
            raise  # new code on an old history: fail the task visibly, settle nothing
        except Exception as err:  # the settle path: any failure still ends the turn
            result = await self._settle_after("failed", _cause(err), None)
        # The stream's in-band end, then release its waiting subscribers: a poll still
        # waiting would otherwise keep the handlers below from ever finishing.
        self._publish(progress.settled(result.status))
        self._stream.detach_pollers()
        await workflow.wait_condition(workflow.all_handlers_finished)
        return result

    @workflow.signal(
        name="clarification_reply",
        description="The user's reply to the clarifying question of round `round`; it is"
        " merged into the question. A reply for another round is ignored and noted.",
    )
    def clarification_reply(self, reply: ClarificationReply) -> None:
        """Accept the reply to the question now waiting; ignore (and record) any other.

        A reply PostgreSQL could not store (NUL, lone surrogate) is ignored too: the API
        refuses it with 422, but a signal sent with the Temporal CLI skips the API.
        """
        if self._waiting_round != reply.round or self._reply is not None or self._cancel:
            self._note(f"ignored a reply for round {reply.round}")
            return
        if unstorable(reply.reply):
            self._note(f"ignored a reply for round {reply.round}: {unstorable(reply.reply)}")
            return
        self._reply = reply.reply

    @workflow.signal(
        name="cancel_turn",
        description="Cancel the clarification of round `round`: the turn settles as"
        " cancelled and its conversation is free.",
    )
    def cancel_turn(self, request: CancelRequest) -> None:
        """Cancel the clarification now waiting; ignore (and record) any other request."""
        if self._waiting_round != request.round or self._reply is not None or self._cancel:
            self._note(f"ignored a cancel for round {request.round}")
            return
        self._cancel = request

    @workflow.update(
        name="wait_for_outcome",
        description="Wait (changing nothing) until the turn settles or asks a clarifying"
        " question after round `after_round`; returns the TurnResult.",
    )
    async def wait_for_outcome(self, after_round: int) -> TurnResult:
        """Return when the turn settles or asks a clarifying question after `after_round`."""
        await workflow.wait_condition(lambda: self._settled or self._asked_round > after_round)
        if self._result is None:  # run() sets it before any handler can wait on it
            raise TurnError("the turn has no result yet", "TurnNotStarted")
        return self._result

    @workflow.query(
        name="current",
        description="The TurnResult so far (answer text only once the final gate passed).",
    )
    def current(self) -> TurnResult | None:
        return self._result

    @workflow.query(name="progress", description="The decisions taken so far, one line per step.")
    def progress(self) -> list[str]:
        """The decisions taken so far, one line per step (no answer text: that is only
        released in the TurnResult, after the final gate)."""
        return list(self._details)

    # ---- the turn -------------------------------------------------------------------

    async def _turn(self, inp: TurnInput) -> TurnResult:
        await self._pin_coverage()
        session = await self._load_session(inp)
        await self._summarise(inp, session)
        remembering = read_preference(inp.question)
        rules = scope_rules(inp.question)
        # A statement wrapped around something the scope rules refuse or decline
        # ("I only follow iron-ore miners: should I buy BHP?") goes the normal way.
        if remembering is not None and not (rules.refuse or rules.decline):
            return await self._remember(remembering)
        question = inp.question
        clarifications = 0
        while True:
            resolved, carried = carry_entities(question, session.recent_questions)
            if carried.company or carried.fiscal_year or carried.metric:
                parts = (carried.company, carried.metric, carried.fiscal_year)
                self._note("carried " + " ".join(str(p) for p in parts if p))
            if session.preferences:
                resolved, applied = apply_preferences(resolved, session.preferences)
                # Only what applies to this question is a hint: a scale the question
                # sets itself must not be contradicted by a remembered one.
                self._preference_notes = [
                    MemoryNote(kind="preference", text=f"the user asked for {what}")
                    for what in applied
                ]
                if applied:
                    carried = carried.model_copy(update={"preferences": applied})
                    self._note(f"preferences applied: {'; '.join(applied)}")
            scope = scope_rules(resolved)
            self._decline = scope.decline
            if scope.decline:
                self._note(f"scope rules: answering the facts, declining the rest ({scope.reason})")
            if scope.refuse:
                self._note(f"scope rules: refused ({scope.reason})")
                return await self._finish(
                    _Outcome("refused", refusal_text(), "scope_rules", resolved, carried,
                             refusal_reason=scope.reason)
                )  # fmt: skip
            if inp.answer_cache:
                lookup = await self._lookup(resolved)
                if lookup.outcome == "hit" and lookup.entry is not None:
                    return await self._finish(self._reused(lookup.entry, resolved, carried))
            decision = await self._route(resolved)
            if decision.route == "out_of_scope":
                return await self._finish(
                    _Outcome("refused", refusal_text(), decision.route, resolved, carried,
                             refusal_reason=decision.reason)
                )  # fmt: skip
            if decision.route == "direct_answer":
                return await self._finish(
                    _Outcome("answered", decision.direct_answer, decision.route, resolved, carried)
                )
            if decision.route != "needs_clarification":
                return await self._answer_from_reports(resolved, carried, decision)
            if clarifications >= MAX_CLARIFICATIONS:
                return await self._finish(
                    _Outcome("fallback", None, decision.route, resolved, carried,
                             fallback_reason=gate.CLARIFICATION_EXHAUSTED)
                )  # fmt: skip
            clarifications += 1
            reply = await self._ask(decision, resolved, carried)
            if reply is None:
                return await self._finish(
                    _Outcome("expired", EXPIRED_TEXT, decision.route, resolved, carried)
                )
            if isinstance(reply, _Cancelled):
                return await self._finish(
                    _Outcome("cancelled", CANCELLED_TEXT, decision.route, resolved, carried,
                             failure_reason=reply.reason)
                )  # fmt: skip
            question = merge_reply(question, reply)
            self._note(f"clarification {clarifications} answered; question merged")

    async def _pin_coverage(self) -> None:
        """Read the coverage and pin it for the rest of the turn (fail-closed: a turn
        that cannot say what it covers settles with its fallback)."""
        read = await self._exec(
            steps.postgres_read_coverage, CoverageRequest(), summary="the companies held"
        )
        if read.stale:
            self._degrade(
                steps.postgres_read_coverage,
                "the company registry could not be read: the worker's last reading was used",
            )
        pin(read.companies)

    async def _load_session(self, inp: TurnInput) -> Session:
        try:
            return await self._exec(
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
            self._degrade(steps.postgres_load_session, _cause(err))
            return Session()

    async def _summarise(self, inp: TurnInput, session: Session) -> None:
        """Compress a long conversation's older messages into its summary (fail-open:
        the history stays as it is), and gather what synthesis may be reminded of."""
        summary = session.summary
        if needs_summary(session.unsummarised):
            self._count_model_call()
            try:
                done = await self._exec(
                    steps.llm_summarize_history,
                    SummarizeRequest(conversation_id=inp.conversation_id, seq=inp.seq),
                    summary=f"{session.unsummarised} messages not yet summarised",
                )
                summary, self._summarised = done.summary, done.summarised
                self._note(f"summarised {done.summarised} older messages")
            except STEP_FAILED as err:
                self._degrade(steps.llm_summarize_history, _cause(err))
        if summary:
            self._notes.append(MemoryNote(kind="summary", text=without_markers(summary)))

    async def _remember(self, remembering: Remembering) -> TurnResult:
        """A statement of preference: store it (when it is something the turn can act
        on and the user is known) and say plainly what happened."""
        question = self._inp.question
        text = remembering.reply
        if remembering.preference is not None and not self._inp.user_id:
            text = NO_USER_TEXT
        elif remembering.preference is not None and self._inp.user_id:
            try:
                await self._exec(
                    steps.postgres_remember_fact,
                    RememberRequest(
                        tenant_id=self._inp.tenant_id, user_id=self._inp.user_id,
                        turn_id=self._inp.turn_id, preference=remembering.preference,
                    ),
                    summary=f"remember {remembering.preference.kind}",
                )  # fmt: skip
                self._note(f"remembered {remembering.preference.describe()}")
            except STEP_FAILED as err:
                self._fail_closed(steps.postgres_remember_fact, "remembering", err)
                text = REMEMBER_FAILED_TEXT
        else:
            self._note("a request to remember something the turn cannot act on")
        return await self._finish(_Outcome("answered", text, "remember", question, Carried()))

    async def _lookup(self, resolved: str) -> CacheLookup:
        """The semantic answer cache (fail-open: a miss)."""
        try:
            lookup = await self._exec(
                steps.qdrant_lookup_answer,
                CacheLookupRequest(tenant_id=self._inp.tenant_id, question=resolved),
                summary="look for an answer already given",
            )
        except STEP_FAILED as err:
            self._degrade(steps.qdrant_lookup_answer, _cause(err))
            lookup = CacheLookup(outcome="miss", reason="lookup unavailable")
        self._cache, self._corpus_version = lookup, lookup.corpus_version
        self._hint = lookup if lookup.outcome == "hint" and lookup.entry is not None else None
        similarity = f" at {lookup.similarity:.3f}" if lookup.similarity is not None else ""
        # No source turn id here: progress lines reach the caller's event stream, and
        # another user's turn id names their conversation (the result keeps it).
        self._note(f"answer cache: {lookup.outcome}{similarity} {lookup.reason}".rstrip())
        return lookup

    def _reused(self, entry: CachedAnswer, resolved: str, carried: Carried) -> _Outcome:
        """A cached answer as this turn's outcome: the same notices and declines as a
        fresh answer, then the final gate and confidence shaping in `_finish`."""
        text = entry.answer
        if remembered := preference_notice(carried.preferences):
            text = f"{remembered}\n\n{text}"
        notice = coverage_notice(resolved)
        if notice:
            text = f"{notice}\n\n{text}"
        if self._decline:
            text = f"{self._decline}\n\n{text}"
        warning = coverage_warning(resolved)
        return _Outcome(
            "answered", text, "answer_cache", resolved, carried,
            warnings=list(entry.warnings) + ([warning] if warning else []),
            citations=list(entry.citations), derived=list(entry.derived),
            not_found=list(entry.not_found), unsupported=list(entry.unsupported),
            coverage=dict(entry.coverage),
            had_evidence=True, figures_given=entry.figures_given,
        )  # fmt: skip

    async def _save_to_cache(self, o: _Outcome, grounded: str | None) -> None:
        """Write a checked answer to the cache (fail-open: skipped). Only an answer whose
        quality passed, grounded yes or partial, with every check run and nothing
        degraded, and no personal value in its question."""
        entry = o.to_cache
        if entry is None or not self._inp.answer_cache:
            return
        why_not = (
            "grounded no" if grounded not in ("yes", "partial")
            else "a check did not run" if o.judge_unavailable or o.numbers_unverified
            else "a step degraded" if self._degraded
            else "a personal value in the question" if TOKEN.search(entry.question)
            else None
        )  # fmt: skip
        if why_not:
            self._note(f"answer cache: not written ({why_not})")
            return
        try:
            written = await self._exec(
                steps.qdrant_save_answer,
                CacheWriteRequest(
                    tenant_id=self._inp.tenant_id, user_id=self._inp.user_id, entry=entry,
                    corpus_version=self._corpus_version,
                ),
                summary="remember this checked answer",
            )  # fmt: skip
            self._note("answer cache: written" if written.written else
                       f"answer cache: not written ({written.reason})")  # fmt: skip
        except STEP_FAILED as err:
            self._degrade(steps.qdrant_save_answer, _cause(err))

    async def _route(self, question: str) -> RouteDecision:
        self._count_model_call()
        try:
            decision = await self._exec(
                steps.llm_route_question,
                RouteRequest(question=question),
                summary="classify the question",
            )
        except STEP_FAILED as err:
            self._degrade(steps.llm_route_question, _cause(err))
            decision = RouteDecision(
                route="needs_retrieval",
                reason="classifier unavailable",
                slots=extract_slots(question),
            )
        self._note(f"route: {decision.route} ({decision.reason})")
        workflow.upsert_search_attributes([attributes.ROUTE.value_set(decision.route)])
        return decision

    async def _ask(
        self, decision: RouteDecision, resolved: str, carried: Carried
    ) -> str | _Cancelled | None:
        """Durably wait for a clarification reply; None when it expires."""
        self._round += 1
        timeout = timedelta(seconds=self._inp.clarification_timeout_seconds)
        waiting = self._snapshot(
            "needs_clarification", resolved, carried,
            clarifying_question=decision.clarifying_question,
            expires_at=workflow.now() + timeout,
            route=decision.route,
        )  # fmt: skip
        # Waiting starts before the save: a reply that arrives in the same workflow task
        # as the save's completion is then accepted, not ignored as "not waiting".
        self._reply = None
        self._waiting_round = self._round
        await self._save(waiting, final=False)
        self._result, self._asked_round = waiting, self._round
        self._note(f"asked clarification {self._round}")
        self._publish(progress.waiting(self._round))
        asked_at = workflow.now()
        try:
            await workflow.wait_condition(
                lambda: self._reply is not None or self._cancel is not None,
                timeout=timeout,
                timeout_summary="await clarification",
            )
        except TimeoutError:
            self._waiting_round = None
            self._note("clarification expired")
            return None
        if self._cancel is not None:
            self._waiting_round = None
            self._note(f"clarification {self._round} cancelled")
            return _Cancelled(self._cancel.reason)
        self._deadline += workflow.now() - asked_at  # waiting is not the turn's work
        reply, self._reply, self._waiting_round = self._reply, None, None
        if reply is None:  # the wait condition guarantees a reply or a cancel
            raise TurnError("clarification wait ended without a reply", "NoReply")
        running = self._snapshot("running", resolved, carried)
        await self._save(running, final=False)
        self._result = running
        return reply

    async def _answer_from_reports(
        self, resolved: str, carried: Carried, decision: RouteDecision
    ) -> TurnResult:
        slots = decision.slots
        requested = slots.companies or list(companies())
        plan = await self._rewrite(resolved, slots, requested)
        passes, kept, coverage = await self._retrieval_passes(resolved, slots, requested, plan)
        drafted = {p.number: p for p in passes if p.draft is not None}
        if not drafted:
            return await self._finish(
                _Outcome("fallback", None, decision.route, resolved, carried, coverage=coverage,
                         had_evidence=bool(kept),
                         fallback_reason=gate.MODEL_TIMEOUT if self._out_of_time else None)
            )  # fmt: skip
        attempts = [Attempt(p.number, len(p.unsupported), len(p.gaps)) for p in drafted.values()]
        best = drafted[best_attempt(attempts).pass_number]
        return await self._finish(self._answered(best, resolved, carried, decision, coverage))

    async def _retrieval_passes(
        self, resolved: str, slots: Slots, requested: list[str], plan: RewritePlan
    ) -> tuple[list[_Pass], dict[str, ChunkHit], dict[str, bool]]:
        """Search, grade, draft and check; retry with changed queries while the rule says so.

        Returns every pass, the evidence kept across passes, and the last coverage.
        """
        current = {sq.company: sq for sq in plan.sub_queries}
        to_search = list(current.values())
        kept: dict[str, ChunkHit] = {}
        passes: list[_Pass] = []
        coverage: dict[str, bool] = {}
        while True:
            number = len(passes) + 1
            self._retries = number - 1
            hits = await self._retrieve(to_search)
            self._retrieved.update(dict.fromkeys(h.chunk_id for h in hits))
            candidates = [
                h for h in dict((h.chunk_id, h) for h in hits).values() if h.chunk_id not in kept
            ]
            for hit in await self._grade_documents(resolved, slots, candidates):
                kept[hit.chunk_id] = hit
                self._kept[hit.chunk_id] = None
            sources = list(kept.values())
            coverage = company_status(requested, {h.company for h in sources})
            self._note(
                f"pass {number}: {len(candidates)} new, {len(sources)} kept;"
                f" {progress.covered(coverage)}"
            )
            current_pass = await self._draft_and_check(number, resolved, slots, sources)
            if (
                current_pass.unsupported and not self._redrafted and self._time_for("redraft")
            ):  # fmt: skip
                current_pass = await self._redraft(current_pass, resolved, slots, sources)
            passes.append(current_pass)
            unsupported = len(current_pass.unsupported)
            gaps = retryable(current_pass.gaps, slots.other_measures)
            if not should_retry(current_pass.quality_passed, len(gaps), unsupported, number - 1):
                return passes, kept, coverage
            if not self._time_for(f"retry {number}"):
                return passes, kept, coverage
            retry = self._next_queries(current_pass, list(current.values()), coverage, slots)
            if retry is None:
                return passes, kept, coverage
            for sq in retry:
                current[sq.company] = sq
            to_search = retry

    async def _redraft(
        self, last: _Pass, question: str, slots: Slots, sources: list[ChunkHit]
    ) -> _Pass:
        """Once per turn: the same evidence drafted again, its input naming the claims the
        checks refuted (a retry changes its input); the draft with fewer refuted claims
        is kept."""
        self._redrafted = True
        labels = [c.label for c in last.unsupported]
        self._note(f"redraft {last.number}: naming {len(labels)} refuted claim(s)")
        again = await self._draft_and_check(last.number, question, slots, sources, labels)
        if again.draft is None or len(again.unsupported) > len(last.unsupported):
            return last
        return again

    def _next_queries(
        self, last: _Pass, current: list[SubQuery], coverage: dict[str, bool], slots: Slots
    ) -> list[SubQuery] | None:
        """The changed sub-queries of the next pass; None (recorded) when nothing can change."""
        drafted = retryable(last.gaps, slots.other_measures) if last.draft else None
        gaps = gaps_to_retry(drafted, coverage, slots, latest_fiscal_year() or 0)
        targets = retry_targets(coverage, gaps, last.unsupported)
        retry_plan = plan_retry(
            current, targets, gaps, last.unsupported, last.number, metric_synonyms
        )
        if retry_plan is None:
            self._retry_skipped = "nothing in the sub-queries could change"
            self._note(f"retry skipped: {self._retry_skipped}")
            return None
        self._note(f"retry {last.number}: {'; '.join(retry_plan.changes)}")
        return retry_plan.sub_queries

    def _answered(
        self,
        best: _Pass,
        resolved: str,
        carried: Carried,
        decision: RouteDecision,
        coverage: dict[str, bool],
    ) -> _Outcome:
        """The best pass's draft, bound to its citations, with every gap line present."""
        if best.draft is None:  # only drafted passes are chosen
            raise TurnError("the chosen pass has no draft", "NoDraft")
        answer, removed = best.draft.answer, list[str]()
        if best.unsupported and gate.final_gate(answer):
            # A figure still refuted is never shown (a draft the gate refuses anyway is
            # left to it).
            answer, removed = remove_refuted(answer, best.unsupported, best.sentences)
            if removed:
                self._note(f"final gate: {len(removed)} refuted figure(s) taken out")
            if removed and not substance_left(answer, removed):
                return _Outcome(
                    "answered", None, decision.route, resolved, carried, coverage=coverage,
                    had_evidence=True, fallback_reason=gate.UNVERIFIED,
                )  # fmt: skip
        bound = bind_citations(answer, [Source.narrowed(h) for h in best.sources])
        citation_warnings = list(bound.warnings)
        warning = coverage_warning(resolved)
        if warning:
            bound.warnings.append(warning)
        # A draft the final gate will refuse gets no relevance lines: they must not turn
        # an empty answer into one that passes.
        verdict = relevance_verdict(
            best.relevance, list(coverage),
            decision.slots.fiscal_years or _latest_years(), best.relevance_checked,
        ) if gate.final_gate(bound.answer) else RelevanceVerdict()  # fmt: skip
        lines = {g.line().lower() for g in best.draft.not_found}
        gaps = [*best.draft.not_found, *(g for g in verdict.gaps if g.line().lower() not in lines)]
        if not best.numbers_unverified and gate.final_gate(bound.answer):
            # What was asked and no backed figure gives: its line, whatever the draft lists.
            lines |= {g.line().lower() for g in gaps}
            missed = unanswered(
                list(coverage), decision.slots, best.verified, best.derived, resolved
            )
            gone = {label.lower() for label in removed}  # taken out: its own line says so
            asked = [
                g for g in missed
                if g.line().lower() not in lines
                and f"{g.company} FY{g.fiscal_year} {g.metric}".lower() not in gone
            ]  # fmt: skip
            if asked:
                self._note(f"coverage: {len(asked)} asked item(s) no backed figure gives")
                gaps.extend(asked)
        text, added = ensure_gap_lines(bound.answer, gaps)
        if added:
            self._note(f"coverage post-check added {len(added)} line(s)")
        if verdict.lead:
            text = f"{verdict.lead}\n\n{text}"
        if verdict.warning:
            bound.warnings.append(verdict.warning)
        if best.spoke_to_reader:
            bound.warnings.append(SPOKE_TO_READER_WARNING)
        bound_text = text
        if remembered := preference_notice(carried.preferences):
            text = f"{remembered}\n\n{text}"
        notice = coverage_notice(resolved)
        if notice:  # the answer itself says first that the year is not covered
            text = f"{notice}\n\n{text}"
        if self._decline:  # advice or a prediction around the fact: declined in the text
            text = f"{self._decline}\n\n{text}"
        citations = [Citation(**s.model_dump(), n=n) for n, s in bound.cited]
        clean = CachedAnswer(
            turn_id=self._inp.turn_id, question=resolved, answer=bound_text,
            citations=citations, derived=best.derived, not_found=best.draft.not_found,
            unsupported=best.unsupported, coverage=coverage,
            figures_given=best.checked_numbers > 0 or best.numbers_unverified,
            warnings=citation_warnings,
        )  # fmt: skip
        return _Outcome(
            "answered", text, decision.route, resolved, carried,
            citations=citations, derived=best.derived, not_found=gaps,
            unsupported=best.unsupported, warnings=bound.warnings, coverage=coverage,
            had_evidence=True, judge_unavailable=best.judge_unavailable,
            numbers_unverified=best.numbers_unverified,
            figures_given=best.checked_numbers > 0 or best.numbers_unverified,
            figures_asked=asks_figures(decision.slots), figures_checked=best.checked_numbers,
            to_cache=clean if (
                best.quality_passed and not verdict.low and not removed
                and not best.spoke_to_reader
            ) else None,
            relevance=best.relevance, verdict=verdict, removed=len(removed),
        )  # fmt: skip

    async def _rewrite(self, question: str, slots: Slots, requested: list[str]) -> RewritePlan:
        self._count_model_call()
        try:
            plan = await self._exec(
                steps.llm_rewrite_query,
                RewriteRequest(question=question, slots=slots),
                summary=f"sub-queries for {', '.join(requested)}",
            )
        except STEP_FAILED as err:
            self._degrade(steps.llm_rewrite_query, _cause(err))
            plan = RewritePlan(sub_queries=[])
        return RewritePlan(sub_queries=plan_for(plan, question, slots, requested))

    async def _retrieve(self, sub_queries: list[SubQuery]) -> list[ChunkHit]:
        """Search every company in parallel; a failed branch counts as not found."""
        try:
            self._options(steps.qdrant_search_chunks)  # raises when the budget is spent
        except TurnBudgetSpent as err:
            for sq in sub_queries:
                self._degrade(steps.qdrant_search_chunks, f"{sq.company}: {_cause(err)}")
            return []
        for sq in sub_queries:
            self._publish(progress.search_started(sq.company, sq.fiscal_years))
        results = await asyncio.gather(
            *(
                workflow.execute_activity(
                    steps.qdrant_search_chunks,
                    SearchRequest(
                        query=sq.query,
                        company=sq.company,
                        fiscal_years=sq.fiscal_years,
                        limit=RETRIEVAL_LIMIT,
                        later_years=sq.later_years,
                    ),
                    summary=f"{sq.company} fy={sq.fiscal_years or 'any'}",
                    task_queue=self._index_queue(steps.qdrant_search_chunks),
                    **self._options(steps.qdrant_search_chunks),
                )
                for sq in sub_queries
            ),
            return_exceptions=True,
        )
        hits: list[ChunkHit] = []
        for sq, result in zip(sub_queries, results, strict=True):
            if isinstance(result, SearchResult):
                hits.extend(result.hits)
                for note in result.degraded:  # the reranker failed open inside the search
                    self._degrade(steps.qdrant_search_chunks, f"{sq.company}: {note}")
            elif isinstance(result, ActivityError):
                self._degrade(steps.qdrant_search_chunks, f"{sq.company}: {_cause(result)}")
            elif isinstance(result, BaseException):
                raise result
        return hits

    async def _grade_documents(
        self, question: str, slots: Slots, candidates: list[ChunkHit]
    ) -> list[ChunkHit]:
        if not candidates:
            return []
        self._count_model_call()
        try:
            grades = await self._exec(
                steps.llm_grade_documents,
                EvidenceRequest(
                    question=question, slots=slots, chunk_ids=[h.chunk_id for h in candidates]
                ),
                summary=f"grade {len(candidates)} chunks",
            )
        except STEP_FAILED as err:
            self._degrade(steps.llm_grade_documents, _cause(err))
            return candidates
        kept = [candidates[i] for i in grades.keep if 0 <= i < len(candidates)]
        self._note(f"grading kept {len(kept)}/{len(candidates)}")
        return kept

    async def _draft_and_check(
        self, number: int, question: str, slots: Slots, sources: list[ChunkHit],
        refuted: list[str] | None = None,
    ) -> _Pass:  # fmt: skip
        if not sources:
            return _Pass(number, None, [], [], [], quality_passed=False)
        ids = [h.chunk_id for h in sources]
        memory = self._memory_notes()
        if refuted:  # after the summary, before the hints: dropped after them
            at = sum(1 for n in memory if n.kind == "summary")
            memory.insert(at, MemoryNote(kind="refuted", text="; ".join(refuted)))
        self._count_model_call()
        try:
            draft = await self._exec(
                steps.llm_synthesize_answer,
                EvidenceRequest(question=question, slots=slots, chunk_ids=ids, memory=memory),
                summary=f"answer from {len(ids)} sources",
            )
        except STEP_FAILED as err:
            self._fail_closed(steps.llm_synthesize_answer, "synthesis", err)
            if error_class(_cause(err)) == "timeout":
                self._out_of_time = True
            return _Pass(number, None, sources, [], [], quality_passed=False)
        answer, spoken = without_instructions(draft.answer)  # the checks check what is shown
        if spoken:
            self._note(f"draft: {len(spoken)} sentence(s) speaking to the reader taken out")
            draft = draft.model_copy(update={"answer": answer})
        check = CheckRequest(question=question, answer=draft.answer, chunk_ids=ids)
        numbers_unverified = False
        try:
            report = await self._exec(
                steps.grounding_check_numbers, check, summary="numeric grounding",
            )  # fmt: skip
        except STEP_FAILED as err:
            self._fail_closed(steps.grounding_check_numbers, "numeric check", err)
            report, numbers_unverified = GroundingReport(), True
        relevance, relevance_checked = await self._check_relevance(
            question, draft.answer, ids, [d.label for d in report.derived + draft.derived]
        )
        judge_unavailable = False
        self._count_model_call()
        try:
            grade = await self._exec(
                steps.llm_grade_answer, check, summary="judge the answer",
            )  # fmt: skip
        except STEP_FAILED as err:
            cause = _cause(err)
            self._degrade(steps.llm_grade_answer, f"{JUDGE_UNAVAILABLE}: {cause}", cause)
            grade, judge_unavailable = AnswerGrade(quality_passed=True), True
        unsupported = merge_claims(report.unsupported, grade.unsupported)
        self._note(
            f"pass {number}: quality {'pass' if grade.quality_passed else 'FAIL'}, "
            f"{len(unsupported)} unsupported, {len(draft.not_found)} gaps"
        )
        return _Pass(
            number, draft, sources, unsupported, report.derived or draft.derived,
            grade.quality_passed, judge_unavailable, numbers_unverified,
            report.checked_numbers, relevance, relevance_checked, report.sentences,
            len(spoken), report.verified,
        )  # fmt: skip

    async def _check_relevance(
        self, question: str, answer: str, ids: list[str], derived: list[str]
    ) -> tuple[Relevance | None, bool]:
        """The relevance control (fail-closed: unchecked, the answer is shown low)."""
        try:
            relevance = await self._exec(
                steps.grounding_check_relevance,
                RelevanceRequest(question=question, answer=answer, chunk_ids=ids, derived=derived),
                summary="does the answer address the question",
            )
        except STEP_FAILED as err:
            self._fail_closed(steps.grounding_check_relevance, "relevance check", err)
            return None, False
        missing = relevance.missing()
        self._note(
            "relevance: " + ("addressed" if relevance.addressed else f"missing {missing}")
            + (" (off the point)" if relevance.off_point else "")
        )  # fmt: skip
        return relevance, True

    def _memory_notes(self) -> list[MemoryNote]:
        """What synthesis may be reminded of, in budget order: summary, then hints."""
        notes = list(self._notes) + list(self._preference_notes)
        if self._hint is not None and self._hint.entry is not None:
            # Its [n] markers number another turn's sources: dropped, never reused.
            text = without_markers(self._hint.entry.answer)
            notes.append(MemoryNote(kind="cached_answer", text=text))
        return notes

    # ---- the one exit ---------------------------------------------------------------

    async def _finish(self, o: _Outcome) -> TurnResult:
        """The single exit: final gate, fallback, confidence and disclaimer, save."""
        status, text, fallback_reason = o.status, o.text, o.fallback_reason
        citations, unsupported = o.citations, o.unsupported
        if fallback_reason is not None or not gate.final_gate(text):
            reason = fallback_reason or (
                gate.NO_ANSWER_COMPOSED if o.had_evidence else gate.NOTHING_RELEVANT
            )
            self._note(f"final gate: fallback ({reason})")
            status = "failed" if status == "failed" else "fallback"
            fallback_reason = reason
            text, citations, unsupported = gate.fallback_answer(reason, o.coverage), [], None
        warnings = list(o.warnings)
        grounded = confidence = None
        if unsupported is not None:
            # A refuted figure taken out is not shown: it counts as a missing figure.
            shape = shape_answer(
                len(unsupported) - o.removed, o.judge_unavailable, o.numbers_unverified,
                missing=len(o.not_found) + o.removed, figures_given=o.figures_given,
                figures_asked=o.figures_asked,
            )  # fmt: skip
            grounded, confidence = shape.grounded, shape.confidence
            if o.verdict.low:  # the answer answers nothing it was asked
                confidence = "low"
            if status == "answered" and fallback_reason is None:
                # Before any disclaimer is added: the cache keeps the clean answer.
                await self._save_to_cache(o, grounded)
            warnings.extend(shape.warnings)
            if shape.disclaimer:
                text = f"{text}\n\n{shape.disclaimer}"
        result = self._snapshot(
            status, o.resolved, o.carried,
            answer=text,
            citations=citations,
            derived=o.derived if status == "answered" else [],
            not_found=o.not_found if status == "answered" else [],
            grounded=grounded,
            confidence=confidence,
            unsupported_claims=unsupported or [],
            figures_checked=o.figures_checked if unsupported is not None else 0,
            warnings=warnings,
            coverage=o.coverage,
            relevance=o.relevance if status == "answered" else None,
            route=o.route,
            fallback_reason=fallback_reason,
            refusal_reason=o.refusal_reason,
            failure_reason=o.failure_reason,
            # An expired turn still shows what it asked and nobody answered.
            clarifying_question=(
                self._result.clarifying_question if status == "expired" and self._result
                else None
            ),
        )  # fmt: skip
        await self._save(result, final=True)
        self._result, self._settled = result, True
        settled_attributes = [attributes.OUTCOME.value_set(status)]
        if confidence:
            settled_attributes.append(attributes.CONFIDENCE.value_set(confidence))
        if fallback_reason is not None:
            workflow.deprecate_patch(FALLBACK_ATTRIBUTE)  # asked on this path only
            settled_attributes.append(attributes.FALLBACK.value_set(fallback_reason))
        workflow.upsert_search_attributes(settled_attributes)
        self._note(f"outcome: {status}" + (f", confidence {confidence}" if confidence else ""))
        return result

    async def _settle_after(self, status: TurnStatus, cause: str, text: str | None) -> TurnResult:
        """Settle a turn that stopped on an error or a cancellation, through the gate.

        Runs where the workflow can still act: the failed turn gets the diagnostic
        fallback (or the cancelled text), is saved like any answer, and frees its
        conversation. If even that save fails, the workflow fails with a non-retryable
        error and the reconciler records the turn from its closed status.
        """
        if self._settled and self._result is not None:
            return self._result
        self._note(f"settling as {status}: {cause}")
        workflow.logger.warning("turn %s settling as %s: %s", self._inp.turn_id, status, cause)
        outcome = _Outcome(
            status, text, self._result.route if self._result else None,
            self._inp.question, Carried(), failure_reason=cause,
            fallback_reason=gate.INTERNAL_ERROR if status == "failed" else None,
        )  # fmt: skip
        try:
            return await self._finish(outcome)
        except Exception as err:
            raise TurnError(
                f"could not settle the turn as {status}: {_cause(err)}", "SettleFailed"
            ) from err

    async def _exec(
        self, step: Callable[[_Arg], Awaitable[_Ret]], arg: _Arg, *, summary: str
    ) -> _Ret:
        """Run `step` with its own options from the policy table, locally where it may
        (`runs_local`), on the index worker's queue when this worker has no index."""
        options = self._options(step)  # before the step's progress line: it may not start
        self._publish(progress.step_started(step_name(step)))
        elsewhere = self._index_queue(step)
        if elsewhere is not None:
            result = await workflow.execute_activity(
                step, arg, summary=summary, task_queue=elsewhere, **self._options(step)
            )
        elif runs_local(step, self._inp.engine_in_process):
            local = local_step_options(step)
            local["start_to_close_timeout"] = options["start_to_close_timeout"]
            local["schedule_to_close_timeout"] = options["schedule_to_close_timeout"]
            result = await workflow.execute_local_activity(step, arg, summary=summary, **local)
        else:
            result = await workflow.execute_activity(
                step, arg, summary=summary, **self._options(step)
            )
        # A model step's result names the calls behind it (model, prompt hash, tokens).
        self._trace.extend(getattr(result, "model_calls", None) or [])
        return result

    def _index_queue(self, step: Callable[..., Any]) -> str | None:
        """The index worker's queue for a step that needs the index, when this turn runs
        on workers without it (`TurnInput.index_task_queue`); else None."""
        if self._inp.index_task_queue is None or step_name(step) in WITHOUT_INDEX:
            return None
        return self._inp.index_task_queue

    def _options(self, step: Callable[..., Any]) -> ActivityOptions:
        """`step`'s options from the policy table; a budgeted step's bounded by what is
        left of the turn's budget (TurnBudgetSpent, recorded, when too little is left)."""
        options = step_options(step)
        if not POLICY[step_name(step)].budgeted:
            return options
        left = self._left()
        if left < timedelta(seconds=MIN_STEP_SECONDS):
            self._out_of_time = True
            raise TurnBudgetSpent(
                f"the turn's {self._inp.turn_budget_seconds:g} s budget was spent before "
                f"{step_name(step)} could start"
            )
        options["start_to_close_timeout"] = min(options["start_to_close_timeout"], left)
        total = options["schedule_to_close_timeout"]
        options["schedule_to_close_timeout"] = left if total is None else min(total, left)
        return options

    def _left(self) -> timedelta:
        return self._deadline - workflow.now()

    def _time_for(self, what: str) -> bool:
        """Whether a budgeted turn has time left to start `what` (noted when not)."""
        if self._left() >= timedelta(seconds=MIN_STEP_SECONDS):
            return True
        self._out_of_time = True
        self._note(f"{what} skipped: the turn's budget is spent")
        return False

    async def _save(self, result: TurnResult, final: bool) -> None:
        await self._exec(
            steps.postgres_save_turn,
            SaveTurnRequest(result=result, final=final),
            summary=f"save {result.status}",
        )

    # ---- bookkeeping ----------------------------------------------------------------

    def _snapshot(
        self, status: TurnStatus, resolved: str, carried: Carried, **shown: Unpack["Shown"]
    ) -> TurnResult:
        """The turn as it stands: its own bookkeeping plus what this outcome shows.

        `shown` is typed (`Shown`), so a misspelt or mistyped field is a mypy error at
        the call site, not a silently dropped key. Text is made storable, so a save
        cannot fail on it.
        """
        for key in ("answer", "clarifying_question"):
            text = shown.get(key)
            if isinstance(text, str):
                shown[key] = storable(text)
        return TurnResult(
            turn_id=self._inp.turn_id,
            conversation_id=self._inp.conversation_id,
            question=storable(self._inp.question),
            retries=self._retries,
            degraded=list(self._degraded),
            step_failures=list(self._failures),
            clarification_round=self._round,
            model_calls=self._model_calls,
            model_trace=list(self._trace),
            retry_skipped=self._retry_skipped,
            documents=DocumentsUsed(retrieved=list(self._retrieved), kept=list(self._kept)),
            cache=self._cache.outcome if self._cache else None,
            cache_turn_id=(
                self._cache.entry.turn_id if self._cache and self._cache.entry else None
            ),
            cache_similarity=self._cache.similarity if self._cache else None,
            summarised=self._summarised,
            status=status,
            resolved_question=storable(resolved),
            carried=carried,
            **shown,
        )

    def _count_model_call(self) -> None:
        self._model_calls += 1
        if self._model_calls > MAX_MODEL_CALLS:
            raise TurnError(f"model-call bound {MAX_MODEL_CALLS} exceeded", "ModelCallBound")

    def _degrade(self, step: Callable[..., Any], reason: str, cause: str | None = None) -> None:
        """Record a fail-open of `step`; its layer is the step's pinned activity name. Its
        error class is read from `cause` (the error itself) when the reason adds to it."""
        layer = step_name(step)
        if POLICY[layer].direction != "open":
            raise TurnError(f"{layer} is not a fail-open layer", "PolicyViolation")
        self._degraded.append(Degradation(layer=layer, reason=reason))
        self._failures.append(
            StepFailure(
                step=layer,
                direction="open",
                error_class=error_class(cause or reason),
                reason=reason,
            )
        )
        workflow.logger.warning("degraded %s: %s", layer, reason)
        self._note(f"DEGRADED {layer}: {reason}")

    def _fail_closed(self, step: Callable[..., Any], what: str, err: BaseException) -> None:
        """Record a fail-closed step's failure: its part counts as refused."""
        cause = _cause(err)
        self._failures.append(
            StepFailure(
                step=step_name(step), direction="closed", error_class=error_class(cause),
                reason=cause,
            )
        )  # fmt: skip
        self._note(f"{what} failed (closed): {cause}")

    def _note(self, line: str) -> None:
        self._details.append(line)
        workflow.set_current_details("\n".join(self._details[-40:]))
        self._publish(progress.decision(line))

    def _publish(self, event: TurnEvent) -> None:
        """Publish on the turn's stream, keeping at most the last MAX_RETAINED_EVENTS."""
        self._events.publish(event)
        self._published += 1
        if self._published > progress.MAX_RETAINED_EVENTS:
            self._stream.truncate(self._published - progress.MAX_RETAINED_EVENTS)
