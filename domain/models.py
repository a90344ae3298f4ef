"""The data every layer shares: slots, the chunk family, drafts and their checks.

Frozen pydantic models (pydantic is a data library, not I/O). They cross the Temporal
boundary inside activity contracts, so a new field needs a default: recorded histories
replay old payloads.

One chunk family, built by inheritance so no shape copies another's fields:

    ChunkRef      where a passage is: chunk id, company, fiscal year, page, document
    ├── Source    + preview                   what an answer may cite
    │   └── Citation   + n                    a cited source as the user sees it
    └── ChunkMeta + section
        ├── ChunkHit           + rank, score, is_table, preview   a search hit (no text)
        ├── ChunkText          + is_table, unit, text             a chunk with its text
        └── SearchHitWithText  + rank, score, text                a hit printed with text
"""

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field
from pydantic.config import JsonDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


# ---- the chunk family -----------------------------------------------------------------


class ChunkRef(Frozen):
    """Where a passage is: enough to find it again and to cite it."""

    chunk_id: str = Field(
        description="The passage's id in the report index.",
        examples=["d968bb18-5c1e-54f8-8ac1-3034722a1e0b"],
    )
    company: str = Field(
        description="The company's ASX ticker: BHP, RIO, FMG, S32 or NST.", examples=["BHP"]
    )
    fiscal_year: int = Field(
        description="The fiscal year the report covers (2024 for FY2024).", examples=[2024]
    )
    page: int = Field(description="The report page the passage is on.", examples=[4])
    document: str = Field(description="The report's title.", examples=["BHP Annual Report 2024"])

    @classmethod
    def narrowed(cls, other: "ChunkRef") -> Self:
        """This shape of `other` (a wider member of the family): its shared fields, no copy
        written out by hand."""
        return cls.model_validate(other.model_dump(include=set(cls.model_fields)))


class Source(ChunkRef):
    """A passage an answer may cite, with the preview shown next to the citation."""

    preview: str = Field(
        description="The start of the passage, shown next to the citation.",
        examples=[
            "Table (all figures in US$ millions): | US$M | FY2024 | |---|---| | Revenue |"
            " 55,658 | | Underlying EBITDA | 29,016 | | Attributable profit | 7,897 |"
        ],
    )


CITATION_EXAMPLE: JsonDict = {
    "chunk_id": "d968bb18-5c1e-54f8-8ac1-3034722a1e0b",
    "company": "BHP",
    "fiscal_year": 2024,
    "page": 4,
    "document": "BHP Annual Report 2024",
    "preview": "Table (all figures in US$ millions): | US$M | FY2024 | |---|---| | Revenue |"
    " 55,658 | | Underlying EBITDA | 29,016 | | Attributable profit | 7,897 |",
    "n": 1,
}
"""A real citation over the sample corpus: the OpenAPI examples that show one use it."""


class Citation(Source):
    """A cited source as the user sees it: `n` is its marker in the answer."""

    model_config = ConfigDict(json_schema_extra={"examples": [CITATION_EXAMPLE]})

    n: int = Field(description="The citation's marker: `[1]` in the answer is `n` 1.", examples=[1])
    chunk_id: str = Field(
        default="",
        description="The passage's id in the report index.",
        examples=["d968bb18-5c1e-54f8-8ac1-3034722a1e0b"],
    )


class ChunkMeta(ChunkRef):
    section: str


PREVIEW_CHARS = 160


def preview(text: str) -> str:
    """A chunk's text as one short line: its heading line dropped, white space folded."""
    body = text.split("\n", 1)[-1] if text.startswith("[") else text
    flat = " ".join(body.split())
    return flat if len(flat) <= PREVIEW_CHARS else flat[: PREVIEW_CHARS - 1] + "…"


class ChunkHit(ChunkMeta):
    """A retrieved chunk as it travels through history: the full text stays in Qdrant."""

    rank: int
    score: float
    is_table: bool = False
    preview: str

    def with_text(self, text: str | None) -> "SearchHitWithText":
        """This hit with its full text (its preview when the text is missing)."""
        meta = ChunkMeta.narrowed(self).model_dump()
        return SearchHitWithText(
            **meta, rank=self.rank, score=self.score, text=self.preview if text is None else text
        )


class ChunkText(ChunkMeta):
    is_table: bool
    unit: str | None
    text: str

    def as_hit(self, rank: int, score: float) -> ChunkHit:
        """This chunk as a search hit: the text shortened to a preview."""
        meta = ChunkMeta.narrowed(self).model_dump()
        return ChunkHit(
            **meta, rank=rank, score=score, is_table=self.is_table, preview=preview(self.text)
        )


class SearchHitWithText(ChunkMeta):
    """What `turnstile search --json` and `GET /v1/search` give for one hit."""

    rank: int
    score: float
    text: str


def with_text(hits: list[ChunkHit], texts: list[ChunkText]) -> list[SearchHitWithText]:
    """Join search hits with their full chunk text (the shape `turnstile search` prints)."""
    by_id = {t.chunk_id: t.text for t in texts}
    return [h.with_text(by_id.get(h.chunk_id)) for h in hits]


# ---- what a question asks for ---------------------------------------------------------

Route = Literal["out_of_scope", "needs_clarification", "needs_retrieval", "direct_answer"]
Intent = Literal["lookup", "change", "compare", "overview", "narrative"]
ClaimReason = Literal["calculation", "interpolation", "general_knowledge"]


class Slots(Frozen):
    """What a question asks for, as extracted deterministically from its text."""

    companies: list[str] = Field(default_factory=list)
    fiscal_years: list[int] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list)
    intent: Intent = "lookup"
    other_measures: list[str] = Field(default_factory=list)
    """Measures asked for that the engine has no rule for ("free cash flow"): each gets
    its not-found line, never a substitute."""


class SubQuery(Frozen):
    company: str
    query: str
    fiscal_years: list[int] = Field(default_factory=list)
    metrics: list[str] = Field(default_factory=list)
    later_years: list[int] = Field(default_factory=list)
    """Later reports searched as well, for restated comparatives of `fiscal_years`; their
    few hits add to the main search's, never crowd them out."""
    facets: list[str] = Field(default_factory=list)
    """Further queries for the same company and years, each searched apart and its few
    best hits added after the main ones: an analyst's line items ("accounts payable",
    "cost of sales", "inventories"), so one item's many matches cannot crowd another's
    only line out of the evidence."""


class RetrievalConfig(Frozen):
    """How one search runs: the knobs the retrieval A/B harness compares.

    A search without a config runs the product's defaults (`RetrievalConfig()`); the
    harness's configuration files (evals/configs/) name other settings, so two settings
    are compared on the same cases with the same code.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = "default"
    query: Literal["plan", "question"] = "plan"
    """`plan`: the turn's own query plan (route, then rewrite: company name, metric
    synonyms, FY tokens, the years as a filter); `question`: the question as typed,
    filtered by company only."""
    prefetch: int = Field(default=30, ge=1, le=200)
    """Candidates from each of the dense and BM25 searches before fusion."""
    pool: int | None = Field(default=None, ge=1, le=100)
    """Fused candidates kept before the cut (and handed to the reranker); None: `limit`,
    or 20 when reranking."""
    limit: int = Field(default=8, ge=1, le=50)
    rerank: bool | None = None
    """True: rerank (a reranker must be configured); False: never; None: when configured."""
    fusion: Literal["rrf", "dbsf"] = "rrf"


# ---- drafts and their checks ----------------------------------------------------------


class Derived(Frozen):
    """A figure the answer computed from cited ones; the numeric check recomputed it."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "label": "FMG revenue change FY2023–FY2024",
                    "formula": "(18.22 − 16.87) / 16.87 = +8.0%",
                }
            ]
        }
    )

    label: str = Field(
        description="What was computed.", examples=["FMG revenue change FY2023–FY2024"]
    )
    formula: str = Field(
        description="How, from the cited figures.", examples=["(18.22 − 16.87) / 16.87 = +8.0%"]
    )


class NotFound(Frozen):
    """A requested figure the reports do not give; the answer has a line saying so."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"company": "BHP", "fiscal_year": 2024, "metric": "free cash flow"}]
        }
    )

    company: str = Field(description="The company's ASX ticker.", examples=["BHP"])
    fiscal_year: int = Field(description="The fiscal year asked about.", examples=[2024])
    metric: str = Field(description="The measure asked for.", examples=["free cash flow"])

    def label(self) -> str:
        """What the item is, as a removal line and a claim label name it: "BHP FY2024 revenue"."""
        return f"{self.company} FY{self.fiscal_year} {self.metric}"

    def line(self) -> str:
        return f"{self.label()}: data not found in provided documents"


class UnsupportedClaim(Frozen):
    """A claim in the answer that the cited evidence does not support."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"label": "RIO FY2025 revenue", "reason": "general_knowledge"}]
        }
    )

    label: str = Field(
        description="The metric and context the claim is about, never the number.",
        examples=["RIO FY2025 revenue"],
    )
    reason: ClaimReason = Field(
        description="`interpolation` (an estimate: about, roughly, ...), `calculation` (looks"
        " computed from the cited numbers but does not recompute) or `general_knowledge`"
        " (not in the cited sources).",
        examples=["general_knowledge"],
    )


class ModelCall(Frozen):
    """One call to a model, as the turn's trace records it: never the prompt or the reply."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "step": "llm_synthesize_answer",
                    "model": "gpt-4o-mini",
                    "prompt_sha": "5d2c81f04a9e",
                    "prompt_tokens": 1840,
                    "completion_tokens": 96,
                }
            ]
        }
    )

    step: str = Field(description="The step's activity name.", examples=["llm_synthesize_answer"])
    model: str = Field(description="The model the step called.", examples=["gpt-4o-mini"])
    prompt_sha: str = Field(
        description="The first 12 hex digits of the SHA-256 of the step's prompt template.",
        examples=["5d2c81f04a9e"],
    )
    prompt_tokens: int = Field(
        default=0,
        description="Tokens in the prompt, as the provider counted them.",
        examples=[1840],
    )
    completion_tokens: int = Field(
        default=0,
        description="Tokens in the reply, as the provider counted them.",
        examples=[96],
    )


class Draft(Frozen):
    """A synthesised answer: `[n]` markers refer to the 1-based source order of the request."""

    answer: str
    derived: list[Derived] = Field(default_factory=list)
    not_found: list[NotFound] = Field(default_factory=list)
    model_calls: list[ModelCall] = Field(default_factory=list)
    left_out: list[str] = Field(default_factory=list)
    """Chunk ids of the request the synthesiser was not shown: over the evidence budget."""


class RelevanceItem(Frozen):
    """One measure or topic the question asks about, and whether the answer covers it."""

    focus: str = Field(description="The part of the question, as asked.", examples=["TRIF"])
    status: Literal["answered", "not_found", "missing"] = Field(
        description="`answered`: a cited figure or sentence answers it; `not_found`: the"
        " answer has its data-not-found line; `missing`: the answer does not cover it.",
        examples=["answered"],
    )
    evidence: str | None = Field(
        default=None,
        description="The report label (or sentence) that answers it.",
        examples=["Total recordable injury frequency (TRIF)"],
    )
    score: float = Field(default=0.0, description="How well that evidence matches (0-1.5).")
    company: str | None = Field(
        default=None,
        description="Set when the item is one company's part of a question about several:"
        " the answer never names that company.",
        examples=["RIO"],
    )


class Relevance(Frozen):
    """The relevance control: does the answer address what the question asks?"""

    items: list[RelevanceItem] = Field(default_factory=list)
    addressed: bool = Field(
        default=True, description="Every item is answered or has its not-found line."
    )
    off_point: bool = Field(
        default=False,
        description="No item is answered and some are not covered: the answer is about"
        " something else.",
    )
    topic: bool = Field(
        default=False,
        description="The question asks about a topic, not a figure: a missed item has no"
        " data-not-found line (there is no figure to be missing).",
    )
    unexplained: bool = Field(
        default=False,
        description="The question asks why, the answer quotes the reports, and no sentence"
        " of it gives a cause: the reports give no reason.",
    )

    def missing(self) -> list[str]:
        return [
            f"{i.company} {i.focus}" if i.company else i.focus
            for i in self.items
            if i.status == "missing"
        ]


class CheckedFigure(Frozen):
    """A figure of the answer the numeric check found backed: whose, which year, what."""

    company: str
    fiscal_year: int
    metric: str | None = None
    """The vocabulary metric of the figure that backs it (None: a figure outside it)."""


class GroundingReport(Frozen):
    """Deterministic numeric grounding of an answer against its cited chunks."""

    unsupported: list[UnsupportedClaim] = Field(default_factory=list)
    verified: list[CheckedFigure] = Field(default_factory=list)
    """The figures backed by a cited chunk, by the company, year and metric of the chunk's
    figure: what the answer gives, for coverage of what was asked."""
    derived: list[Derived] = Field(default_factory=list)
    checked_numbers: int = 0
    sentences: dict[str, str] = Field(default_factory=dict)
    """Each unsupported claim's answer sentence, by its label: what the final gate takes
    out of the answer when the claim stays refuted (never shown or stored as a result)."""
    every_sentence: dict[str, list[str]] = Field(default_factory=dict)
    """Every answer sentence that carries each unsupported claim, by its label, in answer
    order: a figure said twice is in two sentences, and the final gate takes out each.
    (`sentences` keeps the first only, as a check recorded before this field gave it.)"""
