"""The failure-policy table (docs/failure-policy.md): each activity has a direction and a reason."""

from datetime import timedelta

import pytest

from api.auth import Caller
from api.turn_schemas import TurnRequest
from api.turn_service import turn_input
from db.turns import Allocation
from domain.budget import MAX_MODEL_TIMEOUT_SECONDS, MODEL_STEP_ATTEMPTS, TURN_BUDGET_SECONDS
from domain.failures import Direction
from settings import ENV_PREFIX, Settings
from workflows.contracts import TurnInput
from workflows.policy import POLICY, PURE_LAYERS, activity_options

SAVE = "postgres_save_turn"

# Quality layers that fail open, mapped to the activity names in the table.
FAIL_OPEN = {
    "relevance grading": "llm_grade_documents",
    "answer grading (judge)": "llm_grade_answer",
    "route classifier": "llm_route_question",
    "history": "postgres_load_session",
    "retrieval": "qdrant_search_chunks",
}


@pytest.mark.parametrize("name", sorted(POLICY))
def test_every_entry_has_a_direction_and_a_reason(name: str) -> None:
    entry = POLICY[name]
    assert entry.direction in ("open", "closed")
    assert entry.why.strip()
    assert entry.on_error.strip()


@pytest.mark.parametrize(("layer", "name"), sorted(FAIL_OPEN.items()))
def test_quality_layer_fails_open(layer: str, name: str) -> None:
    assert POLICY[name].direction == "open", layer


SWITCHABLE = {
    "llm_grade_answer": "TURNSTILE_JUDGE_POLICY",
    "llm_route_question": "TURNSTILE_CLASSIFIER_POLICY",
}


def test_the_judge_and_the_classifier_can_be_switched_to_fail_closed() -> None:
    assert {n: p.closed_option.setting for n, p in POLICY.items() if p.closed_option} == (
        SWITCHABLE
    )


@pytest.mark.parametrize("name", sorted(SWITCHABLE))
def test_a_closed_option_is_a_setting_and_a_turn_field_both_open_by_default(name: str) -> None:
    option = POLICY[name].closed_option
    assert option is not None and POLICY[name].direction == "open"
    setting = option.setting.removeprefix(ENV_PREFIX).lower()
    assert Settings.model_fields[setting].default == "open"
    # Turns started before the option, and their histories, keep the open path.
    assert TurnInput.model_fields[option.field].default == "open"


@pytest.mark.parametrize("policy", ["open", "closed"])
def test_the_api_passes_the_failure_policies_into_each_turn(policy: Direction) -> None:
    settings = Settings(judge_policy=policy, classifier_policy=policy)
    turn = turn_input(
        settings,
        Caller(tenant_id="t", key_fingerprint="f"),
        Allocation(turn_id="turn-c-1", conversation_id="c", seq=1),
        TurnRequest(question="What was BHP's revenue in FY2024?"),
        fresh=False,
    )
    assert (turn.judge_policy, turn.classifier_policy) == (policy, policy)


def test_cache_layers_fail_open_when_present() -> None:
    for name, entry in POLICY.items():
        if "cache" in name:
            assert entry.direction == "open", name


def test_saving_the_turn_fails_closed() -> None:
    assert POLICY[SAVE].direction == "closed"


def test_pure_layers_are_closed_by_construction() -> None:
    assert set(PURE_LAYERS) == {"scope_rules", "final_gate"}
    for why in PURE_LAYERS.values():
        assert "closed by construction" in why


UNTIL_DONE = {
    SAVE,
    "postgres_forget_user",
    "qdrant_forget_answers",
    "postgres_record_probe_run",
    "metrics_record_suite_run",
}
"""Writes that must complete once asked: a turn's save, a user's erasure, a probe run's
record (a lost breach would hide the first of two in a row) and a suite run's (a lost
regression would keep the drift alert quiet)."""


@pytest.mark.parametrize("name", sorted(set(POLICY) - UNTIL_DONE))
def test_activity_options_are_bounded_except_for_the_save(name: str) -> None:
    options = activity_options(name)
    total = options["schedule_to_close_timeout"]
    assert total is not None
    assert timedelta(0) < options["start_to_close_timeout"] <= total
    assert options["retry_policy"].maximum_attempts > 0


@pytest.mark.parametrize("name", sorted(UNTIL_DONE))
def test_save_and_erasure_are_retried_until_they_succeed(name: str) -> None:
    options = activity_options(name)
    assert options["schedule_to_close_timeout"] is None
    assert options["retry_policy"].maximum_attempts == 0
    assert options["start_to_close_timeout"] > timedelta(0)


def test_activity_options_come_from_the_table() -> None:
    entry = POLICY["llm_grade_answer"]
    assert activity_options("llm_grade_answer") == {
        "start_to_close_timeout": entry.start_to_close,
        "schedule_to_close_timeout": entry.schedule_to_close,
        "retry_policy": entry.retry,
        "heartbeat_timeout": entry.heartbeat,
    }


# Steps that run in a thread or wait on a model: a SIGKILLed worker must not hold them
# for their whole start-to-close timeout.
LONG_RUNNING = [
    "qdrant_search_chunks",
    "qdrant_load_chunks",
    "qdrant_ingest_file",
    "qdrant_read_corpus_version",
    "llm_route_question",
    "llm_rewrite_query",
    "llm_grade_documents",
    "llm_synthesize_answer",
    "llm_grade_answer",
    "grounding_check_numbers",
]


@pytest.mark.parametrize("name", LONG_RUNNING)
def test_long_running_steps_have_a_heartbeat_timeout_of_a_few_seconds(name: str) -> None:
    heartbeat = activity_options(name)["heartbeat_timeout"]

    assert heartbeat is not None
    assert timedelta(seconds=2) <= heartbeat <= timedelta(seconds=10)
    assert heartbeat < activity_options(name)["start_to_close_timeout"]


def test_unknown_activity_has_no_options() -> None:
    with pytest.raises(KeyError):
        activity_options("no_such_activity")


MODEL_STEPS = sorted(name for name, p in POLICY.items() if p.kind == "engine")


@pytest.mark.parametrize("name", MODEL_STEPS)
def test_a_model_steps_timeouts_hold_the_longest_model_timeout_for_every_attempt(
    name: str,
) -> None:
    """One model call per attempt (the client's retries are off): start-to-close holds
    the longest model timeout the settings accept, schedule-to-close every attempt."""
    options = activity_options(name)
    longest = timedelta(seconds=MAX_MODEL_TIMEOUT_SECONDS)
    attempts = options["retry_policy"].maximum_attempts
    total = options["schedule_to_close_timeout"]
    assert attempts == MODEL_STEP_ATTEMPTS
    assert options["start_to_close_timeout"] > longest
    assert total is not None and total >= attempts * options["start_to_close_timeout"]
    assert POLICY[name].budgeted, "a model step counts against the turn's budget"


def test_the_turn_budget_holds_at_least_one_call_at_the_default_model_timeout() -> None:
    from settings import Settings

    assert Settings().model_timeout_seconds < TURN_BUDGET_SECONDS


@pytest.mark.parametrize(
    "name", ["postgres_save_turn", "grounding_check_numbers", "grounding_check_relevance"]
)
def test_the_save_and_the_checks_run_whatever_is_left_of_the_budget(name: str) -> None:
    assert not POLICY[name].budgeted
