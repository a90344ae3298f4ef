"""What a turn's model calls used and cost, from the providers' own token counts."""

from collections.abc import Mapping, Sequence

from domain.models import Frozen, ModelCall


class Price(Frozen):
    """US dollars per million tokens, as the provider bills them."""

    input: float
    output: float


class Usage(Frozen):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = 0.0
    """None when a model that was called has no price configured (unknown, not free)."""
    unpriced_models: tuple[str, ...] = ()


def usage_of(calls: Sequence[ModelCall], prices: Mapping[str, Price]) -> Usage:
    prompt = sum(c.prompt_tokens for c in calls)
    completion = sum(c.completion_tokens for c in calls)
    unpriced = sorted({c.model for c in calls if c.model not in prices})
    cost = None
    if not unpriced:
        cost = round(
            sum(
                c.prompt_tokens * prices[c.model].input
                + c.completion_tokens * prices[c.model].output
                for c in calls
            )
            / 1_000_000,
            6,
        )
    return Usage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        cost_usd=cost,
        unpriced_models=tuple(unpriced),
    )
