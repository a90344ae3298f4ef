"""The decisions taken out of ChatTurn's orchestration: retry gaps, coverage warning,
claim merging and the shape of a graded answer."""

from domain.checks.numeric import merge_claims
from domain.models import NotFound, Slots, UnsupportedClaim
from domain.questions.years import coverage_warning
from workflows.rules.confidence import (
    CHECK_REPORT_WARNING,
    JUDGE_UNAVAILABLE_WARNING,
    NUMBERS_UNVERIFIED_WARNING,
    PARTIAL_DISCLAIMER,
    shape_answer,
)
from workflows.rules.coverage import gaps_to_retry


def test_a_drafts_own_gaps_are_the_gaps_to_retry() -> None:
    own = [NotFound(company="BHP", fiscal_year=2024, metric="revenue")]
    assert gaps_to_retry(own, {"BHP": True, "FMG": False}, Slots(metrics=["ebitda"]), 2025) == own


def test_without_a_draft_every_metric_of_a_company_without_evidence_is_a_gap() -> None:
    slots = Slots(metrics=["revenue", "net debt"], fiscal_years=[2023, 2024])
    gaps = gaps_to_retry(None, {"BHP": True, "FMG": False}, slots, 2025)
    assert {(g.company, g.fiscal_year, g.metric) for g in gaps} == {
        ("FMG", 2023, "revenue"),
        ("FMG", 2024, "revenue"),
        ("FMG", 2023, "net debt"),
        ("FMG", 2024, "net debt"),
    }


def test_without_a_draft_or_a_year_the_latest_year_is_assumed() -> None:
    gaps = gaps_to_retry(None, {"S32": False}, Slots(metrics=["revenue"]), 2025)
    assert [(g.company, g.fiscal_year) for g in gaps] == [("S32", 2025)]


def test_no_gap_without_a_draft_when_every_company_has_evidence() -> None:
    assert gaps_to_retry(None, {"BHP": True}, Slots(metrics=["revenue"]), 2025) == []


def test_a_year_outside_coverage_gets_a_warning_and_a_covered_one_does_not() -> None:
    assert coverage_warning("BHP revenue in FY2021") == (
        "FY2021 is not covered: the reports cover FY2023–FY2025."
    )
    assert coverage_warning("BHP revenue in FY2024") is None


def test_claims_from_both_checks_are_merged_one_per_label() -> None:
    numeric = [UnsupportedClaim(label="BHP FY2024 revenue", reason="calculation")]
    judge = [
        UnsupportedClaim(label="BHP FY2024 revenue", reason="general_knowledge"),
        UnsupportedClaim(label="RIO FY2024 EBITDA", reason="interpolation"),
    ]
    merged = merge_claims(numeric, judge)
    assert [c.label for c in merged] == ["BHP FY2024 revenue", "RIO FY2024 EBITDA"]


def test_a_clean_answer_is_grounded_high_with_no_disclaimer() -> None:
    shape = shape_answer(0, judge_unavailable=False, numbers_unverified=False)
    assert (shape.grounded, shape.confidence, shape.warnings, shape.disclaimer) == (
        "yes",
        "high",
        (),
        None,
    )


def test_one_to_three_unsupported_claims_give_partial_medium_and_a_disclaimer() -> None:
    shape = shape_answer(2, judge_unavailable=False, numbers_unverified=False)
    assert (shape.grounded, shape.confidence) == ("partial", "medium")
    assert shape.disclaimer == PARTIAL_DISCLAIMER


def test_many_unsupported_claims_give_no_low_and_ask_to_check_the_report() -> None:
    shape = shape_answer(4, judge_unavailable=False, numbers_unverified=False)
    assert (shape.grounded, shape.confidence, shape.disclaimer) == (
        "no",
        "low",
        CHECK_REPORT_WARNING,
    )


def test_judge_outage_caps_confidence_at_medium_and_says_so() -> None:
    shape = shape_answer(0, judge_unavailable=True, numbers_unverified=False)
    assert shape.confidence == "medium" and JUDGE_UNAVAILABLE_WARNING in shape.warnings


def test_unchecked_figures_force_no_low_whatever_the_judge_said() -> None:
    shape = shape_answer(0, judge_unavailable=False, numbers_unverified=True)
    assert (shape.grounded, shape.confidence) == ("no", "low")
    assert shape.warnings == (NUMBERS_UNVERIFIED_WARNING,)
