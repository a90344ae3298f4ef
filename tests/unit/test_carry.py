"""Entity carry-forward fills only the missing slot, only for a follow-up, only from history."""

from domain.turns import Carried
from workflows.rules.carry import carry_entities, merge_reply

FMG_FY2024 = "What was Fortescue's revenue in FY2024?"


def test_follow_up_takes_company_and_year_from_the_previous_question() -> None:
    resolved, carried = carry_entities("And its net debt?", [FMG_FY2024])
    assert resolved.startswith("And its net debt?")
    assert "Fortescue" in resolved
    assert "FY2024" in resolved
    assert carried == Carried(company="FMG", fiscal_year=2024)


def test_question_with_a_company_but_no_year_gets_only_the_year() -> None:
    resolved, carried = carry_entities("What was BHP's net debt?", [FMG_FY2024])
    assert carried == Carried(company=None, fiscal_year=2024)
    assert "FY2024" in resolved
    assert "Fortescue" not in resolved


def test_question_with_a_year_but_no_company_gets_the_company_and_the_measure() -> None:
    resolved, carried = carry_entities("And in FY2023?", [FMG_FY2024])
    assert carried == Carried(company="FMG", fiscal_year=None, metric="revenue")
    assert "Fortescue" in resolved
    assert "FY2024" not in resolved


def test_most_recent_message_wins_when_history_names_several() -> None:
    history = ["What was BHP revenue in FY2024?", "What about Rio Tinto in FY2023?"]
    _, carried = carry_entities("And its net debt?", history)
    assert carried == Carried(company="RIO", fiscal_year=2023)


def test_complete_question_is_left_unchanged() -> None:
    question = "What was BHP's net debt in FY2023?"
    assert carry_entities(question, [FMG_FY2024]) == (question, Carried())


def test_nothing_found_in_history_changes_nothing() -> None:
    assert carry_entities("And its net debt?", ["Hello there"]) == (
        "And its net debt?",
        Carried(),
    )


def test_empty_history_changes_nothing() -> None:
    assert carry_entities("And its net debt?", []) == ("And its net debt?", Carried())


def test_question_without_metric_or_referring_word_is_not_filled() -> None:
    question = "What is the capital of France?"
    history = ["What was BHP revenue in FY2024?"]
    assert carry_entities(question, history) == (question, Carried())


def test_merge_reply_keeps_the_original_question_and_adds_the_reply() -> None:
    merged = merge_reply("Tell me about this company ", "  BHP  ")
    assert merged.startswith("Tell me about this company")
    assert merged.endswith("BHP")
    assert merged == "Tell me about this company — BHP"
