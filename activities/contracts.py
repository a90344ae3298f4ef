"""Activity inputs and outputs that cross the Temporal boundary (frozen, versioned)."""

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


class IngestFileResult(_Frozen):
    path: str
    document_id: str | None = None
    status: str  # "ingested" | "unchanged" | "failed"
    chunks: int = 0
    error: str | None = None


class IngestRequest(_Frozen):
    paths: list[str] = Field(min_length=1)
    company: str | None = None
    fiscal_year: int | None = None

    _company = field_validator("company")(check_company)
    _fiscal_year = field_validator("fiscal_year")(check_fiscal_year)


class IngestResult(_Frozen):
    files: list[IngestFileResult]
    corpus_version: str
