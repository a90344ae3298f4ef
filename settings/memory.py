"""Settings of the semantic answer cache and of how much of a conversation and its
evidence a synthesis may read (docs/memory.md)."""

from typing import Annotated, Self

from pydantic import Field, model_validator

from settings.base import ENV_PREFIX, Seconds, Section


class MemorySettings(Section):
    """The answer cache and the context budget."""

    answer_cache: bool = True
    """The semantic answer cache (docs/memory.md); off, every turn answers afresh."""
    cache_hit_similarity: Annotated[float, Field(gt=0, le=1)] = 0.95
    """Similarity at which a stored answer (same slots) is reused as it is."""
    cache_hint_similarity: Annotated[float, Field(gt=0, le=1)] = 0.80
    """Similarity at which a stored answer (same slots) is handed to synthesis as a hint;
    at most `cache_hit_similarity`."""
    cache_ttl_seconds: Seconds = 7 * 24 * 3600.0
    """How long a cached answer lives from its write (a hit does not extend it)."""

    @model_validator(mode="after")
    def _hint_below_hit(self) -> Self:
        if self.cache_hint_similarity > self.cache_hit_similarity:
            raise ValueError(
                f"{ENV_PREFIX}CACHE_HINT_SIMILARITY must not be above "
                f"{ENV_PREFIX}CACHE_HIT_SIMILARITY"
            )
        return self

    context_budget_chars: Annotated[int, Field(ge=1000, le=1_000_000)] = 16_000
    """The offline engine's synthesis context, in characters: question, evidence, then
    the summary and memory hints while they fit."""
    context_budget_tokens: Annotated[int, Field(ge=500, le=1_000_000)] = 8_000
    """The model engine's synthesis context, in (estimated) tokens."""
    evidence_budget_tokens: Annotated[int, Field(ge=100, le=1_000_000)] = 6_000
    """The evidence's share of it: past this the weakest excerpts are left out, so the
    conversation's last messages and the other notes keep some room (docs/memory.md); at
    most `context_budget_tokens`."""

    @model_validator(mode="after")
    def _evidence_within_context(self) -> Self:
        if self.evidence_budget_tokens > self.context_budget_tokens:
            raise ValueError(
                f"{ENV_PREFIX}EVIDENCE_BUDGET_TOKENS must not be above "
                f"{ENV_PREFIX}CONTEXT_BUDGET_TOKENS (it is a share of it)"
            )
        return self
