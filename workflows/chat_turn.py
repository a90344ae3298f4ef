"""ChatTurn: one chat turn, the steps of docs/architecture.md in order. Orchestration only.

The turn's state lives in small objects by concern (`workflows/turn/`): its rounds, its
ledger, its memory, its budget and its progress stream; every step with I/O is a method
of `TurnSteps` named by its step, with its options and fail-open/closed policy from
`workflows.policy.POLICY`; deterministic steps (carry-forward, scope rules, retry rule,
citation binding, final gate, confidence, coverage) are plain functions from
`workflows.rules`. There is one exit point, `_finish`, and the final gate runs there, so
no path can reach the user without passing it.
"""

import asyncio
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from pydantic import ValidationError

    from activities.contracts import RewritePlan, RouteDecision, Session
    from domain.companies.roster import companies
    from domain.memory.rules import Remembering, apply_preferences, read_preference
    from domain.turns import Carried, TurnResult, TurnStatus
    from workflows import attributes, progress
    from workflows.contracts import CancelRequest, ClarificationReply, TurnInput
    from workflows.rules import gate
    from workflows.rules.retry import Attempt, best_attempt
    from workflows.rules.scope import refusal_text
    from workflows.turn import memory as memory_room
    from workflows.turn.answer import NUMBERS_UNCHECKED_CLOSED as NUMBERS_UNCHECKED
    from workflows.turn.answer import answered, plan_for, reused, shown_passes
    from workflows.turn.budget import Budget
    from workflows.turn.carry import merge_reply, turn_carry
    from workflows.turn.errors import TurnError, failure_cause
    from workflows.turn.ledger import Ledger
    from workflows.turn.memory import TurnMemory
    from workflows.turn.outcome import CANCELLED_TEXT, EXPIRED_TEXT, Outcome
    from workflows.turn.passes import RetrievalPasses
    from workflows.turn.rounds import Rounds
    from workflows.turn.scope import turn_scope
    from workflows.turn.settling import Settling
    from workflows.turn.shadow import start_shadow
    from workflows.turn.steps import TurnSteps
    from workflows.turn.stream import TurnStream

# ---- retired patches ---------------------------------------------------------------
# Each id once guarded a change with `workflow.patched`; every in-flight turn has since
# passed it, so each is deprecated (`workflow.deprecate_patch`: a history with its marker
# replays, a new one records it flagged deprecated) and the code before it is gone. The
# next step deletes the ids once no turn with their live markers is open
# (docs/architecture.md, "Retiring workflow versions").
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
    LEAN_TURN,
    ANSWERS_V2,
    MEMORY,
    OPEN_ANSWERS,
    CHECKED_DRAFTS,
    CHECKED_DRAFTS_V2,
    COVERAGE_FROM_REGISTRY,
)
"""Asked at the start of `run`, in the order their `patched` calls stood."""
EXPIRED_SAID = "The clarifying question expired without a reply"
CANCELLED_SAID = "The clarifying question was cancelled"


@workflow.defn(name="ChatTurn", failure_exception_types=[ValidationError])
class ChatTurn:
    def __init__(self) -> None:
        self._result: TurnResult | None = None
        """The turn as it stands: what `current` and `wait_for_outcome` return."""
        self._rounds = Rounds()
        self._stream = TurnStream()
        self._ledger = Ledger(self._stream)
        self._budget = Budget(self._stream)
        self._memory = TurnMemory()
        self._decline: str | None = None
        """The scope rules' line declining advice or a prediction around the fact."""

    @workflow.run
    async def run(self, inp: TurnInput) -> TurnResult:
        self._inp = inp
        self._steps = TurnSteps(inp, self._stream, self._ledger, self._budget, self._memory)
        self._settling = Settling(
            inp, self._steps, self._rounds, self._stream, self._ledger, self._memory, self._keep
        )
        for patch_id in DEPRECATED_PATCHES:  # the order their `patched` calls stood in
            workflow.deprecate_patch(patch_id)
        self._budget.start(inp.turn_budget_seconds)
        self._result = TurnResult(
            turn_id=inp.turn_id,
            conversation_id=inp.conversation_id,
            status="running",
            question=inp.question,
        )
        if not workflow.info().typed_search_attributes.get(attributes.CONVERSATION):
            workflow.upsert_search_attributes(  # a client that did not set it at start
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
            result = await self._settle_after("failed", failure_cause(err), None)
        self._stream.end(result)
        await start_shadow(self._inp, result)
        await workflow.wait_condition(workflow.all_handlers_finished)
        return result

    @workflow.signal(
        name="clarification_reply",
        description="The user's reply to the clarifying question of round `round`; it is"
        " merged into the question. A reply for another round is ignored and noted.",
    )
    def clarification_reply(self, reply: ClarificationReply) -> None:
        """Accept the reply to the question now waiting; ignore (and record) any other."""
        if (ignored := self._rounds.accept_reply(reply)) is not None:
            self._stream.note(
                ignored, "A reply came for a question that no longer waits; it was set aside"
            )

    @workflow.signal(
        name="cancel_turn",
        description="Cancel the clarification of round `round`: the turn settles as"
        " cancelled and its conversation is free.",
    )
    def cancel_turn(self, request: CancelRequest) -> None:
        """Cancel the clarification now waiting; ignore (and record) any other request."""
        if (ignored := self._rounds.accept_cancel(request)) is not None:
            self._stream.note(
                ignored, "A cancel came for a question that no longer waits; it was set aside"
            )

    @workflow.update(
        name="wait_for_outcome",
        description="Wait (changing nothing) until the turn settles or asks a clarifying"
        " question after round `after_round`; returns the TurnResult.",
    )
    async def wait_for_outcome(self, after_round: int) -> TurnResult:
        """Return when the turn settles or asks a clarifying question after `after_round`."""
        rounds = self._rounds
        await workflow.wait_condition(lambda: rounds.settled or rounds.asked > after_round)
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
        return list(self._stream.lines)

    # ---- the turn -------------------------------------------------------------------

    async def _turn(self, inp: TurnInput) -> TurnResult:
        await self._steps.read_coverage()
        session = await self._steps.load_session()
        await self._steps.summarize_history(session)
        remembering = read_preference(inp.question)
        rules = turn_scope(inp.question)
        # A statement wrapped around something the scope rules refuse or decline
        # ("I only follow iron-ore miners: should I buy BHP?") goes the normal way.
        if remembering is not None and not (rules.refuse or rules.decline):
            return await self._remember(remembering)
        question = inp.question
        while True:
            resolved, carried = self._resolve(question, session.recent_questions, session)
            scope = turn_scope(resolved)
            self._decline = scope.decline
            if scope.decline:
                self._stream.note(*progress.scope_declined(scope.reason))
            if scope.refuse:
                self._stream.note(*progress.scope_refused(scope.reason))
                return await self._refuse("scope_rules", scope.reason, resolved, carried)
            if inp.answer_cache:
                lookup = await self._steps.lookup_answer(resolved)
                if lookup.outcome == "hit" and lookup.entry is not None:
                    cached = reused(lookup.entry, resolved, carried, self._decline)
                    return await self._finish(cached)
            decision = await self._steps.route_question(resolved)
            if decision is None or decision.route != "needs_clarification":
                return await self._answer(resolved, carried, decision)
            reply = await self._clarify(decision, resolved, carried)
            if isinstance(reply, TurnResult):
                return reply
            question = merge_reply(question, reply)
            self._stream.note(*progress.reply_merged(self._rounds.round))

    def _resolve(self, question: str, recent: list[str], session: Session) -> tuple[str, Carried]:
        """The question with what it leaves open filled: from the conversation's recent
        questions (carry-forward), then from the user's remembered preferences."""
        resolved, carried = turn_carry(question, recent)
        if carried.company or carried.fiscal_year or carried.metric:
            self._stream.note(*progress.carried(carried))
        if not session.preferences:
            return resolved, carried
        resolved, applied = apply_preferences(resolved, session.preferences)
        self._memory.applied(applied)
        if applied:
            carried = carried.model_copy(update={"preferences": applied})
            self._stream.note(*progress.preferences_applied(applied))
        return resolved, carried

    async def _answer(
        self, resolved: str, carried: Carried, decision: RouteDecision | None
    ) -> TurnResult:
        """A route that needs no clarification: refused, answered directly, or answered
        from the reports; no route (the classifier down, failing closed): the fallback."""
        if decision is None:
            return await self._finish(
                Outcome(
                    "fallback",
                    None,
                    None,
                    resolved,
                    carried,
                    fallback_reason=gate.CLASSIFIER_UNAVAILABLE,
                )
            )
        if decision.route == "out_of_scope":
            return await self._refuse(decision.route, decision.reason, resolved, carried)
        if decision.route == "direct_answer":
            return await self._finish(
                Outcome("answered", decision.direct_answer, decision.route, resolved, carried)
            )
        return await self._answer_from_reports(resolved, carried, decision)

    async def _clarify(
        self, decision: RouteDecision, resolved: str, carried: Carried
    ) -> str | TurnResult:
        """The reply to a clarifying question, or the settled turn when none came (the
        rounds exhausted, the wait expired, the turn cancelled)."""
        if spent := self._rounds.spent(self._inp.clarifications_left):
            return await self._finish(
                Outcome("fallback", None, decision.route, resolved, carried, fallback_reason=spent)
            )
        reply = await self._ask(decision, resolved, carried)
        if reply is None:
            return await self._finish(
                Outcome("expired", EXPIRED_TEXT, decision.route, resolved, carried)
            )
        if isinstance(reply, CancelRequest):
            return await self._finish(
                Outcome(
                    "cancelled",
                    CANCELLED_TEXT,
                    decision.route,
                    resolved,
                    carried,
                    failure_reason=reply.reason,
                )
            )
        return reply

    async def _remember(self, remembering: Remembering) -> TurnResult:
        """A statement of preference: store it (when it is something the turn can act
        on and the user is known) and say plainly what happened."""
        text, user_id = remembering.reply, self._inp.user_id
        if remembering.preference is not None and not user_id:
            text = memory_room.NO_USER_TEXT
        elif remembering.preference is not None and user_id:
            if not await self._steps.remember_fact(user_id, remembering.preference):
                text = memory_room.REMEMBER_FAILED_TEXT
        else:
            self._stream.note(
                "a request to remember something the turn cannot act on",
                "Nothing in the request can be remembered",
            )
        question = self._inp.question
        return await self._finish(Outcome("answered", text, "remember", question, Carried()))

    async def _ask(
        self, decision: RouteDecision, resolved: str, carried: Carried
    ) -> str | CancelRequest | None:
        """Durably wait for a clarification reply; None when it expires."""
        rounds = self._rounds
        timeout = timedelta(seconds=self._inp.clarification_timeout_seconds)
        number = await self._post_question(decision, resolved, carried, timeout)
        asked_at = workflow.now()
        try:
            await workflow.wait_condition(
                rounds.answered, timeout=timeout, timeout_summary="await clarification"
            )
        except TimeoutError:
            rounds.close()
            self._stream.note("clarification expired", EXPIRED_SAID)
            return None
        if rounds.cancel is not None:
            rounds.close()
            self._stream.note(f"clarification {number} cancelled", CANCELLED_SAID)
            return rounds.cancel
        self._budget.waited(asked_at)
        reply = rounds.take_reply()
        if reply is None:  # the wait condition guarantees a reply or a cancel
            raise TurnError("clarification wait ended without a reply", "NoReply")
        self._result = await self._settling.save(
            Outcome("running", None, None, resolved, carried), final=False
        )
        return reply

    async def _post_question(
        self, decision: RouteDecision, resolved: str, carried: Carried, timeout: timedelta
    ) -> int:
        """Open a clarification round: the turn saved as waiting on its question (until
        `timeout` from now) and the question published; the round's number."""
        waiting = Outcome(
            "needs_clarification",
            None,
            decision.route,
            resolved,
            carried,
            clarifying_question=decision.clarifying_question,
            expires_at=workflow.now() + timeout,
        )
        number = self._rounds.open()  # before the save: see `Rounds.open`
        self._result = await self._settling.save(waiting, final=False)
        self._rounds.asked = number
        self._stream.note(f"asked clarification {number}", "Asked a clarifying question")
        self._stream.publish(progress.waiting(number))
        return number

    async def _refuse(
        self, route: str, reason: str | None, resolved: str, carried: Carried
    ) -> TurnResult:
        """Refuse (the scope rules or the router) with the refusal text and the reason."""
        outcome = Outcome(
            "refused", refusal_text(), route, resolved, carried, refusal_reason=reason
        )
        return await self._finish(outcome)

    async def _answer_from_reports(
        self, resolved: str, carried: Carried, decision: RouteDecision
    ) -> TurnResult:
        slots = decision.slots
        requested = slots.companies or list(companies())
        plan = await self._steps.rewrite_query(resolved, slots, requested)
        plan = RewritePlan(sub_queries=plan_for(plan, resolved, slots, requested))
        passes = RetrievalPasses(self._steps)
        done, kept, coverage = await passes.run(resolved, slots, requested, plan)
        # A draft the judge could not grade, where it fails closed, or whose figures
        # could not be checked, is never shown.
        drafted, withheld = shown_passes(done, lambda: workflow.patched(NUMBERS_UNCHECKED))
        if not drafted:
            reason = withheld or (gate.MODEL_TIMEOUT if self._budget.out_of_time else None)
            return await self._finish(
                Outcome(
                    "fallback",
                    None,
                    decision.route,
                    resolved,
                    carried,
                    coverage=coverage,
                    had_evidence=bool(kept),
                    fallback_reason=reason,
                )
            )
        attempts = [Attempt(p.number, len(p.unsupported), len(p.gaps)) for p in drafted.values()]
        best = await passes.as_shown(drafted[best_attempt(attempts).pass_number], resolved)
        return await self._finish(
            answered(
                best,
                resolved,
                carried,
                decision,
                coverage,
                self._decline,
                self._inp.turn_id,
                self._stream.note,
            )
        )

    # ---- the one exit (workflows/turn/settling.py) ---------------------------------

    async def _finish(self, outcome: Outcome) -> TurnResult:
        """The single exit: final gate, fallback, confidence and disclaimer, save."""
        return await self._settling.finish(outcome, self._result)

    def _keep(self, result: TurnResult) -> None:
        self._result = result

    async def _settle_after(self, status: TurnStatus, cause: str, text: str | None) -> TurnResult:
        """Settle a turn stopped by an error or a cancellation, through the one exit."""
        return await self._settling.settle_after(status, cause, text, self._result)
