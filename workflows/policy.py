"""Per-activity options and failure policy: ONE table, checked against the worker registry.

Quality layers fail open, harm-preventing layers fail closed, and every fail-open is
recorded in the turn's `degraded` list under the layer named here. Transport errors are
retried by Temporal first (bounded); the policy applies once those retries are spent.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, Literal, TypedDict

from temporalio.common import RetryPolicy

from activities.errors import ErrorType
from activities.steps import declared_name
from domain.budget import MODEL_STEP_ATTEMPTS, MODEL_STEP_SECONDS, MODEL_STEP_TOTAL_SECONDS
from domain.failures import Direction

_BOUNDED = RetryPolicy(
    initial_interval=timedelta(milliseconds=200),
    maximum_interval=timedelta(seconds=5),
    maximum_attempts=3,
    non_retryable_error_types=[ErrorType.INVALID_INPUT, ErrorType.UPSTREAM_REJECTED],
)
# A model step's attempts (one model call each): MODEL_STEP_ATTEMPTS, named in one place.
_MODEL_RETRY = RetryPolicy(
    initial_interval=_BOUNDED.initial_interval,
    maximum_interval=_BOUNDED.maximum_interval,
    maximum_attempts=MODEL_STEP_ATTEMPTS,
    non_retryable_error_types=_BOUNDED.non_retryable_error_types,
)
# Writes whose loss would lose the turn: retried until they succeed.
_UNTIL_DONE = RetryPolicy(
    initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=30)
)
# Steps that run in a thread or wait on a model heartbeat every second: when their worker
# dies, the attempt is retried after this long instead of after its start-to-close timeout.
_BEAT = timedelta(seconds=5)


StepKind = Literal["activity", "local", "engine"]
"""How a step runs. `activity`: a regular activity (remote I/O, long, or owned by one
process: search). `local`: a local activity on the workflow's own worker — short I/O on
this machine (PostgreSQL, the numeric check), where a regular activity's ~50 ms
scheduling hop would cost more than the step. `engine`: a model step, local while the
engine runs in the worker (the offline engine), a regular activity, heartbeating,
when it calls a remote model."""


@dataclass(frozen=True)
class ClosedOption:
    """A fail-open step a deployment may switch to fail closed (regulated use).

    The setting is read at the process edges only and travels into each turn as the
    `TurnInput` field named here, whose default is `open`: turns started before the
    option, and histories recorded before it, replay on the open path unchanged.
    """

    setting: str
    """The environment variable that switches it: `closed` or `open` (the default)."""
    field: str
    """The `TurnInput` field that carries it into the turn."""
    on_error: str
    """What the turn does instead, once Temporal's retries are spent."""
    why: str


@dataclass(frozen=True)
class StepPolicy:
    direction: Direction
    on_error: str
    why: str
    kind: StepKind = "activity"
    start_to_close: timedelta = timedelta(seconds=30)
    schedule_to_close: timedelta | None = timedelta(seconds=90)
    retry: RetryPolicy = field(default_factory=lambda: _BOUNDED)
    heartbeat: timedelta | None = None
    budgeted: bool = False
    """Part of a turn's answering work: never given longer than what is left of the
    turn's budget, and not started once it is spent (`domain/budget.py`)."""
    closed_option: ClosedOption | None = None
    """For a fail-open step: how a deployment makes it fail closed instead."""


WITHOUT_INDEX = frozenset(
    {
        "postgres_load_session",
        "postgres_save_turn",
        "llm_summarize_history",
        "postgres_remember_fact",
    }
)
"""The turn's steps a worker without the report index runs (`worker.py --role turn`);
the others need the index (retrieval, the answer cache, the coverage, and the model and
grounding steps, which load chunk text from it)."""


def _model_step(
    direction: Direction, on_error: str, why: str, closed_option: ClosedOption | None = None
) -> StepPolicy:
    """A model step: one model call per attempt, so its timeouts hold the longest model
    timeout the settings accept, for every attempt; and it counts against the budget."""
    return StepPolicy(
        direction,
        on_error,
        why,
        kind="engine",
        heartbeat=_BEAT,
        budgeted=True,
        start_to_close=timedelta(seconds=MODEL_STEP_SECONDS),
        schedule_to_close=timedelta(seconds=MODEL_STEP_TOTAL_SECONDS),
        retry=_MODEL_RETRY,
        closed_option=closed_option,
    )


POLICY: dict[str, StepPolicy] = {
    "postgres_load_session": StepPolicy(
        "open",
        "answer without recent turns",
        "a turn without history can still answer or ask; blocking it helps nobody",
        kind="local",
        heartbeat=_BEAT,
    ),
    "postgres_read_coverage": StepPolicy(
        "closed",
        "the turn fails and settles with its fallback text",
        "a turn that cannot say which companies it covers cannot refuse or answer honestly;"
        " the step serves the worker's last reading when PostgreSQL is down, so only a"
        " worker that never read the registry fails it",
        kind="local",
        heartbeat=_BEAT,
    ),
    "llm_summarize_history": _model_step(
        "open",
        "keep the history as it is (no summary this turn)",
        "a summary only saves context; the messages are never deleted, so nothing is lost",
    ),
    "qdrant_lookup_answer": StepPolicy(
        "open",
        "a miss: the turn answers from the reports",
        "the cache is an optimisation; without it the full checked path runs",
        kind="local",
        heartbeat=_BEAT,
    ),
    "postgres_remember_fact": StepPolicy(
        "closed",
        "nothing is stored and the answer says so",
        "telling a user a preference was kept when it was not is a broken promise",
        kind="local",
        heartbeat=_BEAT,
    ),
    "llm_route_question": _model_step(
        "open",
        "default to retrieval, never block on clarification",
        "retrieval is the safe default: its answer is still graded and gated",
        ClosedOption(
            "TURNSTILE_CLASSIFIER_POLICY",
            "classifier_policy",
            "diagnostic fallback (classifier_unavailable): nothing is looked up",
            "the classifier is the second check of scope after the scope rules; where an"
            " answer to a question nobody classified may not go out (advice rules), the"
            " turn says the check could not run rather than answer or refuse unchecked",
        ),
    ),
    "llm_rewrite_query": _model_step(
        "open",
        "one sub-query per company built from the question",
        "the question itself is a usable query",
    ),
    "qdrant_search_chunks": StepPolicy(
        "open",
        "that company counts as not found (gap line, retry)",
        "one company's outage must not sink the others; the gap is stated in the answer",
        heartbeat=_BEAT,
        budgeted=True,
    ),
    "llm_grade_documents": _model_step(
        "open",
        "keep all documents",
        "noisy evidence beats none",
    ),
    "llm_synthesize_answer": _model_step(
        "closed",
        "diagnostic fallback (no_answer_composed; model_timeout when out of time)",
        "no text is better than unchecked text",
    ),
    "grounding_check_numbers": StepPolicy(
        "closed",
        "the draft is not shown: another pass's checked draft, else diagnostic "
        "fallback (numbers_unchecked)",
        "no unchecked figure reaches a person, at any confidence",
        kind="local",
        heartbeat=_BEAT,
    ),
    "grounding_check_relevance": StepPolicy(
        "closed",
        "the answer counts as not shown to address the question (confidence low)",
        "an answer not checked against its question must not be shown as if it were",
        kind="local",
        heartbeat=_BEAT,
    ),
    "llm_grade_answer": _model_step(
        "open",
        "pass with 0 unsupported, marked judge_unavailable, confidence capped at medium",
        "the numeric check still ran, and the answer says the judge did not",
        ClosedOption(
            "TURNSTILE_JUDGE_POLICY",
            "judge_policy",
            "diagnostic fallback (judge_unavailable): the draft is not shown",
            "where every answer shown must have passed the independent judge, an answer"
            " checked by the numeric check alone is not enough, capped or not",
        ),
    ),
    "qdrant_save_answer": StepPolicy(
        "open",
        "the answer is not cached (the next such question is answered afresh)",
        "a skipped write costs one slower turn later; the answer itself is unaffected",
        kind="local",
        heartbeat=_BEAT,
    ),
    "postgres_save_turn": StepPolicy(
        "closed",
        "retried until it succeeds",
        "the turn is not complete until the conversation holds it",
        schedule_to_close=None,
        retry=_UNTIL_DONE,
        kind="local",
        heartbeat=_BEAT,
    ),
    "postgres_sweep_turns": StepPolicy(
        "closed",
        "this sweep fails visibly; the next scheduled one tries again",
        "reconciling is idempotent, and a turn left open is caught by the next sweep",
        start_to_close=timedelta(minutes=2),
        schedule_to_close=timedelta(minutes=5),
        heartbeat=timedelta(seconds=30),
    ),
    "postgres_purge_decisions": StepPolicy(
        "closed",
        "this purge fails visibly; tomorrow's run tries again",
        "a purge that half-ran is rolled back (one transaction); nothing is lost by waiting",
        start_to_close=timedelta(minutes=5),
        schedule_to_close=timedelta(minutes=20),
        heartbeat=None,
    ),
    "postgres_purge_pii_tokens": StepPolicy(
        "closed",
        "this purge fails visibly; tomorrow's run tries again",
        "one DELETE; a value kept a day longer is erased by the next run",
        start_to_close=timedelta(minutes=5),
        schedule_to_close=timedelta(minutes=20),
        heartbeat=None,
    ),
    "postgres_purge_rate_buckets": StepPolicy(
        "closed",
        "this purge fails visibly; tomorrow's run tries again",
        "one DELETE of idle (full) buckets; one kept a day longer changes nothing",
        start_to_close=timedelta(minutes=5),
        schedule_to_close=timedelta(minutes=20),
        heartbeat=None,
    ),
    "postgres_expire_conversations": StepPolicy(
        "closed",
        "this expiry fails visibly; tomorrow's run tries again",
        "each batch is one transaction, so a conversation expires whole or not at all, and"
        " one kept a day longer is expired by the next run",
        start_to_close=timedelta(minutes=10),
        schedule_to_close=timedelta(minutes=30),
        heartbeat=timedelta(minutes=2),
    ),
    "postgres_forget_user": StepPolicy(
        "closed",
        "retried until it succeeds; the erase request reports it pending",
        "an erasure request must complete, not be dropped",
        start_to_close=timedelta(minutes=2),
        schedule_to_close=None,
        retry=_UNTIL_DONE,
        heartbeat=_BEAT,
    ),
    "qdrant_forget_answers": StepPolicy(
        "closed",
        "retried until it succeeds; the erase request reports it pending",
        "a cached answer of an erased user must not be served again",
        start_to_close=timedelta(minutes=2),
        schedule_to_close=None,
        retry=_UNTIL_DONE,
        heartbeat=_BEAT,
    ),
    "probes_load_cases": StepPolicy(
        "closed",
        "this probe run fails visibly; the next scheduled one tries again",
        "a probe run without its cases measures nothing, and must not look healthy",
    ),
    "postgres_allocate_probe_turn": StepPolicy(
        "closed",
        "the probe run fails visibly; the next scheduled one tries again",
        "a probe turn must be a real turn, stored like a caller's; idempotent by key",
    ),
    "postgres_record_probe_run": StepPolicy(
        "closed",
        "retried until it succeeds",
        "an unrecorded breach would hide the first of two consecutive ones",
        schedule_to_close=None,
        retry=_UNTIL_DONE,
    ),
    "evals_run_suites": StepPolicy(
        "closed",
        "the scheduled run fails visibly in the Temporal UI; the next one tries again",
        "a run that could not reach the stack measured nothing, and must not read as no drift",
        start_to_close=timedelta(hours=2),
        schedule_to_close=timedelta(hours=2),
        heartbeat=timedelta(minutes=2),
    ),
    "metrics_record_suite_run": StepPolicy(
        "closed",
        "retried until it succeeds",
        "an unrecorded regression would keep the drift alert quiet",
        schedule_to_close=None,
        retry=_UNTIL_DONE,
    ),
    "postgres_read_probe_history": StepPolicy(
        "open",
        "each slice's threshold uses the configured healthy rate",
        "a threshold from the configured rate is the one used before history was kept",
    ),
    "qdrant_freeze_corpus": StepPolicy(
        "closed",
        "this probe run fails visibly; the next scheduled one tries again",
        "probes on a moving index are not comparable run to run, and must not look so",
        start_to_close=timedelta(minutes=5),
        schedule_to_close=timedelta(minutes=20),
        heartbeat=_BEAT,
    ),
    "postgres_record_shadow": StepPolicy(
        "closed",
        "the shadow run fails visibly; the live turn, settled before it began, is untouched",
        "a shadow outcome recorded in part would skew the A/B report",
        kind="local",
        heartbeat=_BEAT,
    ),
    "postgres_read_shadow_runs": StepPolicy(
        "closed",
        "the command fails visibly",
        "a report with pairs missing would look whole",
    ),
    "postgres_list_case_candidates": StepPolicy(
        "closed",
        "the command fails visibly",
        "a list with rows missing would look complete",
    ),
    "postgres_draft_case": StepPolicy(
        "closed",
        "the command fails visibly (an unknown turn: one line)",
        "a case drafted from half the facts would expect the wrong figures",
        heartbeat=_BEAT,
    ),
    "qdrant_ingest_file": StepPolicy(
        "closed",
        "the file is reported failed; other files still ingest",
        "a half-ingested document must not be served",
        # A real 10-K of hundreds of pages reads for minutes (its points are stored in
        # batches, so the worker's loop still beats between them).
        start_to_close=timedelta(minutes=15),
        schedule_to_close=timedelta(minutes=45),
        heartbeat=timedelta(seconds=10),
    ),
    "qdrant_read_corpus_version": StepPolicy(
        "closed",
        "the ingestion run fails visibly",
        "the version is part of every answer's record",
        heartbeat=_BEAT,
    ),
    "qdrant_find_chunks": StepPolicy(
        "closed",
        "the evaluation run fails visibly",
        "a pair judged on the wrong chunk measures nothing",
        heartbeat=_BEAT,
    ),
    "qdrant_load_chunks": StepPolicy(
        "closed",
        "the search request fails (HTTP 5xx)",
        "there is nothing to degrade to",
        heartbeat=_BEAT,
    ),
}

PURE_LAYERS: dict[str, str] = {
    "scope_rules": "cannot fail (pure code): closed by construction",
    "final_gate": "cannot fail (pure code): closed by construction — the floor",
}

JUDGE_UNAVAILABLE = "judge_unavailable"


class ActivityOptions(TypedDict):
    start_to_close_timeout: timedelta
    schedule_to_close_timeout: timedelta | None
    retry_policy: RetryPolicy
    heartbeat_timeout: timedelta | None


def step_name(step: Callable[..., Any]) -> str:
    """The pinned name of a declared step (`activities.steps`): its policy key.

    Call sites pass the declaration they execute, so a step's options and its
    degradation layer can only ever be that step's own; the name is written once.
    """
    return declared_name(step)


def step_options(step: Callable[..., Any]) -> ActivityOptions:
    """Keyword arguments for executing `step` as an activity, from the table."""
    return activity_options(step_name(step))


class LocalActivityOptions(TypedDict):
    start_to_close_timeout: timedelta
    schedule_to_close_timeout: timedelta | None
    retry_policy: RetryPolicy


def local_step_options(step: Callable[..., Any]) -> LocalActivityOptions:
    """Keyword arguments for running `step` as a local activity (no heartbeat: a local
    activity lives and dies with its workflow task, which Temporal times out instead)."""
    p = POLICY[step_name(step)]
    return {
        "start_to_close_timeout": p.start_to_close,
        "schedule_to_close_timeout": p.schedule_to_close,
        "retry_policy": p.retry,
    }


def runs_local(step: Callable[..., Any], engine_in_process: bool) -> bool:
    """Whether `step` runs as a local activity for a turn whose engine is in-process or not."""
    kind = POLICY[step_name(step)].kind
    return kind == "local" or (kind == "engine" and engine_in_process)


def activity_options(name: str) -> ActivityOptions:
    """Keyword arguments for `workflow.execute_activity*`, from the table."""
    p = POLICY[name]
    return {
        "start_to_close_timeout": p.start_to_close,
        "schedule_to_close_timeout": p.schedule_to_close,
        "retry_policy": p.retry,
        "heartbeat_timeout": p.heartbeat,
    }
