"""Confidence is derived from the count of unsupported claims, never asked of a model."""

import pytest

from workflows.rules.confidence import (
    CHECK_REPORT_WARNING,
    JUDGE_UNAVAILABLE_WARNING,
    PARTIAL_DISCLAIMER,
    Band,
    confidence_band,
    shape_answer,
    share_confidence,
)


def test_no_unsupported_claims_is_grounded_high_without_warnings() -> None:
    assert confidence_band(0) == Band("yes", "high", ())


@pytest.mark.parametrize("unsupported", [1, 2, 3])
def test_one_to_three_unsupported_claims_is_partial_medium_with_a_disclaimer(
    unsupported: int,
) -> None:
    assert confidence_band(unsupported) == Band("partial", "medium", (PARTIAL_DISCLAIMER,))


@pytest.mark.parametrize("unsupported", [4, 10])
def test_more_than_three_unsupported_is_low_and_asks_to_check_the_report(
    unsupported: int,
) -> None:
    band = confidence_band(unsupported)
    assert band == Band("no", "low", (CHECK_REPORT_WARNING,))
    assert "check the cited report pages" in CHECK_REPORT_WARNING


def test_judge_unavailable_caps_high_confidence_at_medium_and_says_so() -> None:
    band = confidence_band(0, judge_unavailable=True)
    assert band.grounded == "yes"
    assert band.confidence == "medium"
    assert band.warnings == (JUDGE_UNAVAILABLE_WARNING,)


def test_judge_unavailable_leaves_lower_confidence_unchanged() -> None:
    assert confidence_band(2, judge_unavailable=True).confidence == "medium"
    band = confidence_band(5, judge_unavailable=True)
    assert band.confidence == "low"
    assert band.warnings == (CHECK_REPORT_WARNING, JUDGE_UNAVAILABLE_WARNING)


def test_judge_available_adds_no_judge_warning() -> None:
    assert JUDGE_UNAVAILABLE_WARNING not in confidence_band(0, judge_unavailable=False).warnings


# ---- the share of asked items answered and verified (issue 45 item 6) ------------------


@pytest.mark.parametrize(
    ("asked", "missing", "unsupported", "confidence"),
    [
        (4, 0, 0, "high"),
        (4, 1, 0, "medium"),
        (4, 2, 0, "medium"),
        (4, 3, 0, "low"),  # one of four verified: medium by the count bands
        (3, 2, 0, "low"),
        (2, 0, 1, "medium"),
        (2, 0, 2, "low"),  # two of two unsupported: medium by the count bands
        (10, 0, 4, "medium"),  # six of ten verified: low by the count bands
        (0, 0, 0, None),
    ],
)
def test_confidence_is_the_share_of_asked_items_answered_and_verified(
    asked: int, missing: int, unsupported: int, confidence: str | None
) -> None:
    assert share_confidence(asked, missing, unsupported) == confidence


def test_one_of_four_items_is_low_where_the_count_bands_said_medium() -> None:
    counted = shape_answer(0, False, False, missing=3, figures_given=True, figures_asked=True)
    by_share = shape_answer(
        0, False, False, missing=3, figures_given=True, figures_asked=True, asked=4, asked_missing=3
    )
    assert (counted.confidence, by_share.confidence) == ("medium", "low")


def test_an_unavailable_judge_still_caps_the_share_at_medium() -> None:
    assert shape_answer(0, True, False, asked=2).confidence == "medium"
    assert shape_answer(0, False, False, asked=2).confidence == "high"


def test_an_answer_not_grounded_is_low_whatever_its_share() -> None:
    """Four unsupported claims of twelve items: a share of two thirds, but `no` grounded."""
    shape = shape_answer(4, False, False, asked=12, asked_missing=0)
    assert (shape.grounded, shape.confidence) == ("no", "low")
