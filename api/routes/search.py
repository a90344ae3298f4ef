"""GET /v1/search: hybrid retrieval through the worker (which owns Qdrant)."""

import uuid
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import ValidationError

from activities.contracts import SearchHitWithText, SearchRequest
from api.deps import SettingsDep, TemporalDep
from api.errors import ApiError
from workflows.search import SearchReports

router = APIRouter(prefix="/v1", tags=["search"])


def _one_line(exc: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in e['loc'])}: {e['msg'].removeprefix('Value error, ')}"
        for e in exc.errors()
    )


@router.get("/search")
async def search(
    client: TemporalDep,
    settings: SettingsDep,
    q: Annotated[str, Query(description="the search text")],
    company: Annotated[str | None, Query()] = None,
    fy: Annotated[int | None, Query(description="fiscal year, 2023-2025")] = None,
    limit: Annotated[int, Query()] = 8,
) -> list[SearchHitWithText]:
    try:
        request = SearchRequest(query=q, company=company, fiscal_year=fy, limit=limit)
    except ValidationError as exc:
        raise ApiError(422, "InvalidInput", _one_line(exc)) from exc
    return await client.execute_workflow(
        SearchReports.run,
        request,
        id=f"search-{uuid.uuid4().hex[:12]}",
        task_queue=settings.task_queue,
    )
