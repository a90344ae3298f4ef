"""A turn's outcome as the conversation stores it and every client reads it.

Defined here, not with the workflow, because more than the workflow needs it: the
session activities save it, the database layer reads it back, the reconciler settles it.
Frozen pydantic models; new fields only with defaults (histories replay old payloads).
"""

from datetime import datetime
from typing import Literal

from pydantic import ConfigDict, Field, computed_field
from pydantic.config import JsonValue

from domain.models import (
    CITATION_EXAMPLE,
    Citation,
    Derived,
    Frozen,
    ModelCall,
    NotFound,
    Relevance,
    UnsupportedClaim,
)

__all__ = ["Citation"]

TurnStatus = Literal[
    "running",
    "answered",
    "needs_clarification",
    "refused",
    "fallback",
    "expired",
    "failed",
    "cancelled",
]
SETTLED: frozenset[str] = frozenset(
    {"answered", "refused", "fallback", "expired", "failed", "cancelled"}
)
"""Terminal statuses: a turn in one of these no longer blocks its conversation.

`failed` is a turn that stopped on an error (settled by the workflow's own settle path,
or recorded by the reconciler when the workflow was terminated, timed out or failed);
`cancelled` is a turn the user (or an operator) cancelled."""
WAITING = "needs_clarification"
OPEN: frozenset[str] = frozenset({"running", WAITING})


class DocumentsUsed(Frozen):
    """Which chunks a turn's searches returned and which survived relevance grading
    (ids only: the text stays in Qdrant), in the order they first appeared."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "retrieved": [
                        "d968bb18-5c1e-54f8-8ac1-3034722a1e0b",
                        "cc94f8e9-e929-564b-b382-4f9d027e503c",
                    ],
                    "kept": ["d968bb18-5c1e-54f8-8ac1-3034722a1e0b"],
                    "corpus_versions": ["e70b6e8a82ff"],
                }
            ]
        }
    )

    retrieved: list[str] = Field(
        default_factory=list,
        description="Every chunk the turn's searches returned.",
        examples=[["d968bb18-5c1e-54f8-8ac1-3034722a1e0b", "cc94f8e9-e929-564b-b382-4f9d027e503c"]],
    )
    kept: list[str] = Field(
        default_factory=list,
        description="The chunks relevance grading kept: the evidence the answer was written from.",
        examples=[["d968bb18-5c1e-54f8-8ac1-3034722a1e0b"]],
    )
    corpus_versions: list[str] = Field(
        default_factory=list,
        description="The corpus versions the searched passages were read from: one, two"
        " when a re-ingest landed during the turn; empty when the turn searched nothing"
        " (an answer from the cache carries the version it was looked up at).",
        examples=[["e70b6e8a82ff"]],
    )


class Degradation(Frozen):
    """A step that failed open: the turn went on without it (see docs/failure-policy.md)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "layer": "llm_summarize_history",
                    "reason": "TimeoutError: activity StartToClose timeout",
                }
            ]
        }
    )

    layer: str = Field(description="The step's activity name.", examples=["llm_summarize_history"])
    reason: str = Field(
        description="Why it failed: the error's type and message.",
        examples=["TimeoutError: activity StartToClose timeout"],
    )


class StepFailure(Frozen):
    """A step that failed, open or closed, and the class of its error (the decision
    record names every one; `degraded` lists only those the turn went on without)."""

    step: str = Field(description="The step's activity name.", examples=["llm_synthesize_answer"])
    direction: Literal["open", "closed"] = Field(
        description="`open`: the turn went on without it; `closed`: its part was refused "
        "(no draft, or a check that counts as failed).",
        examples=["closed"],
    )
    error_class: str = Field(
        description="`timeout`, `rate_limit`, `malformed_output`, `refusal`, "
        "`upstreamunavailable`, `upstreamrejected`, ... or `other`.",
        examples=["timeout"],
    )
    reason: str = Field(
        description="The error's type and message.",
        examples=["ModelTimeout: synthesize: the model timed out"],
    )


class Carried(Frozen):
    """What a follow-up took from earlier in the conversation, and the preferences applied."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"company": "BHP", "fiscal_year": 2024, "metric": None, "preferences": []},
                {
                    "company": None,
                    "fiscal_year": None,
                    "metric": None,
                    "preferences": ["figures in billions"],
                },
            ]
        }
    )

    company: str | None = Field(
        default=None,
        description="The company (ASX ticker) carried into a follow-up that named none.",
        examples=["BHP"],
    )
    fiscal_year: int | None = Field(
        default=None,
        description="The fiscal year carried into a follow-up that named none.",
        examples=[2024],
    )
    metric: str | None = Field(
        default=None,
        description='The measure carried into a follow-up ("and in FY2023?"), as answers name it.',
        examples=["net debt"],
    )
    preferences: list[str] = Field(
        default_factory=list,
        description="The user's remembered preferences applied to the question.",
        examples=[["figures in billions"]],
    )
    year_read: str | None = Field(
        default=None,
        description='A year the question said in words ("the previous year"), as it was read.',
        examples=["FY2024, the year before FY2025"],
    )


# The OpenAPI document's examples: real results over the sample corpus (offline engine).
_EXAMPLES: list[JsonValue] = [
    {
        "turn_id": "turn-c35c244d68fec4309-1",
        "conversation_id": "c35c244d68fec4309",
        "status": "answered",
        "question": "What was BHP's revenue in FY2024?",
        "resolved_question": "What was BHP's revenue in FY2024?",
        "answer": "BHP Group's revenue for FY2024 (year ended 30 June 2024) was US$55,658"
        " million [1].",
        "citations": [CITATION_EXAMPLE],
        "grounded": "yes",
        "confidence": "high",
        "coverage": {"BHP": True},
        "route": "needs_retrieval",
        "model_calls": 5,
        "documents": {
            "retrieved": [
                "d968bb18-5c1e-54f8-8ac1-3034722a1e0b",
                "cc94f8e9-e929-564b-b382-4f9d027e503c",
            ],
            "kept": ["d968bb18-5c1e-54f8-8ac1-3034722a1e0b"],
        },
    },
    {
        "turn_id": "turn-c9a41e07b2d5f3c18-1",
        "conversation_id": "c9a41e07b2d5f3c18",
        "status": "needs_clarification",
        "question": "Tell me about this company",
        "resolved_question": "Tell me about this company",
        "clarifying_question": "Which company do you mean? I cover BHP Group (BHP), Rio Tinto"
        " (RIO), Fortescue (FMG), South32 (S32) and Northern Star (NST), for FY2023 to FY2025."
        ' For example: "What was Fortescue\'s net debt in FY2024?"',
        "expires_at": "2025-03-02T02:28:19Z",
        "route": "needs_clarification",
        "clarification_round": 1,
        "model_calls": 1,
    },
    {
        "turn_id": "turn-c0d7be41f9a2c6e35-1",
        "conversation_id": "c0d7be41f9a2c6e35",
        "status": "refused",
        "question": "Should I buy BHP shares?",
        "resolved_question": "Should I buy BHP shares?",
        "answer": "I can only answer questions about the annual reports I hold, of five"
        " companies — BHP Group, Rio Tinto, Fortescue, South32 and Northern Star — for FY2023"
        " to FY2025: their figures and what they say, with each figure cited to a report page."
        " I do not give investment advice, predict share prices or write creative pieces."
        ' Try, for example: "What was BHP Group\'s revenue in FY2025?"',
        "route": "scope_rules",
        "refusal_reason": "investment_advice",
    },
]


class TurnResult(Frozen):
    """A chat turn as every client reads it: its status, and the answer with its evidence.

    Fields a turn did not reach keep their defaults (empty lists, null, 0).
    """

    model_config = ConfigDict(json_schema_extra={"examples": _EXAMPLES})

    turn_id: str = Field(
        description="The turn's id: `turn-{conversation_id}-{n}`, its n-th in the conversation.",
        examples=["turn-c35c244d68fec4309-1"],
    )
    conversation_id: str = Field(
        description="The conversation the turn belongs to (a new one when the request named none).",
        examples=["c35c244d68fec4309"],
    )
    status: TurnStatus = Field(
        description="`running` (poll `GET /v1/turns/{turn_id}`); `needs_clarification`"
        " (reply to `clarifying_question` before `expires_at`); or settled: `answered`,"
        " `refused` (out of scope: `refusal_reason`), `fallback` (no answer passed the"
        " checks: `fallback_reason`), `expired` (the question went unanswered), `failed`"
        " (stopped on an error: `failure_reason`) or `cancelled`.",
        examples=["answered"],
    )
    question: str = Field(
        description="The question as asked.", examples=["What was BHP's revenue in FY2024?"]
    )
    resolved_question: str | None = Field(
        default=None,
        description="The question the turn answered: with a clarification merged in, or what"
        " a follow-up carried from the conversation (see `carried`).",
        examples=["And its net debt? (BHP Group, FY2024)"],
    )
    answer: str | None = Field(
        default=None,
        description="The answer, released only after the final gate; each `[n]` cites the"
        " citation numbered n. For `refused`, `fallback`, `expired` and `cancelled`, what the"
        " user is told instead; null while the turn runs or waits.",
        examples=[
            "BHP Group's revenue for FY2024 (year ended 30 June 2024) was US$55,658 million [1]."
        ],
    )
    clarifying_question: str | None = Field(
        default=None,
        description="What the turn needs to know before it can answer (`needs_clarification`,"
        " and an `expired` turn shows what it asked).",
        examples=["Which company do you mean?"],
    )
    expires_at: datetime | None = Field(
        default=None,
        description="When an unanswered clarifying question expires and the turn settles"
        " `expired`.",
    )
    citations: list[Citation] = Field(
        default_factory=list, description="The sources the answer cites, in marker order."
    )
    derived: list[Derived] = Field(
        default_factory=list,
        description="Figures the answer computed from cited ones (a change, a ratio), each with"
        " its formula; the numeric check recomputed them.",
    )
    not_found: list[NotFound] = Field(
        default_factory=list,
        description="Figures asked for that the reports do not give; the answer says so for each.",
    )
    grounded: Literal["yes", "partial", "no"] | None = Field(
        default=None,
        description="Whether the evidence supports the answer: `yes` (every claim), `partial`"
        " (one to three unsupported claims) or `no`; null when no answer was checked.",
        examples=["yes"],
    )
    confidence: Literal["high", "medium", "low"] | None = Field(
        default=None,
        description="Derived from the unsupported claims and missing figures, never asked of"
        " a model; null when no answer was checked.",
        examples=["high"],
    )
    unsupported_claims: list[UnsupportedClaim] = Field(
        default_factory=list, description="Claims in the answer the evidence does not support."
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="Notes for the reader, such as a fiscal year the reports do not cover.",
        examples=[["FY2030 is not covered: the reports cover FY2023–FY2025."]],
    )
    coverage: dict[str, bool] = Field(
        default_factory=dict,
        description="For each company the question asks about (ASX ticker), whether evidence"
        " for it was found.",
        examples=[{"BHP": True}],
    )
    relevance: Relevance | None = Field(
        default=None,
        description="The relevance control: each measure or topic the question asks about,"
        " and whether the answer answers it, says it is not in the reports, or misses it"
        " (none when the turn was not answered from the reports).",
    )
    carried: Carried = Field(
        default_factory=Carried,
        description="What a follow-up took from earlier in the conversation.",
    )
    route: str | None = Field(
        default=None,
        description="The path the turn took: `needs_retrieval`, `direct_answer`,"
        " `needs_clarification`, `out_of_scope`, `scope_rules` (refused by rule),"
        " `answer_cache` or `remember` (a preference stated).",
        examples=["needs_retrieval"],
    )
    retries: int = Field(
        default=0, description="Retrieval passes retried after the first.", examples=[0]
    )
    degraded: list[Degradation] = Field(
        default_factory=list,
        description="Steps that failed open: the turn went on without them.",
    )
    figures_checked: int = Field(
        default=0,
        description="How many figures the numeric check checked in the answer shown"
        " (0: it stated none, or was not checked).",
        examples=[1],
    )
    step_failures: list[StepFailure] = Field(
        default_factory=list,
        description="Every step that failed, open or closed, with its error class.",
    )
    fallback_reason: str | None = Field(
        default=None,
        description="Why the turn gave no answer (`fallback`, and `internal_error` for a"
        " `failed` turn): `nothing_relevant`, `no_answer_composed`, `clarification_exhausted`,"
        " `unverified` (every figure drafted was refuted), `model_timeout` (the model"
        " provider did not answer within the turn's budget).",
        examples=["nothing_relevant"],
    )
    clarification_round: int = Field(
        default=0,
        description="How many clarifying questions the turn has asked.",
        examples=[0],
    )
    model_calls: int = Field(
        default=0, description="Model-engine calls the turn made (bounded per turn).", examples=[5]
    )
    model_trace: list[ModelCall] = Field(
        default_factory=list,
        description="Each model call of the turn: step, model, prompt-template hash and token"
        " usage (empty for the offline engine, which calls no model).",
    )
    documents: DocumentsUsed = Field(
        default_factory=DocumentsUsed,
        description="The chunks the turn's searches returned and the ones grading kept (ids).",
    )
    refusal_reason: str | None = Field(
        default=None,
        description="Why a `refused` turn was refused: the scope rule's name, or the"
        " classifier's reason.",
        examples=["investment_advice"],
    )
    retry_skipped: str | None = Field(
        default=None,
        description="Why a retry was skipped: nothing it could search for differently.",
        examples=["nothing in the sub-queries could change"],
    )
    failure_reason: str | None = Field(
        default=None,
        description="Why a `failed` or `cancelled` turn stopped: an error type or who"
        " cancelled it, never user text.",
        examples=["cancelled by the user"],
    )
    cache: Literal["hit", "hint", "miss"] | None = Field(
        default=None,
        description="The semantic answer cache: `hit` (a stored answer reused, through the"
        " final gate), `hint` (a stored answer handed to synthesis as a labelled claim),"
        " `miss`; null when the cache was not asked (turns from before it, refusals by rule,"
        " preference statements).",
        examples=["miss"],
    )
    cache_turn_id: str | None = Field(
        default=None,
        description="On a hit or a hint: the earlier turn whose answer it was.",
        examples=["turn-c5e0a9d13b7f42c68-1"],
    )
    cache_similarity: float | None = Field(
        default=None,
        description="On a hit or a hint: the cosine similarity of the two questions.",
        examples=[0.97],
    )
    summarised: int = Field(
        default=0,
        description="Messages this turn compressed into the conversation's summary.",
        examples=[0],
    )

    # Derived from the fields above whenever the turn is read, so every turn has them,
    # those saved before they existed included, and a workflow never has to set them.
    @computed_field(  # type: ignore[prop-decorator]
        description="The status in plain words for people, drawn from the fields (never"
        " from the answer's text): `Answered`, `Answered in part` (some of what was asked"
        " is not in the reports), `Not in the reports` (an answered turn that gives nothing"
        " that was asked), `Needs one more detail`, `Declined`, `No checked answer`,"
        " `Expired`, `Cancelled`, `Failed` or `Working on it`.",
        examples=["Answered"],
    )
    @property
    def status_text(self) -> str:
        return status_text(self)

    @computed_field(  # type: ignore[prop-decorator]
        description="Why the confidence is not high, in plain words drawn from the fields"
        " (unverified statements, figures not in the reports, a check that could not run);"
        " null when it is high or there is none.",
        examples=[
            "The reports do not give one figure asked for: Northern Star FY2023 underlying EBITDA."
        ],
    )
    @property
    def confidence_reason(self) -> str | None:
        return confidence_reason(self)


NUMERIC_CHECK = "grounding_check_numbers"
RELEVANCE_CHECK = "grounding_check_relevance"
JUDGE = "llm_grade_answer"
"""The steps whose failure lowers a turn's confidence (their activity names)."""
_FROM_ELSEWHERE = frozenset({"direct_answer", "remember"})
"""Routes whose answer is not drawn from the reports: nothing in them is cited."""

_STATUS_TEXT = {
    "running": "Working on it",
    "needs_clarification": "Needs one more detail",
    "refused": "Declined",
    "fallback": "No checked answer",
    "expired": "Expired",
    "failed": "Failed",
    "cancelled": "Cancelled",
}


def answered_nothing(result: TurnResult) -> bool:
    """Whether an `answered` turn gives nothing of what was asked: no cited figure or
    sentence at all (only its not-found lines), or only the closest figures to a question
    the reports do not answer (off the point)."""
    if result.status != "answered" or result.route in _FROM_ELSEWHERE:
        return False
    off_point = result.relevance is not None and result.relevance.off_point
    return not result.citations or off_point


def status_text(result: TurnResult) -> str:
    """The turn's status as a person reads it (see `TurnResult.status_text`)."""
    if result.status != "answered":
        return _STATUS_TEXT.get(result.status, result.status)
    if answered_nothing(result):
        return "Not in the reports"
    missing = result.relevance is not None and bool(result.relevance.missing())
    return "Answered in part" if result.not_found or missing else "Answered"


def _count(n: int, one: str, many: str) -> str:
    return f"one {one}" if n == 1 else f"{n} {many}"


def confidence_reason(result: TurnResult) -> str | None:
    """Why the turn's confidence is medium or low, in a sentence; None when it is high
    or the turn has none. Each reason is one the confidence rule acts on
    (workflows/rules/confidence.py), read back from the fields that record it. Counts,
    not names: the answer names each figure missing, and this is computed wherever the
    turn is read, including where no company registry is loaded."""
    if result.confidence in (None, "high"):
        return None
    closed = {f.step for f in result.step_failures if f.direction == "closed"}
    reasons: list[str] = []
    if NUMERIC_CHECK in closed:
        reasons.append("the figures could not be checked against the reports")
    if result.not_found and result.figures_checked == 0 and answered_nothing(result):
        reasons.append("the reports give none of the figures asked for")
    elif result.not_found:
        n = len(result.not_found)
        reasons.append(f"the reports do not give {_count(n, 'figure', 'figures')} asked for")
    if result.relevance is not None and result.relevance.off_point:
        reasons.append("the answer gives the closest figures, not what was asked")
    elif result.relevance is not None and (missing := result.relevance.missing()):
        reasons.append("the answer does not cover " + ", ".join(missing))
    elif RELEVANCE_CHECK in closed:
        reasons.append("whether the answer covers the question could not be checked")
    if result.unsupported_claims:
        n = len(result.unsupported_claims)
        reasons.append(
            f"{_count(n, 'statement', 'statements')} could not be verified against the cited pages"
        )
    if any(d.layer == JUDGE for d in result.degraded):
        reasons.append(
            "the independent answer check was unavailable, so the figures were"
            " checked numerically only"
        )
    if not reasons:
        reasons.append("part of the answer could not be checked")
    text = "; ".join(reasons)
    return text[:1].upper() + text[1:] + "."
