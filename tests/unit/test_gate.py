"""The final gate passes only real text; the fallback says what happened and what is covered."""

import pytest

from domain.checks.clarification import clarifications_left
from workflows.rules.gate import (
    CLARIFICATION_EXHAUSTED,
    CONVERSATION_CLARIFICATIONS_SPENT,
    MIN_ANSWER_CHARS,
    NO_ANSWER_COMPOSED,
    NOTHING_RELEVANT,
    NUMBERS_UNCHECKED,
    example_questions,
    fallback_answer,
    final_gate,
)

COVERAGE = {"BHP": True, "FMG": False}


@pytest.mark.parametrize(
    "answer", [None, "", "   ", "\n\t \n", "123456789", "  123456789  \n"], ids=repr
)
def test_missing_empty_whitespace_or_short_answer_fails_the_gate(answer: str | None) -> None:
    assert final_gate(answer) is False


@pytest.mark.parametrize(
    "answer", ["1234567890", "  1234567890  ", "BHP revenue was US$55,658 million [1]."]
)
def test_answer_of_at_least_ten_characters_passes_the_gate(answer: str) -> None:
    assert final_gate(answer) is True


def test_minimum_answer_length_is_ten_characters() -> None:
    assert MIN_ANSWER_CHARS == 10


def test_fallback_for_nothing_relevant_says_nothing_relevant_was_found() -> None:
    text = fallback_answer(NOTHING_RELEVANT, COVERAGE)
    assert "found nothing relevant" in text


def test_fallback_for_no_answer_composed_says_passages_were_found_but_no_answer() -> None:
    text = fallback_answer(NO_ANSWER_COMPOSED, COVERAGE)
    assert "found report passages" in text
    assert "could not compose an answer" in text
    assert "nothing relevant" not in text


def test_fallback_for_clarification_exhausted_says_the_question_stayed_unclear() -> None:
    text = fallback_answer(CLARIFICATION_EXHAUSTED, {})
    assert "still could not tell which company or figure" in text


@pytest.mark.parametrize("reason", [NOTHING_RELEVANT, NO_ANSWER_COMPOSED])
def test_fallback_lists_found_and_missing_coverage(reason: str) -> None:
    text = fallback_answer(reason, COVERAGE)
    assert "Evidence found for: BHP; not found for: FMG." in text


def test_fallback_with_nothing_found_says_none_found() -> None:
    text = fallback_answer(NOTHING_RELEVANT, {"BHP": False, "RIO": False})
    assert "Evidence found for: none; not found for: BHP, RIO." in text


@pytest.mark.parametrize("reason", [NOTHING_RELEVANT, NO_ANSWER_COMPOSED, CLARIFICATION_EXHAUSTED])
def test_fallback_names_the_corpus_and_gives_two_example_questions(reason: str) -> None:
    text = fallback_answer(reason, COVERAGE)
    assert example_questions() == (
        "What was BHP Group's revenue in FY2025?",
        "Compare BHP Group and Rio Tinto revenue in FY2025.",
    )
    for question in example_questions():
        assert f'"{question}"' in text
    for name in ("BHP", "Rio Tinto", "Fortescue", "South32", "Northern Star"):
        assert name in text
    assert "FY2023" in text
    # What is covered is said from the data: no closed list of measures.
    assert "(revenue, EBITDA" not in text and "capital expenditure" not in text


def test_the_fallbacks_examples_follow_the_coverage_not_the_sample() -> None:
    from domain.companies.roster import Company, pinned

    new = Company(
        ticker="KPG",
        name="Kelly Partners Group",
        aliases=(),
        fiscal_years=(2022,),
        currency="A$",
        year_end="06-30",
    )
    with pinned([new]):
        text = fallback_answer(NOTHING_RELEVANT, {})
        assert example_questions() == ("What was Kelly Partners Group's revenue in FY2022?",)
    assert "Kelly Partners Group, FY2022." in text and "BHP" not in text
    with pinned([]):
        assert example_questions() == ()
        assert "You could ask" not in fallback_answer(NOTHING_RELEVANT, {})


@pytest.mark.parametrize("reason", [NOTHING_RELEVANT, NO_ANSWER_COMPOSED, CLARIFICATION_EXHAUSTED])
def test_fallback_itself_passes_the_final_gate(reason: str) -> None:
    assert final_gate(fallback_answer(reason, {})) is True


def test_fallback_for_unchecked_figures_says_the_check_did_not_run_and_passes_the_gate() -> None:
    text = fallback_answer(NUMBERS_UNCHECKED, COVERAGE)
    assert "check of its figures against the reports could not run" in text
    assert final_gate(text)
    assert "could not run" not in fallback_answer(NOTHING_RELEVANT, COVERAGE)


def test_fallback_for_a_spent_conversation_asks_for_the_company_and_year() -> None:
    text = fallback_answer(CONVERSATION_CLARIFICATIONS_SPENT, {})
    assert "naming the company and the year" in text


@pytest.mark.parametrize(
    ("cap", "before", "left"), [(4, 0, 4), (4, 3, 1), (4, 4, 0), (4, 9, 0), (0, 9, None)]
)
def test_what_a_conversations_cap_leaves_a_turn(cap: int, before: int, left: int | None) -> None:
    assert clarifications_left(cap, before) == left
