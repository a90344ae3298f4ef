"""Company aliases resolve in any casing; mentions are found in order of first mention."""

import pytest

from domain.companies import COMPANIES, FISCAL_YEARS, find_companies, normalise_ticker


@pytest.mark.parametrize(
    ("value", "ticker"),
    [
        ("BHP", "BHP"),
        ("bhp group", "BHP"),
        ("  BHP   Group  Limited ", "BHP"),
        ("Rio Tinto", "RIO"),
        ("RIO TINTO PLC", "RIO"),
        ("fortescue", "FMG"),
        ("Fortescue Metals Group", "FMG"),
        ("south 32", "S32"),
        ("South32", "S32"),
        ("Northern Star Resources", "NST"),
        ("nst", "NST"),
    ],
)
def test_ticker_or_alias_in_any_casing_resolves_to_the_ticker(value: str, ticker: str) -> None:
    assert normalise_ticker(value) == ticker


@pytest.mark.parametrize("value", ["", "ACME", "Newmont", "rio tinto zinc", "BHPX"])
def test_unknown_company_resolves_to_none(value: str) -> None:
    assert normalise_ticker(value) is None


def test_find_companies_lists_tickers_in_order_of_first_mention_without_repeats() -> None:
    text = "Compare FORTESCUE with bhp, then Rio Tinto, then BHP Group again and fortescue."

    assert find_companies(text) == ["FMG", "BHP", "RIO"]


def test_find_companies_prefers_the_longest_alias() -> None:
    assert find_companies("Northern Star Resources Ltd and South32 Limited") == ["NST", "S32"]


def test_find_companies_ignores_aliases_inside_other_words() -> None:
    assert find_companies("For the period, the instance of a ribhp lot") == []


def test_find_companies_finds_nothing_in_a_question_without_a_company() -> None:
    assert find_companies("What was revenue in FY2024?") == []


def test_rio_tinto_alone_reports_calendar_years() -> None:
    assert COMPANIES["RIO"].period_end(2024).isoformat() == "2024-12-31"
    assert COMPANIES["BHP"].period_end(2024).isoformat() == "2024-06-30"
    assert FISCAL_YEARS == (2023, 2024, 2025)
