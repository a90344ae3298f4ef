"""Refuted figures are taken out of an answer, each with its exact line
(`workflows.rules.refuted`): fires on a refuted claim's sentence, quiet on the rest."""

from domain.models import UnsupportedClaim
from workflows.rules.refuted import REMOVED_LINE, remove_refuted, substance_left

BHP = "BHP Group's revenue for FY2024 was US$55,658 million [1]."
RIO = "Rio Tinto's revenue for FY2024 was US$99,999 million [2]."
CLAIM = UnsupportedClaim(label="RIO FY2024 revenue", reason="general_knowledge")


def test_a_refuted_claims_sentence_is_replaced_by_its_exact_line() -> None:
    text, removed = remove_refuted(f"{BHP} {RIO}", [CLAIM], {CLAIM.label: RIO})
    assert removed == [CLAIM.label]
    assert "99,999" not in text and BHP in text
    assert text.endswith(REMOVED_LINE.format(label=CLAIM.label))
    assert substance_left(text, removed)


def test_an_answer_whose_only_figure_is_refuted_has_nothing_left_to_show() -> None:
    text, removed = remove_refuted(RIO, [CLAIM], {CLAIM.label: RIO})
    assert removed and not substance_left(text, removed)
    gap = "RIO FY2024 net debt: data not found in provided documents"
    text, removed = remove_refuted(f"{RIO}\n\n{gap}", [CLAIM], {CLAIM.label: RIO})
    assert not substance_left(text, removed)


def test_a_claim_without_its_sentence_or_a_clean_answer_is_left_alone() -> None:
    judged = UnsupportedClaim(label="BHP FY2024 outlook", reason="interpolation")
    assert remove_refuted(BHP, [judged], {}) == (BHP, [])
    assert remove_refuted(BHP, [], {}) == (BHP, [])


def test_a_refuted_sentence_is_found_whatever_its_spacing_in_the_draft() -> None:
    """The numeric check's sentence joins words with one space; the draft may not."""
    draft = f"{BHP}  Rio Tinto's revenue for FY2024 was\nUS$99,999  million [2]."
    text, removed = remove_refuted(draft, [CLAIM], {CLAIM.label: RIO})
    assert removed == [CLAIM.label] and "99,999" not in text and BHP in text
