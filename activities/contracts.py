"""Activity inputs and outputs that cross the Temporal boundary (frozen, versioned).

The data they carry (slots, chunks, drafts, grounding) is defined once in
`domain.models` and imported from there, never through this module (one import path per
type: tests/unit/test_no_reexports.py).
"""

from typing import Any

from pydantic import Field, field_validator, model_validator

from domain.companies.roster import (
    Company,
    check_report_year,
    check_ticker,
    check_year_end,
    company_key,
)
from domain.evaluation.scoring import EvalCase, SliceRun
from domain.memory.rules import CacheOutcome, MemoryNote, Preference, RecentMessage
from domain.models import (
    ChunkHit,
    Citation,
    Derived,
    ModelCall,
    NotFound,
    RetrievalConfig,
    Route,
    Slots,
    SubQuery,
    UnsupportedClaim,
)
from domain.models import Frozen as _Frozen
from domain.turns import TurnResult

MAX_YEARS = 50
"""The most fiscal years one search may name."""
MAX_FACETS = 8
"""Facets a search may carry (an analyst's line items, each searched apart)."""


class _OnIndex(_Frozen):
    """A request to a step that reads the report index."""

    snapshot: str | None = None
    """The corpus version of a frozen snapshot to read instead of the live index (a
    golden-probe turn's); None: the live index."""


class SearchRequest(_OnIndex):
    query: str = Field(max_length=4000)
    company: str | None = None
    fiscal_years: list[int] = Field(default_factory=list, max_length=MAX_YEARS)
    """The fiscal years to search (any of); empty searches every covered year."""
    limit: int = Field(default=8, ge=1, le=50)
    later_years: list[int] = Field(default_factory=list, max_length=MAX_YEARS)
    """Later reports to search as well, for restated comparatives: up to
    `LATER_REPORT_HITS` more hits, after (never instead of) the main ones."""
    config: RetrievalConfig | None = None
    """The retrieval knobs to use (the A/B harness); None: the product's defaults."""
    facets: list[str] = Field(default_factory=list, max_length=MAX_FACETS)
    """Further queries searched apart, `FACET_HITS` hits each after the main ones (a
    sub-query's `facets`)."""

    @model_validator(mode="before")
    @classmethod
    def _single_year(cls, data: Any) -> Any:
        """Fold the single `fiscal_year` of requests made before `fiscal_years` was the
        only year field (an activity scheduled by the previous code) into the list."""
        if isinstance(data, dict) and "fiscal_year" in data:
            data = dict(data)
            year = data.pop("fiscal_year")
            if year is not None and not data.get("fiscal_years"):
                data["fiscal_years"] = [year]
        return data

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query must not be empty")
        return value.strip()

    # A company and years as the caller resolved them against the coverage it holds (a
    # turn's, pinned; the API's), not re-checked against the worker's, which may lag.
    _company = field_validator("company")(company_key)

    @field_validator("fiscal_years", "later_years")
    @classmethod
    def _fiscal_years(cls, value: list[int]) -> list[int]:
        return sorted({y for y in value if check_report_year(y) is not None})


class SearchResult(_Frozen):
    hits: list[ChunkHit]
    degraded: list[str] = Field(default_factory=list)
    """Fail-opens inside the search (the reranker unavailable: fused order kept)."""
    corpus_version: str | None = None
    """The version of the corpus the hits were read from (None from a worker before it)."""


class CompanyDetails(_Frozen):
    """A company described by the ingest command (`--name`, `--alias`, `--year-end`,
    `--currency`, `--commodity`): registered with its report, or re-described."""

    name: str = Field(min_length=1, max_length=200)
    aliases: list[str] = Field(default_factory=list, max_length=20)
    year_end: str = "06-30"
    """Month-day its fiscal year ends ("12-31": calendar years)."""
    currency: str = Field(default="US$", min_length=1, max_length=8)
    commodities: list[str] = Field(default_factory=list, max_length=20)

    _year_end = field_validator("year_end")(check_year_end)

    @field_validator("aliases", "commodities")
    @classmethod
    def _names(cls, value: list[str]) -> list[str]:
        if any(not v.strip() or len(v) > 200 for v in value):
            raise ValueError("each must be 1-200 characters")
        return value


class IngestFileRequest(_Frozen):
    path: str
    company: str | None = None
    fiscal_year: int | None = None
    replace: bool = False
    """Accept a different file for a company and year already registered (recorded)."""
    details: CompanyDetails | None = None
    """Who the company is, when the command says (else the registry, the folder's
    companies.toml or the report's front matter does)."""


class IngestFileResult(_Frozen):
    path: str
    document_id: str | None = None
    status: str  # "ingested" | "unchanged" | "failed" | "refused"
    chunks: int = 0
    error: str | None = None
    facts: int | None = None
    """Facts (re)stored for the document by this ingestion; None when none changed."""
    identified: str | None = None
    """What was read from a PDF's first pages of who and when it is of (and what could
    not be told), in one line; None when the command said both."""
    problems: list[str] = Field(default_factory=list)
    """Pages read but not indexed, each with why ("page 5: no text layer ...")."""


class IngestRequest(_Frozen):
    paths: list[str] = Field(min_length=1)
    company: str | None = None
    fiscal_year: int | None = None
    replace: bool = False
    """Replace the registered report of a company and year with a different file."""
    details: CompanyDetails | None = None
    """Who the company is (a company the registry does not hold needs this, unless the
    folder's companies.toml or the report's front matter describes it)."""

    _fiscal_year = field_validator("fiscal_year")(check_report_year)

    @field_validator("company")
    @classmethod
    def _company(cls, value: str | None) -> str | None:
        """A ticker or a name; the ingest step resolves it against the registry."""
        if value is None:
            return None
        if not value.strip() or len(value) > 200:
            raise ValueError("company must be a ticker or name of 1-200 characters")
        return value.strip()

    @model_validator(mode="after")
    def _details_need_ticker(self) -> "IngestRequest":
        if self.details is not None:
            if self.company is None:
                raise ValueError("a company described by name needs its ticker (--company)")
            check_ticker(self.company)
        return self


class IngestResult(_Frozen):
    files: list[IngestFileResult]
    corpus_version: str


# Model steps (route, rewrite, grade documents, synthesize, grade answer, summarize).
# Engines receive chunk TEXT; the activities load it from Qdrant by id (claim check).


class RouteRequest(_OnIndex):
    question: str


class RouteDecision(_Frozen):
    route: Route
    reason: str
    slots: Slots
    clarifying_question: str | None = None
    direct_answer: str | None = None
    model_calls: list[ModelCall] = Field(default_factory=list)
    """The model calls behind this result (the model engine only): the turn's trace."""


class RewriteRequest(_OnIndex):
    question: str
    slots: Slots


class RewritePlan(_Frozen):
    sub_queries: list[SubQuery]
    model_calls: list[ModelCall] = Field(default_factory=list)
    """The model calls behind this result (the model engine only): the turn's trace."""


class EvidenceRank(_Frozen):
    """A chunk's strength as its search found it (the hit's rank and score)."""

    chunk_id: str
    rank: int
    """Its rank in its own company's search, 1 the best."""
    score: float


class EvidenceRequest(_OnIndex):
    """A question plus the ids of the chunks to judge or answer from, in source order."""

    question: str
    slots: Slots
    chunk_ids: list[str]
    memory: list[MemoryNote] = Field(default_factory=list)
    """Remembered context for synthesis only (the conversation's last messages, its
    summary, preferences, a cached answer as a hint), labelled a claim; fitted into the
    context budget after the evidence."""
    ranked: list[EvidenceRank] = Field(default_factory=list)
    """How strong each chunk is, for synthesis's evidence budget and order; empty (a
    turn started before it was sent): the source order is the strength order."""


class DocumentGrades(_Frozen):
    keep: list[int]
    """Indices into the request's chunk_ids (validated in range by the activity)."""
    model_calls: list[ModelCall] = Field(default_factory=list)
    """The model calls behind this result (the model engine only): the turn's trace."""


class CheckRequest(_OnIndex):
    question: str
    answer: str
    chunk_ids: list[str]


class RelevanceRequest(_OnIndex):
    """A draft to check against its question: does it address what was asked?"""

    question: str
    answer: str
    chunk_ids: list[str]
    derived: list[str] = Field(default_factory=list)
    """Labels of the figures the numeric check recomputed from cited inputs."""


class AnswerGrade(_Frozen):
    quality_passed: bool
    unsupported: list[UnsupportedClaim] = Field(default_factory=list)
    notes: str = ""
    model_calls: list[ModelCall] = Field(default_factory=list)
    """The model calls behind this result (the model engine only): the turn's trace."""


class CoverageRequest(_OnIndex):
    max_age_seconds: float = 2.0
    """How old a reading of the registry may be (a worker reads it at most this often)."""


class CoverageRead(_Frozen):
    companies: list[Company]
    """The companies whose reports are held, in registration order, with their years."""
    stale: bool = False
    """PostgreSQL could not be read: this is the worker's last reading."""


class LoadSessionRequest(_Frozen):
    conversation_id: str
    seq: int
    tenant_id: str = "default"
    user_id: str | None = None
    """With a user id, the user's remembered facts are loaded too."""


class Session(_Frozen):
    recent_questions: list[str] = Field(default_factory=list)
    """Resolved user questions of earlier turns, oldest first (for entity carry-forward)."""
    summary: str | None = None
    """The conversation's newest summary of its older messages, if any."""
    unsummarised: int = 0
    """Messages before this turn not yet covered by a summary."""
    preferences: list[Preference] = Field(default_factory=list)
    """The user's current remembered facts, oldest first."""
    recent_messages: list[RecentMessage] = Field(default_factory=list)
    """The conversation's last messages before this turn (at most `KEEP_RECENT`), oldest
    first, as stored (personal values are tokens): synthesis sees them verbatim."""


class SummarizeRequest(_Frozen):
    conversation_id: str
    seq: int
    """Summarise the messages of turns before this one."""


class SummaryResult(_Frozen):
    summary: str | None
    """The conversation's summary after this step (None: nothing to summarise)."""
    summarised: int = 0
    """Messages this step marked as summarised."""
    model_calls: list[ModelCall] = Field(default_factory=list)


class RememberRequest(_Frozen):
    tenant_id: str
    user_id: str
    turn_id: str
    preference: Preference


class ForgetRequest(_Frozen):
    tenant_id: str
    user_id: str


class ForgetResult(_Frozen):
    facts: int = 0
    summaries: int = 0
    personal_values: int = 0
    cached_answers: int = 0


class CachedAnswer(_Frozen):
    """An answer the cache holds: the clean answer (before any disclaimer or warning),
    with what the final gate and confidence shaping need to run on it again."""

    turn_id: str
    question: str
    answer: str
    citations: list[Citation] = Field(default_factory=list)
    derived: list[Derived] = Field(default_factory=list)
    not_found: list[NotFound] = Field(default_factory=list)
    unsupported: list[UnsupportedClaim] = Field(default_factory=list)
    coverage: dict[str, bool] = Field(default_factory=dict)
    figures_given: bool = True
    warnings: list[str] = Field(default_factory=list)
    items_asked: int = 0
    """The asked items of the answer's question and how many it does not give, so a
    reused answer's confidence is shaped as the fresh one's (0: an entry from before)."""
    items_missing: int = 0
    """The citation checks' warnings (a marker removed, a company mismatch), shown again
    on reuse; coverage and confidence warnings are recomputed instead."""


class CacheLookupRequest(_Frozen):
    tenant_id: str
    question: str
    """The resolved question (carried entities and preferences in it)."""


class CacheLookup(_Frozen):
    outcome: CacheOutcome
    entry: CachedAnswer | None = None
    similarity: float | None = None
    reason: str = ""
    """Why a miss was a miss (no entry, slots differ, corpus changed, below threshold)."""
    corpus_version: str | None = None
    """The corpus version at lookup: a later write is stamped with it."""


class CacheWriteRequest(_Frozen):
    tenant_id: str
    user_id: str | None
    entry: CachedAnswer
    corpus_version: str | None = None


class CacheWriteResult(_Frozen):
    written: bool
    reason: str = ""


class SaveTurnRequest(_Frozen):
    result: TurnResult
    final: bool


class SweepRequest(_Frozen):
    quiet_for_seconds: float = 30.0
    limit: int = 200


class SweepResult(_Frozen):
    checked: int
    settled: list[str]


class PurgeRequest(_Frozen):
    retention_days: float = Field(default=365, gt=0)
    """Days a decision record is kept (fractions allowed: tests purge what is seconds old)."""
    pii_retention_days: float = Field(default=30, gt=0)
    """Days a personal value in the token map is kept after it was last used."""
    rate_bucket_idle_days: float = Field(default=1, gt=0)
    """Days a rate-limit bucket may stay untouched before it is removed: by then it has
    refilled at any limit of one request a day or more, so removing it changes nothing."""
    conversation_retention_days: float = Field(default=0, ge=0)
    """Days a conversation may stay idle (no turn started, saved or replied to) before
    its turns, messages and summaries are deleted; 0 keeps them forever (requests from
    before expiry existed, and TURNSTILE_CONVERSATION_RETENTION_DAYS=0)."""


class PurgeResult(_Frozen):
    rows: int
    """Decision records removed by this purge."""
    through_seq: int | None = None
    """The last removed row (the chain's new checkpoint); None when nothing was old enough."""
    pii_tokens: int = 0
    """Personal values erased from the token map by this purge."""
    rate_buckets: int = 0
    """Idle rate-limit buckets removed by this purge."""
    conversations_expired: int = 0
    """Idle conversations whose turns and messages this purge deleted."""


class PiiPurgeResult(_Frozen):
    erased: int
    """Personal values erased from the token map."""


class RateBucketPurgeResult(_Frozen):
    removed: int
    """Rate-limit buckets removed (idle, so full)."""


class ConversationExpiryResult(_Frozen):
    conversations: int
    """Idle conversations expired: their turns, messages, summaries and feedback deleted."""
    turns: int = 0
    messages: int = 0


# ---- golden probes ------------------------------------------------------------------


class ProbeCasesRequest(_Frozen):
    slices: list[str] = Field(default_factory=list)
    """Slices to load (empty: all four)."""
    limit: int | None = Field(default=None, ge=1)
    """At most this many cases per slice."""


class ProbeSet(_Frozen):
    slices: dict[str, list[EvalCase]]
    corpus_version: str


class AllocateProbeTurn(_Frozen):
    """One probe question to allocate as a turn; `key` makes a retried allocation return
    the same turn."""

    key: str
    question: str
    conversation_id: str | None = None
    tenant_id: str = "probes"


class ProbeTurn(_Frozen):
    turn_id: str
    conversation_id: str
    seq: int


class RecordProbeRun(_Frozen):
    scope: str
    """Whose runs these are (the schedule's task queue): "the run before" is looked up
    within it."""
    run_id: str
    corpus_version: str | None = None
    slices: list[SliceRun]
    categories: dict[str, str] = Field(default_factory=dict)
    """Slice → the incident category its failures point to (docs/incidents.md)."""


class ProbeIncident(_Frozen):
    slice: str
    incident_id: int
    category: str
    previous_run_id: str


class RecordedProbeRun(_Frozen):
    incidents: list[ProbeIncident] = Field(default_factory=list)


class ProbeHistoryRequest(_Frozen):
    scope: str
    slices: list[str]
    runs: int = Field(default=20, ge=1, le=1000)
    """How many of each slice's latest healthy runs to read."""


class ProbeHistory(_Frozen):
    slices: dict[str, list[tuple[int, int]]] = Field(default_factory=dict)
    """Slice → (cases, passed) of its latest runs that did not breach, newest first."""


class FreezeRequest(_Frozen):
    scope: str
    """Whose probe runs decide which snapshots are still in use (the task queue)."""
    keep: int = Field(default=3, ge=1, le=100)
    """Snapshots kept: the one frozen now and those of the latest recorded runs."""
    corpus_version: str | None = None
    """Read this earlier snapshot instead of freezing the index as it stands (it must
    still be kept); None: freeze now."""


class FrozenCorpus(_Frozen):
    corpus_version: str
    """The snapshot's name: the corpus version the index held when it was frozen."""
    created: bool
    """Whether this call made the copy (False: that version was frozen before)."""
    dropped: list[str] = Field(default_factory=list)
    """Older snapshots deleted (no recent run used them)."""


# ---- live evaluation -----------------------------------------------------------------


class RecordShadowRequest(_Frozen):
    live_turn_id: str
    shadow: TurnResult
    """The shadow's outcome (its `turn_id` is the live turn's: it answered that question)."""
    live_config: str = ""
    shadow_config: str = ""


class ShadowRunsRequest(_Frozen):
    limit: int = Field(default=200, ge=1, le=10_000)


class CandidatesRequest(_Frozen):
    limit: int = Field(default=50, ge=1, le=1000)


class DraftCaseRequest(_Frozen):
    turn_id: str = Field(min_length=1, max_length=200)


class ChunkLocator(_Frozen):
    """A chunk named by where it is: a report page and a literal part of its text."""

    company: str
    fiscal_year: int
    page: int
    contains: str = Field(min_length=1)


class FoundChunks(_Frozen):
    chunk_ids: list[str | None]
    """One per locator, in order: the id of the one chunk that matches, None when none
    or several do."""


class SuiteRunRequest(_Frozen):
    """A scheduled run of the evaluation suites through the running stack (RunSuites)."""

    suites: list[str] = Field(default_factory=list)
    """The suites to run; empty: every one (`evals/suites/`)."""
    sample_every: int = Field(default=1, ge=1)
    """Every n-th case of each suite (1: all); a sampled run is judged case by case only."""


class SuiteVerdict(_Frozen):
    """A run's verdict against the committed baseline (`evals/baseline.json`)."""

    engine: str
    corpus_version: str | None = None
    cases: int
    failed: int
    regressions: list[str]
    """A case failing that the baseline does not list, or a metric below its floor."""
    stale: list[str]
    """A listed failure that now passes, or a listed case that no longer exists."""
