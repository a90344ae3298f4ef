"""Turn metrics and the alert rules that read them (pure: a private registry, a file)."""

import re
from pathlib import Path

import pytest
import yaml
from prometheus_client import CollectorRegistry

from backends.metrics import TurnMetrics
from domain.failures import error_class
from domain.models import Citation, ModelCall, Relevance, RelevanceItem, UnsupportedClaim
from domain.turns import Degradation, TurnResult

RULES = Path(__file__).resolve().parents[2] / "ops" / "prometheus" / "alerts.yml"


def result(**fields: object) -> TurnResult:
    base: dict[str, object] = {"turn_id": "t-1", "conversation_id": "c", "question": "q"}
    return TurnResult.model_validate({**base, **fields})


def sample(registry: CollectorRegistry, name: str, **labels: str) -> float:
    return registry.get_sample_value(name, labels) or 0.0


def test_a_settled_turn_is_counted_by_outcome_with_bounded_labels() -> None:
    registry = CollectorRegistry()
    metrics = TurnMetrics(registry)
    metrics.observe_turn(
        result(
            status="answered",
            route="needs_retrieval",
            confidence="medium",
            retries=1,
            unsupported_claims=[UnsupportedClaim(label="BHP FY2024 revenue", reason="calculation")],
            citations=[
                Citation(
                    chunk_id="x",
                    company="BHP",
                    fiscal_year=2024,
                    page=1,
                    document="d",
                    section="s",
                    preview="p",
                    n=1,
                )
            ],
            degraded=[
                Degradation(
                    layer="llm_grade_answer",
                    reason="judge_unavailable: UpstreamUnavailable: BHP 503",
                )
            ],
            model_calls=5,
            model_trace=[
                ModelCall(
                    step="synthesize",
                    model="large-1",
                    prompt_sha="abc",
                    prompt_tokens=900,
                    completion_tokens=100,
                )
            ],
        ),
        seconds=2.5,
    )
    metrics.observe_turn(
        result(status="refused", route="out_of_scope", refusal_reason="investment_advice"),
        seconds=0.1,
    )
    assert (
        sample(registry, "turnstile_turns_total", status="answered", route="needs_retrieval") == 1
    )
    assert sample(registry, "turnstile_refusals_total", reason="investment_advice") == 1
    assert (
        sample(
            registry,
            "turnstile_degraded_total",
            layer="llm_grade_answer",
            reason="judge_unavailable",
        )
        == 1
    )
    assert sample(registry, "turnstile_confidence_total", band="medium") == 1
    assert sample(registry, "turnstile_unsupported_claims_sum") == 1
    assert sample(registry, "turnstile_citations_count") == 1
    assert sample(registry, "turnstile_retries_total") == 1
    assert sample(registry, "turnstile_model_tokens_total", model="large-1", kind="prompt") == 900
    assert sample(registry, "turnstile_turn_seconds_count", status="answered") == 1
    # No label value anywhere is user text or an id.
    for family in registry.collect():
        for s in family.samples:
            assert "t-1" not in s.labels.values() and "q" not in s.labels.values()


def test_cache_outcomes_and_summaries_are_counted() -> None:
    registry = CollectorRegistry()
    metrics = TurnMetrics(registry)
    metrics.observe_turn(
        result(
            status="answered",
            route="answer_cache",
            cache="hit",
            cache_turn_id="turn-c-1",
            summarised=8,
        ),
        seconds=0.05,
    )
    metrics.observe_turn(result(status="refused", route="scope_rules"), seconds=0.01)
    assert sample(registry, "turnstile_answer_cache_total", outcome="hit") == 1
    assert sample(registry, "turnstile_answer_cache_total", outcome="miss") == 0, "not asked"
    assert sample(registry, "turnstile_messages_summarised_total") == 8


def test_reason_classes_are_a_bounded_set() -> None:
    assert error_class("BHP: UpstreamUnavailable: the reranker answered 503") == (
        "upstreamunavailable"
    )
    assert error_class("judge_unavailable: ModelRefused") == "judge_unavailable"
    assert error_class("What was BHP's revenue? some user text") == "other"


@pytest.mark.parametrize(
    ("reason", "label"),
    [
        (
            "ModelOutputInvalid: synthesize: the model's reply is not the SynthesisOut schema",
            "malformed_output",
        ),
        ("ModelRefused: route: the model refused: I can't help", "refusal"),
        ("UpstreamUnavailable: the model endpoint answered 429: slow down", "rate_limit"),
        ("ModelTimeout: synthesize: the model timed out", "timeout"),
        ("TurnBudgetSpent: the turn's 90 s budget was spent", "timeout"),
        ("TimeoutError: activity StartToClose timeout", "timeout"),
        (
            "UpstreamUnavailable: the model endpoint answered 503: unavailable",
            "upstreamunavailable",
        ),
    ],
)
def test_a_model_steps_failure_is_told_apart_by_kind(reason: str, label: str) -> None:
    assert error_class(reason) == label


def exported_names() -> set[str]:
    """Every sample name the code exports (worker turn and suite-run metrics and the API's)."""
    from prometheus_client import REGISTRY

    import api.app  # noqa: F401  (its routes register the API's metrics on the default registry)
    from backends.suite_runs import SuiteMetrics

    names = set()
    for registry in (CollectorRegistry(), REGISTRY):
        if registry is not REGISTRY:
            TurnMetrics(registry)
            SuiteMetrics(registry)
        for family in registry.collect():
            # A labelled metric has no samples until first used: name its series by type.
            suffixes = {
                "counter": ("_total",),
                "histogram": ("_bucket", "_sum", "_count"),
                "gauge": ("",),
                "summary": ("_sum", "_count"),
            }.get(family.type, ("",))
            names |= {family.name + suffix for suffix in suffixes}
            names |= {s.name for s in family.samples}
    return names


_RECORDED = re.compile(r"\bturnstile:[a-z_]+:[a-z0-9_]+\b")


def test_the_alert_rules_are_prometheus_rules_over_exported_metrics() -> None:
    """Every raw metric a rule reads is exported; every recorded series an alert reads is
    recorded earlier in the file (Prometheus evaluates a group's rules in order)."""
    document = yaml.safe_load(RULES.read_text())
    assert set(document) == {"groups"}
    exported = exported_names()
    seen_alerts: set[str] = set()
    recorded: set[str] = set()
    for group in document["groups"]:
        assert set(group) <= {"name", "interval", "rules"} and group["rules"]
        for rule in group["rules"]:
            names = set(re.findall(r"\b(turnstile_[a-z_]+|temporal_[a-z_]+)\b", rule["expr"]))
            assert names <= exported, f"{rule}: {names - exported} not exported"
            assert set(_RECORDED.findall(rule["expr"])) <= recorded, rule
            assert rule["expr"].count("(") == rule["expr"].count(")")
            if "record" in rule:
                assert set(rule) <= {"record", "expr", "labels"}, rule
                assert _RECORDED.fullmatch(rule["record"]) and rule["record"] not in recorded
                recorded.add(rule["record"])
                continue
            assert set(rule) <= {"alert", "expr", "for", "labels", "annotations"}, rule
            assert rule["alert"] not in seen_alerts
            seen_alerts.add(rule["alert"])
            if "for" in rule:
                assert re.fullmatch(r"\d+[smhd]", rule["for"])
            assert rule["labels"]["severity"] in {"warning", "critical"}
            assert names or _RECORDED.search(rule["expr"]), rule["alert"]
    expected = {
        "TurnstileLayerDegraded",
        "TurnstileJudgeUnavailable",
        "TurnstileRefusalRateOutOfBand",
        "TurnstileLowConfidenceShareHigh",
        "TurnstileFallbackRateHigh",
        "TurnstileTurnsFailing",
        "TurnstileRefusalRateDrift",
        "TurnstileClarificationRateDrift",
        "TurnstileUnsupportedClaimsDrift",
        "TurnstileCitationsDrift",
        "TurnstileNumericCheckUnavailable",
    }
    assert expected <= seen_alerts


def test_the_rule_check_catches_a_metric_that_does_not_exist() -> None:
    assert "turnstile_not_a_metric_total" not in exported_names()


def test_the_relevance_control_is_counted_for_answered_turns() -> None:
    registry = CollectorRegistry()
    metrics = TurnMetrics(registry)
    off = Relevance(
        items=[RelevanceItem(focus="net debt", status="missing")], addressed=False, off_point=True
    )
    partial = Relevance(
        items=[
            RelevanceItem(focus="revenue", status="answered"),
            RelevanceItem(focus="net debt", status="missing"),
        ],
        addressed=False,
    )
    good = Relevance(items=[RelevanceItem(focus="revenue", status="answered")])
    for relevance in (off, partial, good, good):
        metrics.observe_turn(result(status="answered", relevance=relevance), seconds=1.0)
    metrics.observe_turn(result(status="refused", relevance=off), seconds=0.1)

    assert sample(registry, "turnstile_relevance_total", result="off_point") == 1
    assert sample(registry, "turnstile_relevance_total", result="partial") == 1
    assert sample(registry, "turnstile_relevance_total", result="addressed") == 2


def test_a_draft_withheld_for_unchecked_figures_is_counted_as_its_own_fallback() -> None:
    registry = CollectorRegistry()
    metrics = TurnMetrics(registry)
    metrics.observe_turn(result(status="fallback", fallback_reason="numbers_unchecked"), None)
    metrics.observe_turn(result(status="fallback", fallback_reason="nothing_relevant"), None)
    assert sample(registry, "turnstile_fallbacks_total", reason="numbers_unchecked") == 1
    assert sample(registry, "turnstile_fallbacks_total", reason="other") == 1
