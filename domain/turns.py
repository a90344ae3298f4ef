"""A turn's outcome as the conversation stores it and every client reads it.

Defined here, not with the workflow, because more than the workflow needs it: the
session activities save it, the database layer reads it back, the reconciler settles it.
Frozen pydantic models; new fields only with defaults (histories replay old payloads).
"""

from datetime import datetime
from typing import Literal

from pydantic import Field

from domain.models import Citation, Derived, Frozen, ModelCall, NotFound, UnsupportedClaim

__all__ = ["Citation"]

TurnStatus = Literal[
    "running",
    "answered",
    "needs_clarification",
    "refused",
    "fallback",
    "expired",
    "failed",
    "cancelled",
]
SETTLED: frozenset[str] = frozenset(
    {"answered", "refused", "fallback", "expired", "failed", "cancelled"}
)
"""Terminal statuses: a turn in one of these no longer blocks its conversation.

`failed` is a turn that stopped on an error (settled by the workflow's own settle path,
or recorded by the reconciler when the workflow was terminated, timed out or failed);
`cancelled` is a turn the user (or an operator) cancelled."""
WAITING = "needs_clarification"
OPEN: frozenset[str] = frozenset({"running", WAITING})


class DocumentsUsed(Frozen):
    """Which chunks a turn's searches returned and which survived relevance grading
    (ids only: the text stays in Qdrant), in the order they first appeared."""

    retrieved: list[str] = Field(default_factory=list)
    kept: list[str] = Field(default_factory=list)


class Degradation(Frozen):
    layer: str
    reason: str


class Carried(Frozen):
    company: str | None = None
    fiscal_year: int | None = None
    metric: str | None = None
    """The measure carried into a follow-up ("and in FY2023?"), as answers name it."""
    preferences: list[str] = Field(default_factory=list)
    """The user's remembered preferences applied to the question ("figures in billions")."""


class TurnResult(Frozen):
    turn_id: str
    conversation_id: str
    status: TurnStatus
    question: str
    resolved_question: str | None = None
    answer: str | None = None
    clarifying_question: str | None = None
    expires_at: datetime | None = None
    citations: list[Citation] = Field(default_factory=list)
    derived: list[Derived] = Field(default_factory=list)
    not_found: list[NotFound] = Field(default_factory=list)
    grounded: Literal["yes", "partial", "no"] | None = None
    confidence: Literal["high", "medium", "low"] | None = None
    unsupported_claims: list[UnsupportedClaim] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    coverage: dict[str, bool] = Field(default_factory=dict)
    carried: Carried = Field(default_factory=Carried)
    route: str | None = None
    retries: int = 0
    degraded: list[Degradation] = Field(default_factory=list)
    fallback_reason: str | None = None
    clarification_round: int = 0
    model_calls: int = 0
    model_trace: list[ModelCall] = Field(default_factory=list)
    documents: DocumentsUsed = Field(default_factory=DocumentsUsed)
    """Each model call of the turn: step, model, prompt-template hash and token usage
    (empty for the offline engine, which calls no model)."""
    refusal_reason: str | None = None
    retry_skipped: str | None = None
    failure_reason: str | None = None
    """Why a `failed` or `cancelled` turn stopped: an error type or who cancelled it,
    never user text."""
    cache: Literal["hit", "hint", "miss"] | None = None
    """The semantic answer cache: `hit` (a stored answer reused, through the final gate),
    `hint` (a stored answer handed to synthesis as a labelled claim), `miss`; None when
    the cache was not asked (turns before it, refusals by rule, preference statements)."""
    cache_turn_id: str | None = None
    """On a hit or a hint: the earlier turn whose answer it was."""
    cache_similarity: float | None = None
    summarised: int = 0
    """Messages this turn compressed into the conversation's summary."""
