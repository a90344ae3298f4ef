"""The rules behind answers that answer the question asked (each firing, each quiet)."""

import pytest

from domain.models import NotFound
from domain.questions.metrics import find_metrics, find_other_measures
from domain.questions.question import extract_slots
from domain.questions.years import coverage_notice
from domain.turns import Carried
from workflows.rules.carry import carry_entities
from workflows.rules.confidence import NO_FIGURE_GIVEN_WARNING, shape_answer
from workflows.rules.retry import retryable
from workflows.rules.scope import DECLINE_LINE, ScopeDecision, scope_rules

# a measure the engine has no rule for


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        ("What was BHP's free cash flow in FY2024?", "free cash flow"),
        ("Fortescue C1 cost per tonne FY2025", "C1 unit costs"),
        ("How many employees does Rio Tinto have?", "employees"),
        ("BHP earnings per share FY2024", "earnings per share"),
        ("BHP net cash flow from operating activities 2024", "operating cash flow"),
        ("Rio Tinto EBITDA margin FY2023", "margin"),
        ("Northern Star all-in sustaining costs", "all-in sustaining costs"),
    ],
)
def test_a_measure_without_a_rule_is_named_and_not_read_as_a_known_metric(
    question: str, measure: str
) -> None:
    slots = extract_slots(question)
    assert slots.other_measures == [measure]
    assert slots.metrics == [], "its words must not pass for a metric the engine has"
    assert slots.intent == "lookup", "not an overview: a figure was asked for"


@pytest.mark.parametrize(
    "question",
    ["What was BHP's revenue in FY2024?", "Rio Tinto net debt 2024", "NST gold sold FY2025"],
)
def test_known_metrics_name_no_other_measure(question: str) -> None:
    assert find_other_measures(question) == []
    assert find_metrics(question)


def test_confidence_is_never_high_while_a_requested_figure_is_missing() -> None:
    assert shape_answer(0, False, False).confidence == "high"
    partial = shape_answer(0, False, False, missing=1, figures_given=True)
    # The answer says which figure is missing, and the turn why confidence is lower: no
    # warning repeats them.
    assert partial.confidence == "medium" and partial.warnings == ()
    none_given = shape_answer(0, False, False, missing=2, figures_given=False)
    assert none_given.confidence == "low" and none_given.grounded == "yes"
    # Firing: a figure question answered with no figure at all is not grounded.
    asked = shape_answer(0, False, False, missing=1, figures_given=False, figures_asked=True)
    assert asked.grounded == "no" and asked.confidence == "low"
    # Its not-found lines name what is missing: no notice repeats them...
    assert asked.warnings == ()
    # ...but an answer that neither gives nor says it lacks what was asked is flagged.
    silent = shape_answer(0, False, False, figures_given=False, figures_asked=True)
    assert silent.grounded == "no" and silent.warnings == (NO_FIGURE_GIVEN_WARNING,)
    # Quiet: a figure question whose figure is given, or a question for no figure.
    assert shape_answer(0, False, False, figures_given=True, figures_asked=True).grounded == "yes"
    assert shape_answer(0, False, False, figures_given=False).grounded == "yes"
    assert shape_answer(2, False, False, missing=1).confidence == "medium"


def test_only_gaps_a_search_could_fill_are_retried() -> None:
    gaps = [
        NotFound(company="BHP", fiscal_year=2024, metric="revenue"),
        NotFound(company="BHP", fiscal_year=2024, metric="free cash flow"),
    ]
    assert [g.metric for g in retryable(gaps, ["free cash flow"])] == ["revenue"]
    assert retryable(gaps, []) == gaps


# years outside coverage


def test_the_answer_opens_with_the_year_not_covered_and_no_forecast() -> None:
    past = coverage_notice("What was BHP's revenue in FY2021?")
    assert past is not None and past.startswith("FY2021 is not covered")
    assert "forecast" not in past
    future = coverage_notice("What will BHP's revenue be in FY2026?")
    assert future is not None and "I do not forecast" in future
    assert coverage_notice("What was BHP's revenue in FY2024?") is None


# advice and predictions


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("Will Fortescue's share price go up next year?", "forecast"),
        ("Predict BHP's share price", "forecast"),
        ("Is Rio Tinto a good buy?", "investment_advice"),
        ("Should I buy BHP shares?", "investment_advice"),
    ],
)
def test_advice_or_a_prediction_alone_is_refused(question: str, reason: str) -> None:
    assert scope_rules(question) == ScopeDecision(True, reason)


@pytest.mark.parametrize(
    "question",
    [
        "BHP's revenue in FY2024 — should I buy the stock?",
        "What was Rio Tinto's net debt in FY2024, and is it a good investment?",
    ],
)
def test_advice_around_a_fact_answers_the_fact_and_declines_the_rest(question: str) -> None:
    decision = scope_rules(question)
    assert not decision.refuse and decision.decline == DECLINE_LINE


@pytest.mark.parametrize(
    "question",
    ["What was BHP's revenue in FY2024?", "Which company had the most debt?", "Tell me about BHP"],
)
def test_scope_rules_are_quiet_on_factual_questions(question: str) -> None:
    assert scope_rules(question) == ScopeDecision(False)


# follow-ups

BHP_REVENUE = "What was BHP's revenue in FY2024?"


@pytest.mark.parametrize(
    ("question", "earlier", "resolved"),
    [
        ("And in FY2023?", BHP_REVENUE, "And in FY2023? (BHP Group, revenue)"),
        ("FY2023?", BHP_REVENUE, "FY2023? (BHP Group, revenue)"),
        ("What about Fortescue?", BHP_REVENUE, "What about Fortescue? (revenue, FY2024)"),
        (
            "How does that compare with FY2023?",
            "What was Rio Tinto's net debt in FY2024?",
            "How does that compare with FY2023? (Rio Tinto, net debt, FY2024)",
        ),
        (
            "And in FY2023?",
            "BHP free cash flow FY2024",
            "And in FY2023? (BHP Group, free cash flow)",
        ),
    ],
)
def test_a_follow_up_keeps_the_measure_and_the_comparison(
    question: str, earlier: str, resolved: str
) -> None:
    assert carry_entities(question, [earlier])[0] == resolved


def test_a_question_over_every_company_inherits_no_company() -> None:
    resolved, carried = carry_entities("Which company had the most debt?", [BHP_REVENUE])
    assert carried.company is None and "BHP" not in resolved


@pytest.mark.parametrize(
    "question", ["Tell me about BHP", "What was Rio Tinto's net debt in FY2023?", "Hello"]
)
def test_carry_is_quiet_when_there_is_nothing_to_attach_to(question: str) -> None:
    assert carry_entities(question, [BHP_REVENUE]) == (question, Carried())
