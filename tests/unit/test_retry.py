"""Bounded retry (docs/controls.md): when to retry, how the input changes, which draft wins."""

import pytest

from domain.models import NotFound, SubQuery, UnsupportedClaim
from workflows.rules.retry import (
    MAX_RETRIES,
    Attempt,
    best_attempt,
    plan_retry,
    retry_targets,
    should_retry,
)

FMG_QUERY = SubQuery(
    company="FMG", query="Fortescue net debt FY2024", fiscal_years=[2024], metrics=["net_debt"]
)
BHP_QUERY = SubQuery(
    company="BHP", query="BHP net debt FY2024", fiscal_years=[2024], metrics=["net_debt"]
)
FMG_GAP = NotFound(company="FMG", fiscal_year=2024, metric="net_debt")
FMG_CLAIM = UnsupportedClaim(label="FMG FY2024 cash position", reason="calculation")


def no_synonyms(metric: str) -> list[str]:
    return []


def net_debt_synonyms(metric: str) -> list[str]:
    return {"net_debt": ["net cash", "interest-bearing liabilities"]}.get(metric, [])


# should_retry


def test_failed_quality_triggers_a_retry() -> None:
    assert should_retry(quality_passed=False, gaps=0, unsupported=0, retries_done=0) is True


def test_missing_figure_triggers_a_retry() -> None:
    assert should_retry(quality_passed=True, gaps=1, unsupported=0, retries_done=1) is True


def test_more_than_two_unsupported_claims_trigger_a_retry() -> None:
    assert should_retry(quality_passed=True, gaps=0, unsupported=3, retries_done=0) is True


def test_two_unsupported_claims_do_not_trigger_a_retry() -> None:
    assert should_retry(quality_passed=True, gaps=0, unsupported=2, retries_done=0) is False


def test_clean_pass_does_not_retry() -> None:
    assert should_retry(quality_passed=True, gaps=0, unsupported=0, retries_done=0) is False


@pytest.mark.parametrize("retries_done", [MAX_RETRIES, MAX_RETRIES + 1])
def test_no_retry_once_two_retries_have_run(retries_done: int) -> None:
    assert MAX_RETRIES == 2
    assert should_retry(False, gaps=3, unsupported=5, retries_done=retries_done) is False


# retry_targets


def test_retry_targets_not_found_companies_gaps_and_unverified_claims() -> None:
    coverage = {"BHP": True, "FMG": True, "RIO": False, "S32": True}
    gaps = [NotFound(company="FMG", fiscal_year=2024, metric="revenue")]
    claims = [UnsupportedClaim(label="S32 FY2023 revenue", reason="general_knowledge")]
    assert retry_targets(coverage, gaps, claims) == ["RIO", "FMG", "S32"]


def test_retry_targets_are_empty_when_everything_is_covered_and_verified() -> None:
    assert retry_targets({"BHP": True, "FMG": True}, [], []) == []


def test_retry_targets_ignore_companies_outside_the_turn_and_repeat_none() -> None:
    coverage = {"BHP": False}
    gaps = [NotFound(company="BHP", fiscal_year=2024, metric="revenue")]
    claims = [
        UnsupportedClaim(label="BHP FY2024 revenue", reason="calculation"),
        UnsupportedClaim(label="RIO FY2024 revenue", reason="calculation"),
    ]
    assert retry_targets(coverage, gaps, claims) == ["BHP"]


# plan_retry


def test_failed_claim_label_terms_are_appended_to_the_target_query() -> None:
    plan = plan_retry([FMG_QUERY, BHP_QUERY], ["FMG"], [], [FMG_CLAIM], 1, no_synonyms)
    assert plan is not None
    assert plan.sub_queries == [
        SubQuery(
            company="FMG",
            query="Fortescue net debt FY2024 cash position",
            fiscal_years=[2024],
            metrics=["net_debt"],
        )
    ]
    assert plan.changes == ["FMG: +terms cash position"]


def test_gap_adds_metric_synonyms_from_the_passed_callable() -> None:
    asked: list[str] = []

    def synonyms(metric: str) -> list[str]:
        asked.append(metric)
        return net_debt_synonyms(metric)

    plan = plan_retry([FMG_QUERY], ["FMG"], [FMG_GAP], [], 1, synonyms)
    assert asked == ["net_debt"]
    assert plan is not None
    (changed,) = plan.sub_queries
    assert changed.query == "Fortescue net debt FY2024 cash interest-bearing liabilities"
    assert changed.fiscal_years == [2024]
    assert changed.query != FMG_QUERY.query


def test_second_retry_widens_the_fiscal_year_filter() -> None:
    plan = plan_retry([FMG_QUERY], ["FMG"], [FMG_GAP], [], 2, net_debt_synonyms)
    assert plan is not None
    (changed,) = plan.sub_queries
    assert changed.fiscal_years == []
    assert plan.changes == [
        "FMG: +terms cash interest-bearing liabilities, fiscal-year filter widened"
    ]


def test_first_retry_with_no_new_term_widens_the_fiscal_year_filter() -> None:
    plan = plan_retry([FMG_QUERY], ["FMG"], [FMG_GAP], [], 1, no_synonyms)
    assert plan is not None
    assert plan.sub_queries[0].fiscal_years == []
    assert plan.sub_queries[0].query == FMG_QUERY.query
    assert plan.changes == ["FMG: fiscal-year filter widened"]


def test_terms_already_in_the_query_do_not_count_as_a_change() -> None:
    claim = UnsupportedClaim(label="FMG FY2024 net debt", reason="calculation")
    plan = plan_retry([FMG_QUERY], ["FMG"], [], [claim], 1, no_synonyms)
    assert plan is not None
    assert plan.changes == ["FMG: fiscal-year filter widened"]


def test_every_planned_retry_changes_its_input() -> None:
    first = plan_retry([FMG_QUERY], ["FMG"], [FMG_GAP], [FMG_CLAIM], 1, net_debt_synonyms)
    assert first is not None
    second = plan_retry(first.sub_queries, ["FMG"], [FMG_GAP], [FMG_CLAIM], 2, net_debt_synonyms)
    assert second is not None
    assert first.sub_queries != [FMG_QUERY]
    assert second.sub_queries != first.sub_queries


def test_retry_that_cannot_change_its_input_returns_none() -> None:
    widened = SubQuery(company="FMG", query="Fortescue net debt", metrics=["net_debt"])
    assert plan_retry([widened], ["FMG"], [FMG_GAP], [], 2, no_synonyms) is None


def test_retry_with_no_targets_returns_none() -> None:
    assert (
        plan_retry([FMG_QUERY, BHP_QUERY], [], [FMG_GAP], [FMG_CLAIM], 1, net_debt_synonyms) is None
    )


def test_only_target_companies_are_searched_again() -> None:
    plan = plan_retry([FMG_QUERY, BHP_QUERY], ["BHP"], [], [], 1, no_synonyms)
    assert plan is not None
    assert [sq.company for sq in plan.sub_queries] == ["BHP"]


# best_attempt


def test_best_attempt_prefers_fewest_unsupported_claims() -> None:
    attempts = [Attempt(1, unsupported=3, gaps=0), Attempt(2, unsupported=1, gaps=2)]
    assert best_attempt(attempts).pass_number == 2


def test_best_attempt_breaks_an_unsupported_tie_by_fewest_gaps() -> None:
    attempts = [
        Attempt(1, unsupported=1, gaps=1),
        Attempt(2, unsupported=1, gaps=2),
        Attempt(3, unsupported=4, gaps=0),
    ]
    assert best_attempt(attempts).pass_number == 1


def test_best_attempt_prefers_the_latest_of_equal_drafts() -> None:
    attempts = [Attempt(1, 0, 0), Attempt(2, 0, 0), Attempt(3, 0, 0)]
    assert best_attempt(attempts).pass_number == 3


# a model judge's label that names its company (issue 45)

NAMED_CLAIM = UnsupportedClaim(label="Fortescue FY2024 cash position", reason="calculation")


def test_a_claim_label_naming_its_company_retargets_that_company() -> None:
    """ "Fortescue FY2024 cash position" (a model judge's way) retargeted nothing: the
    rule matched only a label opening with the ticker."""
    coverage = {"FMG": True, "BHP": True}
    assert retry_targets(coverage, [], [NAMED_CLAIM]) == []  # the ticker reading: nothing
    assert retry_targets(coverage, [], [NAMED_CLAIM], by_name=True) == ["FMG"]
    plan = plan_retry(
        [FMG_QUERY, BHP_QUERY], ["FMG"], [], [NAMED_CLAIM], 1, no_synonyms, by_name=True
    )
    assert plan is not None and plan.changes == ["FMG: +terms cash position"], plan
    late = UnsupportedClaim(label="cash position of Fortescue Ltd", reason="calculation")
    assert retry_targets(coverage, [], [late], by_name=True) == ["FMG"]


def test_a_ticker_label_or_a_label_naming_no_company_reads_as_before() -> None:
    coverage = {"FMG": True, "BHP": True}
    assert retry_targets(coverage, [], [FMG_CLAIM], by_name=True) == ["FMG"]
    nameless = UnsupportedClaim(label="FY2024 cash position", reason="calculation")
    assert retry_targets(coverage, [], [nameless], by_name=True) == []
    before = plan_retry([FMG_QUERY], ["FMG"], [], [FMG_CLAIM], 1, no_synonyms)
    assert plan_retry([FMG_QUERY], ["FMG"], [], [FMG_CLAIM], 1, no_synonyms, by_name=True) == before


def test_a_company_with_no_surviving_evidence_asks_for_a_retry_on_its_own() -> None:
    assert should_retry(True, 0, 0, 0, uncovered=1)
    assert not should_retry(True, 0, 0, 0, uncovered=0)
    assert not should_retry(True, 0, 0, MAX_RETRIES, uncovered=1)
