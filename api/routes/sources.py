"""GET /v1/turns/{turn_id}/sources: the passages a turn's answer cites, in full.

A citation in a TurnResult carries only the start of its passage (the preview kept in
workflow history). The page's citation preview shows the whole passage, its table as a
table, with the rows holding the figures the answer cites to it marked. The passages
are read through the worker (LoadPassages), which owns Qdrant; only the chunks the
stored turn cites can be read here, so this is no back door into the index.
"""

import asyncio
import re
from datetime import timedelta
from pathlib import Path
from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field
from temporalio.client import Client

from api import redaction
from api.auth import CallerDep, limit
from api.bounded import run_short
from api.deps import PoolDep, SettingsDep, TemporalDep, TurnIdPath
from api.errors import ApiError, error_responses
from api.turn_service import no_turn, owned_turn
from db import reports, turns
from domain.checks.citing import cited_lines
from domain.models import Citation
from settings import Settings
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
        examples=[
            "Table (all figures in US$ millions):\n| US$M | FY2024 |\n|---|---|\n"
            "| Revenue | 55,658 |\n| Underlying EBITDA | 29,016 |"
        ],
    )
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
    texts = await _passage_texts(client, settings, turn_id, [c.chunk_id for c in stored.citations])
    # The answer as its owner sees it (personal data shown back), so figures line up.
    shown = await redaction.reveal(pool, caller, [redaction.owner_of(user_id)], stored)
    answer = shown.answer or ""
    return [
        CitedPassage(
            n=c.n,
            company=c.company,
            fiscal_year=c.fiscal_year,
            page=c.page,
            document=c.document,
            text=(text := texts.get(c.chunk_id, c.preview)),
            cited_lines=cited_lines(answer, c.n, text),
        )
        for c in shown.citations
    ]


async def _passage_texts(
    client: Client, settings: Settings, turn_id: str, ids: list[str]
) -> dict[str, str]:
    """The cited chunks' texts by chunk id, read by a LoadPassages workflow (the
    passages live in the worker's index)."""
    timeout = timedelta(seconds=settings.search_timeout_seconds)
    chunks = await run_short(
        client,
        settings,
        LoadPassages.run,
        ids,
        "passages",
        timeout,
        "it",
        summary=f"passages cited by {turn_id}",
        details=f"{len(ids)} cited passage(s)",
    )
    return {chunk.chunk_id: chunk.text for chunk in chunks}


class ReportPage(BaseModel):
    page: int = Field(examples=[4])
    text: str = Field(description="The page as the report's Markdown (tables as pipes).")


class ReportView(BaseModel):
    """A cited report, page by page, to read a citation in its place."""

    n: int = Field(description="The citation the view was opened from.", examples=[1])
    company: str = Field(examples=["BHP"])
    fiscal_year: int = Field(examples=[2024])
    document: str = Field(examples=["BHP Annual Report 2024"])
    page: int = Field(description="The cited page (open the view there).", examples=[4])
    pages: list[ReportPage] = Field(description="Every page of the report, in order.")
    cited_lines: list[int] = Field(
        description="Indexes of the cited page's lines (table rows) holding a figure the"
        " answer cites to this source.",
        examples=[[12]],
    )


_PAGE_MARK = re.compile(r"^<!--\s*page:\s*(\d+)\s*-->\s*$", re.MULTILINE)


def report_pages(markdown: str) -> list[ReportPage]:
    """A Markdown report split at its `<!-- page: N -->` marks (the front matter before
    the first mark dropped)."""
    marks = list(_PAGE_MARK.finditer(markdown))
    if not marks:
        return []  # a file with no page marks has no page to open at
    ends = [m.start() for m in marks[1:]] + [len(markdown)]
    return [
        ReportPage(page=int(m.group(1)), text=markdown[m.end() : end].strip("\n"))
        for m, end in zip(marks, ends, strict=True)
    ]


@router.get("/turns/{turn_id}/report", responses=error_responses(401, 404, 503))
async def cited_report(
    turn_id: TurnIdPath,
    n: Annotated[int, Query(ge=1, le=1000, description="The citation: `[n]` in the answer.")],
    pool: PoolDep,
    settings: SettingsDep,
    caller: CallerDep,
) -> ReportView:
    """The report a turn's citation `[n]` comes from, page by page, with the cited page
    and its cited rows: the page shows it opened at that page. Only a report the stored
    turn cites can be read (another tenant's turn is 404); 404 too when the report is not
    a Markdown file this server can read (a PDF's pages are read through its passages)."""
    user_id = await owned_turn(pool, turn_id, caller)
    async with pool.connection() as conn:
        stored = await turns.get_turn(conn, turn_id, caller.tenant_id)
        cited = None if stored is None else next((c for c in stored.citations if c.n == n), None)
        registered = (
            None
            if cited is None
            else await reports.source_path(conn, cited.company, cited.fiscal_year)
        )
    if stored is None:
        raise no_turn(turn_id)
    if cited is None:
        raise ApiError(404, "NotFound", f"turn {turn_id} cites no source [{n}]", turn_id)
    pages = await _pages(settings, registered, cited)
    page = next((p for p in pages if p.page == cited.page), None)
    if page is None:
        raise ApiError(404, "NotFound", f"the text of {cited.document} is not available here")
    shown = await redaction.reveal(pool, caller, [redaction.owner_of(user_id)], stored)
    return ReportView(
        n=n,
        company=cited.company,
        fiscal_year=cited.fiscal_year,
        document=cited.document,
        page=cited.page,
        pages=pages,
        cited_lines=cited_lines(shown.answer or "", n, page.text),
    )


async def _pages(settings: Settings, registered: str | None, cited: Citation) -> list[ReportPage]:
    """The cited report's pages: the registered file, else the sample corpus's, if it is
    a Markdown file here; none otherwise."""
    candidates = [Path(registered)] if registered else []
    candidates.append(settings.corpus_dir / f"{cited.company}_FY{cited.fiscal_year}.md")
    path = next((p for p in candidates if p.suffix == ".md" and p.is_file()), None)
    # Off the event loop: a whole report read and split is no other request's wait.
    return await asyncio.to_thread(lambda: report_pages(path.read_text("utf-8"))) if path else []
