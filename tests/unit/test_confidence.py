"""Confidence is derived from the count of unsupported claims, never asked of a model."""

import pytest

from workflows.rules.confidence import (
    CHECK_REPORT_WARNING,
    JUDGE_UNAVAILABLE_WARNING,
    PARTIAL_DISCLAIMER,
    Band,
    confidence_band,
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
