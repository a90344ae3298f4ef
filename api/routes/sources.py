"""GET /v1/turns/{turn_id}/sources: the passages a turn's answer cites, in full.

A citation in a TurnResult carries only the start of its passage (the preview kept in
workflow history). The page's citation preview shows the whole passage, its table as a
table, with the rows holding the figures the answer cites to it marked. The passages
are read through the worker (LoadPassages), which owns Qdrant; only the chunks the
stored turn cites can be read here, so this is no back door into the index.
"""

from datetime import timedelta

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api import redaction
from api.auth import CallerDep, limit
from api.bounded import run_short
from api.deps import PoolDep, SettingsDep, TemporalDep, TurnIdPath
from api.errors import error_responses
from api.turn_service import no_turn, owned_turn
from db import turns
from domain.citing import cited_lines
from workflows.passages import LoadPassages

router = APIRouter(prefix="/v1", tags=["turns"])


class CitedPassage(BaseModel):
    """One source an answer cites: where it is, its full text and the rows it cites."""

    n: int = Field(description="The citation's marker in the answer: `[n]`.", examples=[1])
    company: str = Field(description="The company's ticker.", examples=["BHP"])
    fiscal_year: int = Field(examples=[2024])
    page: int = Field(description="The report page the passage is on.", examples=[4])
    document: str = Field(examples=["BHP Annual Report 2024"])
    text: str = Field(
        description="The whole passage; a table is a markdown table, one row per line.",
        examples=["Table (all figures in US$ millions):\n| US$M | FY2024 |\n|---|---|\n"
                  "| Revenue | 55,658 |\n| Underlying EBITDA | 29,016 |"],
    )  # fmt: skip
    cited_lines: list[int] = Field(
        description="Indexes of the lines of `text` (table rows) holding a figure the"
        " answer cites to this source; empty when none is a table row.",
        examples=[[3]],
    )


@router.get("/turns/{turn_id}/sources", responses=error_responses(401, 404, 429, 503))
async def turn_sources(
    turn_id: TurnIdPath,
    client: TemporalDep,
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
) -> list[CitedPassage]:
    """The passages the turn's answer cites, with the cited rows; [] when it cites none.

    503 `Unavailable` when no worker runs (the passages live in the worker's index).
    """
    user_id = await owned_turn(pool, turn_id, caller)
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id, caller.tenant_id)
    if stored is None:
        raise no_turn(turn_id)
    if not stored.citations:
        return []
    await limit(caller, user_id, pool, settings)  # each read starts a workflow
    timeout = timedelta(seconds=settings.search_timeout_seconds)
    ids = [c.chunk_id for c in stored.citations]
    chunks = await run_short(
        client, settings, LoadPassages.run, ids, "passages", timeout, "it",
        summary=f"passages cited by {turn_id}", details=f"{len(ids)} cited passage(s)",
    )  # fmt: skip
    texts = {chunk.chunk_id: chunk.text for chunk in chunks}
    # The answer as its owner sees it (personal data shown back), so figures line up.
    shown = await redaction.reveal(pool, caller.tenant_id, [redaction.owner_of(user_id)], stored)
    answer = shown.answer or ""
    return [
        CitedPassage(
            n=c.n, company=c.company, fiscal_year=c.fiscal_year, page=c.page,
            document=c.document, text=(text := texts.get(c.chunk_id, c.preview)),
            cited_lines=cited_lines(answer, c.n, text),
        )
        for c in shown.citations
    ]  # fmt: skip
