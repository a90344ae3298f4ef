"""Reading a question in an open world (`domain.questions.measures`,
`domain.questions.question`): what it asks about is read from its own words, with no list of
measures to gate it."""

import pytest

from domain.companies.roster import proper_names
from domain.questions.measures import (
    asks_topic,
    base_form,
    focus_parts,
    meets_condition,
    without_personal,
)
from domain.questions.metrics import find_metrics, read_definitions, read_metric_words


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


def test_the_unit_a_figure_is_asked_in_is_part_of_its_ask_and_asks_for_a_figure() -> None:
    question = "What were Example Mining's water withdrawals in FY2024, in gigalitres?"
    assert [
        p.phrase for p in focus_parts("What did it pay out in FY2024, in US cents per share?")
    ] == ["pay out share"]
    assert not asks_topic("What were Example Mining's land disturbances in 2024, in hectares?")
    assert not asks_topic("What did Example Mining's plants release in 2024, in kt CO2-e?")
    assert asks_topic("What did Example Mining's plants release into the river in 2024?")
    assert len(focus_parts(question)) == 1


def test_where_the_figure_is_to_come_from_is_not_what_is_asked() -> None:
    for question in (
        "What was the tailings storage count, per the Chair's letter?",
        "According to the FY2024 report, what was the tailings storage count?",
        "What was the tailings storage count, as set out in its sustainability report?",
        "What was the tailings storage count in FY2024, in line with guidance?",
    ):
        assert [p.phrase for p in focus_parts(question)] == ["tailings storage count"], question


def test_including_one_offs_is_not_the_underlying_figure_and_a_day_is_not_a_word() -> None:
    including = focus_parts("What did it earn in FY2025 including one-offs?")
    excluding = focus_parts("What did it earn in FY2025 excluding one-offs?")
    assert "one-off" not in including[0].terms
    assert "one-off" in excluding[0].condition  # a condition of the ask, not its measure
    dated = focus_parts("What did it pay shareholders for the year ended 30 June 2024?")
    assert "30" not in dated[0].phrase.split()


def test_a_condition_narrows_its_ask_and_a_scene_setting_clause_asks_nothing() -> None:
    leading = focus_parts("Excluding one-off and non-cash items, what were its earnings in 2023?")
    assert len(leading) == 1 and {"earn", "one-off"} <= leading[0].terms
    assert leading[0].condition == {"one-off", "non-cash"}
    trailing = focus_parts("What was its profit excluding impairments and other one-off items?")
    assert len(trailing) == 1 and trailing[0].condition == {"impair", "one-off"}
    scene = focus_parts("How much did it sell in FY2025, despite record volumes?")
    assert [p.phrase for p in scene] == ["sell"]
    examples = focus_parts("What did it spend on projects such as Simandou and Oyu Tolgoi?")
    assert [p.phrase for p in examples] == ["spend projects"]
    # Quiet: two asks joined by "and" stay two, and a label is untouched by conditions.
    both = focus_parts("What were its revenue and net debt in FY2024?")
    assert [p.phrase for p in both] == ["revenue", "net debt"] and not both[0].condition
    assert meets_condition(trailing[0], "Underlying earnings")
    assert not meets_condition(trailing[0], "Profit after tax attributable to members")
    assert meets_condition(both[0], "Revenue")


def test_counting_one_offs_in_asks_for_the_statutory_figure() -> None:
    counting = focus_parts("What was its bottom-line result in FY2024, counting exceptional items?")
    assert "exception" not in " ".join(counting[0].terms) and not counting[0].condition


@pytest.mark.parametrize(
    ("question", "money"),
    [
        ("How much did Fortescue bring in from selling its product in FY2025?", True),
        ("How much did BHP spend on exploration?", True),
        ("How much money did Rio Tinto return to shareholders in 2024?", True),
        ("How many dollars did South32 pay in tax?", True),
        ("How much iron ore did Fortescue ship in FY2025?", False),
        ("How much gold did Northern Star sell?", False),
        ("What was BHP's revenue?", False),
        ("How much did copper production rise at BHP?", False),
    ],
)
def test_a_question_asks_for_money_by_its_verb_not_by_a_measure(question: str, money: bool) -> None:
    assert [p.money for p in focus_parts(question)] == [money]


@pytest.mark.parametrize(
    ("question", "phrases"),
    [
        (
            "What were the licence fees BHP collected from its spun-off arm (formerly the "
            "Devices division), as of March 3, 2026?",
            ["licence fees collected spun-off arm"],
        ),
        ("How much water did BHP recycle, as at Nov. 14th, 2025?", ["water recycle"]),
        (
            "BHP's gross debt and lease liabilities, on September 1, 2024?",
            ["gross debt", "lease liabilities"],
        ),
        ("How did BHP's water use move between Q2 of FY2023 and 4Q FY2024?", ["water use move"]),
    ],
)
def test_a_date_or_another_name_asks_nothing_of_its_own(question: str, phrases: list[str]) -> None:
    """A month-first date is when, not a measure ("August" was asked for as a part), as a
    quarter's name is; an aside with another name of the thing asked is not asked again."""
    assert [p.phrase for p in focus_parts(question)] == phrases


@pytest.mark.parametrize("word", ["SG&A", "R&D", "P&L"])
def test_an_ampersand_inside_a_word_does_not_split_the_ask(word: str) -> None:
    """ "SG&A" is one word of one ask; "copper & gold" are two asks."""
    parts = focus_parts(f"What drove the change in {word} expense as a percent of sales in FY2023?")
    assert len(parts) == 1 and word in parts[0].phrase
    assert len(focus_parts("What were its copper & gold volumes in FY2023?")) == 2


@pytest.mark.parametrize(
    ("question", "phrase"),
    [
        ("rank all five by scope 1 and 2 emissions 2024", "scope 1 and 2 emissions"),
        ("which of the five companies had the best ebitda margin in fy25", "ebitda margin"),
        ("among the five, who had the worst injury frequency?", "injury frequency"),
        ("the five's combined water withdrawals in FY2024", "combined water withdrawals"),
        ("how does south32's tailings volume measure up against bhp", "tailings volume"),
        ("why did bhp's profit drop in fy24", "profit"),
        ("whats northern star's aisc", "aisc"),
    ],
)
def test_the_companies_counted_and_best_or_worst_are_no_words_of_the_measure(
    question: str, phrase: str
) -> None:
    """Found by a new-user trial: "rank all five by scope 1 and 2 emissions" looked for
    "five scope 1 and 2 emissions", "best ebitda margin" for a measure called "best"."""
    assert [p.phrase for p in focus_parts(question)] == [phrase]
