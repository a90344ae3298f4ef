"""Finding personal data: each kind with its checksum, and silence on the reports' figures."""

import pytest

from domain.checks import pii
from domain.checks.pii import PiiKind
from evals.cases import load_suites
from testkit.answer_cases import CASES
from tests.conftest import corpus_files


def kinds(text: str) -> list[tuple[str, str]]:
    return [(m.kind.value, m.value) for m in pii.find(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mail Jo.Smith@example.com.au now", [("email", "Jo.Smith@example.com.au")]),
        ("call 0412 345 678.", [("phone", "0412 345 678")]),
        ("call +61 2 9876 5432", [("phone", "+61 2 9876 5432")]),
        ("office (02) 9876 5432", [("phone", "(02) 9876 5432")]),
        ("free call 1800 123 456", [("phone", "1800 123 456")]),
        ("card 4111 1111 1111 1111, thanks", [("card", "4111 1111 1111 1111")]),
        ("card 4111-1111-1111-1111", [("card", "4111-1111-1111-1111")]),
        ("TFN 123 456 782?", [("tfn", "123 456 782")]),
        ("tfn 865414088", [("tfn", "865414088")]),
        ("BSB 062-000 12345678", [("account", "062-000 12345678")]),
        ("account number 1234 5678 9", [("account", "1234 5678 9")]),
        ("IBAN GB82 WEST 1234 5698 7654 32", [("account", "GB82 WEST 1234 5698 7654 32")]),
        ("iban gb82 west 1234 5698 7654 32", [("account", "gb82 west 1234 5698 7654 32")]),
        ("call 61 412 345 678", [("phone", "61 412 345 678")]),
        ("BSB 062-000, acc 1234 5678", [("account", "1234 5678")]),
        # A valid value inside a longer run of digits is still found.
        ("card 4111 1111 1111 1111 123", [("card", "4111 1111 1111 1111")]),
        ("mobile 0412 345 678 1234", [("phone", "0412 345 678")]),
        ("0412 345 678 0412 345 679", [("phone", "0412 345 678"), ("phone", "0412 345 679")]),
        (
            "call 1300 123 456 4111 1111 1111 1111",
            [("phone", "1300 123 456"), ("card", "4111 1111 1111 1111")],
        ),
        (
            "+61 2 9876 5432-4111 1111 1111 1111",
            [("phone", "+61 2 9876 5432"), ("card", "4111 1111 1111 1111")],
        ),
        ("tax file number 250 000 000", [("tfn", "250 000 000")]),
        # Written in words: found by their shape (issue 45 item 5).
        ("Prof. A. Whitcombe asks: BHP capex?", [("name", "Prof. A. Whitcombe")]),
        ("my name is tui falaniko, rio revenue?", [("name", "tui falaniko")]),
        ("d.o.b. 1981-07-23 and FMG debt", [("birth", "1981-07-23")]),
        (
            "my daughter is being treated for leukaemia; s32 ebitda",
            [("health", "my daughter is being treated for leukaemia")],
        ),
        (
            "reply to 42B Wattlebird Rise, Armadale WA 6112",
            [("address", "42B Wattlebird Rise, Armadale WA 6112")],
        ),
        ("i live at 3/18 ocean view rd and ask about NST", [("address", "3/18 ocean view rd")]),
    ],
)
def test_each_kind_is_found(text: str, expected: list[tuple[str, str]]) -> None:
    assert kinds(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "card 4111 1111 1111 1112",  # fails Luhn
        "TFN 123 456 789",  # fails the TFN check
        "IBAN GB82 WEST 1234 5698 7654 33",  # fails mod 97
        "US$55,658 million in FY2024",
        "revenue of 123,456,782 and 4,111,111,111,111,111",  # separators make it a figure
        "13 500 000 tonnes shipped in 2023-2024",
        "EBITDA margin 53.7% vs 1.234567890",
        "Compare BHP iron ore production 2017 2018 2019 2020",  # years pass Luhn
        "between 100000-200000",
        "the current account 2023 2024",
        "approx 250 000 000 t",  # a round figure passes the TFN check
        "100 200 300",
        "ACN 004 028 077",  # a company number, not a phone
        "how is the impairment treated for tax in FY2024",
        "Rio Tinto suffered from lower iron ore prices",
        "net debt as at 31 December 2024 (born of the 2001 merger)",
        "South32 was born in 2015. As at 30 June 2024 what was its debt?",
        "Mt Arthur Coal and St Barbara: production in FY2023",
        "my question is about BHP: what is its name in the US?",
    ],
)
def test_figures_and_failed_checksums_are_not_personal_data(text: str) -> None:
    assert kinds(text) == []


def test_no_question_of_the_answer_and_retrieval_sets_is_touched() -> None:
    suites = [c for cases in load_suites().values() for c in cases]
    questions = [c.question for c in CASES] + [q for c in suites for q in (*c.before, c.query)]
    assert len(questions) > 100
    assert [q for q in questions if pii.find(q)] == []


def test_the_reports_hold_no_match() -> None:
    texts = [path.read_text("utf-8") for path in corpus_files()]
    assert texts
    assert [m for text in texts for m in pii.find(text)] == []


def test_overlaps_go_to_the_earlier_kind_and_replace_keeps_the_rest() -> None:
    text = "jo.0412345678@example.com and 0412 345 678"
    found = pii.find(text)
    assert [m.kind for m in found] == [PiiKind.EMAIL, PiiKind.PHONE]
    tokens = [pii.token_text(m.kind, "abcdefghij") for m in found]
    replaced = pii.replace(text, found, tokens)
    assert replaced == "⟦email:abcdefghij⟧ and ⟦phone:abcdefghij⟧"
    assert pii.find(replaced) == []
    assert [m.group(1) for m in pii.TOKEN.finditer(replaced)] == ["email", "phone"]


def test_two_spellings_of_one_value_normalise_alike() -> None:
    assert pii.normalised(PiiKind.PHONE, "0412 345 678") == pii.normalised(
        PiiKind.PHONE, "0412-345-678"
    )
    assert pii.normalised(PiiKind.EMAIL, "Jo@Example.com") == "jo@example.com"


@pytest.mark.parametrize(
    "text",
    [
        "my name is Jane Smith jane@example.com",
        "My wife is being treated for asthma call 0412 345 678",
        "My husband was diagnosed with diabetes tfn 123456782",
        "My name is Will Smith",  # a first name that is a common word
    ],
)
def test_a_detail_running_into_a_value_is_tokenised_and_nothing_is_left(text: str) -> None:
    """The API re-reads the redacted text and refuses it (503) if anything is found: a
    detail must stop where a value's token starts."""
    found = pii.find(text)
    assert len(found) >= 1
    replaced = pii.replace(text, found, [pii.token_text(m.kind, "abcdefghij") for m in found])
    assert pii.find(replaced) == []
    assert not any(w in replaced for w in ("Jane", "asthma", "diabetes", "Will"))


@pytest.mark.parametrize(
    "text",
    [
        "How are my shares treated for tax purposes after the 2023 BHP demerger?",
        "My company is undergoing restructuring; what is BHP's capex?",
        "Brother Industries and Hon Hai: revenue in FY2024?",
        "the 2019 Federal Court ruling on Rio Tinto",
        "BHP's 2023 Half Year Close and 2024 Group Way",
    ],
)
def test_company_sense_words_found_by_a_reviewer_are_left_alone(text: str) -> None:
    assert kinds(text) == []
