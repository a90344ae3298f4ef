"""A turn's status and confidence in plain words, drawn from its fields: `status_text`
never reads "Answered" on a turn that answered nothing, and a confidence below high
always comes with its reason."""

from typing import Any

import pytest

from domain.models import NotFound, Relevance, RelevanceItem, UnsupportedClaim
from domain.turns import Degradation, StepFailure, TurnResult

CITATION = {
    "n": 1,
    "chunk_id": "c1",
    "company": "BHP",
    "fiscal_year": 2024,
    "page": 4,
    "section": "Financial review",
    "document": "BHP Annual Report 2024",
    "preview": "Revenue",
}
GAP = NotFound(company="NST", fiscal_year=2023, metric="underlying EBITDA")


def turn(**fields: Any) -> TurnResult:
    base = {
        "turn_id": "t",
        "conversation_id": "c",
        "status": "answered",
        "question": "q",
        "route": "needs_retrieval",
    }
    return TurnResult.model_validate({**base, **fields})


def test_a_turn_that_gives_only_its_not_found_lines_does_not_read_answered() -> None:
    nothing = turn(not_found=[GAP], confidence="low", grounded="no")
    assert nothing.status_text == "Not in the reports"
    assert nothing.confidence_reason == "The reports give none of the figures asked for."


def test_the_closest_figures_to_a_question_not_answered_are_not_an_answer() -> None:
    off = Relevance(
        items=[RelevanceItem(focus="revenue share", status="missing")],
        addressed=False,
        off_point=True,
    )
    closest = turn(citations=[CITATION], relevance=off, confidence="low", figures_checked=1)
    assert closest.status_text == "Not in the reports"
    assert "the closest figures, not what was asked" in (closest.confidence_reason or "")


def test_a_checked_answer_reads_answered_with_no_reason_needed() -> None:
    answered = turn(citations=[CITATION], confidence="high", grounded="yes", figures_checked=1)
    assert answered.status_text == "Answered"
    assert answered.confidence_reason is None
    # Not drawn from the reports: nothing to cite, still an answer.
    direct = turn(route="direct_answer", answer="I answer questions about annual reports.")
    assert direct.status_text == "Answered"


def test_an_answer_missing_one_of_five_companies_is_answered_in_part_and_says_why() -> None:
    partial = turn(citations=[CITATION], not_found=[GAP], confidence="medium", figures_checked=4)
    assert partial.status_text == "Answered in part"
    assert partial.confidence_reason == "The reports do not give one figure asked for."


@pytest.mark.parametrize(
    ("fields", "reason"),
    [
        (
            {
                "unsupported_claims": [
                    UnsupportedClaim(label="RIO FY2025 revenue", reason="general_knowledge")
                ]
            },
            "One statement could not be verified against the cited pages.",
        ),
        (
            {"degraded": [Degradation(layer="llm_grade_answer", reason="judge_unavailable: x")]},
            "The independent answer check was unavailable, so the figures were checked"
            " numerically only.",
        ),
        (
            {
                "step_failures": [
                    StepFailure(
                        step="grounding_check_numbers",
                        direction="closed",
                        error_class="timeout",
                        reason="x",
                    )
                ]
            },
            "The figures could not be checked against the reports.",
        ),
        (
            {
                "relevance": Relevance(
                    items=[RelevanceItem(focus="net debt", status="missing")], addressed=False
                )
            },
            "The answer does not cover net debt.",
        ),
    ],
    ids=["unverified", "judge", "numbers", "relevance"],
)
def test_each_reason_for_medium_is_said_in_words(fields: dict[str, Any], reason: str) -> None:
    medium = turn(citations=[CITATION], confidence="medium", figures_checked=1, **fields)
    assert medium.confidence_reason == reason
    assert "_" not in reason


def test_both_words_reach_every_reader_and_are_recomputed_not_trusted() -> None:
    nothing = turn(not_found=[GAP], confidence="low")
    body = nothing.model_dump(mode="json")
    assert body["status_text"] == "Not in the reports" and body["confidence_reason"]
    # A stored turn's copy is ignored on reading: the fields decide, as they do now.
    body["status_text"], body["not_found"] = "Answered", []
    assert TurnResult.model_validate(body).status_text == "Not in the reports"


@pytest.mark.parametrize(
    ("status", "words"),
    [
        ("needs_clarification", "Needs one more detail"),
        ("refused", "Declined"),
        ("fallback", "No checked answer"),
        ("running", "Working on it"),
    ],
)
def test_other_statuses_have_their_own_words(status: str, words: str) -> None:
    assert turn(status=status).status_text == words
