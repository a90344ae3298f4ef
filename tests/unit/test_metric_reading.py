"""The routing step's reading of metric words: typos and informal phrasings are read as
the report's terms (firing), and a question written plainly is left exactly as it is
(quiet)."""

import pytest

from domain.questions.metrics import (
    correct_metric_words,
    find_other_measures,
    metric_of_row_label,
    read_metric_words,
)
from domain.questions.question import extract_slots
from testkit.answer_cases import CASES


@pytest.mark.parametrize(
    ("question", "metric"),
    [
        ("BHP Biliton revnue for FY2023", "revenue"),
        ("BHP captial expenditure 2023 financial year", "capex"),
        ("BHP net dett 2024 financial year", "net_debt"),
        ("BHP irn ore prodution FY2025", "production"),
        ("Rio Tinot net earnigns 2023", "net_profit"),
        ("How much did BHP owe, net of its cash, at the end of FY2024?", "net_debt"),
        ("What were South32's borrowings net of cash at 30 June 2024?", "net_debt"),
        ("What did BHP pay out to shareholders for FY23?", "dividends_per_share"),
        ("How many tonnes did Fortescue send to customers in FY2023?", "production"),
    ],
)
def test_a_typo_or_an_informal_phrasing_keeps_its_metric(question: str, metric: str) -> None:
    assert extract_slots(question).metrics == []  # the question as written names none
    assert extract_slots(read_metric_words(question)).metrics == [metric]


def test_every_plainly_written_answer_case_question_is_left_as_it_is() -> None:
    changed = [c.question for c in CASES if read_metric_words(c.question) != c.question]

    assert changed == []


@pytest.mark.parametrize("word", ["sale", "profile", "product", "final", "interest"])
def test_words_that_are_not_one_slip_from_a_metric_word_stay(word: str) -> None:
    # Short words change only by one swapped or replaced letter at the same length, so
    # "sale" (one letter short of "sales") is left alone; longer ones need similarity 0.85.
    assert read_metric_words(f"BHP {word}") == f"BHP {word}"


@pytest.mark.parametrize(
    "text", ["BHP dept", "revenge stories", "total current assets divided by total liabilities"]
)
def test_a_common_english_word_is_never_read_as_a_slip(text: str) -> None:
    # "divided" is one letter from "dividend", "dept" one from "debt": words English uses
    # commonly are what they say; read as before the patch they were changed.
    assert read_metric_words(text) == text
    assert correct_metric_words(text, keep_common=False) != text


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("BHP revnue", "BHP revenue"),
        ("BHP earnigns", "BHP earnings"),
        ("divdends paid", "dividends paid"),
    ],
)
def test_a_slip_no_dictionary_word_spells_is_still_read(typed: str, meant: str) -> None:
    assert read_metric_words(typed) == meant


@pytest.mark.parametrize(
    ("label", "metric"),
    [
        ("Net debt", "net_debt"),
        ("Net (debt)/cash", "net_debt"),
        ("Net cash/(debt)", "net_debt"),
        ("Debt with subsidiaries and affiliates", None),
        ("Total debt", None),
        ("Long-term debt, net of current portion", None),
    ],
)
def test_a_row_is_net_debt_only_when_it_says_net(label: str, metric: str | None) -> None:
    # American Express's 10-K row "Debt with subsidiaries and affiliates", nil, was shown
    # at high confidence as its net debt of US$0 billion.
    assert metric_of_row_label(label) == metric


@pytest.mark.parametrize(
    "label",
    [
        "Net cash provided by (used in) financing activities",
        "Net cash used in investing activities",
        "Net cash (used in) provided by operating activities",
        "Net cash from financing activities",
        "Net cash inflow from operating activities",
    ],
)
def test_a_statements_net_cash_flow_line_is_no_net_cash_position(label: str) -> None:
    """American Express's "Net cash provided by (used in) financing activities" was read as
    a net cash position and offered for a question about its debt. Quiet: a net cash or net
    debt line is still one."""
    assert metric_of_row_label(label) is None
    assert find_other_measures(label)
    for position in ("Net cash", "Net debt/(net cash)", "Net cash/(debt)"):
        assert metric_of_row_label(position) == "net_debt"
