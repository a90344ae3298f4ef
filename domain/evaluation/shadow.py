"""Shadow runs: a second engine configuration on a sample of live questions. Pure.

Which turns are shadowed is decided by the turn id alone (`sampled`), so the same turn
is always in or out of the sample, with no clock and no random draw. A shadow's outcome
is only ever compared with the live one (`compare`, `shadow_report`): what the person was
told is the live answer, and only it.
"""

import hashlib
from collections import Counter
from datetime import datetime
from typing import Literal

from pydantic import Field

from domain.models import Frozen
from domain.turns import TurnResult

Verdict = Literal["same", "shadow better", "shadow worse", "differs"]
_RANK = {"failed": 0, "fallback": 1, "expired": 2, "needs_clarification": 2, "answered": 3}
_CONFIDENCE = {None: 0, "low": 1, "medium": 2, "high": 3}


def sampled(turn_id: str, share: float) -> bool:
    """Whether a turn is in a `share` (0 to 1) sample: its id's hash, read as a number in
    [0, 1), is below the share."""
    if share <= 0:
        return False
    digest = hashlib.sha256(turn_id.encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


class Outcome(Frozen):
    """One side of a pair: what a configuration decided and showed, counted."""

    status: str
    route: str | None = None
    confidence: str | None = None
    grounded: str | None = None
    citations: int = 0
    unsupported: int = 0
    fallback_reason: str | None = None
    model_calls: int = 0
    answer: str = ""

    @staticmethod
    def of(result: TurnResult) -> "Outcome":
        # A shadow asks back by letting its question expire (it waits for nobody).
        status = result.status
        if status == "expired" and result.clarifying_question:
            status = "needs_clarification"
        return Outcome(
            status=status,
            route=result.route,
            confidence=result.confidence,
            grounded=result.grounded,
            citations=len(result.citations),
            unsupported=len(result.unsupported_claims),
            fallback_reason=result.fallback_reason,
            model_calls=result.model_calls,
            answer=result.answer or result.clarifying_question or "",
        )


class ShadowPair(Frozen):
    """A live turn and its shadow, side by side."""

    turn_id: str
    question: str
    live_config: str
    shadow_config: str
    live: Outcome
    shadow: Outcome
    recorded_at: datetime

    @property
    def verdict(self) -> Verdict:
        return compare(self.live, self.shadow)


def compare(live: Outcome, shadow: Outcome) -> Verdict:
    """How the shadow did against the live turn: the same status and confidence is
    `same`; a refusal on one side only `differs` (neither is better by itself); else an
    answer beats a question back beats a fallback, then confidence, then fewer
    unsupported claims."""
    if (live.status, live.confidence, live.unsupported) == (
        shadow.status,
        shadow.confidence,
        shadow.unsupported,
    ):
        return "same"
    if "refused" in (live.status, shadow.status):
        return "differs"

    def rank(o: Outcome) -> tuple[int, int, int]:
        return (_RANK.get(o.status, 0), _CONFIDENCE.get(o.confidence, 0), -o.unsupported)

    if rank(shadow) == rank(live):
        return "differs"
    return "shadow better" if rank(shadow) > rank(live) else "shadow worse"


class Side(Frozen):
    """One configuration over the pairs."""

    config: str
    statuses: dict[str, int] = Field(default_factory=dict)
    high_confidence: int = 0
    mean_unsupported: float = 0.0
    mean_citations: float = 0.0
    mean_model_calls: float = 0.0


class ShadowReport(Frozen):
    pairs: list[ShadowPair] = Field(default_factory=list)
    verdicts: dict[str, int] = Field(default_factory=dict)
    live: list[Side] = Field(default_factory=list)
    shadow: list[Side] = Field(default_factory=list)
    """One per configuration (a configuration changed over the period shows twice)."""


def _side(config: str, outcomes: list[Outcome]) -> Side:
    n = len(outcomes) or 1
    return Side(
        config=config,
        statuses=dict(Counter(o.status for o in outcomes)),
        high_confidence=sum(o.confidence == "high" for o in outcomes),
        mean_unsupported=round(sum(o.unsupported for o in outcomes) / n, 3),
        mean_citations=round(sum(o.citations for o in outcomes) / n, 3),
        mean_model_calls=round(sum(o.model_calls for o in outcomes) / n, 3),
    )


def shadow_report(pairs: list[ShadowPair]) -> ShadowReport:
    """The A/B report: each pair's verdict, and each configuration's outcomes counted."""
    live: dict[str, list[Outcome]] = {}
    shadow: dict[str, list[Outcome]] = {}
    for pair in pairs:
        live.setdefault(pair.live_config, []).append(pair.live)
        shadow.setdefault(pair.shadow_config, []).append(pair.shadow)
    return ShadowReport(
        pairs=pairs,
        verdicts=dict(Counter(p.verdict for p in pairs)),
        live=[_side(c, o) for c, o in live.items()],
        shadow=[_side(c, o) for c, o in shadow.items()],
    )
