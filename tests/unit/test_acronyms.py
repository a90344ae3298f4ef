"""Acronyms read from the letters of the reports' own words (`domain.questions.measures.acronyms`):
an acronym asked is matched to the label that spells it, with no list of acronyms."""

import pytest

from domain.questions.measures import ACRONYM, acronyms, label_match, read_focus, written_acronyms
from ingestion import bm25


@pytest.mark.parametrize(
    ("label", "acronym"),
    [
        ("All-injury frequency rate", "aifr"),
        ("Lost time injury frequency rate", "ltifr"),
        ("Return on capital employed", "roce"),
        ("All-in sustaining cost", "aisc"),
        ("Net profit after tax", "npat"),
        ("Earnings per share", "eps"),
        ("Earnings before interest and tax", "ebit"),  # "before" spelt, "and" skipped
        ("Days sales outstanding", "dso"),
    ],
)
def test_a_label_spells_its_acronym(label: str, acronym: str) -> None:
    assert ACRONYM + acronym in acronyms(label)


def test_an_acronym_asked_is_answered_by_the_label_that_spells_it_and_by_no_other() -> None:
    focus = read_focus("What was the LTIFR?")
    assert written_acronyms("What was the LTIFR?") == {ACRONYM + "ltifr"}
    assert label_match(focus, "Lost time injury frequency rate") >= 0.8
    assert label_match(focus, "Total recordable injury frequency rate") == 0.0
    assert label_match(focus, "Lost time injuries") == 0.0


def test_a_question_in_words_is_not_read_as_the_acronyms_its_words_spell() -> None:
    """A question's own phrases are not spelt: "net profit after tax" asks those words."""
    focus = read_focus("What was the net profit after tax?")
    assert not any(t.startswith(ACRONYM) for t in focus.terms)


@pytest.mark.parametrize(
    ("question", "label"),
    [
        ("rio aifr fy24", "All-injury frequency rate"),
        ("what was the ltifr", "Lost time injury frequency rate"),
        ("whats the qzrt", "Quarterly zinc recovery tonnage"),  # an acronym never seen
    ],
)
def test_an_acronym_typed_in_lower_case_is_read_as_one(question: str, label: str) -> None:
    """People type acronyms in lower case: a word no common English word and no metric."""
    assert label_match(read_focus(question), label) >= 0.8


@pytest.mark.parametrize(
    "question", ["what was the rate of the dividend", "bhp ebitda fy25", "rev pls"]
)
def test_a_common_word_or_a_metric_in_lower_case_is_no_acronym(question: str) -> None:
    words = {w.lower() for w in question.split()}
    assert not {ACRONYM + w for w in words} - {ACRONYM + "bhp"} & written_acronyms(question)


def test_a_lower_case_slip_read_as_an_acronym_costs_the_words_asked_nothing() -> None:
    """An acronym term no label spells counts as its word once, not twice: a slip of
    four letters ("xqzv", read as an acronym too) weighs what one of seven does."""
    slip = label_match(read_focus("group tonnage xqzv"), "Group tonnage")
    assert slip == label_match(read_focus("group tonnage xqzvwyk"), "Group tonnage") > 0


def test_a_long_passage_is_not_spelt_only_its_capitals_are_read() -> None:
    passage = "Our all-injury frequency rate fell. " * 40 + "The AISC rose."
    assert acronyms(passage) == {ACRONYM + "aisc"}


def test_a_chunk_is_found_by_the_acronym_its_label_spells_and_words_never_collide() -> None:
    indices, _ = bm25.document_vector("Our rate fell.", [ACRONYM + "aifr"])
    query, _ = bm25.query_vector("Rio Tinto AIFR FY2024")
    assert bm25.term_id(ACRONYM + "aifr") in set(indices) & set(query)
    # The word "aifr" and the acronym "=aifr" are two terms: a word is never an acronym.
    assert bm25.term_id("aifr") != bm25.term_id(ACRONYM + "aifr")
    lower, _ = bm25.query_vector("rio tinto net debt")
    assert not any(bm25.term_id(ACRONYM + w) in lower for w in ("net", "rio", "debt"))
