"""Every activity a workflow can call, declared once: its pinned name and its signature.

This is the file to open for a step seen in the Temporal UI: the function here carries
the name the UI shows. Workflows call these declarations and never import the
implementations, which pull in Qdrant, PostgreSQL and the engines (so the API, which
imports the workflows to start them, loads none of that). Each implementation takes its
name from its declaration with `@implements(...)`, which refuses, at import, a method
whose parameters or result differ from the declaration's; the worker registers only
implementations. A declaration's body never runs.
"""

import inspect
import typing
from collections.abc import Awaitable, Callable
from typing import Any, ParamSpec, TypeVar

from temporalio import activity

from activities.contracts import (
    AllocateProbeTurn,
    AnswerGrade,
    CacheLookup,
    CacheLookupRequest,
    CacheWriteRequest,
    CacheWriteResult,
    CandidatesRequest,
    CheckRequest,
    ChunkLocator,
    ConversationExpiryResult,
    CoverageRead,
    CoverageRequest,
    DocumentGrades,
    DraftCaseRequest,
    EvidenceRequest,
    ForgetRequest,
    ForgetResult,
    FoundChunks,
    FreezeRequest,
    FrozenCorpus,
    IngestFileRequest,
    IngestFileResult,
    LoadSessionRequest,
    PiiPurgeResult,
    ProbeCasesRequest,
    ProbeHistory,
    ProbeHistoryRequest,
    ProbeSet,
    ProbeTurn,
    PurgeRequest,
    PurgeResult,
    RateBucketPurgeResult,
    RecordedProbeRun,
    RecordProbeRun,
    RecordShadowRequest,
    RelevanceRequest,
    RememberRequest,
    RewritePlan,
    RewriteRequest,
    RouteDecision,
    RouteRequest,
    SaveTurnRequest,
    SearchRequest,
    SearchResult,
    Session,
    ShadowRunsRequest,
    SuiteRunRequest,
    SuiteVerdict,
    SummarizeRequest,
    SummaryResult,
    SweepRequest,
    SweepResult,
)
from domain.evaluation.live_cases import CaseCandidates
from domain.evaluation.scoring import EvalCase
from domain.evaluation.shadow import ShadowReport
from domain.models import ChunkText, Draft, GroundingReport, Relevance


def _declared() -> Any:
    raise NotImplementedError("a step declaration: the worker runs its implementation")


# ---- a chat turn ----------------------------------------------------------------------


@activity.defn(name="postgres_load_session")
async def postgres_load_session(request: LoadSessionRequest) -> Session:
    """The conversation's recent resolved questions (for carry-forward).
    Implemented by `backends/sessions.py` `SessionActivities.load_session`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_read_coverage")
async def postgres_read_coverage(request: CoverageRequest) -> CoverageRead:
    """The coverage from the company registry: the companies whose reports are held, with
    their fiscal years (what the turn's texts name and its questions resolve against).
    Implemented by `backends/report_activities.py` `ReportActivities.read_coverage`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="llm_summarize_history")
async def llm_summarize_history(request: SummarizeRequest) -> SummaryResult:
    """Compress all but the last messages of a long conversation into one summary note.
    Implemented by `backends/memory.py` `MemoryActivities.summarize_history`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="qdrant_lookup_answer")
async def qdrant_lookup_answer(request: CacheLookupRequest) -> CacheLookup:
    """The semantic answer cache: hit, hint or miss for the resolved question.
    Implemented by `backends/memory.py` `CacheActivities.lookup_answer`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_remember_fact")
async def postgres_remember_fact(request: RememberRequest) -> None:
    """Store a fact the user stated about themselves (a new version of its kind).
    Implemented by `backends/memory.py` `MemoryActivities.remember_fact`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="llm_route_question")
async def llm_route_question(request: RouteRequest) -> RouteDecision:
    """Route a question: out of scope, clarify, retrieve, or answer directly.
    Implemented by `backends/model_steps.py` `ModelActivities.route`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="llm_rewrite_query")
async def llm_rewrite_query(request: RewriteRequest) -> RewritePlan:
    """One search query per company asked about.
    Implemented by `backends/model_steps.py` `ModelActivities.rewrite`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="qdrant_search_chunks")
async def qdrant_search_chunks(request: SearchRequest) -> SearchResult:
    """Hybrid search of one company's reports (dense + BM25, fused).
    Implemented by `backends/report_activities.py` `ReportActivities.search_chunks`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="llm_grade_documents")
async def llm_grade_documents(request: EvidenceRequest) -> DocumentGrades:
    """Keep the retrieved chunks relevant to the question.
    Implemented by `backends/model_steps.py` `ModelActivities.grade_documents`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="llm_synthesize_answer")
async def llm_synthesize_answer(request: EvidenceRequest) -> Draft:
    """Draft an answer from the kept chunks, with `[n]` markers.
    Implemented by `backends/model_steps.py` `ModelActivities.synthesize`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="grounding_check_numbers")
async def grounding_check_numbers(request: CheckRequest) -> GroundingReport:
    """Check every figure of a draft against the chunks it cites.
    Implemented by `backends/model_steps.py` `GroundingActivities.check_numbers`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="grounding_check_relevance")
async def grounding_check_relevance(request: RelevanceRequest) -> Relevance:
    """Check that a draft addresses every measure or topic its question asks about.
    Implemented by `backends/model_steps.py` `GroundingActivities.check_relevance`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="llm_grade_answer")
async def llm_grade_answer(request: CheckRequest) -> AnswerGrade:
    """The judge: answer quality (lenient) and groundedness (strict).
    Implemented by `backends/model_steps.py` `ModelActivities.grade_answer`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="qdrant_save_answer")
async def qdrant_save_answer(request: CacheWriteRequest) -> CacheWriteResult:
    """Write a checked answer to the semantic answer cache.
    Implemented by `backends/memory.py` `CacheActivities.save_answer`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_save_turn")
async def postgres_save_turn(request: SaveTurnRequest) -> None:
    """Store the turn's result in its conversation (waiting, or final).
    Implemented by `backends/sessions.py` `SessionActivities.save_turn`."""
    return _declared()  # type: ignore[no-any-return]


# ---- search, ingestion and the sweep --------------------------------------------------


@activity.defn(name="qdrant_load_chunks")
async def qdrant_load_chunks(chunk_ids: list[str]) -> list[ChunkText]:
    """Full chunk text by id (the claim check behind the previews in history).
    Implemented by `backends/report_activities.py` `ReportActivities.load_chunks`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="qdrant_find_chunks")
async def qdrant_find_chunks(locators: list[ChunkLocator]) -> FoundChunks:
    """Find chunks by report page and a literal part of their text (evaluation sets).
    Implemented by `backends/report_activities.py` `ReportActivities.find_chunks`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="qdrant_ingest_file")
async def qdrant_ingest_file(request: IngestFileRequest) -> IngestFileResult:
    """Parse, chunk, embed and store one report file.
    Implemented by `backends/report_activities.py` `ReportActivities.ingest_file`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="qdrant_read_corpus_version")
async def qdrant_read_corpus_version() -> str:
    """The corpus version: a hash of what is indexed.
    Implemented by `backends/report_activities.py` `ReportActivities.corpus_version`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_sweep_turns")
async def postgres_sweep_turns(request: SweepRequest) -> SweepResult:
    """Settle open turns whose workflow has closed.
    Implemented by `backends/turn_sweeper.py` `SweepActivities.sweep_turns`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_purge_decisions")
async def postgres_purge_decisions(request: PurgeRequest) -> PurgeResult:
    """Remove decision records past their retention (the oldest rows only).
    Implemented by `backends/turn_sweeper.py` `SweepActivities.purge_decisions`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_purge_pii_tokens")
async def postgres_purge_pii_tokens(request: PurgeRequest) -> PiiPurgeResult:
    """Erase personal values unused for longer than their retention period.
    Implemented by `backends/turn_sweeper.py` `SweepActivities.purge_pii_tokens`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_purge_rate_buckets")
async def postgres_purge_rate_buckets(request: PurgeRequest) -> RateBucketPurgeResult:
    """Remove rate-limit buckets untouched for longer than their idle period.
    Implemented by `backends/turn_sweeper.py` `SweepActivities.purge_rate_buckets`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_expire_conversations")
async def postgres_expire_conversations(request: PurgeRequest) -> ConversationExpiryResult:
    """Delete the turns, messages and summaries of conversations idle past their retention.
    Implemented by `backends/turn_sweeper.py` `SweepActivities.expire_conversations`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_forget_user")
async def postgres_forget_user(request: ForgetRequest) -> ForgetResult:
    """Erase a user's facts, the summaries of their conversations and their personal values.
    Implemented by `backends/memory.py` `MemoryActivities.forget_user`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="qdrant_forget_answers")
async def qdrant_forget_answers(request: ForgetRequest) -> ForgetResult:
    """Erase the answer-cache entries written from a user's turns.
    Implemented by `backends/memory.py` `CacheActivities.forget_answers`."""
    return _declared()  # type: ignore[no-any-return]


# ---- golden probes ------------------------------------------------------------------


@activity.defn(name="probes_load_cases")
async def probes_load_cases(request: ProbeCasesRequest) -> ProbeSet:
    """Read the golden probe sets and the corpus version they run against.
    Implemented by `backends/probes.py` `ProbeActivities.load_cases`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_allocate_probe_turn")
async def postgres_allocate_probe_turn(request: AllocateProbeTurn) -> ProbeTurn:
    """Allocate a probe question as a turn, as the API does for a caller's.
    Implemented by `backends/probes.py` `ProbeActivities.allocate_turn`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_record_probe_run")
async def postgres_record_probe_run(request: RecordProbeRun) -> RecordedProbeRun:
    """Store a probe run per slice; open an incident after two consecutive breaches.
    Implemented by `backends/probes.py` `ProbeActivities.record_run`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="evals_run_suites")
async def evals_run_suites(request: SuiteRunRequest) -> SuiteVerdict:
    """Run the evaluation suites through the running stack's API and workflows and judge
    them against the committed baseline. Implemented by `evals/scheduled.py`
    `SuiteActivities.run_suites`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="metrics_record_suite_run")
async def metrics_record_suite_run(verdict: SuiteVerdict) -> SuiteVerdict:
    """Move the suite-drift metrics the alert reads (`turnstile_suite_regressions`).
    Implemented by `backends/suite_runs.py` `SuiteMetrics.record_run`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_read_probe_history")
async def postgres_read_probe_history(request: ProbeHistoryRequest) -> ProbeHistory:
    """Each slice's latest healthy runs (its own healthy rate is read from them).
    Implemented by `backends/probes.py` `ProbeActivities.read_history`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="qdrant_freeze_corpus")
async def qdrant_freeze_corpus(request: FreezeRequest) -> FrozenCorpus:
    """Freeze the report index as a snapshot named by its corpus version (the probes read it).
    Implemented by `backends/probes.py` `ProbeActivities.freeze_corpus`."""
    return _declared()  # type: ignore[no-any-return]


# ---- live evaluation ----------------------------------------------------------------


@activity.defn(name="postgres_record_shadow")
async def postgres_record_shadow(request: RecordShadowRequest) -> None:
    """Record a shadow run's outcome beside its live turn's (nowhere else).
    Implemented by `backends/shadow.py` `ShadowActivities.record`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_read_shadow_runs")
async def postgres_read_shadow_runs(request: ShadowRunsRequest) -> ShadowReport:
    """The latest shadow runs beside their live turns, as the A/B report.
    Implemented by `backends/shadow.py` `ShadowActivities.report`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_list_case_candidates")
async def postgres_list_case_candidates(request: CandidatesRequest) -> CaseCandidates:
    """Turns rated "wrong figure" and turns of failed probes: candidate regression cases.
    Implemented by `backends/live_cases.py` `LiveCaseActivities.list_candidates`."""
    return _declared()  # type: ignore[no-any-return]


@activity.defn(name="postgres_draft_case")
async def postgres_draft_case(request: DraftCaseRequest) -> EvalCase:
    """A settled turn as an unconfirmed regression case, its figures from the reports' facts.
    Implemented by `backends/live_cases.py` `LiveCaseActivities.draft_case`."""
    return _declared()  # type: ignore[no-any-return]


P = ParamSpec("P")
R = TypeVar("R")


def declared_name(step: Callable[..., Any]) -> str:
    """The pinned activity name of a declaration or an implementation."""
    name = activity._Definition.must_from_callable(step).name
    if name is None:  # a dynamic activity has no name
        raise ValueError(f"{step!r} is a dynamic activity: it has no declared name")
    return name


def signature_of(fn: Callable[..., Any]) -> tuple[list[Any], Any]:
    """Parameter types (without `self`) and result type, resolved."""
    hints = typing.get_type_hints(fn)
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    return [hints.get(p.name) for p in params], hints.get("return")


def implements(
    declaration: Callable[..., Awaitable[Any]],
) -> Callable[[Callable[P, Awaitable[R]]], Callable[P, Awaitable[R]]]:
    """Make a method the implementation of a declared step: the same pinned name, and
    the same parameter and result types (checked now, at import, not on the first turn)."""
    name = declared_name(declaration)
    wanted = signature_of(declaration)

    def bind(fn: Callable[P, Awaitable[R]]) -> Callable[P, Awaitable[R]]:
        got = signature_of(fn)
        if got != wanted:
            raise TypeError(
                f"{fn.__qualname__} implements {name} with {got}, but it is declared {wanted}"
            )
        return activity.defn(name=name)(fn)

    return bind


DECLARED: dict[str, Callable[..., Awaitable[Any]]] = {
    declared_name(fn): fn
    for fn in (
        postgres_load_session,
        llm_summarize_history,
        qdrant_lookup_answer,
        postgres_remember_fact,
        llm_route_question,
        llm_rewrite_query,
        qdrant_search_chunks,
        llm_grade_documents,
        llm_synthesize_answer,
        grounding_check_numbers,
        grounding_check_relevance,
        llm_grade_answer,
        qdrant_save_answer,
        postgres_save_turn,
        qdrant_load_chunks,
        qdrant_find_chunks,
        qdrant_ingest_file,
        qdrant_read_corpus_version,
        postgres_read_coverage,
        postgres_sweep_turns,
        postgres_purge_decisions,
        postgres_purge_pii_tokens,
        postgres_purge_rate_buckets,
        postgres_expire_conversations,
        postgres_forget_user,
        qdrant_forget_answers,
        probes_load_cases,
        postgres_read_probe_history,
        qdrant_freeze_corpus,
        postgres_list_case_candidates,
        postgres_draft_case,
        postgres_record_shadow,
        postgres_read_shadow_runs,
        postgres_allocate_probe_turn,
        postgres_record_probe_run,
        evals_run_suites,
        metrics_record_suite_run,
    )
}
"""Every declared step by its pinned name (the policy table has a row for each)."""
