"""The error class of a failed step: a bounded label read from its free-text reason.

A step's failure reason is free text ("BHP: UpstreamUnavailable: ..."); its class is the
first kind it names, or "other", so a metric label or a decision record's field stays a
bounded set. A model step's failure is one of malformed output, refusal, timeout (the
model's own, a step's, or the turn's budget), rate limit or another upstream error.
"""

import re
from typing import Literal

Direction = Literal["open", "closed"]
"""What a step's failure does to the turn: `open`, the turn goes on without the step;
`closed`, the step's part counts as refused (docs/failure-policy.md)."""

_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in (
        ("judge_unavailable", r"judge_unavailable"),
        ("classifier_unavailable", r"classifier_unavailable"),
        ("numbers_unchecked", r"numbers_unchecked"),
        ("reranker_unavailable", r"reranker unavailable"),
        ("malformed_output", r"ModelOutputInvalid"),
        ("refusal", r"ModelRefused"),
        ("rate_limit", r"\banswered 429\b|rate.?limit"),
        ("timeout", r"timed? ?out|TimeoutError|timeout|ModelTimeout|TurnBudgetSpent"),
        ("upstreamunavailable", r"UpstreamUnavailable"),
        ("upstreamrejected", r"UpstreamRejected"),
        ("invalidinput", r"InvalidInput"),
        ("notfound", r"NotFound"),
        ("cancelled", r"cancelled"),
    )
)


def error_class(reason: str) -> str:
    """The bounded label for a free-text failure, degradation or fallback reason."""
    return next((label for label, pattern in _CLASSES if pattern.search(reason)), "other")
