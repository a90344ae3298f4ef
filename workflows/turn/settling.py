"""The turn's one exit: every path of ChatTurn ends in `Settling.finish` (the final gate,
the fallback, confidence and disclaimer, the cache write, the save and the search
attributes), and a turn stopped by an error or a cancellation settles through it too
(`Settling.settle_after`). ChatTurn holds the turn's result; this room shapes and saves it.
"""

from collections.abc import Callable
from dataclasses import replace

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.contracts import CacheWriteRequest
    from domain.checks.pii import TOKEN
    from domain.language.text import storable
    from domain.turns import Carried, TurnResult, TurnStatus
    from workflows import attributes, progress
    from workflows.contracts import TurnInput
    from workflows.rules import gate
    from workflows.turn.errors import TurnError, failure_cause
    from workflows.turn.ledger import Ledger
    from workflows.turn.memory import TurnMemory
    from workflows.turn.outcome import Outcome, shape_of, shaped, through_gate
    from workflows.turn.rounds import Rounds
    from workflows.turn.steps import TurnSteps
    from workflows.turn.stream import TurnStream

FALLBACK_ATTRIBUTE = "fallback-attribute"
"""A turn that falls back also sets `TurnstileFallback`; asked only on that path."""


class Settling:
    def __init__(
        self,
        inp: TurnInput,
        steps: TurnSteps,
        rounds: Rounds,
        stream: TurnStream,
        ledger: Ledger,
        memory: TurnMemory,
        keep: Callable[[TurnResult], None],
    ) -> None:
        self._inp, self._steps, self._rounds = inp, steps, rounds
        self._stream, self._ledger, self._memory = stream, ledger, memory
        self._keep = keep
        """ChatTurn's hold on the turn's result, set the moment the final result is saved
        (before the search attributes and the outcome line: a failure there settles
        nothing twice and shows the saved result)."""

    async def finish(self, outcome: Outcome, current: TurnResult | None) -> TurnResult:
        """The single exit: final gate, fallback, confidence and disclaimer, save.
        `current` is the turn as it stood (an expired turn shows what it asked)."""
        gated = through_gate(outcome)
        if gated is not outcome:
            self._stream.note(
                f"final gate: fallback ({gated.fallback_reason})",
                progress.fallback_said(gated.fallback_reason),
            )
        if (shape := shape_of(gated)) is not None:
            if gated.status == "answered" and gated.fallback_reason is None:
                # Before any disclaimer is added: the cache keeps the clean answer.
                await self._save_to_cache(gated, shape.grounded)
            gated = shaped(gated, shape)
        if gated.status == "expired" and current is not None:
            # An expired turn still shows what it asked and nobody answered.
            gated = replace(gated, clarifying_question=current.clarifying_question)
        result = await self.save(gated, final=True)
        self._keep(result)
        self._rounds.settled = True
        self._settled_attributes(result)
        confidence = f", confidence {result.confidence}" if result.confidence else ""
        self._stream.note(f"outcome: {result.status}{confidence}", progress.outcome_said(result))
        return result

    def _settled_attributes(self, result: TurnResult) -> None:
        """The search attributes an operator filters settled turns by."""
        settled = [attributes.OUTCOME.value_set(result.status)]
        if result.confidence:
            settled.append(attributes.CONFIDENCE.value_set(result.confidence))
        if result.fallback_reason is not None:
            workflow.deprecate_patch(FALLBACK_ATTRIBUTE)  # asked on this path only
            settled.append(attributes.FALLBACK.value_set(result.fallback_reason))
        workflow.upsert_search_attributes(settled)

    async def _save_to_cache(self, outcome: Outcome, grounded: str) -> None:
        """Write a checked answer to the cache (fail-open: skipped). Only an answer whose
        quality passed, grounded yes or partial, with every check run and nothing
        degraded, and no personal value in its question."""
        entry = outcome.to_cache
        if entry is None or not self._inp.answer_cache:
            return
        why_not = None
        if grounded not in ("yes", "partial"):
            why_not = "grounded no"
        elif outcome.judge_unavailable or outcome.numbers_unverified:
            why_not = "a check did not run"
        elif self._ledger.degraded:
            why_not = "a step degraded"
        elif TOKEN.search(entry.question):
            why_not = "a personal value in the question"
        request = CacheWriteRequest(
            tenant_id=self._inp.tenant_id,
            user_id=self._inp.user_id,
            entry=entry,
            corpus_version=self._memory.corpus_version,
        )
        await self._steps.save_answer(why_not, request)

    async def settle_after(
        self, status: TurnStatus, cause: str, text: str | None, current: TurnResult | None
    ) -> TurnResult:
        """Settle a turn that stopped on an error or a cancellation, through the gate.

        Runs where the workflow can still act: the failed turn gets the diagnostic
        fallback (or the cancelled text), is saved like any answer, and frees its
        conversation. If even that save fails, the workflow fails with a non-retryable
        error and the reconciler records the turn from its closed status. A turn that
        had already settled keeps its result (`current`).
        """
        if self._rounds.settled and current is not None:
            return current
        self._stream.note(
            f"settling as {status}: {cause}",
            "Cancelled" if status == "cancelled" else "Stopped on an error",
        )
        workflow.logger.warning("turn %s settling as %s: %s", self._inp.turn_id, status, cause)
        outcome = Outcome(
            status,
            text,
            current.route if current else None,
            self._inp.question,
            Carried(),
            failure_reason=cause,
            fallback_reason=gate.INTERNAL_ERROR if status == "failed" else None,
        )
        try:
            return await self.finish(outcome, current)
        except Exception as err:
            raise TurnError(
                f"could not settle the turn as {status}: {failure_cause(err)}", "SettleFailed"
            ) from err

    async def save(self, outcome: Outcome, final: bool) -> TurnResult:
        """The turn as it stands — its bookkeeping plus what `outcome` shows — saved."""
        result = TurnResult(
            turn_id=self._inp.turn_id,
            conversation_id=self._inp.conversation_id,
            question=storable(self._inp.question),
            clarification_round=self._rounds.round,
            **self._ledger.bookkeeping(),
            **self._memory.bookkeeping(),
            **outcome.shown(),
        )
        await self._steps.save_turn(result, final)
        return result
