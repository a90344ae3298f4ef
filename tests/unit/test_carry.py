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


BHP_FY2025 = "What was BHP's net debt in FY2025?"


def test_the_previous_year_in_a_follow_up_is_the_year_before_the_one_talked_about() -> None:
    for words in (
        "and the previous year?",
        "and the year before?",
        "And the prior yr?",
        "what about a year earlier?",
        "and last year?",
    ):
        resolved, carried = carry_entities(words, [BHP_FY2025])
        assert "FY2024" in resolved and "FY2025" not in resolved, words
        assert "BHP" in resolved and "net debt" in resolved, words
        assert carried.year_read == "FY2024, the year before FY2025", words


def test_years_later_and_earlier_count_from_the_year_talked_about() -> None:
    resolved, carried = carry_entities("and two years earlier?", [BHP_FY2025])
    assert "FY2023" in resolved and carried.year_read == "FY2023, 2 years before FY2025"
    resolved, carried = carry_entities("and the following year?", ["BHP net debt FY2023?"])
    assert "FY2024" in resolved and carried.year_read == "FY2024, the year after FY2023"


def test_a_relative_year_beside_a_named_year_adds_the_year_it_means() -> None:
    resolved, carried = carry_entities(
        "How did BHP's revenue in FY2025 compare with the prior year?", []
    )
    assert "FY2025" in resolved and "FY2024" in resolved and "prior year" not in resolved
    assert carried.year_read == "FY2024, the year before FY2025"


def test_last_year_with_nothing_talked_about_is_the_latest_reported() -> None:
    resolved, carried = carry_entities("how much did rio tinto pay in dividends last yr", [])
    assert "FY2025" in resolved and carried.year_read == "FY2025, the latest reported"
    resolved, carried = carry_entities("What was Fortescue's revenue the previous year?", [])
    assert "FY2024" in resolved and carried.year_read == "FY2024"


def test_the_patch_is_asked_only_for_a_question_saying_a_year_in_words() -> None:
    asked: list[bool] = []

    def patch() -> bool:
        asked.append(True)
        return False

    assert carry_entities(BHP_FY2025, [], relative=patch) == (BHP_FY2025, Carried())
    assert not asked
    resolved, carried = carry_entities("and the previous year?", [BHP_FY2025], relative=patch)
    assert asked and "FY2024" not in resolved and carried.year_read is None


def test_a_follow_up_of_a_question_over_every_company_is_over_every_company() -> None:
    asked: list[bool] = []

    def company_set() -> bool:
        asked.append(True)
        return True

    recent = ["Which company had the lowest net debt in FY2025?"]
    resolved, _ = carry_entities("and the year before?", recent, company_set=company_set)
    assert resolved == "and FY2024? (all companies, lowest, net debt)"
    assert asked == [True]
    # Its own measure named: every company, not ranked by the earlier one's.
    resolved, _ = carry_entities("and their revenue?", recent, company_set=company_set)
    assert resolved == "and their revenue? (all companies, FY2025)"
    # Among the miners, as the earlier question asked.
    among = ["rank the miners by capex in fy24"]
    assert "(all miners, capital expenditure)" in carry_entities("what about fy23?", among)[0]
    # The reading before the patch (a turn begun earlier replays as it ran).
    before, _ = carry_entities("and the year before?", recent, company_set=lambda: False)
    assert "all companies" not in before


def test_a_follow_up_of_one_companys_figure_asks_no_company_set() -> None:
    asked: list[bool] = []
    recent = ["What was BHP's net debt in FY2024?"]
    resolved, carried = carry_entities(
        "and the year before?", recent, company_set=lambda: asked.append(True) or True
    )
    assert carried.company == "BHP" and "all companies" not in resolved and asked == []
