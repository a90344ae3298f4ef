"""Which period a question asks of each year it names (`domain.reports.periods`): the quarter it
names with a year, and the years it names on their own beside one."""

import pytest

from domain.language.calendar import quarter_dated, quarter_of_year, quarter_said, whole_years


@pytest.mark.parametrize(
    ("text", "quarter", "whole"),
    [
        # a year named before the quarter is a whole year: "Q2 of" is not said of it
        ("Was there any drop in cash between FY 2023 and Q2 of FY2024?", 2, {2023}),
        ("How did the fiscal year 2021 close compare with 2022 Q3?", 3, {2021}),
        # a year after the quarter shares it ("Q2 of FY2024 and FY2023": both second quarters)
        ("Any change in store count between Q2 of FY2024 and FY2023?", 2, set()),
        ("the second fiscal quarter of 2023 against the same period a year before", 2, set()),
        # no quarter of a year: nothing is asked of a part of one
        ("What was revenue in FY2022 and FY2023?", None, set()),
        ("for the second quarter in a row, in FY2024", None, set()),
    ],
)
def test_a_quarter_is_asked_of_the_years_it_is_said_of(
    text: str, quarter: int | None, whole: set[int]
) -> None:
    assert quarter_of_year(text) == quarter
    assert whole_years(text) == whole


@pytest.mark.parametrize(
    ("text", "year_end", "expected"),
    [
        ("How much was it as of November 14, 2025?", "12-31", (2025, 4)),
        ("How much was it as of November 14, 2025?", "06-30", (2026, 2)),
        ("the balance at 15 April 2026", "03-31", (2027, 1)),
        ("the balance at 30 September 2025", "12-31", (2025, 3)),  # a quarter's end
        ("as of February 28, 2026", "09-30", (2026, 2)),
    ],
)
def test_a_day_named_inside_a_year_asks_for_the_quarter_holding_it(
    text: str, year_end: str, expected: tuple[int, int]
) -> None:
    assert quarter_dated(text, year_end) == expected


@pytest.mark.parametrize(
    ("text", "year_end"),
    [
        ("the balance at 31 March 2026", "03-31"),  # the year's own end: the year
        ("as of September 27, 2025", "09-30"),  # a 52/53-week year's end, some days off
        ("between March 3, 2025 and October 9, 2025", "12-31"),  # days of two quarters
        ("What was its revenue in FY2025?", "06-30"),  # no day
    ],
)
def test_no_quarter_is_asked_by_a_years_end_two_quarters_or_no_day(
    text: str, year_end: str
) -> None:
    assert quarter_dated(text, year_end) is None


def test_the_quarter_a_sentence_names_for_its_figure() -> None:
    assert quarter_said("including a charge of $3 million in the second quarter of 2025") == 2
    assert quarter_said("in Q4 the mill ran") == 4
    assert quarter_said("for the nine months ended 30 September") is None
    assert quarter_said("sales rose") is None
