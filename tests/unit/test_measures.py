"""Reading a question in an open world (`domain.measures`, `domain.question`): what it asks
about is read from its own words, with no list of measures to gate it."""

import pytest

from domain.companies import proper_names
from domain.measures import asks_topic, base_form, focus_parts, without_personal
from domain.metrics import find_metrics, read_definitions, read_metric_words


@pytest.mark.parametrize(
    "question",
    [
        "What hurt BHP's Queensland coal operations in FY2023?",
        "Which projects did Fortescue pause in FY2025?",
        "What did BHP decide to do with its nickel business?",
        "Who are the Traditional Owners of the land at Hemi?",
    ],
)
def test_a_question_asking_for_no_quantity_is_a_topic(question: str) -> None:
    assert asks_topic(question)


@pytest.mark.parametrize(
    "question",
    [
        "How many people work for BHP?",
        "What was BHP's revenue in FY2024?",
        "What percentage of Rio's board were women?",
        "How did BHP do in FY2024?",
        "BHP net proft 2025",  # keywords, no question form: a lookup
        "Compare the strategies of BHP and Rio Tinto",
    ],
)
def test_a_figure_an_overview_or_keywords_are_not_a_topic(question: str) -> None:
    assert not asks_topic(question)


def test_a_spelt_out_acronym_reads_as_its_acronym_and_ordinary_words_do_not() -> None:
    spelt = "What were Rio's earnings before interest, tax, depreciation and amortisation?"
    assert find_metrics(read_metric_words(spelt)) == ["underlying_ebitda"]
    assert "EBITDA" in read_definitions("profit before D&A, interest and tax in FY2024")
    quiet = "How much did BHP pay in interest and tax before the dividend?"
    assert read_definitions(quiet) == quiet


def test_names_in_a_question_are_its_capitalised_runs_that_are_no_covered_company() -> None:
    assert proper_names("When did the Oyu Tolgoi underground mine start producing?") == [
        "Oyu Tolgoi"
    ]
    assert proper_names("What was BHP's revenue in FY2024?") == []
    assert proper_names("Is the Mozal smelter at risk?") == ["Mozal"]


def test_personal_tokens_and_their_keywords_are_not_what_is_asked() -> None:
    question = "Tell me about Fortescue. My card is ⟦card:abcdefghij⟧"
    assert "card" not in without_personal(question).lower()
    assert not any("card" in p.phrase for p in focus_parts(question))


def test_irregular_verbs_meet_their_base() -> None:
    assert base_form("sold") == "sell" and base_form("revenue") == "revenue"
