"""A ChatTurn snapshot names TurnResult's fields exactly: `Shown` cannot drift from it."""

from workflows.chat_turn import Shown
from workflows.contracts import TurnResult

BOOKKEEPING = {
    "turn_id", "conversation_id", "question", "retries", "degraded",
    "clarification_round", "model_calls", "model_trace", "retry_skipped", "documents",
    "step_failures", "figures_checked",
    "status", "resolved_question", "carried", "cache", "cache_turn_id", "cache_similarity",
    "summarised",
}  # fmt: skip


def test_every_shown_field_is_a_turn_result_field() -> None:
    assert set(Shown.__annotations__) <= set(TurnResult.model_fields)


def test_bookkeeping_and_shown_fields_together_cover_the_whole_turn_result() -> None:
    assert set(Shown.__annotations__) | BOOKKEEPING == set(TurnResult.model_fields)
