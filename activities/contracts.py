"""Activity inputs and outputs that cross the Temporal boundary (frozen, versioned)."""

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from workflows.logic.companies import FISCAL_YEARS, normalise_ticker


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


def check_company(value: str | None) -> str | None:
    """Normalise a ticker or company name; reject companies outside the five."""
    if value is None:
        return None
    ticker = normalise_ticker(value)
    if ticker is None:
        raise ValueError(f"unknown company {value!r}; use one of BHP, RIO, FMG, S32, NST")
    return ticker


def check_fiscal_year(value: int | None) -> int | None:
    if value is not None and value not in FISCAL_YEARS:
        raise ValueError(f"fiscal year {value} is outside 2023-2025")
    return value


class SearchRequest(_Frozen):
    query: str = Field(max_length=4000)
    company: str | None = None
    fiscal_year: int | None = None
    limit: int = Field(default=8, ge=1, le=50)
    fiscal_years: list[int] = Field(default_factory=list)
    """Several fiscal years (any of); used by the turn's per-company fan-out."""

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("query must not be empty")
        return value.strip()

    _company = field_validator("company")(check_company)
    _fiscal_year = field_validator("fiscal_year")(check_fiscal_year)


class ChunkHit(_Frozen):
    """A retrieved chunk as it travels through history: the full text stays in Qdrant."""

    rank: int
    score: float
    chunk_id: str
    company: str
    fiscal_year: int
    page: int
    section: str
    document: str
    is_table: bool = False
    preview: str


class ChunkText(_Frozen):
    chunk_id: str
    company: str
    fiscal_year: int
    page: int
    section: str
    document: str
    is_table: bool
    unit: str | None
    text: str


class SearchResult(_Frozen):
    hits: list[ChunkHit]


class SearchHitWithText(_Frozen):
    """What `turnstile search --json` prints for one hit."""

    rank: int
    score: float
    chunk_id: str
    company: str
    fiscal_year: int
    page: int
    section: str
    document: str
    text: str


class IngestFileRequest(_Frozen):
    path: str
    company: str | None = None
    fiscal_year: int | None = None
    replace: bool = False
    """Accept a different file for a company and year already registered (recorded)."""


class IngestFileResult(_Frozen):
    path: str
    document_id: str | None = None
    status: str  # "ingested" | "unchanged" | "failed" | "refused"
    chunks: int = 0
    error: str | None = None


class IngestRequest(_Frozen):
    paths: list[str] = Field(min_length=1)
    company: str | None = None
    fiscal_year: int | None = None
    replace: bool = False
    """Replace the registered report of a company and year with a different file."""

    _company = field_validator("company")(check_company)
    _fiscal_year = field_validator("fiscal_year")(check_fiscal_year)


class IngestResult(_Frozen):
    files: list[IngestFileResult]
    corpus_version: str


# Model steps (route, rewrite, grade documents, synthesize, grade answer, summarize).
# Engines receive chunk TEXT; the activities load it from Qdrant by id (claim check).

Route = Literal["out_of_scope", "needs_clarification", "needs_retrieval", "direct_answer"]
Intent = Literal["lookup", "change", "compare", "overview"]
ClaimReason = Literal["calculation", "interpolation", "general_knowledge"]


class Slots(_Frozen):
    """What a question asks for, as extracted deterministically from its text."""

    companies: list[str] = Field(default_factory=list)
    fiscal_years: list[int] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list)
    intent: Intent = "lookup"


class RouteRequest(_Frozen):
    question: str


class RouteDecision(_Frozen):
    route: Route
    reason: str
    slots: Slots
    clarifying_question: str | None = None
    direct_answer: str | None = None


class SubQuery(_Frozen):
    company: str
    query: str
    fiscal_years: list[int] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list)


class RewriteRequest(_Frozen):
    question: str
    slots: Slots


class RewritePlan(_Frozen):
    sub_queries: list[SubQuery]


class EvidenceRequest(_Frozen):
    """A question plus the ids of the chunks to judge or answer from, in source order."""

    question: str
    slots: Slots
    chunk_ids: list[str]


class DocumentGrades(_Frozen):
    keep: list[int]
    """Indices into the request's chunk_ids (validated in range by the activity)."""


class Derived(_Frozen):
    label: str
    formula: str


class NotFound(_Frozen):
    company: str
    fiscal_year: int
    metric: str

    def line(self) -> str:
        return (
            f"{self.company} FY{self.fiscal_year} {self.metric}: "
            "data not found in provided documents"
        )


class UnsupportedClaim(_Frozen):
    label: str
    reason: ClaimReason


class Draft(_Frozen):
    """A synthesised answer: `[n]` markers refer to the 1-based source order of the request."""

    answer: str
    derived: list[Derived] = Field(default_factory=list)
    not_found: list[NotFound] = Field(default_factory=list)


class CheckRequest(_Frozen):
    question: str
    answer: str
    chunk_ids: list[str]


class GroundingReport(_Frozen):
    """Deterministic numeric grounding of an answer against its cited chunks."""

    unsupported: list[UnsupportedClaim] = Field(default_factory=list)
    derived: list[Derived] = Field(default_factory=list)
    checked_numbers: int = 0


class AnswerGrade(_Frozen):
    quality_passed: bool
    unsupported: list[UnsupportedClaim] = Field(default_factory=list)
    notes: str = ""


class LoadSessionRequest(_Frozen):
    conversation_id: str
    seq: int


class Session(_Frozen):
    recent_questions: list[str] = Field(default_factory=list)
    """Resolved user questions of earlier turns, oldest first (for entity carry-forward)."""
