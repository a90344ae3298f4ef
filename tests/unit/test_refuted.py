"""Refuted figures are taken out of an answer, each with its exact line
(`workflows.rules.refuted`): fires on a refuted claim's sentence, quiet on the rest."""

from domain.models import UnsupportedClaim
from workflows.rules.refuted import (
    REMOVED_LINE,
    remove_every_refuted,
    remove_refuted,
    substance_left,
)

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


# ---- every sentence of a refuted claim (the refuted-every-sentence-v1 rule) -------------

AGAIN = "In short, Rio Tinto's FY2024 revenue came to US$99,999 million [2]."


def test_a_refuted_figure_said_twice_is_taken_out_of_both_sentences() -> None:
    removal = remove_every_refuted(f"{RIO} {BHP} {AGAIN}", [CLAIM], {CLAIM.label: [RIO, AGAIN]})
    assert removal.removed == [CLAIM.label] and removal.not_found == []
    assert "99,999" not in removal.answer and BHP in removal.answer
    assert removal.answer.endswith(REMOVED_LINE.format(label=CLAIM.label))
    # The rule before it took out the first sentence only: the figure stayed shown.
    text, _ = remove_refuted(f"{RIO} {BHP} {AGAIN}", [CLAIM], {CLAIM.label: RIO})
    assert "99,999" in text


def test_a_refuted_sentence_not_in_the_draft_is_reported_so_the_draft_is_withheld() -> None:
    removal = remove_every_refuted(f"{RIO} {BHP}", [CLAIM], {CLAIM.label: [RIO, AGAIN]})
    assert removal.not_found == [CLAIM.label]


def test_a_sentence_carrying_two_refuted_claims_is_taken_out_once_and_found() -> None:
    other = UnsupportedClaim(label="RIO FY2024 EBITDA", reason="general_knowledge")
    both = "Rio Tinto's revenue was US$99,999 million and EBITDA US$88,888 million [2]."
    removal = remove_every_refuted(
        f"{BHP} {both}", [CLAIM, other], {CLAIM.label: [both], other.label: [both]}
    )
    assert removal.removed == [CLAIM.label, other.label] and removal.not_found == []
    assert removal.answer.startswith(BHP) and "88,888" not in removal.answer


def test_every_sentence_rule_is_quiet_on_a_clean_answer_and_a_judged_claim() -> None:
    judged = UnsupportedClaim(label="BHP FY2024 outlook", reason="interpolation")
    for claims in ([], [judged]):
        removal = remove_every_refuted(BHP, claims, {})
        assert (removal.answer, removal.removed, removal.not_found) == (BHP, [], [])
