"""The one outcome type of a turn, from the passes to the TurnResult: what the person is
shown (text, citations, gaps, checks) and what decided it. The final gate and the
confidence shaping are functions of it; `shown` names the TurnResult fields it sets
(the rest are the turn's bookkeeping: the ledger's, memory's, the rounds')."""

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Literal

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.contracts import CachedAnswer
    from domain.language.text import storable
    from domain.models import Derived, NotFound, Relevance, UnsupportedClaim
    from domain.turns import Carried, Citation, TurnStatus
    from workflows.rules import gate
    from workflows.rules.confidence import Shape, shape_answer
    from workflows.rules.relevance import RelevanceVerdict

EXPIRED_TEXT = (
    "This question waited for a clarification that did not arrive in time, so it was "
    "closed. Ask it again with the company and fiscal year."
)
CONFIDENCE_SHARE = "confidence-share-v1"
"""Patch: confidence is the share of the asked items answered and verified; asked only
when that differs from the unsupported-count band, so a turn started before replays."""

CANCELLED_TEXT = (
    "This question was cancelled before it was answered, so nothing was looked up. "
    "Ask again whenever you like."
)


@dataclass
class Outcome:
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
    items_asked: int = 0
    """How many (company, year, metric) items the question asks for (`asked_items`): the
    confidence is the share of them answered and verified."""
    items_missing: int = 0
    """How many of them the answer does not give (`items_missing`)."""
    to_cache: CachedAnswer | None = None
    """The clean answer (no notice, decline, warning or disclaimer) the cache may keep:
    set only for an answer composed from the reports this turn whose quality passed."""
    relevance: Relevance | None = None
    verdict: RelevanceVerdict = field(default_factory=RelevanceVerdict)
    removed: int = 0
    """Refuted figures taken out of the answer (they count as missing, not as shown)."""
    grounded: Literal["yes", "partial", "no"] | None = None
    confidence: Literal["high", "medium", "low"] | None = None
    clarifying_question: str | None = None
    expires_at: datetime | None = None

    def shown(self) -> dict[str, Any]:
        """The TurnResult fields this outcome sets; text made storable, so a save cannot
        fail on it. Figures, gaps and relevance belong to an answer only."""
        answered = self.status == "answered"
        checked = self.unsupported is not None
        return {
            "status": self.status,
            "answer": storable(self.text) if self.text is not None else None,
            "clarifying_question": (
                storable(self.clarifying_question) if self.clarifying_question is not None else None
            ),
            "expires_at": self.expires_at,
            "citations": self.citations,
            "derived": self.derived if answered else [],
            "not_found": self.not_found if answered else [],
            "grounded": self.grounded,
            "confidence": self.confidence,
            "unsupported_claims": self.unsupported or [],
            "figures_checked": self.figures_checked if checked else 0,
            "warnings": self.warnings,
            "coverage": self.coverage,
            "relevance": self.relevance if answered else None,
            "route": self.route,
            "fallback_reason": self.fallback_reason,
            "refusal_reason": self.refusal_reason,
            "failure_reason": self.failure_reason,
            "resolved_question": storable(self.resolved),
            "carried": self.carried,
        }


def through_gate(o: Outcome) -> Outcome:
    """The final gate: the outcome itself when its text may be shown, else its fallback
    (a failed turn stays failed) with no citations and nothing graded."""
    if o.fallback_reason is None and gate.final_gate(o.text):
        return o
    reason = o.fallback_reason or (
        gate.NO_ANSWER_COMPOSED if o.had_evidence else gate.NOTHING_RELEVANT
    )
    return replace(
        o,
        status="failed" if o.status == "failed" else "fallback",
        fallback_reason=reason,
        text=gate.fallback_answer(reason, o.coverage),
        citations=[],
        unsupported=None,
    )


def shape_of(o: Outcome) -> Shape | None:
    """Grounding and confidence of a graded answer (None when nothing was graded). A
    refuted figure taken out is not shown: it counts as a missing figure."""
    if o.unsupported is None:
        return None
    args = (len(o.unsupported) - o.removed, o.judge_unavailable, o.numbers_unverified)
    kwargs: dict[str, Any] = {
        "missing": len(o.not_found) + o.removed,
        "figures_given": o.figures_given,
        "figures_asked": o.figures_asked,
    }
    counted = shape_answer(*args, **kwargs)
    if not o.items_asked:
        return counted
    by_share = shape_answer(*args, **kwargs, asked=o.items_asked, asked_missing=o.items_missing)
    if by_share != counted and workflow.patched(CONFIDENCE_SHARE):
        return by_share
    return counted


def shaped(o: Outcome, shape: Shape) -> Outcome:
    """The answer as shown: its grounding, its confidence (low when it answers nothing
    it was asked), the shape's warnings and disclaimer."""
    return replace(
        o,
        grounded=shape.grounded,
        confidence="low" if o.verdict.low else shape.confidence,
        warnings=[*o.warnings, *shape.warnings],
        text=f"{o.text}\n\n{shape.disclaimer}" if shape.disclaimer else o.text,
    )
