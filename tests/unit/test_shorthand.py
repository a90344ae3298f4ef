"""Short forms people type (`domain/language/short_forms.tsv`) read as the words they stand for."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.language.shorthand import expand_short_forms, has_short_forms, short_forms


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("fortescue rev fy24 pls", "fortescue revenue fy24"),
        ("how much did bhp pay in divs last yr?", "how much did bhp pay in dividends last year?"),
        ("NST CAPEX FY25 THX", "NST capital expenditure FY25"),
        ("Thanks! What was South32's NPAT?", "What was South32's NPAT?"),  # an acronym: read as one
        ("what is the y/y change in rev", "what is the year on year change in revenue"),
        ("avg opex over 3 yrs", "average operating costs over 3 years"),
    ],
)
def test_a_short_form_is_read_as_its_words(typed: str, read: str) -> None:
    assert expand_short_forms(typed) == read


@pytest.mark.parametrize(
    "text",
    [
        "What was BHP's revenue in FY2024?",
        "reverse the revision of the dividend",  # words that begin like a short form
        "the divisional results",
        "thx",  # only a courtesy: left as written
    ],
)
def test_words_that_are_no_short_form_are_left_as_written(text: str) -> None:
    assert expand_short_forms(text) == text


def test_every_short_form_of_the_table_is_read_and_no_entry_is_blank_by_mistake() -> None:
    table = short_forms()
    assert len(table) >= 20
    for short, words in table.items():
        sentence = f"what was bhp's {short} in fy24"
        assert has_short_forms(sentence), short
        assert expand_short_forms(sentence) == (
            f"what was bhp's {words} in fy24" if words else "what was bhp's in fy24"
        )


@given(st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd", "Zs", "Po"))))
def test_reading_is_idempotent_and_never_empties_a_question(text: str) -> None:
    once = expand_short_forms(text)
    assert expand_short_forms(once) == once
    assert bool(once.strip()) or not text.strip() or once == text
