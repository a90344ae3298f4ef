"""Whole turns over a real annual report, ingested as `turnstile ingest report.pdf` does.

Kelly Partners Group's FY2022 report (`asx/`) is ingested by the IngestDocuments
workflow with no company, year or currency given: who and when are read from its first
pages. Its cash flow statement prints, in the FY2022 column, the cash at the beginning
of the year (A$776,662: FY2021's closing figure) and, beside every figure, the FY2021
comparative: the figures a reader bound by position would show as FY2022's. Both
engines' turns are checked: the offline engine answers from the figures bound to FY2022,
and a model that drafts an FY2021 figure as FY2022's has it refuted and withheld by the
final gate, on the real statement.
"""

import re
from collections.abc import Callable, Iterator

import pytest
from psycopg_pool import AsyncConnectionPool
from temporalio.client import Client

from activities.contracts import IngestRequest
from backends.engines.offline.engine import OfflineEngine
from backends.reports import ReportIndex
from db import companies as companies_db
from testkit.asx_suite import REPORTS
from testkit.fake_servers import Body, Brain, FakeOpenAI, block_with, question_of
from tests.conftest import Turns, WorkerFactory, model_engine, unique
from workflows.ingest import IngestDocuments

KPG = REPORTS / "ASX-KPG_KellyPartnersGroup_AnnualReport_FY2022.pdf"
QUESTION = "What was Kelly Partners Group's cash and cash equivalents at the end of FY2022?"
FY2021_CASH = ("4,039,976", "776,662")
"""FY2021's cash (balance sheet) and FY2021's closing cash (cash flow statement), both
printed in the FY2022 report."""


@pytest.fixture(scope="module")
def fake() -> Iterator[FakeOpenAI]:
    with FakeOpenAI().running() as server:
        yield server


class Reader(Brain):
    """A model's routing for a question about any company named (Brain's own names only
    the sample companies)."""

    def route(self, body: Body) -> Body:
        return {
            "out_of_scope": False,
            "needs_retrieval": True,
            "needs_clarification": False,
            "clarifying_question": None,
            "direct_answer": None,
        }


async def test_a_report_ingested_with_no_flags_is_registered_as_its_pages_say_and_answered(
    temporal_client: Client,
    worker: WorkerFactory,
    make_report_index: Callable[[], ReportIndex],
    pool: AsyncConnectionPool,
    turns_on: Callable[[str], Turns],
    fake: FakeOpenAI,
) -> None:
    # long: one ingestion, then a turn per engine and per draft over the same index.
    import worker as registry

    index = make_report_index()
    async with worker(activities=registry.activities(index, pool, OfflineEngine())) as tq:
        ingested = await temporal_client.execute_workflow(
            IngestDocuments.run,
            IngestRequest(paths=[str(KPG)]),
            id=unique("ingest-kpg"),
            task_queue=tq,
        )
        offline = await turns_on(tq).ask(QUESTION)
    (file,) = ingested.files
    assert file.status == "ingested", file
    assert file.identified == (
        "read from its first pages: Kelly Partners Group Holdings Limited (KPG), in A$;"
        " FY2022, year ended 30 June 2022"
    )
    async with pool.connection() as conn:
        registered = {c.ticker: c for c in await companies_db.registered(conn, index.corpus_id)}
    kpg = registered["KPG"]
    assert (kpg.name, kpg.currency, kpg.year_end) == (
        "Kelly Partners Group Holdings Limited",
        "A$",
        "06-30",
    )

    # The offline engine: FY2022's figure, never FY2021's shown as FY2022's.
    answer = offline.answer or ""
    assert offline.status == "answered", offline
    assert "2,968,829" in answer or "1,003,946" in answer, answer
    assert not any(f in answer for f in FY2021_CASH), answer

    # A model engine: the honest draft is shown; a draft giving an FY2021 figure as
    # FY2022's (the comparative column, or the cash at the beginning of FY2022) is
    # refuted by the numeric check against the statement's periods and withheld.
    for figure, shown in (("2,968,829", True), *((f, False) for f in FY2021_CASH)):
        fake.queue.clear()
        fake.responders.clear()
        brain = Reader(fake)

        def draft(body: Body, figure: str = figure) -> str:
            n = block_with(body, figure)
            return (
                f"Kelly Partners Group's cash and cash equivalents at the end of FY2022 "
                f"(30 June 2022) were A${figure} [{n}]."
            )

        brain.writes(draft)
        async with worker(activities=registry.activities(index, pool, model_engine(fake))) as tq:
            turns = turns_on(tq)
            turns.in_process = False
            result = await turns.ask(QUESTION)
        said = result.answer or ""
        assert question_of  # the brain read the question the engine sent
        if shown:
            assert result.status == "answered" and figure in said, result
            assert result.unsupported_claims == [], result
        else:
            assert not re.search(rf"A\${re.escape(figure)}\b(?! \[)", said.split("removed")[0]), (
                said
            )
            assert figure not in said, (figure, said)
