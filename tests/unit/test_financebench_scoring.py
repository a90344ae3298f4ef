"""How the benchmark scores an answer against a gold one (`evals.financebench`): the
tolerance and unit rules, on answers written here."""

import pytest

from evals.financebench import gold_figure, label

MILLIONS = "What were Emu Co's FY2021 net sales? Answer in USD millions."


@pytest.mark.parametrize(
    ("gold", "question", "answer", "expected"),
    [
        ("$4,250.00", MILLIONS, "Emu Co's net sales were US$4,250 million [1].", "correct"),
        ("$4250.00", MILLIONS, "Emu Co's net sales were US$4.25 billion [1].", "correct"),
        ("$4250.00", MILLIONS, "Emu Co's net sales were US$4,250,000 thousand [1].", "correct"),
        ("$4250.00", MILLIONS, "Emu Co's net sales were US$3,980 million [1].", "wrong"),
        ("12.4%", "growth?", "Sales grew (… − 1) × 100 = 12.4% [1].", "correct"),
        ("12.4%", "growth?", "Sales grew 12.0% [1].", "wrong"),
        ("1.73", "ratio?", "The ratio is 1.734 [1].", "correct"),
        ("1.73", "ratio?", "The ratio is 1.70 [1].", "wrong"),
        ("-3.7", "cycle?", "The cycle is −3.70 days [1].", "correct"),
        (
            "$382.00",
            MILLIONS,
            "EMU FY2021 net sales: data not found in provided documents",
            "declined",
        ),
        (
            "Yes, it grew.",
            "Did it grow?",
            "Sales rose from US$1 million to US$2 million [1].",
            "answered",
        ),
    ],
)
def test_an_answer_is_labelled_by_its_figures(
    gold: str, question: str, answer: str, expected: str
) -> None:
    assert label(gold, question, "answered", answer) == expected


def test_a_turn_that_did_not_answer_is_declined_whatever_it_says() -> None:
    assert label("$5.00", MILLIONS, "needs_clarification", "Which company? 5") == "declined"
    assert label("Yes", "Did it?", "refused", "I cannot help with that.") == "declined"


def test_a_gold_figure_is_read_with_its_kind_and_places() -> None:
    money = gold_figure("$11588.00", "in USD millions?")
    assert money is not None and (money.kind, money.millions, money.decimals) == ("money", True, 2)
    assert gold_figure("30.8%", "q") is not None
    assert gold_figure("Customer deposits", "q") is None
