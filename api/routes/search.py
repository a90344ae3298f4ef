"""GET /v1/search: hybrid retrieval through the worker (which owns Qdrant); GET
/v1/companies: the companies whose reports are held, with their names and years."""

from datetime import timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel, ValidationError

from activities.contracts import SearchRequest
from api import coverage, redaction
from api.auth import CallerDep
from api.auth import limit as rate_limit
from api.bounded import run_short
from api.deps import PoolDep, SettingsDep, TemporalDep
from api.errors import ApiError, error_responses
from api.text import STORABLE
from domain.companies.roster import pinned
from domain.models import SearchHitWithText
from workflows.search import SearchReports
from workflows.turn_start import summary_line

router = APIRouter(prefix="/v1", tags=["search"])
MAX_QUERY_CHARS = 1000
"""Checked while the query string is parsed, before redaction reads the text."""


def _one_line(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc'])}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors()
    )


@router.get("/search", responses=error_responses(401, 429, 503))
async def search(
    http: Request,
    client: TemporalDep,
    settings: SettingsDep,
    pool: PoolDep,
    caller: CallerDep,
    q: Annotated[
        str,
        Query(min_length=1, max_length=MAX_QUERY_CHARS, description="the search text"),
        STORABLE,
    ],
    company: Annotated[str | None, Query(min_length=1, max_length=64), STORABLE] = None,
    fy: Annotated[int | None, Query(description="fiscal year, e.g. 2024")] = None,
    limit: Annotated[int, Query(ge=1, le=50)] = 8,
) -> list[SearchHitWithText]:
    """Search the report chunks; 503 `Unavailable` when no worker runs or it takes too long.

    The search runs as a SearchReports workflow with an execution timeout of
    `search_timeout_seconds`, so the request never waits longer than that (and a moment).
    """
    # long: its query parameters, each declared with its validation, take 17 of the lines.
    await rate_limit(caller, None, pool, settings)  # each search starts a workflow
    # The query goes into the search workflow's history: tokens only, like a question.
    q = await redaction.redact(pool, settings, caller.tenant_id, "", q)
    try:
        company = await coverage.checked(http.app.state, pool, company, fy)
    except ValueError as exc:
        raise ApiError(422, "InvalidInput", str(exc)) from exc
    with pinned(http.app.state.coverage):  # the companies held, with their names
        try:
            request = SearchRequest(
                query=q, company=company, fiscal_years=[] if fy is None else [fy], limit=limit
            )
        except ValidationError as exc:
            raise ApiError(422, "InvalidInput", _one_line(exc)) from exc
    timeout = timedelta(seconds=settings.search_timeout_seconds)
    return await run_short(
        client,
        settings,
        SearchReports.run,
        request,
        "search",
        timeout,
        "the search",
        summary=_summary(q, company, fy),
        details=f"tenant {caller.tenant_id}, up to {limit} hits",
    )


def _summary(query: str, company: str | None, fy: int | None) -> str:
    """The search's line in the Temporal UI's list (its query already redacted)."""
    where = " ".join(p for p in (company, f"FY{fy}" if fy else None) if p)
    return summary_line(f"search: {query}" + (f" ({where})" if where else ""))


class CompanyOut(BaseModel):
    ticker: str
    name: str
    fiscal_years: list[int]
    year_end: str
    """Month and day its fiscal year ends ("06-30"; "12-31" for calendar years)."""


@router.get("/companies", responses=error_responses(401))
async def companies(http: Request, pool: PoolDep, caller: CallerDep) -> list[CompanyOut]:
    """The companies whose reports are held (the company registry, read again when the
    last reading is a few seconds old): what a question can name, and the names to show
    for tickers in labels."""
    held = await coverage.held(http.app.state, pool)
    return [
        CompanyOut(
            ticker=c.ticker, name=c.name, fiscal_years=list(c.fiscal_years), year_end=c.year_end
        )
        for c in sorted(held, key=lambda c: c.ticker)
    ]
