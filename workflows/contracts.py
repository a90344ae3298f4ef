"""ChatTurn's input, signals and output: the contract the API and CLI rely on.

The output (`TurnResult`) is defined in `domain.turns`, because the session store and
the reconciler need it too; import it from there (one import path per type:
tests/unit/test_no_reexports.py).

Frozen pydantic models; new fields only with defaults (histories replay old payloads).
"""

from pydantic import BaseModel, ConfigDict, Field

from activities.contracts import ChunkLocator
from domain.budget import TURN_BUDGET_SECONDS
from domain.failures import Direction
from domain.models import RetrievalConfig, SearchHitWithText, UnsupportedClaim


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


class ShadowPlan(_Frozen):
    """Where a sampled live turn's shadow runs, and how the A/B report names each side."""

    task_queue: str
    """The shadow worker's queue: its steps run with the shadow configuration's engine."""
    engine_in_process: bool = True
    """The shadow's engine runs inside its worker (its model steps may run locally)."""
    live_config: str = ""
    shadow_config: str = ""


class TurnInput(_Frozen):
    turn_id: str
    conversation_id: str
    seq: int
    question: str
    user_id: str | None = None
    clarification_timeout_seconds: float = 24 * 3600.0
    clarifications_left: int | None = None
    """Clarifying questions this turn may still ask under the conversation's cap
    (TURNSTILE_MAX_CLARIFICATIONS_PER_CONVERSATION, counted by the API). None: no cap
    (turns started before it, or the cap off)."""
    engine_in_process: bool = False
    """The model steps' engine runs inside the worker (the offline engine): they can run
    as local activities. False for a remote model, and for turns started before this."""
    tenant_id: str = "default"
    """The API key's tenant (turns started before tenants: the development tenant)."""
    turn_budget_seconds: float = TURN_BUDGET_SECONDS
    """How long the turn's answering work may take (clarification waits not counted):
    the API passes TURNSTILE_TURN_BUDGET_SECONDS; see `domain/budget.py`."""
    answer_cache: bool = False
    """Whether this turn may use the semantic answer cache: the starter opts in (the API
    does, per TURNSTILE_ANSWER_CACHE); a starter that does not say gets a fresh answer."""
    index_task_queue: str | None = None
    """The task queue of the worker that holds the report index, when the turn runs on
    workers that do not (several turn workers): every step but `WITHOUT_INDEX`'s goes
    there, as a regular activity. None (one worker, and turns started before this): the
    turn's own worker runs every step."""
    snapshot: str | None = None
    """A golden probe's turn: the corpus version of the frozen snapshot of the index its
    steps read (`qdrant_freeze_corpus`). None: the live index."""
    shadow: ShadowPlan | None = None
    """The turn is in the shadow sample (TURNSTILE_SHADOW_SAMPLE): once it has settled it
    starts its shadow, a ChatTurn on `shadow.task_queue`, and does not wait for it."""
    shadow_of: str | None = None
    """This turn is the shadow of that live turn: it writes nothing to the conversation,
    its summary, the answer cache, memory or the decision record; its outcome is
    recorded beside the live one (`postgres_record_shadow`) and shown to no one."""
    judge_policy: Direction = "open"
    """What a judge that is down does to the turn (TURNSTILE_JUDGE_POLICY): `open`
    passes the draft with its confidence capped at medium; `closed` settles the turn
    with the diagnostic fallback. Turns started before this: open."""
    classifier_policy: Direction = "open"
    """What a route classifier that is down does (TURNSTILE_CLASSIFIER_POLICY): `open`
    routes to retrieval; `closed` settles the turn with the diagnostic fallback, nothing
    looked up. Turns started before this: open."""


class ClarificationReply(_Frozen):
    round: int
    reply: str


class CancelRequest(_Frozen):
    """Cancel the clarification now waiting (the API checked it is waiting)."""

    round: int
    reason: str = "cancelled by the user"


class TurnEvent(_Frozen):
    """One line of a turn's progress, published on the turn's workflow stream.

    The API's event stream forwards these as they happen; answer text is never one of
    them (it is released only in the TurnResult, after the final gate).
    """

    kind: str
    """`step` (a step starts), `decision` (what a step decided), `waiting` (the turn
    asks a clarifying question and pauses) or `settled` (the last event of a turn)."""
    text: str
    """Plain English, for people: "Searching BHP's reports for FY2024"; never a step's,
    route's or setting's name."""
    step: str | None = None
    """The step's activity name, for `step` events and decisions a step took."""
    round: int | None = None
    """The clarification round, for `waiting` events."""
    status: str | None = None
    """The turn's status, for `settled` events."""
    detail: str | None = None
    """For `decision` events: the operator's line, as the decision trail in the Temporal
    UI has it ("route: needs_retrieval (figures asked for BHP)"): for programs and
    operators, not for people."""


# ---- the evaluation workflows' inputs and outputs (workflows/evaluation.py) ----------
# Defined here, in a module the sandbox passes through, not beside the workflows: a
# workflow module is run again for every workflow it starts, and building these pydantic
# classes each time was most of the cost of starting an evaluation case (a release gate
# starts 263).


class RetrievalProbe(BaseModel):
    """One retrieval case: search `company`'s reports for `question` under `config`."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str = Field(min_length=1, max_length=4000)
    company: str
    config: RetrievalConfig = Field(default_factory=RetrievalConfig)


class RetrievalRun(BaseModel):
    model_config = ConfigDict(frozen=True)

    query: str
    """The query searched (the plan's sub-query, or the question as typed)."""
    fiscal_years: list[int] = Field(default_factory=list)
    hits: list[SearchHitWithText] = Field(default_factory=list)
    degraded: list[str] = Field(default_factory=list)
    """Fail-opens inside the search (the reranker unavailable, or missing): a case
    with any is not a quality result."""
    planned: bool = True
    """False when the query plan did not search the company at all (a routing miss)."""


class JudgeProbe(BaseModel):
    """One calibration pair: an answer and where its cited chunks are, in marker order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    question: str
    answer: str
    evidence: list[ChunkLocator] = Field(min_length=1)
    model_judge: bool = False
    """Also run the judge step (`llm_grade_answer`)."""


class JudgeVerdict(BaseModel):
    model_config = ConfigDict(frozen=True)

    numeric: list[UnsupportedClaim] = Field(default_factory=list)
    """What the numeric check (`grounding_check_numbers`) found unsupported."""
    judge: list[UnsupportedClaim] | None = None
    """What the judge step found unsupported (None: not asked)."""
    unresolved: list[int] = Field(default_factory=list)
    """Evidence entries (1-based) that match no chunk, or several: the pair is not judged."""
