"""Which period a question asks of each year it names (`domain.periods`): the quarter it
names with a year, and the years it names on their own beside one."""

import pytest

from domain.periods import quarter_of_year, whole_years


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
