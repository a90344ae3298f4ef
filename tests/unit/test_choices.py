"""Questions that list their options and ask which is highest or lowest
(`domain.questions.choices.read_choice`): read from the question's own words, whatever the
options."""

import pytest

from domain.questions.choices import read_choice


@pytest.mark.parametrize(
    ("question", "options", "measure", "end"),
    [
        (
            "Among operations, investing, and financing activities, which brought in the most "
            "(or lost the least) cash flow for Nike in FY2023?",
            ("operations", "investing", "financing activities"),
            "cash flow",
            "highest",
        ),
        (
            "Which of iron ore, copper or coal had the lowest revenue for BHP in FY2024?",
            ("iron ore", "copper", "coal"),
            "revenue",
            "lowest",
        ),
        (
            "Of capital expenditure and dividends paid, which was larger for Fortescue in FY2025?",
            ("capital expenditure", "dividends paid"),
            "",
            "highest",
        ),
        (
            "between water withdrawn and water recycled, which was smaller at Zorblax in 2031?",
            ("water withdrawn", "water recycled"),
            "",
            "lowest",
        ),
    ],
)
def test_a_listed_choice_is_read_as_its_options_measure_and_end(
    question: str, options: tuple[str, ...], measure: str, end: str
) -> None:
    choice = read_choice(question)
    assert choice is not None
    assert (choice.options, choice.measure, choice.end) == (options, measure, end)


def test_the_last_options_head_noun_is_every_options() -> None:
    choice = read_choice(
        "Among operations, investing, and financing activities, which brought in the most cash?"
    )
    assert choice is not None
    assert choice.phrase("operations") == "operations activities cash"
    assert "oper" in choice.own_terms("operations")
    assert not {"activ", "cash"} & choice.own_terms("operations")
    # an acronym the initials spell ("OAC") is no word: another row spelling it told apart
    assert not any(t.startswith("=") for t in choice.own_terms("operations"))


@pytest.mark.parametrize(
    "question",
    [
        "What was BHP's revenue in FY2024?",
        "Which company had the highest revenue in FY2024?",  # no list: a ranking
        "Between Rio Tinto and BHP, which had the higher net debt?",  # companies compared
        "Which of BHP's segments had the lowest revenue in FY2024?",  # no list of options
        "Among iron ore and copper, what did BHP say about demand?",  # no highest or lowest
    ],
)
def test_quiet_on_a_question_that_lists_no_options_to_rank(question: str) -> None:
    assert read_choice(question) is None
