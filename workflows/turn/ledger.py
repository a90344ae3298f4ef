"""The turn's ledger: what it retrieved and kept, what degraded or failed, its model
calls. The decision record and the TurnResult's bookkeeping are read from it."""

from collections.abc import Callable
from typing import Any

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from domain.failures import error_class
    from domain.models import ChunkHit, ModelCall
    from domain.turns import Degradation, DocumentsUsed, StepFailure
    from workflows import progress
    from workflows.policy import POLICY, step_name
    from workflows.rules.retry import MAX_RETRIES
    from workflows.turn.errors import TurnError, failure_cause
    from workflows.turn.rounds import MAX_CLARIFICATIONS
    from workflows.turn.stream import TurnStream

MODEL_STEPS_PER_PASS = 3  # grade documents, synthesize, grade answer
REDRAFT_MODEL_STEPS = 2  # synthesize and grade the answer again, naming the refuted claims
MAX_MODEL_CALLS = (
    1
    + (MAX_CLARIFICATIONS + 1)
    + 1
    + (MAX_RETRIES + 1) * MODEL_STEPS_PER_PASS
    + REDRAFT_MODEL_STEPS
)
"""Summarise the conversation at most once, route once per clarification round, rewrite
once (retries reuse its sub-queries), then three model steps per retrieval pass, and one
redraft: 1 + 3 + 1 + 3 * 3 + 2 = 16."""


class Ledger:
    def __init__(self, stream: TurnStream) -> None:
        self._stream = stream
        self.degraded: list[Degradation] = []
        self.failures: list[StepFailure] = []
        self.trace: list[ModelCall] = []
        # Chunk ids only, for the decision record; dicts keep first-seen order.
        self.retrieved: dict[str, None] = {}
        self.kept: dict[str, None] = {}
        self.versions: dict[str, None] = {}
        """The corpus versions the turn's passages were read from, in order."""
        self.model_calls = 0
        self.retries = 0
        self.retry_skipped: str | None = None

    def count_model_call(self) -> None:
        """One more model call; past the bound the turn stops (non-retryable)."""
        self.model_calls += 1
        if self.model_calls > MAX_MODEL_CALLS:
            raise TurnError(f"model-call bound {MAX_MODEL_CALLS} exceeded", "ModelCallBound")

    def traced(self, result: object) -> None:
        """A model step's result names the calls behind it (model, prompt hash, tokens)."""
        self.trace.extend(getattr(result, "model_calls", None) or [])

    def retrieve(self, hits: list[ChunkHit]) -> None:
        self.retrieved.update(dict.fromkeys(h.chunk_id for h in hits))

    def keep(self, hit: ChunkHit) -> None:
        self.kept[hit.chunk_id] = None

    def degrade(self, step: Callable[..., Any], reason: str, cause: str | None = None) -> None:
        """Record a fail-open of `step`; its layer is the step's pinned activity name. Its
        error class is read from `cause` (the error itself) when the reason adds to it."""
        layer = step_name(step)
        if POLICY[layer].direction != "open":
            raise TurnError(f"{layer} is not a fail-open layer", "PolicyViolation")
        self.degraded.append(Degradation(layer=layer, reason=reason))
        self.failures.append(
            StepFailure(
                step=layer,
                direction="open",
                error_class=error_class(cause or reason),
                reason=reason,
            )
        )
        workflow.logger.warning("degraded %s: %s", layer, reason)
        self._stream.note(f"DEGRADED {layer}: {reason}", progress.degraded_said(layer), layer)

    def fail_closed(
        self, step: Callable[..., Any], what: str, err: BaseException, said: str
    ) -> None:
        """Record a fail-closed step's failure: its part counts as refused. `said` is
        what it means for the person."""
        cause = failure_cause(err)
        self.failures.append(
            StepFailure(
                step=step_name(step),
                direction="closed",
                error_class=error_class(cause),
                reason=cause,
            )
        )
        self._stream.note(f"{what} failed (closed): {cause}", said, step_name(step))

    def bookkeeping(self) -> dict[str, Any]:
        """The TurnResult fields the ledger holds."""
        return {
            "retries": self.retries,
            "degraded": list(self.degraded),
            "step_failures": list(self.failures),
            "model_calls": self.model_calls,
            "model_trace": list(self.trace),
            "retry_skipped": self.retry_skipped,
            "documents": DocumentsUsed(
                retrieved=list(self.retrieved),
                kept=list(self.kept),
                corpus_versions=list(self.versions),
            ),
        }
