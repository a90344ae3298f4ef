"""A turn's saved result is its bookkeeping plus what its Outcome shows: the two name
TurnResult's fields exactly, so neither can drift from it."""

from domain.turns import Carried, TurnResult
from workflows.turn.outcome import Outcome

BOOKKEEPING = {
    "turn_id",
    "conversation_id",
    "question",
    "retries",
    "degraded",
    "clarification_round",
    "model_calls",
    "model_trace",
    "retry_skipped",
    "documents",
    "step_failures",
    "cache",
    "cache_turn_id",
    "cache_similarity",
    "summarised",
}


def shown_fields() -> set[str]:
    return set(Outcome("answered", "text", None, "question", Carried()).shown())


def test_every_shown_field_is_a_turn_result_field() -> None:
    assert shown_fields() <= set(TurnResult.model_fields)


def test_bookkeeping_and_shown_fields_together_cover_the_whole_turn_result() -> None:
    assert shown_fields() | BOOKKEEPING == set(TurnResult.model_fields)
    assert not shown_fields() & BOOKKEEPING


def test_an_answers_figures_and_gaps_are_shown_only_on_an_answer() -> None:
    refused = Outcome("refused", "no", "scope_rules", "q", Carried(), not_found=[], derived=[])
    assert refused.shown()["relevance"] is None and refused.shown()["figures_checked"] == 0
