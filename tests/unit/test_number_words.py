"""Numbers written in words (`domain/language/number_words.py`): each shape English writes a number
in is read with its value and its place in the text; ordinals, parts named by a
determiner and word sequences that are no number are not."""

import pytest

from domain.language.number_words import word_numbers


def read(text: str) -> list[tuple[str, float, int, str]]:
    """Each number as (its words, value, decimals, the scale words after it)."""
    return [
        (text[n.start : n.end], round(n.value, 4), n.decimals, text[n.end : n.scale_end].strip())
        for n in word_numbers(text)
    ]


@pytest.mark.parametrize(
    ("text", "number"),
    [
        (
            "was fifty-three point eight billion US dollars",
            ("fifty-three point eight", 53.8, 1, "billion"),
        ),
        ("about forty billion dollars", ("forty", 40.0, 0, "billion")),
        ("a margin of nineteen per cent", ("nineteen", 19.0, 0, "")),
        ("rose twelve point five percent", ("twelve point five", 12.5, 1, "")),
        ("two hundred and five million", ("two hundred and five", 205.0, 0, "million")),
        ("a billion dollars", ("a", 1.0, 0, "billion")),
        ("half a billion dollars", ("half a", 0.5, 1, "billion")),
        ("one and a half billion dollars", ("one and a half", 1.5, 1, "billion")),
        ("a quarter of a million tonnes", ("a quarter of a", 0.25, 2, "million")),
        (
            "fifty-five billion six hundred and fifty-eight million US dollars",
            ("fifty-five billion six hundred and fifty-eight", 55_658.0, 0, "million"),
        ),
        ("one thousand million", ("one", 1.0, 0, "thousand million")),
        ("twenty four mines", ("twenty four", 24.0, 0, "")),
        ("Forty‑one cents", ("Forty‑one", 41.0, 0, "")),  # a non-breaking hyphen
    ],
)
def test_a_number_in_words_is_read_with_its_value_and_scale(
    text: str, number: tuple[str, float, int, str]
) -> None:
    assert read(text) == [number]


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("two-thirds of revenue", ("two-thirds", 66.6667)),
        ("half of its sales", ("half", 50.0)),
        ("a quarter of the group's EBITDA", ("a quarter", 25.0)),
        ("three fifths of output", ("three fifths", 60.0)),
    ],
)
def test_a_fraction_of_something_is_a_share_in_per_cent(
    text: str, share: tuple[str, float]
) -> None:
    [found] = word_numbers(text)
    assert found.share and (text[found.start : found.end], round(found.value, 4)) == share


@pytest.mark.parametrize("text", ["in twenty twenty-four", "since nineteen ninety-nine"])
def test_a_year_said_in_two_halves_is_marked_a_year(text: str) -> None:
    [found] = word_numbers(text)
    assert found.year and found.value in (2024.0, 1999.0)


@pytest.mark.parametrize(
    "text",
    [
        "in the first half of the year",
        "the second quarter",
        "the second half of FY2024",
        "each quarter of the year",
        "the twenty-first century",
        "the one hundred and first meeting",
        "a third party",
        "the third of June",
        "on behalf of the board",
        "half-year results",
        "a point of view",
        "fifty sixty seventy",
        "none, often, tone, someone, fortune",
    ],
)
def test_ordinals_parts_and_ordinary_words_are_not_numbers(text: str) -> None:
    assert word_numbers(text) == []
