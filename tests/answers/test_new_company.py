"""A company no code knows: its full-length PDF report is ingested with the command's
description (ticker, name, fiscal year, currency) and it is asked about in whole turns,
beside a sample company, with no code change.

The test first proves the company is new: no file of the product (outside `tests/`)
names it, so no alias table, text or rule can have been written for it. Then every text
that names the coverage (what the assistant does, the clarifying question, the scope
refusal) names it, and its figures are answered from the right column with the printed
page cited.
"""

import re
from collections.abc import Callable
from pathlib import Path

from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client

import worker as registry
from activities.contracts import CompanyDetails, IngestRequest, IngestResult
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from testkit.reportgen import write_report
from tests.conftest import CORPUS_DIR, Turns, WorkerFactory, unique
from workflows.ingest import IngestDocuments

ROOT = Path(__file__).resolve().parents[2]
NAME = "Kestrel Bay Minerals"
TICKER = "KBM"


async def _ingest(client: Client, task_queue: str, request: IngestRequest) -> IngestResult:
    return await client.execute_workflow(
        IngestDocuments.run, request, id=unique("ingest"), task_queue=task_queue
    )


def test_the_new_company_is_in_no_product_file() -> None:
    skipped = {"tests", ".venv", "node_modules", ".git"}
    sources = [
        p
        for p in ROOT.rglob("*")
        if p.suffix in (".py", ".toml", ".md", ".sql", ".js", ".html")
        and not skipped & set(p.relative_to(ROOT).parts)
    ]
    assert len(sources) > 50
    for path in sources:
        text = path.read_text(encoding="utf-8", errors="replace").lower()
        assert not re.search(r"kestrel\s+bay|\bkbm\b", text), f"{path} names the company"


async def test_a_new_company_is_registered_with_its_report_and_answered(
    temporal_client: Client,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    tmp_path: Path,
) -> None:
    report = write_report(tmp_path / "kestrel-2022.pdf", NAME, 2022, pages=24, seed=3)
    revenue = {f.fiscal_year: f for f in report.figures if f.label == "Revenue"}
    index = make_report_index()
    async with worker(activities=registry.activities(index, pool, OfflineEngine())) as tq:
        ingested = await _ingest(
            temporal_client,
            tq,
            IngestRequest(
                paths=[str(report.path)],
                company=TICKER,
                fiscal_year=2022,
                details=CompanyDetails(name=NAME, currency="A$", commodities=["gold"]),
            ),
        )
        sample = await _ingest(
            temporal_client, tq, IngestRequest(paths=[str(CORPUS_DIR / "BHP_FY2024.md")])
        )
        turns = turns_on(tq)
        current = await turns.ask(f"What was {NAME}'s revenue in FY2022?")
        misspelt = await turns.ask("What was Kestral Bay Minerals revenue in FY2022?")
        help_ = await turns.ask("What can you do?")
        vague = await turns.ask("What was their revenue?")
        advice = await turns.ask(f"Should I buy {TICKER} shares?")
        other = await turns.ask("What was BHP's revenue in FY2024?")

    assert [f.status for f in ingested.files] == ["ingested"], ingested
    assert [f.status for f in sample.files] == ["ingested"], sample

    # Its figure, from the current-year column, cited to the page printed on it.
    for result in (current, misspelt):
        assert result.status == "answered", result
        answer = result.answer or ""
        assert revenue[2022].text in answer, answer
        assert revenue[2021].text not in answer, "the comparative column is the prior year"
        assert any(
            c.company == TICKER and c.page == revenue[2022].printed_page for c in result.citations
        ), result.citations
    # Every text that names the coverage names it, with the sample company beside it.
    assert help_.status == "answered"
    assert f"{NAME} ({TICKER})" in (help_.answer or "") and "BHP Group" in (help_.answer or "")
    assert "FY2022" in (help_.answer or "") and "Rio Tinto" not in (help_.answer or "")
    assert vague.status == "needs_clarification"
    assert NAME in (vague.clarifying_question or ""), vague.clarifying_question
    assert advice.status == "refused"
    assert NAME in (advice.answer or "") and "Fortescue" not in (advice.answer or "")
    # The sample company is answered as before.
    assert other.status == "answered" and "55,658" in (other.answer or ""), other.answer

    async with pool.connection() as conn:
        row = await (
            await conn.execute(
                "SELECT name, aliases, currency, commodities FROM companies"
                " WHERE corpus = %s AND ticker = %s",
                (index.corpus_id, TICKER),
            )
        ).fetchone()
    assert row is not None
    assert row[0] == NAME and "kestrel bay minerals" in row[1]
    assert (row[2], row[3]) == ("A$", ["gold"])


async def test_the_miners_are_the_companies_whose_registry_says_they_mine(
    temporal_client: Client,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    tmp_path: Path,
) -> None:
    """ "Which miner had the lowest net debt?" listed every registered company, a water
    utility and a retailer among them. A company registered with no commodities (a water
    utility no code knows) is no miner: a question over "the miners" leaves it out, one
    over "the companies" keeps it."""
    utility = write_report(
        tmp_path / "corbett-2024.pdf", "Corbett Springs Water", 2024, pages=16, seed=11
    )
    index = make_report_index()
    async with worker(activities=registry.activities(index, pool, OfflineEngine())) as tq:
        ingested = await _ingest(
            temporal_client,
            tq,
            IngestRequest(
                paths=[str(utility.path)],
                company="CSW",
                fiscal_year=2024,
                details=CompanyDetails(name="Corbett Springs Water", currency="A$"),
            ),
        )
        for report in ("BHP_FY2024.md", "FMG_FY2024.md"):
            await _ingest(temporal_client, tq, IngestRequest(paths=[str(CORPUS_DIR / report)]))
        turns = turns_on(tq)
        miners = await turns.ask("Which miner had the highest revenue in FY2024?")
        everyone = await turns.ask("Which company had the highest revenue in FY2024?")
    assert [f.status for f in ingested.files] == ["ingested"], ingested
    assert miners.status == "answered", miners
    assert {c.company for c in miners.citations} == {"BHP", "FMG"}, miners.citations
    assert "Corbett" not in (miners.answer or "") and "CSW" not in str(miners.not_found)
    assert "BHP Group had the highest revenue in FY2024" in (miners.answer or "")
    assert "CSW" in {c.company for c in everyone.citations}, everyone.citations
